//! Who is PID 1 when a container's command is a shell, and whether its stop signal
//! reaches the program that does the container's job (docs/lifecycle.md §2.7).
//!
//! The runtime signals the container's PID 1 only. A shell stays PID 1 unless it
//! replaces itself with its last command, which shells do for a `-c` string only and
//! each in its own cases; a shell that stays has no SIGTERM handler unless the script
//! traps TERM, and the kernel drops a signal for which a namespace's init has no
//! handler. The program the shell waits on, and anything it started in the
//! background, gets nothing until the SIGKILL at the end of the grace period.
//!
//! Which shells replace themselves, measured (bash 5.2.15, Debian dash 0.5.12, BusyBox
//! 1.35 ash, zsh 5.9) and read in their sources:
//! - bash (`builtins/evalstring.c`, `should_suppress_fork` and, from bash-5.1,
//!   `optimize_connection_fork`): the last simple command of the string, also after
//!   `;`, `&&` or `||`, with no redirection and no trap set; not one after `&`.
//! - BusyBox ash (`shell/ash.c`, `evalstring` with `EV_EXIT`, 1_36_1) and upstream dash:
//!   the last simple command, also inside `if` branches, redirections and all, with no
//!   trap whose action is not empty, and only when nothing follows it in the string: a
//!   string ending in a newline (a YAML `|` block) is not replaced (`parser_eof()`).
//! - Debian's and Ubuntu's dash never replace themselves: their package turns the
//!   optimisation off (measured with strace).
//! - zsh and ksh: the last simple command, with no trap set.
//!
//! No shell replaces itself with the last command of a script *file*.

use super::parse::parse;
use super::syntax::{AndOr, Command, List, Pipeline, SimpleCommand, basename};

/// The shell that reads a script, as far as replacing itself goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellFamily {
    /// GNU bash, taken as 5.1 or later (also `sh` in RHEL, UBI, Fedora, Amazon Linux).
    Bash,
    /// dash as Debian and Ubuntu build it (their `sh`): never replaces itself.
    DebianDash,
    /// BusyBox ash (`sh` in Alpine and BusyBox images).
    BusyboxAsh,
    /// zsh, ksh.
    Other,
}

/// How the shell's family is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FamilyKnown {
    /// The command names the shell (`bash`, `dash`, `busybox sh`).
    Named,
    /// `sh` in an image whose name tells its distribution.
    FromImage,
    /// `sh` in an image the name of which tells nothing: taken as Debian's dash, the
    /// `sh` of the Debian-based images most official images are built on.
    Assumed,
}

/// A shell a container runs, and the script it reads.
#[derive(Clone, Copy, Debug)]
pub struct ShellRun<'a> {
    /// The shell as the command names it (`sh`, `/bin/bash`, `busybox`).
    pub shell: &'a str,
    /// The script.
    pub script: &'a str,
    /// The script is a file the shell runs (`sh /scripts/run.sh`, a file with a
    /// `#!/bin/sh` line), not a `-c` string.
    pub file: bool,
}

/// A shell that stays PID 1 with no handler for SIGTERM: the signal is dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellPid1 {
    /// The shell, by basename (`sh`, `bash`).
    pub shell: String,
    /// Its family, and how that is known.
    pub family: (ShellFamily, FamilyKnown),
    /// Why it does not replace itself with its last command.
    pub stays: Stays,
    /// The command it waits on while it runs, as written (`java -jar app.jar`); for a
    /// loop, the first command in it that is not a builtin or `sleep`, if any.
    pub waits_on: Option<String>,
    /// Commands it started with `&`, which no signal reaches either.
    pub background: Vec<String>,
    /// Why BusyBox's ash would stay PID 1 too; `None` when it would replace itself, so
    /// that a verdict on an `sh` taken as dash rests on that assumption.
    pub ash_stays: Option<Stays>,
}

/// Why a shell stays PID 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stays {
    /// It runs a script file.
    ScriptFile,
    /// Debian's dash never replaces itself.
    NeverReplaces,
    /// The last command is not one it can replace itself with.
    LastCommand(Last),
    /// A trap is set (on these conditions), so it stays to run it.
    Trap(Vec<String>),
    /// bash: the last command has a redirection.
    Redirection,
    /// bash: the last command follows a background job (`proxy & app`).
    AfterBackground,
    /// ash: the script goes on after the last command (a trailing newline).
    TrailingNewline,
}

/// What a script ends with, when a shell cannot replace itself with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Last {
    /// Nothing at all.
    Nothing,
    /// A command started with `&`.
    BackgroundJob,
    /// A pipeline (`a | b`, `! a`).
    Pipeline,
    /// A call of a function the script defines.
    FunctionCall,
    /// A builtin the shell runs itself (`wait`, `echo`, `true`).
    Builtin,
    /// An `if` (bash, dash), or one without a branch.
    If,
    /// `{ …; }` or `( … )`.
    Group,
    /// `while`, `until` or `for`.
    Loop,
    /// A function definition.
    FunctionDefinition,
    /// A `case`.
    Case,
}

impl ShellFamily {
    /// The family of the shell named `shell` (a basename; `busybox` for `busybox sh`),
    /// given what the image says `sh` is.
    pub fn of(shell: &str, image_sh: Option<ShellFamily>) -> (ShellFamily, FamilyKnown) {
        match shell {
            "bash" => (ShellFamily::Bash, FamilyKnown::Named),
            "dash" => (ShellFamily::DebianDash, FamilyKnown::Named),
            "ash" | "busybox" => (ShellFamily::BusyboxAsh, FamilyKnown::Named),
            "zsh" | "ksh" | "mksh" => (ShellFamily::Other, FamilyKnown::Named),
            _ => match image_sh {
                Some(family) => (family, FamilyKnown::FromImage),
                None => (ShellFamily::DebianDash, FamilyKnown::Assumed),
            },
        }
    }
}

/// The shell that stays PID 1 without a SIGTERM handler, when `run`'s does; `None`
/// when the signal reaches a program that can handle it: the shell replaces itself
/// (`exec`, or on its own), or the script traps TERM.
pub fn stays_pid1(run: ShellRun, image_sh: Option<ShellFamily>) -> Option<ShellPid1> {
    let list = parse(run.script);
    let shell = basename(run.shell).to_owned();
    let family = ShellFamily::of(&shell, image_sh);
    let traps = traps(&list);
    if traps.iter().any(|(conditions, _)| catches_term(conditions)) || replaced_by_exec(&list) {
        return None;
    }
    let trapped: Vec<String> = traps
        .into_iter()
        .filter(|(_, action)| !action.is_empty() && action != "-")
        .flat_map(|(conditions, _)| conditions)
        .collect();
    let verdict = |family| replaces_itself(&list, run, family, &trapped);
    let stays = if run.file {
        Stays::ScriptFile
    } else {
        verdict(family.0).err()?
    };
    let (waits_on, background) = foreground_and_background(&list);
    Some(ShellPid1 {
        shell,
        family,
        ash_stays: if run.file {
            Some(Stays::ScriptFile)
        } else {
            verdict(ShellFamily::BusyboxAsh).err()
        },
        stays,
        waits_on,
        background,
    })
}

/// Whether a shell of `family` replaces itself with the last command of the `-c`
/// string `list`; `Err` says why not.
fn replaces_itself(
    list: &List,
    run: ShellRun,
    family: ShellFamily,
    trapped: &[String],
) -> Result<(), Stays> {
    if family == ShellFamily::DebianDash {
        return Err(Stays::NeverReplaces);
    }
    if !trapped.is_empty() {
        return Err(Stays::Trap(trapped.to_vec()));
    }
    let Some((last, items_before)) = list.0.split_last() else {
        return Err(Stays::LastCommand(Last::Nothing));
    };
    if last.background {
        return Err(Stays::LastCommand(Last::BackgroundJob));
    }
    let pipeline = last
        .rest
        .last()
        .map_or(&last.first, |(_, pipeline)| pipeline);
    let command = last_command(pipeline, list, family)?;
    match family {
        ShellFamily::Bash => {
            if items_before.last().is_some_and(|item| item.background) {
                return Err(Stays::AfterBackground);
            }
            if redirected(command, run.script) {
                return Err(Stays::Redirection);
            }
        }
        ShellFamily::BusyboxAsh => {
            if run.script.trim_end_matches([' ', '\t']).ends_with('\n') {
                return Err(Stays::TrailingNewline);
            }
        }
        ShellFamily::DebianDash | ShellFamily::Other => {}
    }
    Ok(())
}

/// The simple command a shell of `family` could replace itself with at the end of
/// `pipeline`, or why there is none.
fn last_command<'a>(
    pipeline: &'a Pipeline,
    list: &List,
    family: ShellFamily,
) -> Result<&'a SimpleCommand, Stays> {
    if pipeline.negated || pipeline.commands.len() > 1 {
        return Err(Stays::LastCommand(Last::Pipeline));
    }
    match &pipeline.commands[0] {
        Command::Simple(simple) => {
            let name = simple.name().unwrap_or_default();
            // A program named by its path (`/app/export`) is no builtin.
            let by_path = simple.argv().first().is_some_and(|w| w.0.contains('/'));
            if !by_path && defines_function(list, name) {
                return Err(Stays::LastCommand(Last::FunctionCall));
            }
            if name.is_empty() || !by_path && is_builtin(name) {
                return Err(Stays::LastCommand(Last::Builtin));
            }
            Ok(simple)
        }
        // ash carries its exec into the branches of an `if`; bash does not.
        Command::If {
            branches,
            otherwise,
        } if family == ShellFamily::BusyboxAsh => {
            let bodies = branches.iter().map(|(_, body)| body).chain(otherwise);
            let mut found = None;
            for body in bodies {
                let Some(item) = body.0.last() else { continue };
                let pipeline = item.rest.last().map_or(&item.first, |(_, p)| p);
                found = Some(last_command(pipeline, list, family)?);
            }
            found.ok_or(Stays::LastCommand(Last::If))
        }
        Command::If { .. } => Err(Stays::LastCommand(Last::If)),
        Command::Group(_) => Err(Stays::LastCommand(Last::Group)),
        Command::Loop { .. } | Command::For { .. } => Err(Stays::LastCommand(Last::Loop)),
        Command::Function { .. } => Err(Stays::LastCommand(Last::FunctionDefinition)),
        Command::Case => Err(Stays::LastCommand(Last::Case)),
    }
}

/// Shell builtins a script ends with: the shell runs them itself, it cannot become them.
fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "wait"
            | "read"
            | ":"
            | "true"
            | "false"
            | "exit"
            | "echo"
            | "printf"
            | "cd"
            | "set"
            | "export"
            | "test"
            | "["
            | "kill"
            | "trap"
            | "return"
            | "shift"
            | "unset"
    )
}

/// Whether `list` defines a function called `name`.
fn defines_function(list: &List, name: &str) -> bool {
    list.0
        .iter()
        .flat_map(AndOr::pipelines)
        .flat_map(|pipeline| &pipeline.commands)
        .any(
            |command| matches!(command, Command::Function { name: defined, .. } if defined == name),
        )
}

/// Whether an `exec` with a program replaces the shell at the top level of `list`.
fn replaced_by_exec(list: &List) -> bool {
    list.0.iter().any(|item| {
        !item.background
            && item.pipelines().any(|pipeline| {
                pipeline.commands.len() == 1
                    && matches!(&pipeline.commands[0], Command::Simple(simple)
                        if simple.words.first().is_some_and(|w| w.0 == "exec")
                            && simple.words.len() > 1)
            })
    })
}

/// The `trap ACTION CONDITION…` commands of `list`'s top level: their conditions and
/// action.
fn traps(list: &List) -> Vec<(Vec<String>, String)> {
    list.simple_commands()
        .into_iter()
        .filter(|command| command.name() == Some("trap"))
        .filter_map(|command| {
            let words: Vec<&str> = command.words[1..]
                .iter()
                .map(|w| w.0.as_str())
                .skip_while(|w| *w == "--")
                .collect();
            let (action, conditions) = words.split_first()?;
            Some((
                conditions.iter().map(|c| (*c).to_owned()).collect(),
                (*action).to_owned(),
            ))
        })
        .collect()
}

/// Whether a trap on `conditions` catches SIGTERM.
fn catches_term(conditions: &[String]) -> bool {
    conditions.iter().any(|condition| {
        let condition = condition.to_ascii_uppercase();
        matches!(condition.as_str(), "TERM" | "SIGTERM" | "15")
    })
}

/// Whether `command`, as written in `script`, has a redirection (`>`, `<`, `2>&1`)
/// outside quotes and before any comment.
fn redirected(command: &SimpleCommand, script: &str) -> bool {
    let Some(text) = script.get(command.span.clone()) else {
        return false;
    };
    let mut quote = None;
    let mut escaped = false;
    let mut previous = ' ';
    for c in text.chars() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"') | None, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if previous.is_whitespace() => return false,
            (None, '<' | '>') => return true,
            _ => {}
        }
        previous = c;
    }
    false
}

/// The command the shell waits on last (its last foreground command) and the commands
/// it starts in the background, as written.
fn foreground_and_background(list: &List) -> (Option<String>, Vec<String>) {
    let text = |item: &AndOr| -> Option<String> {
        let pipeline = item.rest.last().map_or(&item.first, |(_, p)| p);
        match pipeline.commands.last()? {
            Command::Simple(simple) => Some(simple.text()),
            other => List::of(other.clone())
                .simple_commands()
                .into_iter()
                .find(|c| {
                    !c.name()
                        .is_none_or(|name| name == "sleep" || is_builtin(name))
                })
                .map(SimpleCommand::text),
        }
    };
    let does_work = |item: &&AndOr| {
        !item.background
            && item
                .pipelines()
                .flat_map(|p| &p.commands)
                .any(|command| match command {
                    Command::Simple(simple) => {
                        simple.argv().first().is_some_and(|w| w.0.contains('/'))
                            || !simple.name().is_none_or(is_builtin)
                    }
                    _ => true,
                })
    };
    let foreground = list.0.iter().rev().find(does_work);
    let background = list
        .0
        .iter()
        .filter(|item| item.background)
        .filter_map(text)
        .collect();
    (foreground.and_then(text), background)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(shell: &str, script: &str) -> Option<ShellPid1> {
        stays_pid1(
            ShellRun {
                shell,
                script,
                file: false,
            },
            None,
        )
    }

    fn stays(shell: &str, script: &str) -> Option<Stays> {
        run(shell, script).map(|pid1| pid1.stays)
    }

    /// The table of docs/lifecycle.md §2.7, as measured.
    #[test]
    fn which_shells_replace_themselves() {
        for script in [
            "sleep 30",
            "true; sleep 30",
            "true && sleep 30",
            "sleep 30\n",
        ] {
            assert_eq!(stays("bash", script), None, "bash: {script:?}");
        }
        assert_eq!(
            stays("bash", "sleep 30 > /dev/null"),
            Some(Stays::Redirection)
        );
        assert_eq!(
            stays("bash", "sleep 2 & sleep 30"),
            Some(Stays::AfterBackground)
        );
        assert_eq!(stays("bash", "sleep 2 & true; sleep 30"), None);
        assert_eq!(
            stays("bash", "sleep 30 && true"),
            Some(Stays::LastCommand(Last::Builtin))
        );
        assert_eq!(
            stays("bash", "trap 'echo x' EXIT; sleep 30"),
            Some(Stays::Trap(vec!["EXIT".into()]))
        );
        assert_eq!(stays("bash", "trap '' USR1; sleep 30"), None);
        for script in ["sleep 30", "true; sleep 30", "sleep 30 > /dev/null"] {
            assert_eq!(stays("busybox", script), None, "ash: {script:?}");
            assert_eq!(
                stays("dash", script),
                Some(Stays::NeverReplaces),
                "dash: {script:?}"
            );
        }
        assert_eq!(stays("busybox", "sleep 2 & sleep 30"), None);
        assert_eq!(stays("ash", "if true; then sleep 30; fi"), None);
        assert_eq!(stays("ash", "sleep 30\n"), Some(Stays::TrailingNewline));
        assert_eq!(
            stays("ash", "while true; do sleep 30; done"),
            Some(Stays::LastCommand(Last::Loop))
        );
        assert_eq!(stays("zsh", "sleep 2 & sleep 30"), None);
    }

    #[test]
    fn exec_and_term_traps_let_the_signal_through() {
        assert_eq!(run("dash", "cd /app; exec ./serve"), None);
        assert_eq!(
            run("sh", "trap 'kill -TERM $pid' TERM; ./serve & pid=$!; wait"),
            None
        );
        assert_eq!(run("sh", "trap 'exit 0' SIGTERM INT; ./serve"), None);
        // `exec` with only redirections keeps the shell.
        assert!(run("dash", "exec > /tmp/log; ./serve").is_some());
    }

    #[test]
    fn a_shell_in_an_unknown_image_is_taken_as_debian_dash() {
        let pid1 = run("sh", "java -jar app.jar").expect("stays");
        assert_eq!(pid1.family, (ShellFamily::DebianDash, FamilyKnown::Assumed));
        assert_eq!(pid1.ash_stays, None);
        assert_eq!(pid1.waits_on.as_deref(), Some("java -jar app.jar"));
        let alpine = stays_pid1(
            ShellRun {
                shell: "sh",
                script: "java -jar app.jar",
                file: false,
            },
            Some(ShellFamily::BusyboxAsh),
        );
        assert_eq!(alpine, None);
    }

    #[test]
    fn a_proxy_in_the_background_is_named() {
        let pid1 = run("bash", "cloud_sql_proxy -instances=x & ./app --port 8080").unwrap();
        assert_eq!(pid1.stays, Stays::AfterBackground);
        assert_eq!(pid1.background, ["cloud_sql_proxy -instances=x"]);
        assert_eq!(pid1.waits_on.as_deref(), Some("./app --port 8080"));
        assert_eq!(pid1.ash_stays, None);
    }

    #[test]
    fn a_script_file_is_never_replaced() {
        let file = |script| {
            stays_pid1(
                ShellRun {
                    shell: "bash",
                    script,
                    file: true,
                },
                None,
            )
        };
        assert_eq!(file("./serve").map(|p| p.stays), Some(Stays::ScriptFile));
        assert_eq!(file("exec ./serve"), None);
        assert_eq!(file("trap 'kill $!' TERM\n./serve & wait"), None);
        assert_eq!(file("./serve").unwrap().ash_stays, Some(Stays::ScriptFile));
    }
}
