use crate::load::JsonPath;
use crate::resolve::{ANNOTATION_PREFIX, ExitPolicy, HookDuration, Role};
use crate::resolve::{PlannedContainer, PodPlan};
use crate::rules::describe;
use crate::rules::help::{
    PendingRequests, container_label_path, exit_description, is_in_manifest, longer_grace,
};
use crate::rules::{Finding, Label, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::Source;
use crate::simulate::StopEntry;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// A container whose preStop hook plus its SIGTERM-to-exit time runs past
    /// `terminationGracePeriodSeconds`, so the kubelet's SIGKILL ends it first. For an
    /// Istio proxy the exit time is the drain (`terminationDrainDuration`); for an app
    /// it is its shutdown time (a scenario value, 5 s unless set). A verdict that rests
    /// on that assumed shutdown (an app with no preStop hook under a 1 s grace period,
    /// say) is reported all the same, at this rule's severity: the message names the
    /// assumption and how to set the app's real shutdown time
    /// (`mesh-lifecycle.io/app-shutdown` on the workload, `--app-shutdown`, or the config
    /// file's `scenario:`), after which the verdict is the app's own.
    ///
    /// ## Why it loses traffic
    /// preStop time counts against the grace period: the kubelet sends SIGTERM when the
    /// hook ends and SIGKILL when the remaining grace is used up (docs/lifecycle.md §2.2). A proxy
    /// killed mid-drain drops the connections it was draining; an app killed mid-shutdown
    /// drops its in-flight requests. The documented constraint is
    /// `preStop + terminationDrainDuration < terminationGracePeriodSeconds`.
    ///
    /// ## Example
    /// ```yaml
    /// terminationGracePeriodSeconds: 30
    /// # proxy.istio.io/config: terminationDrainDuration: 25s
    /// - name: istio-proxy
    ///   lifecycle:
    ///     preStop:
    ///       # SIGTERM at 10 s, drain until 35 s, SIGKILL at 30 s
    ///       exec: {command: [sleep, "10"]}
    /// ```
    ///
    /// ## Fix
    /// Raise the grace period above preStop plus drain, or shorten them:
    /// ```yaml
    /// terminationGracePeriodSeconds: 40
    /// ```
    ///
    /// `lint --fix` sets `terminationGracePeriodSeconds` on the
    /// pod spec, inserted when it is not set, to the shortest grace period with which
    /// every container of the pod exits on its own on the simulated timeline, plus
    /// headroom: the last
    /// exit with the period left open, in whole seconds rounded up (the next second
    /// when a container would exit just as the period ends). The scenario's margins are
    /// in that exit already: each preStop hook, the app's `app-shutdown`, the requests
    /// it finishes first (`longest-request`, taken until `endpoint-propagation`), each
    /// proxy's wait or drain, and native sidecars stopped in turn after the app.
    /// Endpoint propagation keeps no container running by itself (a proxy that refuses
    /// before it is ML203's), so it adds nothing more. The fixes' headroom goes on top
    /// (a fifth of the time needed, at least 5 s: 35 s becomes 42 s; docs/usage.md,
    /// "Values with headroom"), so the SIGKILL does not fall on the second the last
    /// container exits. Safe where the manifest gives every time the value adds up: the
    /// pod then exits on its own before the period ends, and only the SIGKILL goes;
    /// unsafe (`--unsafe-fixes`) where an app's default shutdown time moves the value,
    /// and its title says so. Not made
    /// when the grace period is not the pod's own (`--deletion-grace-period`: it is not
    /// in the file) or a hook never ends (no period is long enough).
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its error. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): warning, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the error).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.2 (grace accounting, the 2-second floor), §3.3 (a native Istio proxy whose drain preStop fails drains again on SIGTERM), §3.6 (pilot-agent drain), §5.1 (daprd's block), §5.2 (Consul's grace period, also for a native dataplane), §5.3 (Kuma: a classic sidecar waits its drain time, a native one exits at its SIGTERM), §6 (timing constraints), §8 (the assumed app shutdown); a shell that drops SIGTERM is ML210's (§2.7)
    /// - Alibaba Cloud ASM, "Why long-running requests fail after sidecar proxy injection"
    pub struct GracePeriodExceeded {
        id: "ML201",
        name: "grace-period-exceeded",
        severity: Error,
        fix: Sometimes,
        group: Termination,
        summary: "preStop plus drain or shutdown runs past the grace period: SIGKILL cuts it off",
        since: "0.1.0",
    }
}

/// A container SIGKILLed at the end of the grace period before it is done.
struct KilledBeforeExit<'a> {
    /// The container.
    container: &'a PlannedContainer,
    /// Its stop on the timeline.
    entry: &'a StopEntry,
    /// The requests that decide its exit, when they do.
    requests: Option<PendingRequests<'a>>,
    /// The grace period the deletion uses, in seconds.
    grace: i64,
    /// The pod, for the grace period to lengthen: its own, or the deletion's.
    plan: &'a PodPlan,
    /// The assumed app shutdown its exit rests on, when the app's own is not set.
    assumed_shutdown: Option<Millis>,
}

impl Violation for KilledBeforeExit<'_> {
    const RULE: &'static RuleMeta = &GracePeriodExceeded::META;

    fn message(&self) -> String {
        let (container, entry) = (self.container, self.entry);
        let lead = match &container.pre_stop {
            Some(hook) if entry.pre_stop_end.is_some_and(|end| end.0 > 0) => {
                let length = entry.pre_stop_end.unwrap_or_default();
                match hook.duration {
                    HookDuration::Fixed(_) => {
                        format!("preStop `{}` ({length}) then ", describe::hook(hook))
                    }
                    _ => format!("preStop `{}` (until {length}) then ", describe::hook(hook)),
                }
            }
            _ if entry.signal.0 > 0 => {
                format!("SIGTERM at {} (its turn after the app) then ", entry.signal)
            }
            _ => String::new(),
        };
        format!(
            "`{}` needs until {} to exit — {}{} — but the grace period of {} s ends in SIGKILL at {}: {} of its {} cut",
            container.name,
            entry.natural_exit,
            lead,
            match (self.requests, self.assumed_shutdown) {
                (Some(requests), _) => requests.to_string(),
                (None, Some(assumed)) => format!("app shutdown {assumed} (assumed)"),
                (None, None) => exit_description(container),
            },
            self.grace,
            entry.kill,
            entry.natural_exit - entry.kill,
            if container.is_proxy() {
                "drain is"
            } else {
                "shutdown is"
            },
        ) + &self
            .assumed_shutdown
            .map(|assumed| {
                format!(
                    "; the verdict rests on that assumed {assumed}: set the app's own shutdown time with the annotation `{ANNOTATION_PREFIX}app-shutdown: <duration>` on the workload, or `--app-shutdown`"
                )
            })
            .unwrap_or_default()
    }

    fn help(&self) -> String {
        let needed = self.entry.natural_exit.0.saturating_add(999) / 1000;
        // A sidecar whose drain after the signal is a setting of its own is told which.
        let drain_setting = self
            .container
            .sidecar()
            .filter(|_| matches!(self.container.exit, ExitPolicy::After(_)))
            .and_then(|sidecar| sidecar.kind.remedies().drain_setting);
        let what = match drain_setting {
            Some(setting) if self.container.is_proxy() => format!("the drain (`{setting}`)"),
            _ if self.container.is_proxy() => "the drain".to_owned(),
            _ => "the shutdown".to_owned(),
        };
        format!(
            "{}, or shorten the preStop hook or {what}",
            longer_grace(self.plan, needed)
        )
    }
}

impl Rule for GracePeriodExceeded {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        for (id, record) in pod.timeline.containers.with_ids() {
            let Some(entry) = &record.stop else { continue };
            // A hook that alone outlives the grace period is ML206's; a signal its shell
            // drops, ML210's.
            if !entry.killed || entry.pre_stop_cut || entry.signal_dropped {
                continue;
            }
            let container = &plan.containers[id];
            let pre_stop = container.pre_stop.as_ref();
            let requests = PendingRequests::of(plan, entry);
            // An app whose exit is only its shutdown time, which no one has set: the
            // verdict is still one, and it names the assumption it rests on.
            let assumed_shutdown = match &container.exit {
                ExitPolicy::After(length)
                    if container.role == Role::App
                        && requests.is_none()
                        && length.source == Source::Default =>
                {
                    Some(length.value)
                }
                _ => None,
            };
            // A container that only waits (`sleep infinity`) has no shutdown to cut:
            // its assumed one is no verdict.
            let exit_assumed = matches!(&container.exit,
                ExitPolicy::After(length) if length.source == Source::Default);
            if container.only_idles && exit_assumed && requests.is_none() {
                continue;
            }
            let violation = KilledBeforeExit {
                container,
                entry,
                requests,
                grace: plan.deletion_grace().value,
                plan,
                assumed_shutdown,
            };
            let exit_source = match &container.exit {
                ExitPolicy::After(length) => match &length.source {
                    Source::Manifest(path) => Some(path.clone()),
                    _ => None,
                },
                _ => None,
            };
            let hook_path = pre_stop.and_then(|h| h.finding_path().cloned());
            let exit_label = |path: JsonPath| {
                Label::value(
                    path,
                    format!("exit takes {}", entry.natural_exit - entry.signal),
                )
            };
            let hook_label =
                |path: JsonPath| Label::key(path, format!("SIGTERM only at {}", entry.signal));
            // A proxy's drain setting is what to change; for an app, its own preStop.
            let (primary, secondary) = match (exit_source, hook_path) {
                (Some(exit), Some(hook)) if container.is_proxy() => {
                    (exit_label(exit), Some(hook_label(hook)))
                }
                (Some(exit), Some(hook)) => (hook_label(hook), Some(exit_label(exit))),
                (Some(exit), None) => (exit_label(exit), None),
                (None, Some(hook)) => (hook_label(hook), None),
                (None, None) if is_in_manifest(container) => (
                    Label::value(
                        container_label_path(container),
                        format!("killed at {}", entry.kill),
                    ),
                    None,
                ),
                (None, None) => (
                    Label::key(
                        container.finding_path().clone(),
                        format!("{} killed at {}", container.name, entry.kill),
                    ),
                    None,
                ),
            };
            let mut finding = super::cut_by_grace(
                &violation,
                primary,
                plan,
                container,
                (entry.kill, entry.natural_exit),
            );
            if let Some(label) = secondary {
                finding = finding.related(label);
            }
            findings.push(finding);
        }
    }
}
