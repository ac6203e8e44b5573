//! `serve --admission`: the validating admission webhook ([`crate::admission`]), with
//! the profile and rules `lint` would use.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum, ValueHint};

use super::{ProfileArgs, RuleArgs, diagnostic, profile_errors, usage_error};
use crate::admission::{self, Reviewer};
use crate::load::{Inputs, Limits};
use crate::pipeline::{FixMode, RunOptions};
use crate::rules::Severity;

/// The API server gives up on a webhook after at most 10 s (`timeoutSeconds`): a
/// review must answer well before.
const MAX_REVIEW_TIMEOUT: Duration = Duration::from_secs(9);

/// `serve`: a server in front of the linter.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve a validating admission webhook (`admission.k8s.io/v1` AdmissionReview at
    /// /validate; /healthz, /readyz and /metrics beside it).
    #[arg(long, required = true)]
    pub admission: bool,

    /// The address and port to listen on (port 0: any free port, printed at start).
    #[arg(
        long,
        value_name = "ADDR:PORT",
        default_value = "0.0.0.0:8443",
        help_heading = "Server"
    )]
    pub listen: SocketAddr,

    /// The PEM certificate chain to serve (read again when it changes).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, required = true, help_heading = "Server")]
    pub tls_cert: PathBuf,

    /// The PEM private key of the certificate (read again when it changes).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, required = true, help_heading = "Server")]
    pub tls_key: PathBuf,

    /// The lowest severity of a finding that is worth a warning (infos are rarely
    /// worth a line on every `kubectl apply`).
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = WarnOn::Warning, help_heading = "Verdict")]
    pub warn_on: WarnOn,

    /// Deny objects with findings at or above this severity, the findings as the
    /// reason (default: admit every object, the findings as warnings).
    #[arg(long, value_enum, value_name = "SEVERITY", help_heading = "Verdict")]
    pub deny_on: Option<DenyOn>,

    /// The most time one review takes; past it the object is admitted with a warning
    /// that it was not checked (at most 9s: the API server waits 10 s at most).
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = super::profile::parse_duration, help_heading = "Limits")]
    pub review_timeout: crate::time::Millis,

    /// The largest review read (the API server stores objects up to 1.5 MiB; an
    /// update's review holds the old object too).
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = super::groups::parse_size, help_heading = "Limits")]
    pub max_review_size: u64,

    /// The most reviews held at once; more are answered 503 at once (the API server
    /// then applies the webhook's failurePolicy).
    #[arg(long, value_name = "N", default_value_t = 128, help_heading = "Limits")]
    pub max_in_flight: usize,

    /// How often the certificate and key are read again.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = super::profile::parse_duration, help_heading = "Server")]
    pub tls_reload_interval: crate::time::Millis,

    /// How long the server answers after SIGTERM, reporting not ready, so that the
    /// Service stops sending reviews before it stops listening.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = super::profile::parse_duration, help_heading = "Server")]
    pub shutdown_delay: crate::time::Millis,

    /// The rules that run.
    #[command(flatten)]
    pub rules: RuleArgs,

    /// The cluster and mesh the objects run on: the config file's mesh versions and
    /// namespace labels are what the server knows of the cluster.
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// `--warn-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WarnOn {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warning,
    /// Every finding.
    Info,
}

/// `--deny-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DenyOn {
    /// Deny objects with an error.
    Error,
    /// Deny objects with a warning or an error.
    Warning,
}

/// The largest config or mesh config file read.
const MAX_CONFIG_BYTES: u64 = 4 << 20;

pub fn run(args: ServeArgs) -> io::Result<u8> {
    let style = crate::report::human::Style::plain();
    let policy = match args.rules.policy() {
        Ok(policy) => policy,
        Err(message) => return usage_error(message),
    };
    let review_timeout = to_duration(args.review_timeout);
    if review_timeout > MAX_REVIEW_TIMEOUT || review_timeout.is_zero() {
        return usage_error(format!(
            "--review-timeout must be more than 0 and at most {} s: the API server waits 10 s at most",
            MAX_REVIEW_TIMEOUT.as_secs()
        ));
    }
    let (layers, notes) = args.profile.read_files(MAX_CONFIG_BYTES);
    for note in notes {
        diagnostic(&format!("note: {note}\n"));
    }
    let config = layers.config.clone();
    // The profile is the files and flags alone: each review brings one object, and
    // nothing else of the cluster.
    let nothing = Inputs::from_bytes(Vec::new());
    let profile = match args.profile.load(layers, &nothing, Limits::default(), None) {
        Ok(profile) => profile,
        Err(errors) => return profile_errors(&errors, style),
    };
    let policy = match policy
        .with_config_rules(&profile.rules)
        .and_then(|policy| policy.with_fixable(&profile.fixable))
        .map(|policy| policy.with_assumed_losses(profile.assumed_losses))
    {
        Ok(policy) => policy,
        Err(errors) => return profile_errors(&errors, style),
    };
    if let Some(path) = &config {
        diagnostic(&format!(
            "{}: profile from {}\n",
            crate::PLUGIN_NAME,
            path.display()
        ));
    }
    let reviewer = Reviewer {
        settings: profile.settings,
        options: RunOptions {
            threads: 1,
            policy,
            // Answers carry no fix: building them unchecked is all they cost.
            fixes: FixMode::Unchecked,
            ..RunOptions::default()
        },
        warn_on: match args.warn_on {
            WarnOn::Error => Severity::Error,
            WarnOn::Warning => Severity::Warning,
            WarnOn::Info => Severity::Info,
        },
        deny_on: args.deny_on.map(|deny| match deny {
            DenyOn::Error => Severity::Error,
            DenyOn::Warning => Severity::Warning,
        }),
    };
    let options = admission::Options {
        listen: args.listen,
        tls_cert: args.tls_cert,
        tls_key: args.tls_key,
        tls_reload: to_duration(args.tls_reload_interval),
        review_timeout,
        max_review_bytes: usize::try_from(args.max_review_size).unwrap_or(usize::MAX),
        max_in_flight: args.max_in_flight,
        shutdown_delay: to_duration(args.shutdown_delay),
    };
    match admission::serve(options, reviewer) {
        Ok(()) => Ok(0),
        Err(message) => {
            diagnostic(&format!("error: {message}\n"));
            Ok(2)
        }
    }
}

fn to_duration(millis: crate::time::Millis) -> Duration {
    Duration::from_millis(u64::try_from(millis.0).unwrap_or(0))
}
