use serde_json::Value as Json;

use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::shell::{FamilyKnown, Last, ShellFamily, Stays, exec_last};
use crate::resolve::{DroppedSignal, PlannedContainer, Role};
use crate::rules::help::quoted_list;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Severity, Violation, declare_rule};
use crate::simulate::{Phase, StopEntry};
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A container whose PID 1 is a shell that stays PID 1 and has no `trap` on TERM:
    /// the stop signal never reaches the program that does the container's job. The
    /// shell stays when it runs a script file (always), when it is Debian's or
    /// Ubuntu's `sh` (dash there never replaces itself with its last command), or when
    /// the script's last command is one it cannot replace itself with: a loop, a
    /// pipeline, a group, a builtin, a command after a trap is set; for bash also one
    /// with a redirection or after `&`; for BusyBox's `sh` (Alpine) also a `-c` script
    /// that goes on after it, as a YAML `|` block does with its final newline. It
    /// reads `sh -c` scripts written in the manifest and scripts run from a ConfigMap of
    /// the input; `sh` in an image whose name does not tell its distribution is taken
    /// as Debian's dash, and the finding says so. Checked for long-running apps and for
    /// sidecars; a Job's work runs to its end and is not checked. A container whose
    /// command only waits (a loop of `sleep`, `tail -f`) is reported as information,
    /// unless it holds a Job: it has nothing to shut down, and loses only the time its
    /// deletion takes.
    ///
    /// ## Why it loses traffic
    /// The runtime sends the stop signal to PID 1 only, and the kernel drops a signal
    /// for which a PID namespace's init has no handler; the shell does not pass it on
    /// to the program it waits on, nor to anything it started with `&`
    /// (docs/lifecycle.md §2.7). The app never starts its shutdown: it keeps running,
    /// and calling out after its proxy has gone, until SIGKILL at the end of the grace
    /// period, which then cuts whatever it was doing; every deletion and rollout waits
    /// the whole grace period. A proxy started in the background never drains. A native
    /// sidecar in that shape holds its Job until its SIGKILL. With
    /// `shareProcessNamespace: true` the shell is not a namespace's init: SIGTERM ends
    /// it at once, and the runtime kills its program with it, without a shutdown.
    ///
    /// ## Example
    /// ```yaml
    /// containers:
    /// - name: api
    ///   image: example/api:1.0        # Debian-based: `sh` is dash
    ///   command: ["sh", "-c", "./migrate && ./serve --port 8080"]
    /// ```
    ///
    /// ## Fix
    /// Make the program PID 1 with `exec`, or trap TERM and pass it on:
    /// ```yaml
    /// command: ["sh", "-c", "./migrate && exec ./serve --port 8080"]
    /// # or pass it on:
    /// #   trap 'kill -TERM "$pid"; wait "$pid"' TERM
    /// #   ./serve & pid=$!; wait "$pid"
    /// ```
    ///
    /// `lint --fix --unsafe-fixes` (unsafe) writes `exec` before the last command of
    /// the `sh -c` script, where that command is a plain simple command at the script's
    /// top level, alone or last of an `&&`/`||` chain, and the script sets no trap (a
    /// replaced shell runs none). Unsafe because the program then is PID 1: it gets
    /// SIGTERM and must handle it (as PID 1 it ignores a signal it has no handler for,
    /// as the shell did), and it reaps no orphans a shell would have. A script from a
    /// ConfigMap gets no fix: it is edited in the ConfigMap.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its warning. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): info, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the warning).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.7 (PID 1, shells and SIGTERM), §2.2 (grace accounting)
    /// - man-pages `pid_namespaces(7)`; Linux `kernel/signal.c`, `sig_task_ignored`
    /// - bash `builtins/evalstring.c`, `should_suppress_fork`; BusyBox `shell/ash.c`, `evalstring`
    pub struct ShellDropsSigterm {
        id: "ML210",
        name: "shell-drops-sigterm",
        severity: Warning,
        fix: Sometimes,
        group: Termination,
        summary: "PID 1 is a shell that drops SIGTERM: the program runs until SIGKILL",
        since: "0.1.0",
    }
}

/// A container whose shell drops its stop signal.
struct Dropped<'a> {
    container: &'a PlannedContainer,
    dropped: &'a DroppedSignal,
    /// Its stop on deletion.
    entry: &'a StopEntry,
    /// For a native sidecar of a Job: when the Job completes, held by its SIGKILL.
    job_completes: Option<Millis>,
}

impl Dropped<'_> {
    /// What the shell runs, for messages: the script file, or `sh`.
    fn shell(&self) -> String {
        match &self.dropped.file {
            Some(file) => format!(
                "`{}` running `{}` (ConfigMap `{}`)",
                self.dropped.shell.shell, file.path, file.config_map
            ),
            None => format!("`{}`", self.dropped.shell.shell),
        }
    }

    /// Why the shell stays PID 1.
    fn why(&self) -> String {
        let pid1 = &self.dropped.shell;
        match (&pid1.stays, pid1.family.1, &pid1.ash_stays) {
            (Stays::NeverReplaces, FamilyKnown::Assumed, None) => "`sh` is taken as Debian's dash (the image's name does not tell its distribution), which never replaces itself with its last command; BusyBox's `sh` (Alpine) would".to_owned(),
            (Stays::NeverReplaces, FamilyKnown::Assumed, Some(ash)) => format!(
                "whichever `sh` the image has: Debian's dash never replaces itself with its last command, and BusyBox's (Alpine) does not here either: {}",
                stays(ash)
            ),
            (reason, ..) => stays(reason),
        }
    }
}

/// Why a shell stays PID 1, in words.
fn stays(reason: &Stays) -> String {
    match reason {
        Stays::ScriptFile => {
            "a shell running a script file never replaces itself with its last command".to_owned()
        }
        Stays::NeverReplaces => {
            "Debian's and Ubuntu's dash never replaces itself with its last command".to_owned()
        }
        Stays::LastCommand(last) => format!(
            "the script ends with {}, which it cannot replace itself with",
            match last {
                Last::Nothing => "no command",
                Last::BackgroundJob => "a background job",
                Last::Pipeline => "a pipeline",
                Last::FunctionCall => "a call of one of its functions",
                Last::Builtin => "a shell builtin",
                Last::If => "an `if`",
                Last::Group => "a group",
                Last::Loop => "a loop",
                Last::FunctionDefinition => "a function definition",
                Last::Case => "a `case`",
            }
        ),
        Stays::Trap(conditions) => format!(
            "it stays to run its trap on {}, and has none on TERM",
            quoted_list(conditions, ", ")
        ),
        Stays::Redirection => {
            "bash does not replace itself with a last command that has a redirection".to_owned()
        }
        Stays::AfterBackground => {
            "bash does not replace itself with a last command that follows `&`".to_owned()
        }
        Stays::TrailingNewline => "BusyBox's `sh` does not replace itself with a last command the script goes on after (the newline a `|` block ends with)".to_owned(),
    }
}

impl Violation for Dropped<'_> {
    const RULE: &'static RuleMeta = &ShellDropsSigterm::META;

    fn message(&self) -> String {
        let pid1 = &self.dropped.shell;
        let program = pid1
            .waits_on
            .as_ref()
            .map_or_else(|| "what it runs".to_owned(), |c| format!("`{c}`"));
        let never = pid1.waits_on.as_ref().map_or_else(
            || "nothing it runs gets it".to_owned(),
            |c| format!("`{c}` never gets it"),
        );
        let fate = if self.dropped.shared_pids {
            format!(
                "with `shareProcessNamespace: true` the shell is not its namespace's init, so the SIGTERM at {} ends it and the runtime kills {program} with it, without a shutdown",
                self.entry.signal
            )
        } else {
            format!(
                "the kernel drops the SIGTERM at {} (a namespace's init gets only the signals it handles), so {never} and the container runs until SIGKILL at {}",
                self.entry.signal, self.entry.kill
            )
        };
        let background = if pid1.background.is_empty() {
            String::new()
        } else {
            format!(
                "; {} started in the background {} never signalled either",
                quoted_list(&pid1.background, ", "),
                if pid1.background.len() == 1 {
                    "is"
                } else {
                    "are"
                }
            )
        };
        let job = self
            .job_completes
            .map(|after| format!("; when the work is done the kubelet's SIGTERM is dropped too, and the Job completes only at its SIGKILL, {after} after the work"))
            .unwrap_or_default();
        format!(
            "`{}` runs {} as PID 1, and it stays PID 1: {}. With no `trap` on TERM, {fate}{background}{job}",
            self.container.name,
            self.shell(),
            self.why(),
        )
    }

    /// `exec` where the last command is one, else a trap that ends the shell's wait.
    fn help(&self) -> String {
        let where_ = match &self.dropped.file {
            Some(file) => format!(
                " in `{}` (ConfigMap `{}`, key `{}`)",
                file.path, file.config_map, file.key
            ),
            None => String::new(),
        };
        match (&self.dropped.shell.stays, &self.dropped.shell.waits_on) {
            (Stays::LastCommand(_) | Stays::Trap(_), program) | (_, program @ None) => format!(
                "trap TERM{where_} and make the shell's wait one it can leave: a trap runs only once the foreground command has ended, so run it in the background and `wait` (`trap 'kill -TERM \"$pid\" 2>/dev/null; exit 143' TERM` first, then `{} & pid=$!; wait \"$pid\"`)",
                program.as_deref().unwrap_or("sleep 3600")
            ),
            (_, Some(program)) => format!(
                "make the program PID 1: `exec {program}` as the last command{where_}; or pass the signal on: `trap 'kill -TERM \"$pid\"; wait \"$pid\"' TERM; {program} & pid=$!; wait \"$pid\"`"
            ),
        }
    }
}

impl Rule for ShellDropsSigterm {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for (id, container) in plan.containers.with_ids() {
            let Some(dropped) = &container.dropped_signal else {
                continue;
            };
            // A Job's work runs to its end; one that only stops the others is no app.
            if container.role == Role::App && plan.runs_to_completion() {
                continue;
            }
            let Some(entry) = pod.timeline.stop(id) else {
                continue;
            };
            let job_completes = pod
                .timeline
                .completion
                .as_ref()
                .zip(pod.timeline.containers[id].job.sidecar_stop.as_ref())
                .filter(|(_, stop)| stop.signal_dropped && stop.killed)
                .and_then(|(completion, _)| Some(completion.completes? - completion.work_done));
            let violation = Dropped {
                container,
                dropped,
                entry,
                job_completes,
            };
            let fix = dropped.script.as_ref().and_then(|script| {
                let fixed = exec_last(&script.script)?;
                Some(Remedy::new(
                    Applicability::Unsafe,
                    format!(
                        "write `exec` before the last command of `{}`'s script, so that it becomes PID 1 and gets SIGTERM",
                        container.name
                    ),
                    vec![Change::Set(script.item.clone(), Json::String(fixed))],
                ))
            });
            let note = match dropped.shell.family {
                (ShellFamily::DebianDash, FamilyKnown::Assumed) => {
                    format!(
                        "PID 1 `{}` (taken as dash) drops SIGTERM",
                        dropped.shell.shell
                    )
                }
                _ => format!("PID 1 `{}` drops SIGTERM", dropped.shell.shell),
            };
            // A container that only waits loses nothing but the time its deletion takes
            // (unless it holds a Job until its SIGKILL).
            let severity = if container.only_idles && job_completes.is_none() {
                Severity::Info
            } else {
                Self::META.severity
            };
            findings.push(
                Finding::new(&violation, Label::value(dropped.path.clone(), note))
                    .severity(severity)
                    .with_fix(fix)
                    .container(&container.name)
                    .window(
                        Phase::Termination,
                        entry.signal,
                        entry.exit,
                        Some(&container.name),
                    ),
            );
        }
    }
}
