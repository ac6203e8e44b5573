//! The Cloud SQL Auth Proxy (docs/lifecycle.md §5): v2 (`cloud-sql-proxy`) and v1
//! (`gce-proxy`, `cloud_sql_proxy`), two models told apart by image, binary and flags.

use super::{
    Description, Measure, Remedies, SidecarModel, Stay, StopRequest, StopVerdict, Suggestion,
};
use crate::resolve::assumption::Assumed;
use crate::resolve::plan::*;
use crate::resolve::shell::StopTarget;
use crate::resolve::vocabulary::ShellLessImage;
use crate::resolve::vocabulary::{KnownHook, StartWait, StopAsked, StopCommand, Vocabulary};
use crate::resolve::{Builder, argv_of};
use crate::settings::{CloudSqlProxyVersion, Source, Sourced};
use crate::time::Millis;

/// A Cloud SQL proxy of one generation.
pub struct CloudSqlProxy {
    description: Description,
    v1: bool,
}

/// The Cloud SQL Auth Proxy v2 (`cloud-sql-proxy`).
pub static V2: CloudSqlProxy = CloudSqlProxy {
    description: Description {
        id: "cloud-sql-proxy",
        label: "Cloud SQL proxy",
        mesh: None,
        vocabulary: &VOCABULARY,
        remedies: &CLOUD_SQL_REMEDIES,
    },
    v1: false,
};

/// The Cloud SQL Proxy v1 (`gce-proxy` image, `/cloud_sql_proxy` binary): no admin
/// endpoint, and `-term_timeout` in place of the v2 SIGTERM flags.
pub static V1: CloudSqlProxy = CloudSqlProxy {
    description: Description {
        id: "cloud-sql-proxy-v1",
        label: "Cloud SQL proxy v1",
        mesh: None,
        vocabulary: &VOCABULARY,
        remedies: &CLOUD_SQL_V1_REMEDIES,
    },
    v1: true,
};

impl SidecarModel for CloudSqlProxy {
    fn description(&self) -> &Description {
        &self.description
    }

    /// Marks the proxies of this generation among the regular containers not yet
    /// known, and names the native sidecars of unknown kind that are one.
    fn resolve(&self, b: &mut Builder) {
        for index in 0..b.regular.len() {
            if b.regular[index].role != Role::App
                || cloud_sql_generation(b, &b.regular[index]) != Some(self.kind())
            {
                continue;
            }
            if self.v1 {
                cloud_sql_proxy_v1(b, index);
            } else {
                cloud_sql_proxy(b, index);
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
            if cloud_sql_generation(b, &b.init[index]) == Some(self.kind()) {
                b.make_sidecar(ContainerList::Init, index, self.kind(), true);
            }
        }
    }

    /// A quit call (`/quitquitquit`, `cloud-sql-proxy shutdown`) is for the Cloud SQL
    /// proxy of the pod, v2 before v1; an HTTP one on the admin port is for v2 when the
    /// pod has neither.
    fn judge_stop(&self, call: &StopRequest, b: &Builder) -> Option<StopVerdict> {
        let present = proxy_in_pod(b);
        let mine = present.as_ref() == Some(&self.kind());
        match call.target {
            StopTarget::Http { port, path } if path.ends_with(QUIT) => {
                let unclaimed_admin = present.is_none() && !self.v1 && *port == admin_port(b);
                (mine || unclaimed_admin).then(|| self.quit(b, *port, false))
            }
            StopTarget::Command {
                program: PROGRAM, ..
            } => {
                let addressed = mine || (present.is_none() && !self.v1);
                addressed.then(|| self.quit(b, admin_port(b), true))
            }
            _ => None,
        }
    }

    /// v2's quit endpoint on its admin port, served only with `--quitquitquit`; v1
    /// has none.
    fn stop_command(&self, b: &Builder) -> Option<String> {
        (!self.v1).then(|| format!("curl -fsS -X POST http://localhost:{}{QUIT}", admin_port(b)))
    }

    fn answers_signal(&self, target: &str) -> bool {
        target.contains("cloud-sql") || target.contains("cloud_sql")
    }
}

/// v2's binary, and its `shutdown` command.
const PROGRAM: &str = "cloud-sql-proxy";
/// The quit endpoint v2 serves with `--quitquitquit`.
const QUIT: &str = "/quitquitquit";
/// v2's admin port unless `--admin-port`.
const ADMIN_PORT: u16 = 9091;

/// What the readers know of the Cloud SQL proxy.
static VOCABULARY: Vocabulary = Vocabulary {
    stop_paths: &[QUIT],
    stop_commands: &[StopCommand {
        program: PROGRAM,
        read: shutdown_command,
    }],
    processes: &["cloud-sql-proxy", "cloud_sql_proxy"],
    readiness: &[],
    start_waits: &[StartWait::First(PROGRAM)],
    // `cloud-sql-proxy wait` polls `/startup` until it answers, for at most `--max`
    // (30 s); the retry interval is taken as 1 s (docs/lifecycle.md §5).
    hooks: &[KnownHook::WaitsUntilReady {
        program: PROGRAM,
        argument: Some("wait"),
        timeout_flag: "--max",
        timeout: Millis::secs(30),
        poll: Millis::secs(1),
        poll_flag: None,
    }],
    // Distroless by default; the variants with a shell are tagged: the Auth Proxy's
    // `-alpine`, `-bullseye` and `-bookworm`, v1's `gce-proxy` `-alpine`, `-buster`,
    // `-bullseye` and `-bookworm`.
    shell_less_images: &[
        ShellLessImage {
            mark: "cloud-sql-proxy:",
            has_sleep: false,
            shell_variants: &["-alpine", "-bullseye", "-bookworm"],
        },
        ShellLessImage {
            mark: "gce-proxy:",
            has_sleep: false,
            shell_variants: &["-alpine", "-buster", "-bullseye", "-bookworm"],
        },
    ],
};

/// `cloud-sql-proxy shutdown`.
fn shutdown_command(argv: &[&str]) -> Option<StopAsked> {
    (argv.get(1) == Some(&"shutdown")).then_some((
        StopTarget::Command {
            program: PROGRAM,
            runs_work: false,
        },
        None,
    ))
}

impl CloudSqlProxy {
    /// A quit call to this proxy (`/quitquitquit`, `cloud-sql-proxy shutdown`): v2
    /// serves both, with GET or POST, only when started with `--quitquitquit`
    /// (`quitquitquit`, `cmd/root.go`, v2.25.3); v1's only HTTP server is the health
    /// check (`/startup`, `/readiness`, `/liveness`) and its only way to stop is SIGTERM
    /// or SIGINT (`runProxy`, `cmd/cloud_sql_proxy/cloud_sql_proxy.go`, v1.38.3).
    fn quit(&self, b: &Builder, port: u16, command: bool) -> StopVerdict {
        let effective = if self.v1 {
            Err(StopFailure::NoStopCall {
                sidecar: self.kind(),
                command,
            })
        } else if flag(b, "--quitquitquit")
            && pod_version(b).is_none_or(|v| v.value.has_quitquitquit())
        {
            Ok(())
        } else {
            Err(StopFailure::SwitchedOff {
                owner: "the Cloud SQL proxy",
                endpoint: QUIT,
                off: SwitchedOff::Flag {
                    flag: "--quitquitquit",
                    command: command.then_some("cloud-sql-proxy shutdown"),
                },
            })
        };
        let method = if command {
            StopMethod::Command {
                sidecar: self.kind(),
            }
        } else {
            StopMethod::Endpoint {
                sidecar: self.kind(),
                port,
            }
        };
        StopVerdict::new(method, effective)
    }
}

/// The Cloud SQL proxy in the pod: v2 when there is one, else v1.
fn proxy_in_pod(b: &Builder) -> Option<SidecarKind> {
    let has = |kind: SidecarKind| {
        b.init
            .iter()
            .chain(&b.regular)
            .any(|c| c.sidecar().is_some_and(|s| s.kind == kind))
            .then_some(kind)
    };
    has(V2.kind()).or_else(|| has(V1.kind()))
}

/// The command lines of the v2 proxies in the pod.
fn v2_argv(b: &Builder) -> Vec<String> {
    b.init
        .iter()
        .chain(&b.regular)
        .filter(|c| c.sidecar().is_some_and(|s| s.kind == V2.kind()))
        .filter_map(|c| b.manifest_container(c))
        .flat_map(argv_of)
        .collect()
}

/// The release of a v2 proxy: `--mesh-version cloud-sql-proxy=…`, else its image's
/// tag when that is a version (`cloud-sql-proxy:2.14.1-alpine`), else the config
/// file's `cloudSqlProxy.version`; `None` when unknown, and every flag is read as
/// written.
fn proxy_version(
    b: &Builder,
    container: &PlannedContainer,
) -> Option<Sourced<CloudSqlProxyVersion>> {
    let given = b.settings.versions.cloud_sql_proxy.clone();
    if let Some(version) = given
        .as_ref()
        .filter(|v| matches!(v.source, Source::Flag(_)))
    {
        return Some(version.clone());
    }
    let tagged = container
        .image
        .as_deref()
        .and_then(|image| image.rsplit_once(':'))
        .and_then(|(_, tag)| CloudSqlProxyVersion::parse(tag))
        .filter(|v| v.0.major == 2);
    match (tagged, container.manifest_path()) {
        (Some(version), Some(path)) => {
            Some(Sourced::new(version, Source::Manifest(path.key("image"))))
        }
        _ => given,
    }
}

/// The release of the pod's first v2 proxy.
fn pod_version(b: &Builder) -> Option<Sourced<CloudSqlProxyVersion>> {
    b.init
        .iter()
        .chain(&b.regular)
        .find(|c| c.sidecar().is_some_and(|s| s.kind == V2.kind()))
        .and_then(|c| proxy_version(b, c))
}

/// Whether a v2 proxy of the pod is started with `flag` on.
fn flag(b: &Builder, flag: &str) -> bool {
    v2_argv(b)
        .iter()
        .any(|arg| arg == flag || arg.starts_with(&format!("{flag}=")) && !arg.ends_with("=false"))
}

/// v2's admin port: `--admin-port`, else 9091.
fn admin_port(b: &Builder) -> u16 {
    let argv = v2_argv(b);
    argv.iter()
        .enumerate()
        .find_map(|(i, arg)| {
            arg.strip_prefix("--admin-port=")
                .map(str::to_owned)
                .or_else(|| {
                    (arg == "--admin-port")
                        .then(|| argv.get(i + 1).cloned())
                        .flatten()
                })
        })
        .and_then(|p| p.parse().ok())
        .unwrap_or(ADMIN_PORT)
}

impl CloudSqlProxy {
    /// This generation's sidecar, as plans name it.
    pub fn kind(&self) -> SidecarKind {
        SidecarKind::Known(if self.v1 { &V1 } else { &V2 })
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
        Some(V1.kind())
    } else if is_cloud_sql_image(image) || program == Some("cloud-sql-proxy") {
        Some(V2.kind())
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
    let argv = adopt_cloud_sql_proxy(b, index, V1.kind());
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
    let argv = adopt_cloud_sql_proxy(b, index, V2.kind());
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
    // A flag this release does not have yet is ignored (the proxy would refuse to
    // start with it; the model reads the rest of the pod as if it ran without).
    let version = proxy_version(b, &b.regular[index]);
    let too_new = |has: fn(CloudSqlProxyVersion) -> bool| {
        version
            .as_ref()
            .filter(|v| !has(v.value))
            .map(|v| v.source.clone())
    };
    let exit_zero = match too_new(CloudSqlProxyVersion::has_exit_zero_on_sigterm) {
        Some(source) if exit_zero => {
            b.assume(
                setting_too_new("--exit-zero-on-sigterm", "Cloud SQL Auth Proxy 2.6"),
                source,
            );
            false
        }
        _ => exit_zero,
    };
    let quits = argv
        .iter()
        .any(|arg| arg == "--quitquitquit" || arg == "--quitquitquit=true");
    if let Some(source) = too_new(CloudSqlProxyVersion::has_quitquitquit).filter(|_| quits) {
        b.assume(
            setting_too_new("--quitquitquit", "Cloud SQL Auth Proxy 2.1"),
            source,
        );
    }
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

/// `flag` needs release `since`; this one ignores it.
fn setting_too_new(setting: &'static str, since: &'static str) -> Assumed {
    Assumed::SettingTooNew {
        setting,
        layer: None,
        since,
    }
}

/// What the Cloud SQL Auth Proxy's own flags offer against each hazard.
pub const CLOUD_SQL_REMEDIES: Remedies = Remedies {
    // Where the proxy already serves its quit endpoint, nothing needs turning on first.
    stop_after_work: Some(|stop| match stop.call {
        Some(call) => format!(
            "the proxy already serves its quit endpoint (`--quitquitquit`): `trap '{call}' EXIT` before the work{}",
            stop.native
        ),
        None => format!(
            "start the proxy with `--quitquitquit` and call `curl -fsS -X POST localhost:9091/quitquitquit` when the work ends{}",
            stop.native
        ),
    }),
    working_stop_call: Some("start the Cloud SQL proxy with --quitquitquit"),
    stop_api: Some("POST :9091/quitquitquit, after starting it with `--quitquitquit`"),
    stay: Some(Stay {
        measures: Measure::AfterSignal,
        inbound: false,
        when_injected_native: true,
        at: |at| Suggestion {
            help: format!(
                "keep accepting the app's connections while it shuts down: start the proxy with `--min-sigterm-delay={}s` (and `--max-sigterm-delay` for open connections)",
                at.seconds
            ),
            fix: None,
        },
    }),
    ..Remedies::NONE
};

/// What Cloud SQL Proxy v1 offers: `-term_timeout`, and no way to be told to quit but a
/// signal, which it answers by exiting 0 once the work's connections are closed.
pub const CLOUD_SQL_V1_REMEDIES: Remedies = Remedies {
    // A signal is the only way to stop v1; a pod that shares its process namespace
    // already lets the work send it.
    stop_after_work: Some(|stop| {
        if stop.shares_pids {
            return format!(
                "the pod already shares its process namespace, so the work can signal the proxy, the only way to stop v1: `trap 'pkill -TERM cloud_sql_proxy' EXIT` before the work{}",
                stop.native
            );
        }
        format!(
            "v1 has no quit endpoint, only SIGTERM stops it: set `shareProcessNamespace: true` and `trap 'pkill -TERM cloud_sql_proxy' EXIT` in the work, or move to v2 (`gcr.io/cloud-sql-connectors/cloud-sql-proxy`) started with `--quitquitquit` and call `curl -fsS -X POST localhost:9091/quitquitquit` when the work ends{}",
            stop.native
        )
    }),
    no_stop_call: Some(|command| {
        if command {
            "`cloud-sql-proxy shutdown` is a v2 command; Cloud SQL proxy v1 has no quit call, and only SIGTERM or SIGINT stops it".into()
        } else {
            "Cloud SQL proxy v1 has no /quitquitquit (only v2 has it, with --quitquitquit); v1's only HTTP server is its health check, and only SIGTERM or SIGINT stops it".into()
        }
    }),
    working_stop_call: Some(
        "v1 has no quit endpoint, only SIGTERM stops it: with `shareProcessNamespace: true`, `trap 'pkill -TERM cloud_sql_proxy' EXIT`; or move to Cloud SQL proxy v2 started with --quitquitquit",
    ),
    stay: Some(Stay {
        measures: Measure::AfterSignal,
        inbound: false,
        when_injected_native: true,
        at: |at| Suggestion {
            help: format!(
                "start the proxy with `-term_timeout={}s`: on SIGTERM it then keeps running, still accepting, while the app holds a connection open, up to that long",
                at.seconds
            ),
            fix: None,
        },
    }),
    ..Remedies::NONE
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::images::missing_tools;
    use crate::resolve::vocabulary::Lexicon;

    #[test]
    fn the_proxy_image_is_distroless_unless_a_variant_says_otherwise() {
        let lexicon = Lexicon::new(vec![&VOCABULARY]);
        let lacks_shell = |image: &str| missing_tools(image, &lexicon).shell;
        assert!(lacks_shell(
            "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1"
        ));
        assert!(!lacks_shell(
            "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1-alpine"
        ));
        assert!(!lacks_shell(
            "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1-bookworm"
        ));
        assert!(lacks_shell("gcr.io/cloudsql-docker/gce-proxy:1.33.2"));
        assert!(!lacks_shell(
            "gcr.io/cloudsql-docker/gce-proxy:1.33.2-alpine"
        ));
    }
}
