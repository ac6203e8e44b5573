use crate::resolve::PlannedContainer;
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
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
    /// `lint --fix` makes no change: that the image lacks the program is a guess from
    /// its name, and a hook that does more than sleep has no `sleep` action to become;
    /// the other remedy is a new image.
    ///
    /// ## References
    /// - docs/lifecycle.md §2.3 (the sleep action runs in the kubelet), §2.2, §1.1 (a failed postStart kills the container)
    /// - https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/
    pub struct PrestopNeedsShell {
        id: "ML208",
        name: "prestop-needs-shell",
        severity: Warning,
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
                findings.push(
                    Finding::new(
                        &violation,
                        Label::key(path.key("exec").key("command"), format!("runs `{program}`")),
                    )
                    .container(&container.name),
                );
            }
        }
    }
}
