//! The environment profile from the command line.

use clap::Args;

use crate::settings::{IstioVersion, KubeVersion, LinkerdVersion, Settings, Source, Sourced};
use crate::time::{Millis, parse_go_duration};

/// What the cluster is like, and the scenario to simulate.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Environment")]
pub struct ProfileArgs {
    /// Kubernetes version of the cluster (default: newest known).
    #[arg(long, value_name = "1.x", value_parser = parse_kube)]
    pub kubernetes_version: Option<KubeVersion>,

    /// Istio version (unknown by default: classic sidecars assumed).
    #[arg(long, value_name = "1.x", value_parser = parse_istio)]
    pub istio_version: Option<IstioVersion>,

    /// Linkerd version (2.x, version-2.x or edge-yy.m.n).
    #[arg(long, value_name = "VERSION", value_parser = parse_linkerd)]
    pub linkerd_version: Option<LinkerdVersion>,

    /// Proxy start-up time, process start to ready (default 2s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub proxy_startup: Option<Millis>,

    /// Time until no new requests are routed to a deleted pod (default 5s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub endpoint_propagation: Option<Millis>,

    /// An app container's SIGTERM-to-exit time (default 5s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub app_shutdown: Option<Millis>,

    /// The longest request the apps serve (unset by default).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Scenario")]
    pub longest_request: Option<Millis>,
}

fn parse_kube(text: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a Kubernetes version such as 1.29"))
}

fn parse_istio(text: &str) -> Result<IstioVersion, String> {
    IstioVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not an Istio version such as 1.24"))
}

fn parse_linkerd(text: &str) -> Result<LinkerdVersion, String> {
    LinkerdVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a Linkerd version such as 2.16 or edge-24.6.2"))
}

fn parse_duration(text: &str) -> Result<Millis, String> {
    parse_go_duration(text)
        .filter(|d| *d >= Millis::ZERO)
        .ok_or_else(|| format!("`{text}` is not a duration such as 5s or 1m30s"))
}

impl ProfileArgs {
    /// Applies the flags on top of `settings`.
    pub fn apply(&self, settings: &mut Settings) {
        if let Some(version) = self.kubernetes_version {
            settings.kubernetes = Sourced::new(version, Source::Flag("--kubernetes-version"));
        }
        if let Some(version) = self.istio_version {
            settings.istio.version = Some(Sourced::new(version, Source::Flag("--istio-version")));
        }
        if let Some(version) = self.linkerd_version {
            settings.linkerd.version =
                Some(Sourced::new(version, Source::Flag("--linkerd-version")));
        }
        let scenario = [
            ("proxy-startup", self.proxy_startup, "--proxy-startup"),
            (
                "endpoint-propagation",
                self.endpoint_propagation,
                "--endpoint-propagation",
            ),
            ("app-shutdown", self.app_shutdown, "--app-shutdown"),
            ("longest-request", self.longest_request, "--longest-request"),
        ];
        for (key, value, flag) in scenario {
            if let Some(value) = value {
                settings.scenario.set(key, value, Source::Flag(flag));
            }
        }
    }

    /// The settings in force for this run.
    pub fn settings(&self) -> Settings {
        let mut settings = Settings::default();
        self.apply(&mut settings);
        settings
    }
}
