//! Every program the tool runs — `helm` and `kubectl kustomize` to render a directory,
//! `kubectl` to read a cluster, `git` to read a revision — is started here, and only
//! here (`tests/it/hostile.rs` fails on a `Command` built anywhere else).
//!
//! Two guarantees hold for each of them:
//!
//! * **Nothing from an input is read as an option.** A command line is built as
//!   [`Args`]: the words and options the tool's own source spells, options whose value
//!   is glued to them (`--namespace=VALUE`), then the operands, after `--` for the
//!   programs that take it and, for paths, written `./name` when relative. A word that
//!   comes from an input and cannot be put past `--` (a git revision) is refused when it
//!   begins with `-`. A chart's name from its `Chart.yaml`, a directory the search found
//!   (`--enable-alpha-plugins/`), a namespace in a kubeconfig: none can become a flag.
//! * **No call runs unbounded.** [`run`] stops a program at its deadline, with every
//!   process it started (it runs in a process group of its own), reads what it prints
//!   up to a limit, and keeps a bounded part of its standard error.
//!
//! The completion helper (`src/bin/kubectl_complete-mesh_lifecycle.rs`) is the one
//! exception: it does not link the library, and hands the words the user typed on to
//! the plugin's own `__complete`, as kubectl gave them.

mod args;
mod run;
mod timeout;

pub use args::{Args, CommandLine, OptionLike};
pub use run::{Call, CallBounds, Ended, Finished, Stdin, run};
pub use timeout::Timeout;
