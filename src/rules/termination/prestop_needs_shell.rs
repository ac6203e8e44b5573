use serde_json::json;

use crate::fix::{Applicability, Change, Remedy};
use crate::load::JsonPath;
use crate::resolve::{HookAction, PlannedContainer, PodPlan, sleep_action_problem};
use crate::rules::fixes::Proposal;
use crate::rules::{Finding, Label, Pod, Premise, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::version::KubeVersion;

declare_rule! {
    /// ## What it detects
    /// An exec hook that runs `sh`, `bash` or `sleep` in a container whose image most
    /// likely lacks it: distroless, static and scratch-based images have neither, the
    /// Linkerd proxy has `sleep` but no shell.
    ///
    /// ## Why it loses traffic
    /// The exec fails at once, so the preStop delay that was meant to cover endpoint
    /// propagation or the app's drain does not happen: the container gets SIGTERM
    /// immediately (docs/lifecycle.md §2.2), and a failed postStart kills the container
    /// (docs/lifecycle.md §1.1). The kubelet's own `sleep` action needs no binary in the image.
    ///
    /// ## Example
    /// ```yaml
    /// image: gcr.io/distroless/static-debian12
    /// lifecycle:
    ///   preStop:
    ///     exec: {command: ["/bin/sh", "-c", "sleep 5"]}
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// lifecycle:
    ///   preStop:
    ///     sleep: {seconds: 5}     # Kubernetes 1.30+
    /// ```
    /// Or build the image with the shell and `sleep` the hook runs.
    ///
    /// `lint --fix` (safe) rewrites a hook that only sleeps (`[sleep, "N"]`, or `sh -c`
    /// or `bash -c` running just `sleep N`) as the kubelet's `sleep` action where the
    /// Kubernetes version runs it (1.30+) and accepts those seconds, else as
    /// `exec: {command: [sleep, "N"]}` where the image lacks only the shell: the same
    /// delay, run by a program that is there. A hook that does more than sleep gets no
    /// fix: it has no `sleep` action to become, and the other remedy is a new image.
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its warning. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): info, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the warning).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.3 (the sleep action runs in the kubelet), §2.2, §1.1 (a failed postStart kills the container)
    /// - https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/
    pub struct PrestopNeedsShell {
        id: "ML208",
        name: "prestop-needs-shell",
        severity: Warning,
        fix: Sometimes,
        group: Termination,
        summary: "an exec hook needs a shell or sleep the image likely lacks",
        since: "0.1.0",
    }
}

/// A hook that runs a program its container's image most likely lacks.
struct MissingProgram<'a> {
    /// The container.
    container: &'a PlannedContainer,
    /// The program (`sh`, `sleep`).
    program: &'a str,
    /// The cluster's version, which decides whether the sleep action is available.
    kubernetes: KubeVersion,
}

impl Violation for MissingProgram<'_> {
    const RULE: &'static RuleMeta = &PrestopNeedsShell::META;

    fn message(&self) -> String {
        let image = self.container.image.as_deref().unwrap_or("its image");
        format!(
            "`{}` runs `{program}` in a hook, but `{image}` most likely has no `{program}`: the hook fails at once and its delay never happens",
            self.container.name,
            program = self.program,
        )
    }

    fn help(&self) -> String {
        if self.kubernetes.has_sleep_action() {
            "use the kubelet's sleep action instead: lifecycle.preStop.sleep: {seconds: N}"
                .to_owned()
        } else {
            format!(
                "use an image with a shell, or upgrade to Kubernetes 1.30+ for the sleep action (now {})",
                self.kubernetes
            )
        }
    }
}

impl Rule for PrestopNeedsShell {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for container in &plan.containers {
            for hook in [&container.pre_stop, &container.post_start]
                .into_iter()
                .flatten()
            {
                let (Some(program), Some(path)) =
                    (hook.missing_program(container.missing_tools), &hook.path)
                else {
                    continue;
                };
                let violation = MissingProgram {
                    container,
                    program,
                    kubernetes: plan.kubernetes.value,
                };
                let fix = match &hook.action {
                    HookAction::Exec(argv) => sleep_only(argv)
                        .and_then(|seconds| sleep_without(program, container, path, seconds, plan)),
                    _ => None,
                };
                findings.push(
                    Finding::new(
                        &violation,
                        Label::key(path.key("exec").key("command"), format!("runs `{program}`")),
                    )
                    .container(&container.name)
                    .with_proposal(fix),
                );
            }
        }
    }
}

/// The seconds of an exec hook that only sleeps: `[sleep, "N"]`, or a shell's `-c`
/// script that is `sleep N` alone.
fn sleep_only(argv: &[String]) -> Option<i64> {
    let words: Vec<&str> = match argv {
        [program, seconds] if crate::resolve::shell::basename(program) == "sleep" => {
            vec!["sleep", seconds.as_str()]
        }
        [shell, flag, script]
            if matches!(crate::resolve::shell::basename(shell), "sh" | "bash") && flag == "-c" =>
        {
            script.split_whitespace().collect()
        }
        _ => return None,
    };
    match words.as_slice() {
        ["sleep", seconds] => seconds.parse::<i64>().ok().filter(|s| *s >= 0),
        _ => None,
    }
}

/// The hook at `hook` as a sleep that does not need `program`: the kubelet's `sleep`
/// action where this version runs it with these seconds, else `exec` `sleep` where only
/// the shell is missing. Safe: the same delay; the `sleep` action rests on the
/// Kubernetes version when that is the default.
fn sleep_without(
    program: &str,
    container: &PlannedContainer,
    hook: &JsonPath,
    seconds: i64,
    plan: &PodPlan,
) -> Option<Proposal> {
    let version = plan.kubernetes.value;
    let mut rests_on = Vec::new();
    let (value, form) = if version.has_sleep_action()
        && sleep_action_problem(version, plan.grace_period.value, seconds).is_none()
    {
        if !plan.kubernetes.is_explicit() {
            rests_on.push(Premise::kubernetes_version(version));
        }
        (
            json!({"sleep": {"seconds": seconds}}),
            format!("the kubelet's `sleep: {{seconds: {seconds}}}`"),
        )
    } else if program != "sleep" && !container.missing_tools.sleep {
        (
            json!({"exec": {"command": ["sleep", seconds.to_string()]}}),
            format!("`exec: {{command: [sleep, \"{seconds}\"]}}`"),
        )
    } else {
        return None;
    };
    let remedy = Remedy::new(
        Applicability::Safe,
        format!("run the {seconds} s delay as {form}, which needs no `{program}` in the image"),
        vec![Change::Set(hook.clone(), value)],
    );
    Some((remedy, rests_on))
}
