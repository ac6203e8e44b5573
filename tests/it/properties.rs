//! Properties of the simulated kubelet that must hold for every pod, checked on
//! generated manifests run through the library pipeline (docs/lifecycle.md §1, §2).
//!
//! The manifests are YAML text, so the properties hold through the same path users
//! take; results are read from the Timeline (read-only) and from the JSON report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::pipeline::{self, Analysis, DocumentReport, RunOptions};
use mesh_lifecycle::report::json::JsonReporter;
use mesh_lifecycle::report::{Reporter, Summary};
use mesh_lifecycle::settings::Settings;
use mesh_lifecycle::simulate::{StopEntry, Timeline};
use proptest::prelude::*;
use proptest::sample::SizeRange;

/// A preStop (or postStart) hook as users write it.
#[derive(Clone, Debug)]
enum Hook {
    /// `lifecycle.preStop.sleep.seconds`.
    SleepAction(u32),
    /// `exec: sleep <seconds>`, possibly fractional (the kubelet truncates the time it
    /// waited to whole seconds).
    ExecSleep { millis: u32 },
}

#[derive(Clone, Debug)]
struct Container {
    name: String,
    pre_stop: Option<Hook>,
    /// `startupProbe` (initial delay, period) in seconds.
    startup_probe: Option<(u32, u32)>,
}

#[derive(Clone, Debug)]
struct Pod {
    kind: &'static str,
    name: String,
    grace: Option<u32>,
    /// Init containers; `true` marks a native sidecar (`restartPolicy: Always`).
    init: Vec<(Container, bool)>,
    /// Regular containers: apps.
    apps: Vec<Container>,
    /// An assumed app shutdown (`mesh-lifecycle.io/app-shutdown`) in milliseconds.
    app_shutdown: Option<u32>,
}

impl Pod {
    fn native_sidecars(&self) -> impl Iterator<Item = &Container> {
        self.init
            .iter()
            .filter(|(_, native)| *native)
            .map(|(c, _)| c)
    }

    fn to_yaml(&self) -> String {
        let mut out = String::new();
        let (api_version, template_indent) = match self.kind {
            "Pod" => ("v1", ""),
            "Job" => ("batch/v1", "    "),
            _ => ("apps/v1", "    "),
        };
        writeln!(out, "apiVersion: {api_version}\nkind: {}", self.kind).unwrap();
        writeln!(out, "metadata:\n  name: {}", self.name).unwrap();
        let annotations = |out: &mut String, indent: &str| {
            if let Some(ms) = self.app_shutdown {
                writeln!(
                    out,
                    "{indent}  annotations:\n{indent}    mesh-lifecycle.io/app-shutdown: {ms}ms"
                )
                .unwrap();
            }
        };
        let i = template_indent;
        if self.kind == "Pod" {
            annotations(&mut out, "");
            out.push_str("spec:\n");
        } else {
            out.push_str("spec:\n");
            if self.kind != "Job" {
                out.push_str("  selector: {matchLabels: {app: x}}\n");
            }
            out.push_str("  template:\n    metadata:\n      labels: {app: x}\n");
            annotations(&mut out, "    ");
            out.push_str("    spec:\n");
        }
        if self.kind == "Job" {
            writeln!(out, "{i}  restartPolicy: Never").unwrap();
        }
        if let Some(grace) = self.grace {
            writeln!(out, "{i}  terminationGracePeriodSeconds: {grace}").unwrap();
        }
        if !self.init.is_empty() {
            writeln!(out, "{i}  initContainers:").unwrap();
            for (container, native) in &self.init {
                container.write(&mut out, i, *native);
            }
        }
        writeln!(out, "{i}  containers:").unwrap();
        for container in &self.apps {
            container.write(&mut out, i, false);
        }
        out
    }
}

impl Container {
    fn write(&self, out: &mut String, indent: &str, native: bool) {
        writeln!(out, "{indent}  - name: {}", self.name).unwrap();
        writeln!(out, "{indent}    image: example/{}:1.0", self.name).unwrap();
        if native {
            writeln!(out, "{indent}    restartPolicy: Always").unwrap();
        }
        if let Some((delay, period)) = self.startup_probe {
            writeln!(
                out,
                "{indent}    startupProbe: {{httpGet: {{path: /ready, port: 8080}}, initialDelaySeconds: {delay}, periodSeconds: {period}}}"
            )
            .unwrap();
        }
        match &self.pre_stop {
            None => {}
            Some(Hook::SleepAction(seconds)) => writeln!(
                out,
                "{indent}    lifecycle: {{preStop: {{sleep: {{seconds: {seconds}}}}}}}"
            )
            .unwrap(),
            Some(Hook::ExecSleep { millis }) => writeln!(
                out,
                "{indent}    lifecycle: {{preStop: {{exec: {{command: [sleep, \"{}.{:03}\"]}}}}}}",
                millis / 1000,
                millis % 1000
            )
            .unwrap(),
        }
    }
}

fn hook() -> impl Strategy<Value = Hook> {
    prop_oneof![
        (0u32..=90).prop_map(Hook::SleepAction),
        (0u32..=90_000).prop_map(|millis| Hook::ExecSleep { millis }),
    ]
}

fn container(name: String) -> impl Strategy<Value = Container> {
    (
        proptest::option::weighted(0.7, hook()),
        proptest::option::of((0u32..=10, 1u32..=10)),
    )
        .prop_map(move |(pre_stop, startup_probe)| Container {
            name: name.clone(),
            pre_stop,
            startup_probe,
        })
}

fn containers(
    prefix: &'static str,
    count: impl Into<SizeRange>,
) -> impl Strategy<Value = Vec<Container>> {
    proptest::collection::vec(Just(()), count).prop_flat_map(move |slots| {
        slots
            .iter()
            .enumerate()
            .map(|(i, _)| container(format!("{prefix}{i}")))
            .collect::<Vec<_>>()
    })
}

fn pod_of(
    kinds: &'static [&'static str],
    init_natives: impl Strategy<Value = Vec<bool>>,
) -> impl Strategy<Value = Pod> {
    (
        proptest::sample::select(kinds),
        proptest::option::weighted(0.8, prop_oneof![0u32..=3, 0u32..=120, 0u32..=100_000]),
        init_natives,
        1usize..=3,
        proptest::option::of(0u32..=60_000),
    )
        .prop_flat_map(|(kind, grace, natives, app_count, app_shutdown)| {
            let init = containers("init", natives.len())
                .prop_map(move |cs| cs.into_iter().zip(natives.clone()).collect::<Vec<_>>());
            (init, containers("app", app_count)).prop_map(move |(init, apps)| Pod {
                kind,
                name: "workload".into(),
                grace,
                init,
                apps,
                app_shutdown,
            })
        })
}

fn any_pod() -> impl Strategy<Value = Pod> {
    pod_of(
        &["Pod", "Deployment", "StatefulSet", "Job"],
        proptest::collection::vec(any::<bool>(), 0..=4),
    )
}

/// Runs `yaml` through the whole pipeline with default settings.
fn analyse(yaml: &str, threads: usize) -> Vec<Analysis> {
    let mut analyses = Vec::new();
    run(yaml, threads, |report| {
        assert!(report.errors.is_empty(), "{:?}\n{yaml}", report.errors);
        analyses.extend(report.analyses);
    });
    analyses
}

/// Runs `yaml` through the pipeline on `threads` threads, as standard input.
fn run(yaml: &str, threads: usize, sink: impl FnMut(DocumentReport)) {
    let options = RunOptions {
        threads,
        ..RunOptions::default()
    };
    pipeline::run(
        &Inputs::from_bytes(yaml.as_bytes().to_vec()),
        &Settings::default(),
        &options,
        sink,
    );
}

/// The JSON report of `yaml`, as `lint --format json` writes it.
fn json_report(yaml: &str, threads: usize) -> String {
    let mut out = Vec::new();
    let mut reporter = JsonReporter::new(&mut out);
    let mut summary = Summary {
        files: 1,
        ..Summary::default()
    };
    run(yaml, threads, |report| {
        summary.add(&report);
        reporter.document(&report.analyses).unwrap();
    });
    reporter.finish(&summary).unwrap();
    String::from_utf8(out).unwrap()
}

/// The Timeline is indexed like the plan's containers; their names are the only part
/// of the plan these properties read.
fn names(analysis: &Analysis) -> Vec<&str> {
    analysis
        .plan
        .containers
        .iter()
        .map(|c| c.name.as_str())
        .collect()
}

/// The stop entry of the container called `name`.
fn stop<'a>(timeline: &'a Timeline, names: &[&str], name: &str) -> &'a StopEntry {
    let index = names
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no container {name} in {names:?}"));
    timeline
        .containers
        .iter()
        .nth(index)
        .and_then(|c| c.stop.as_ref())
        .unwrap_or_else(|| panic!("{name} is not running at T0"))
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Start-up runs in kubelet order and nothing is ready before it starts (§1.1, §1.2).
    #[test]
    fn startup_is_ordered(pod in any_pod()) {
        let yaml = pod.to_yaml();
        for analysis in analyse(&yaml, 1) {
            let mut previous = None;
            for (record, name) in analysis.timeline.containers.iter().zip(names(&analysis)) {
                let entry = &record.start;
                let Some(started) = entry.started else { continue };
                if let Some(previous) = previous {
                    prop_assert!(previous <= started, "{name} started before the container ahead of it\n{yaml}");
                }
                previous = Some(started);
                for (what, at) in [
                    ("ready", entry.ready),
                    ("postStart done", entry.post_start_done),
                    ("exited", entry.exited),
                    ("first network use", entry.first_network_use),
                ] {
                    if let Some(at) = at {
                        prop_assert!(started <= at, "{name}: {what} at {at} before its start at {started}\n{yaml}");
                    }
                }
            }
        }
    }

    /// Termination of each container is ordered: the preStop hook ends (or the kubelet
    /// stops waiting) no later than the signal, the signal comes no later than SIGKILL,
    /// and the container exits at its natural exit or at SIGKILL, whichever is first.
    ///
    /// And no container outlives the grace period plus the kubelet's floor (§2.2, §2.4).
    /// With G' = max(G, 1) (the pod worker's floor), a preStop waited for e₁ ≤ G' seconds and a
    /// native sidecar's wait for its turn e₂ ≤ G' − ⌊e₁⌋, SIGKILL comes at
    /// K = e₁ + e₂ + max(G' − ⌊e₁⌋ − ⌊e₂⌋, 2). When the max is the first term,
    /// K = G' + {e₁} + {e₂} < G' + 1 + {e₁}; otherwise K = e₁ + e₂ + 2 ≤ G' + 2 + {e₁}.
    /// So K ≤ G' + 2 + {e₁}: G + 2 s, plus less than a second for the truncated preStop.
    #[test]
    fn termination_is_ordered_and_bounded(pod in any_pod()) {
        let yaml = pod.to_yaml();
        for analysis in analyse(&yaml, 1) {
            let t = &analysis.timeline.termination;
            let grace_ms = i128::from(t.grace.value) * 1000;
            prop_assert_eq!(t.grace.value, i64::from(pod.grace.unwrap_or(30)).max(1));
            let mut last_exit = 0;
            for (record, name) in analysis.timeline.containers.iter().zip(names(&analysis)) {
                let Some(e) = &record.stop else { continue };
                if let Some(end) = e.pre_stop_end {
                    prop_assert!(end.0 >= 0 && i128::from(end.0) <= grace_ms, "{name}: preStop waited {end}\n{yaml}");
                    prop_assert!(end <= e.signal, "{name}: signal at {} before preStop end {end}\n{yaml}", e.signal);
                }
                prop_assert!(e.signal <= e.kill, "{name}: SIGKILL at {} before the signal at {}\n{yaml}", e.kill, e.signal);
                prop_assert_eq!(e.exit, e.natural_exit.min(e.kill), "{}: exit\n{}", name, yaml);
                prop_assert_eq!(e.killed, e.natural_exit > e.kill, "{}: killed\n{}", name, yaml);
                let fraction = i128::from(e.pre_stop_end.map_or(0, |end| end.0 % 1000));
                let bound = grace_ms + 2000 + fraction;
                prop_assert!(
                    i128::from(e.kill.0) <= bound,
                    "{name}: SIGKILL at {} is past G' + 2 s + {{e1}} = {bound} ms\n{yaml}", e.kill
                );
                last_exit = last_exit.max(e.exit.0);
            }
            prop_assert_eq!(t.pod_gone.0, last_exit);
        }
    }

    /// Native sidecars get SIGTERM only after every regular container has exited and
    /// every sidecar declared after them has exited — unless the shared budget ran out,
    /// in which case the signal comes exactly when it does: at G' plus the fraction of a
    /// second the truncated preStop left over (§2.4).
    #[test]
    fn native_sidecars_stop_after_the_apps(pod in any_pod()) {
        let yaml = pod.to_yaml();
        for analysis in analyse(&yaml, 1) {
            let names = names(&analysis);
            let timeline = &analysis.timeline;
            let grace_ms = timeline.termination.grace.value * 1000;
            let apps_gone = pod
                .apps
                .iter()
                .map(|app| stop(timeline, &names, &app.name).exit)
                .max()
                .expect("at least one app");
            let sidecars: Vec<&Container> = pod.native_sidecars().collect();
            for (position, sidecar) in sidecars.iter().enumerate() {
                let entry = stop(timeline, &names, &sidecar.name);
                let fraction = entry.pre_stop_end.map_or(0, |end| end.0 % 1000);
                let budget_ran_out = entry.signal.0 == grace_ms + fraction;
                prop_assert!(
                    entry.signal >= apps_gone || budget_ran_out,
                    "{}: SIGTERM at {} before the apps are gone at {apps_gone}\n{yaml}",
                    sidecar.name, entry.signal
                );
                prop_assert!(entry.signal.0 <= grace_ms + fraction, "{}: signal past the budget\n{}", sidecar.name, yaml);
                for later in &sidecars[position + 1..] {
                    let later_exit = stop(timeline, &names, &later.name).exit;
                    prop_assert!(
                        entry.signal >= later_exit || budget_ran_out,
                        "{}: SIGTERM at {} before {} (declared later) exits at {later_exit}\n{yaml}",
                        sidecar.name, entry.signal, later.name
                    );
                }
            }
        }
    }

    /// A Job whose only sidecars are native ones always completes: the kubelet stops
    /// them once the work is done, and they do not count for the pod's phase (§2.6).
    #[test]
    fn a_job_with_only_native_sidecars_completes(
        pod in pod_of(&["Job"], proptest::collection::vec(any::<bool>(), 0..=4)),
    ) {
        let yaml = pod.to_yaml();
        for analysis in analyse(&yaml, 1) {
            let Some(completion) = analysis.timeline.completion.as_ref() else {
                // No completion only when the work never starts (a sidecar's startup
                // probe gave up, §1.2).
                let never = analysis.plan.apps().any(|(i, _)| analysis.timeline.start(i).started.is_none());
                prop_assert!(never, "a Job whose work starts has a completion\n{}", yaml);
                continue;
            };
            prop_assert!(completion.blocking.is_empty(), "blocked by {:?}\n{}", completion.blocking, yaml);
            let completes = completion.completes;
            prop_assert!(completes.is_some(), "never completes\n{}", yaml);
            let completes = completes.unwrap();
            prop_assert!(completion.work_done <= completes);
            // A running native sidecar keeps the pod Running (§2.6): the Job completes
            // when the last of them has exited, each after the work.
            let mut last = completion.work_done;
            for sidecar in pod.native_sidecars() {
                let id = analysis.plan.find(&sidecar.name).unwrap();
                let Some(exit) = analysis.timeline.containers[id].job.exit else { continue };
                prop_assert!(exit >= completion.work_done, "{} stops before the work ends\n{}", sidecar.name, yaml);
                last = last.max(exit);
            }
            prop_assert_eq!(completes, last, "the Job completes when its last sidecar is gone\n{}", yaml);
        }
    }
}

/// Several workloads in one stream, each with its own name.
fn stream() -> impl Strategy<Value = Vec<Pod>> {
    proptest::collection::vec(any_pod(), 1..=8).prop_map(|pods| {
        pods.into_iter()
            .enumerate()
            .map(|(i, mut pod)| {
                pod.name = format!("workload-{i}");
                pod
            })
            .collect()
    })
}

fn join(pods: &[Pod]) -> String {
    pods.iter()
        .map(Pod::to_yaml)
        .collect::<Vec<_>>()
        .join("---\n")
}

/// The findings of a JSON report by workload name, each as (rule, container, severity,
/// message), sorted: what a reader compares, without the lines that move with the input.
fn findings_by_workload(report: &str) -> BTreeMap<String, Vec<String>> {
    let report: serde_json::Value = serde_json::from_str(report).unwrap();
    let mut by_workload: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for finding in report["findings"].as_array().unwrap() {
        by_workload
            .entry(finding["workload"]["name"].as_str().unwrap().to_owned())
            .or_default()
            .push(format!(
                "{} {} {} {}",
                finding["ruleId"], finding["container"], finding["severity"], finding["message"]
            ));
    }
    for findings in by_workload.values_mut() {
        findings.sort();
    }
    by_workload
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The report is byte-identical whatever the number of worker threads.
    #[test]
    fn results_do_not_depend_on_thread_count(pods in stream(), threads in 2usize..=8) {
        let yaml = join(&pods);
        prop_assert_eq!(json_report(&yaml, 1), json_report(&yaml, threads));
    }

    /// Reordering the documents moves findings but changes none of them.
    #[test]
    fn results_do_not_depend_on_input_order(
        (pods, order) in stream().prop_flat_map(|pods| {
            let order = Just((0..pods.len()).collect::<Vec<_>>()).prop_shuffle();
            (Just(pods), order)
        }),
    ) {
        let shuffled: Vec<Pod> = order.iter().map(|&i| pods[i].clone()).collect();
        prop_assert_eq!(
            findings_by_workload(&json_report(&join(&pods), 0)),
            findings_by_workload(&json_report(&join(&shuffled), 0))
        );
    }
}
