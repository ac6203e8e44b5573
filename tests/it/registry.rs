//! A sidecar model is one implementation and one registry row: a model written here,
//! in the test suite alone, is detected, simulated, judged by the rules and advised on
//! without any other file naming it. `tunnel` is a made-up sidecar: its container is
//! called `tunnel`, it exits 2 s after SIGTERM, carries the pod's traffic and stops on
//! `POST localhost:7070/tunnel/quit`.

use crate::common;

use std::sync::LazyLock;

use mesh_lifecycle::load::Inputs;
use mesh_lifecycle::pipeline::{self, Analysis, RunOptions};
use mesh_lifecycle::resolve::mesh::{Description, MODELS, StopRequest, StopVerdict};
use mesh_lifecycle::resolve::shell::StopTarget;
use mesh_lifecycle::resolve::vocabulary::Vocabulary;
use mesh_lifecycle::resolve::{
    Builder, ContainerList, Cut, ExitPolicy, PlannedContainer, Registry, Remedies, Role,
    SidecarKind, SidecarModel, StopFailure, StopMethod, TrafficCuts,
};
use mesh_lifecycle::settings::{Settings, Source, Sourced};
use mesh_lifecycle::time::Millis;

/// The port its stop endpoint listens on.
const TUNNEL_PORT: u16 = 7070;

/// The made-up sidecar.
struct Tunnel;

static TUNNEL_VOCABULARY: Vocabulary = Vocabulary {
    stop_paths: &["/tunnel/quit"],
    processes: &["tunnel"],
    ..Vocabulary::NONE
};

static TUNNEL: Description = Description {
    id: "tunnel",
    label: "tunnel sidecar",
    mesh: None,
    vocabulary: &TUNNEL_VOCABULARY,
    remedies: &Remedies::NONE,
};

impl SidecarModel for Tunnel {
    fn description(&self) -> &Description {
        &TUNNEL
    }

    fn resolve(&self, b: &mut Builder) {
        let Some((list, index)) = b.find("tunnel") else {
            return;
        };
        if list != ContainerList::Regular || b.get(list, index).role != Role::App {
            return;
        }
        b.make_sidecar(list, index, SidecarKind::Known(&Tunnel), true);
        let sidecar = b.get_mut(list, index);
        sidecar.exit = ExitPolicy::After(Sourced::new(Millis::secs(2), Source::Default));
        sidecar.traffic = Some(TrafficCuts {
            inbound_refused: Cut::Signal,
            inbound_drained: Cut::Signal,
            outbound_refused: Cut::Exit,
        });
    }

    fn judge_stop(&self, call: &StopRequest, _: &Builder) -> Option<StopVerdict> {
        let StopTarget::Http { port, path } = call.target else {
            return None;
        };
        let path = path.ends_with("/tunnel/quit").then_some("/tunnel/quit")?;
        let method = StopMethod::Endpoint {
            sidecar: SidecarKind::Known(&Tunnel),
            port: *port,
        };
        let effective = if *port == TUNNEL_PORT {
            Ok(())
        } else {
            Err(StopFailure::WrongPort {
                owner: "tunnel",
                endpoint: path,
                port: *port,
                admin_port: TUNNEL_PORT,
            })
        };
        Some(StopVerdict::new(method, effective))
    }

    fn stop_command(&self, _: &Builder) -> Option<String> {
        Some(format!(
            "curl -fsS -X POST localhost:{TUNNEL_PORT}/tunnel/quit"
        ))
    }
}

/// The standard models and the tunnel: its one registry row.
static WITH_TUNNEL: LazyLock<Registry> = LazyLock::new(|| {
    let mut models = MODELS.to_vec();
    models.push(&Tunnel);
    Registry::new(models)
});

/// Every analysis of `yaml` with the models of `registry`.
fn analyze(yaml: &str, registry: &'static Registry) -> Vec<Analysis> {
    let options = RunOptions {
        threads: 1,
        models: registry,
        ..RunOptions::default()
    };
    let mut analyses = Vec::new();
    let inputs = Inputs::from_bytes(yaml.as_bytes().to_vec());
    pipeline::run(&inputs, &Settings::default(), &options, |report| {
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        analyses.extend(report.analyses);
    });
    assert_eq!(analyses.len(), 1, "one workload");
    analyses
}

/// The planned container `name`.
fn container<'a>(analysis: &'a Analysis, name: &str) -> &'a PlannedContainer {
    &analysis.plan.containers[common::index_of(analysis, name)]
}

/// The messages of `analysis`'s findings of `rule`.
fn messages(analysis: &Analysis, rule: &str) -> Vec<String> {
    analysis
        .findings
        .iter()
        .filter(|f| f.finding.rule.id == rule)
        .map(|f| f.finding.message.clone())
        .collect()
}

/// A Job whose work calls the tunnel's stop endpoint on `port` when it is done.
fn job(port: u16) -> String {
    format!(
        r#"apiVersion: batch/v1
kind: Job
metadata: {{name: report}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: example.com/report:1
        command: [sh, -c, "./report; curl -fsS -X POST localhost:{port}/tunnel/quit"]
      - name: tunnel
        image: example.com/tunnel:1
"#
    )
}

/// A Deployment whose app serves for 10 s after the pod is deleted, past the tunnel's
/// 2 s.
const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: app
        image: example.com/web:1
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {exec: {command: [sleep, "10"]}}}
      - name: tunnel
        image: example.com/tunnel:1
"#;

#[test]
fn the_standard_registry_does_not_know_the_tunnel() {
    // The control: without its row, `tunnel` is one more app container.
    let analysis = &analyze(&job(TUNNEL_PORT), Registry::standard())[0];
    let tunnel = container(analysis, "tunnel");
    assert_eq!(tunnel.role, Role::App);
    assert!(
        common::rule_ids(analysis).is_empty(),
        "{:?}",
        common::rule_ids(analysis)
    );
}

#[test]
fn one_row_makes_the_tunnel_a_sidecar_its_stop_call_stops() {
    let analysis = &analyze(&job(TUNNEL_PORT), &WITH_TUNNEL)[0];
    let tunnel = container(analysis, "tunnel");
    let sidecar = tunnel.sidecar().expect("the tunnel is a sidecar");
    assert_eq!(sidecar.kind.model().unwrap().description().id, "tunnel");
    // The work's call is the tunnel's stop call, judged by its model.
    let stops: Vec<_> = container(analysis, "work")
        .sidecar_stops
        .iter()
        .map(|stop| (&stop.method, &stop.effective))
        .collect();
    assert_eq!(
        stops,
        [(
            &StopMethod::Endpoint {
                sidecar: SidecarKind::Known(&Tunnel),
                port: TUNNEL_PORT
            },
            &Ok(())
        )]
    );
    // The Job completes: no rule finds a sidecar that never exits. The rules judge the
    // call as any other: after `;` the work's exit status is lost (ML302), and a proxy
    // with no hold starts after the work (ML101).
    assert_eq!(common::rule_ids(analysis), ["ML101", "ML202", "ML302"]);
}

#[test]
fn the_rules_word_the_new_models_facts() {
    // No stop call: the Job never completes, and ML301 offers the model's own call.
    let never = job(TUNNEL_PORT).replace("; curl -fsS -X POST localhost:7070/tunnel/quit", "");
    let analysis = &analyze(&never, &WITH_TUNNEL)[0];
    assert_eq!(common::rule_ids(analysis), ["ML101", "ML202", "ML301"]);
    let ml301 = &analysis
        .findings
        .iter()
        .find(|f| f.finding.rule.id == "ML301")
        .unwrap()
        .finding;
    assert!(ml301.message.contains("`tunnel`"), "{}", ml301.message);
    // The model's own stop call is offered for the fix, judged by the model.
    let offered: Vec<_> = analysis
        .plan
        .stop_endpoints
        .iter()
        .map(|stop| (stop.sidecar.as_str(), stop.call.as_str()))
        .collect();
    assert_eq!(
        offered,
        [("tunnel", "curl -fsS -X POST localhost:7070/tunnel/quit")]
    );
    // The call on the wrong port: ML304, in the model's words.
    let analysis = &analyze(&job(7071), &WITH_TUNNEL)[0];
    assert!(
        common::rule_ids(analysis).contains(&"ML304"),
        "{:?}",
        common::rule_ids(analysis)
    );
    let wrong = messages(analysis, "ML304").join("\n");
    assert!(
        wrong.contains("7071") && wrong.contains("7070"),
        "ML304 names the port called and the tunnel's: {wrong}"
    );
}

#[test]
fn the_new_model_shuts_down_on_the_timeline() {
    // The tunnel exits 2 s after SIGTERM while the app serves until 10 s.
    let analysis = &analyze(DEPLOYMENT, &WITH_TUNNEL)[0];
    assert_eq!(common::stop(analysis, "tunnel").exit, common::s(2.0));
    assert!(
        common::rule_ids(analysis).contains(&"ML202"),
        "{:?}",
        common::rule_ids(analysis)
    );
    let gone = messages(analysis, "ML202").join("\n");
    assert!(gone.contains("`tunnel`"), "{gone}");
}
