//! A reader for the POSIX shell that lifecycle remedies are written in.
//!
//! preStop hooks, start gates and Job stop calls live in `sh -c` scripts. The reader
//! turns a container's `command`/`args` into a small syntax tree ([`parse`],
//! [`parse_argv`]): lists (`;`, newline, `&`), and-or chains (`&&`, `||`), pipelines,
//! simple commands, groups, `if`, `while`, `until`, `for`, functions and `trap`. It never
//! fails: text it cannot make sense of is kept as plain words, and nesting is bounded.
//!
//! Then it answers the questions the timeline depends on, one module each: how long a
//! hook lasts ([`length`]), whether an app waits for its proxy before starting
//! ([`start_gate`]), how a Job's work stops its sidecar and keeps its exit status
//! ([`stop_calls`]), whether a container only idles ([`only_idles`]) or only stops processes
//! ([`only_stops_processes`]), how long it sleeps before its first command
//! ([`leading_sleep`]), whether a Job's sidecar waits for a signal the work leaves and
//! then stops itself ([`awaited_signal`]), and whether an init container reaches the network
//! ([`network_use`]), and whether a shell that stays PID 1 drops the container's SIGTERM
//! ([`stays_pid1`]). Fixes rewrite a script with [`trap_stop_call`]. The script files a
//! script runs (`. FILE ARGS`, `bash FILE ARGS`) are found by [`file_calls`], for a
//! caller that holds their text to read them in place, bound to the call's arguments.

mod file_calls;
mod hook_length;
mod idle;
mod invocation;
mod leading_sleep;
mod lexer;
mod network;
mod parse;
mod pid1;
mod rewrite;
mod self_stop;
mod start_gate;
mod stop_calls;
mod stop_targets;
mod stopper;
mod syntax;

pub use file_calls::{bind_positional, file_calls};
pub use hook_length::{Env, Length, Sleep, length, sleep_length};
pub use idle::only_idles;
pub use invocation::{
    FileRun, Shebang, errexit, is_shell, parse_argv, script_file_run, script_index, set_errexit,
    shebang, shell_script,
};
pub use leading_sleep::leading_sleep;
pub use network::network_use;
pub use parse::parse;
pub use pid1::{FamilyKnown, Last, ShellFamily, ShellPid1, ShellRun, Stays, stays_pid1};
pub use rewrite::{exec_last, takes_exit_trap, trap_stop_call, with_exit_trap};
pub use self_stop::{Awaited, SelfStopWait, awaited_signal};
pub use start_gate::{GateWait, start_gate};
pub use stop_calls::{StopCall, stop_calls};
pub use stop_targets::{HttpMethod, Known, StopTarget};
pub use stopper::{only_stops_others, only_stops_processes};
pub use syntax::{
    AndOr, Command, Connector, List, LoopKind, Pipeline, SimpleCommand, Word, basename,
};
