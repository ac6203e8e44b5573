//! Sidecars that are not mesh proxies the mesh modules handle: the Cloud SQL Auth Proxy
//! (docs/lifecycle.md §5), sidecars users declare in config, and the legacy sidecars of
//! Jobs (a log shipper running `tail -F`) that never exit on their own.

use super::Remedies;
use crate::resolve::plan::*;
use crate::resolve::shell::{self, Command};
use crate::resolve::{Builder, argv_of};
use crate::settings::{Source, Sourced};
use crate::time::Millis;

/// Marks the known and declared sidecars among the regular containers.
pub fn resolve(b: &mut Builder) {
    for index in 0..b.regular.len() {
        if b.regular[index].role != Role::App {
            continue;
        }
        let name = b.regular[index].name.clone();
        // The debug container `linkerd inject --enable-debug-sidecar` adds: a long-running
        // helper, not the pod's work.
        if name == "linkerd-debug" {
            b.make_sidecar(
                ContainerList::Regular,
                index,
                SidecarKind::Declared(name),
                false,
            );
            continue;
        }
        if let Some(declared) = b
            .settings
            .declared_sidecars
            .iter()
            .find(|d| d.name == name)
            .cloned()
        {
            b.make_sidecar(
                ContainerList::Regular,
                index,
                SidecarKind::Declared(name.clone()),
                declared.carries_traffic,
            );
            let container = &mut b.regular[index];
            if let Some(startup) = declared.startup {
                container.startup = startup;
            }
            container.exit = ExitPolicy::After(Sourced::new(declared.shutdown, Source::Default));
            if declared.carries_traffic {
                container.traffic = Some(TrafficCuts {
                    inbound_refused: Cut::Exit,
                    inbound_drained: Cut::Signal,
                    outbound_refused: Cut::Exit,
                });
            }
            continue;
        }
        match cloud_sql_generation(b, &b.regular[index]) {
            Some(SidecarKind::CloudSqlProxyV1) => cloud_sql_proxy_v1(b, index),
            Some(_) => cloud_sql_proxy(b, index),
            None => {}
        }
    }
    // Native sidecars of a known kind keep their kubelet behaviour but get a name.
    for index in 0..b.init.len() {
        if !b.init[index].is_native_sidecar()
            || b.init[index]
                .sidecar()
                .is_none_or(|s| s.kind != SidecarKind::Generic)
        {
            continue;
        }
        if let Some(kind) = cloud_sql_generation(b, &b.init[index]) {
            b.make_sidecar(ContainerList::Init, index, kind, true);
        }
    }
    if b.workload.runs_to_completion() {
        mark_endless_job_containers(b);
    }
}

/// Which Cloud SQL proxy `container` runs, if any: v1 is the `gce-proxy` image and
/// the `cloud_sql_proxy` binary (v2's is `cloud-sql-proxy`), with single-dash Go flags
/// such as `-instances=`; v2 takes the instance names as arguments.
fn cloud_sql_generation(b: &Builder, container: &PlannedContainer) -> Option<SidecarKind> {
    let image = container.image.as_deref().unwrap_or_default();
    let argv = b
        .manifest_container(container)
        .map(argv_of)
        .unwrap_or_default();
    let program = argv
        .first()
        .map(|arg| arg.rsplit('/').next().unwrap_or(arg));
    let v1_flags = argv
        .iter()
        .any(|arg| V1_ONLY_FLAGS.iter().any(|flag| go_flag_named(arg, flag)));
    let v1_tag = image
        .rsplit_once(':')
        .is_some_and(|(_, tag)| tag.starts_with("1."));
    if program == Some("cloud_sql_proxy")
        || image.contains("gce-proxy")
        || (is_cloud_sql_image(image) && (v1_tag || v1_flags))
    {
        Some(SidecarKind::CloudSqlProxyV1)
    } else if is_cloud_sql_image(image) || program == Some("cloud-sql-proxy") {
        Some(SidecarKind::CloudSqlProxy)
    } else {
        None
    }
}

fn is_cloud_sql_image(image: &str) -> bool {
    ["cloud-sql-proxy", "cloudsql-proxy", "cloud_sql_proxy"]
        .iter()
        .any(|mark| image.contains(mark))
}

/// Flags only v1 has (v2 spells them `--auto-iam-authn`, positional instances, ...).
const V1_ONLY_FLAGS: [&str; 3] = ["instances", "term_timeout", "instances_metadata"];

/// Whether `arg` sets the Go flag `name` (`-name`, `--name`, either with `=value`).
fn go_flag_named(arg: &str, name: &str) -> bool {
    let Some(rest) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
        return false;
    };
    rest == name || rest.strip_prefix(name).is_some_and(|r| r.starts_with('='))
}

/// The value of the Go flag `name` in `argv` (`-name=v`, `-name v`, either with `--`).
fn go_flag_value(argv: &[String], name: &str) -> Option<String> {
    argv.iter().enumerate().find_map(|(i, arg)| {
        let rest = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
        match rest.strip_prefix(name)? {
            "" => argv.get(i + 1).cloned(),
            value => value.strip_prefix('=').map(str::to_owned),
        }
    })
}

/// Makes the regular container at `index` a traffic-carrying sidecar of `kind`, and
/// returns its command line.
fn adopt_cloud_sql_proxy(b: &mut Builder, index: usize, kind: SidecarKind) -> Vec<String> {
    let argv = b
        .manifest_container(&b.regular[index])
        .map(argv_of)
        .unwrap_or_default();
    b.make_sidecar(ContainerList::Regular, index, kind, true);
    argv
}

/// Cloud SQL Proxy v1 on SIGTERM or SIGINT waits for its open connections to close, up
/// to `-term_timeout` (default 0: it exits at once), still accepting meanwhile, and
/// exits 0, or 2 when connections are still open at the timeout (`runProxy`,
/// `cmd/cloud_sql_proxy/cloud_sql_proxy.go`; `Client.Shutdown`,
/// `proxy/proxy/client.go`, v1.38.3). It has no admin endpoint to quit through.
fn cloud_sql_proxy_v1(b: &mut Builder, index: usize) {
    let argv = adopt_cloud_sql_proxy(b, index, SidecarKind::CloudSqlProxyV1);
    let term_timeout = go_flag_value(&argv, "term_timeout")
        .and_then(|d| crate::time::parse_go_duration(&d))
        .filter(|d| *d > Millis::ZERO);
    let container = &mut b.regular[index];
    container.exit_code_on_signal = 0;
    container.exit = match term_timeout {
        None => ExitPolicy::Immediately,
        Some(cap) => ExitPolicy::WhenConnectionsClose {
            minimum: Millis::ZERO,
            cap,
        },
    };
    // Its listeners stay open until it exits.
    container.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Never,
        inbound_drained: Cut::Never,
        outbound_refused: Cut::Exit,
    });
}

/// Cloud SQL Auth Proxy v2 exits at once on SIGTERM (143 unless
/// `--exit-zero-on-sigterm`), or keeps accepting for `--min-sigterm-delay` and then
/// waits up to `--max-sigterm-delay` for open connections.
fn cloud_sql_proxy(b: &mut Builder, index: usize) {
    let argv = adopt_cloud_sql_proxy(b, index, SidecarKind::CloudSqlProxy);
    let flag = |name: &str| {
        argv.iter().enumerate().find_map(|(i, arg)| {
            arg.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('='))
                .map(str::to_owned)
                .or_else(|| (arg == name).then(|| argv.get(i + 1).cloned()).flatten())
        })
    };
    let max_delay = flag("--max-sigterm-delay").and_then(|d| crate::time::parse_go_duration(&d));
    let exit_zero = argv
        .iter()
        .any(|arg| arg == "--exit-zero-on-sigterm" || arg == "--exit-zero-on-sigterm=true");
    let min_delay = flag("--min-sigterm-delay").and_then(|d| crate::time::parse_go_duration(&d));
    let container = &mut b.regular[index];
    container.exit_code_on_signal = if exit_zero { 0 } else { 143 };
    let minimum = min_delay.unwrap_or(Millis::ZERO);
    container.exit = match (min_delay, max_delay) {
        (None, None) => ExitPolicy::Immediately,
        _ => ExitPolicy::WhenConnectionsClose {
            minimum,
            cap: max_delay.unwrap_or(Millis::ZERO),
        },
    };
    // It carries only the app's outbound database connections.
    container.traffic = Some(TrafficCuts {
        inbound_refused: Cut::Never,
        inbound_drained: Cut::Never,
        outbound_refused: Cut::AfterSignal(minimum),
    });
}

/// In a Job, a second container that runs forever (`tail -F`, `sleep infinity`,
/// `while true`) is a sidecar in all but name: it keeps the pod running.
fn mark_endless_job_containers(b: &mut Builder) {
    let apps: Vec<usize> = (0..b.regular.len())
        .filter(|&i| b.regular[i].role == Role::App)
        .collect();
    if apps.len() < 2 {
        return;
    }
    let endless: Vec<usize> = apps
        .iter()
        .copied()
        .filter(|&i| {
            b.manifest_container(&b.regular[i])
                .is_some_and(|c| runs_forever(&argv_of(c)))
        })
        .collect();
    if endless.len() == apps.len() {
        return;
    }
    for index in endless {
        b.make_sidecar(ContainerList::Regular, index, SidecarKind::Generic, false);
    }
}

/// Whether a command never ends by itself.
fn runs_forever(argv: &[String]) -> bool {
    let list = shell::parse_argv(argv);
    list.0.iter().any(|item| {
        item.first.commands.iter().any(|command| match command {
            Command::Simple(simple) => {
                let words = simple.argv();
                match simple.name() {
                    Some("tail") => words.iter().any(|w| {
                        matches!(w.0.as_str(), "-f" | "-F" | "--follow")
                            || w.0.starts_with("--follow")
                    }),
                    Some("sleep") => matches!(
                        shell::sleep_length(simple, &Default::default()),
                        Some(shell::Sleep::Forever)
                    ),
                    _ => false,
                }
            }
            Command::Loop {
                kind: shell::LoopKind::While,
                condition,
                body,
            } => {
                let endless_condition = condition
                    .simple_commands()
                    .iter()
                    .all(|c| matches!(c.name(), Some("true" | ":")));
                let exits = body
                    .simple_commands()
                    .iter()
                    .any(|c| matches!(c.name(), Some("exit" | "break" | "return")));
                endless_condition && !exits
            }
            _ => false,
        })
    })
}

/// What the Cloud SQL Auth Proxy's own flags offer against each hazard.
pub const CLOUD_SQL_REMEDIES: Remedies = Remedies {
    stop_after_work: Some(|native| {
        format!(
            "start the proxy with `--quitquitquit` and call `curl -fsS -X POST localhost:9091/quitquitquit` when the work ends{native}"
        )
    }),
    working_stop_call: Some("start the Cloud SQL proxy with --quitquitquit"),
    stop_api: Some("POST :9091/quitquitquit, after starting it with `--quitquitquit`"),
    outlive_app: Some(|seconds| {
        format!(
            "keep accepting the app's connections while it shuts down: start the proxy with `--min-sigterm-delay={seconds}s` (and `--max-sigterm-delay` for open connections)"
        )
    }),
    ..Remedies::NONE
};

/// What Cloud SQL Proxy v1 offers: `-term_timeout`, and no way to be told to quit but a
/// signal, which it answers by exiting 0 once the work's connections are closed.
pub const CLOUD_SQL_V1_REMEDIES: Remedies = Remedies {
    stop_after_work: Some(|native| {
        format!(
            "v1 has no quit endpoint, only SIGTERM stops it: set `shareProcessNamespace: true` and `trap 'pkill -TERM cloud_sql_proxy' EXIT` in the work, or move to v2 (`gcr.io/cloud-sql-connectors/cloud-sql-proxy`) started with `--quitquitquit` and call `curl -fsS -X POST localhost:9091/quitquitquit` when the work ends{native}"
        )
    }),
    working_stop_call: Some(
        "v1 has no quit endpoint, only SIGTERM stops it: with `shareProcessNamespace: true`, `trap 'pkill -TERM cloud_sql_proxy' EXIT`; or move to Cloud SQL proxy v2 started with --quitquitquit",
    ),
    outlive_app: Some(|seconds| {
        format!(
            "start the proxy with `-term_timeout={seconds}s`: on SIGTERM it then keeps running, still accepting, while the app holds a connection open, up to that long"
        )
    }),
    ..Remedies::NONE
};

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn endless_commands() {
        assert!(runs_forever(&sh("tail -F /var/log/app.log")));
        assert!(runs_forever(&["sleep".into(), "infinity".into()]));
        assert!(runs_forever(&sh("while true; do sleep 5; done")));
        assert!(!runs_forever(&sh(
            "while true; do sleep 5; [ -f /done ] && exit 0; done"
        )));
        assert!(!runs_forever(&sh("./run-migration")));
    }
}
