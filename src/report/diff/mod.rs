//! `diff`'s reports: what changes between two sides, workload by workload, for people
//! (`human`), for a pull request (`markdown`), for machines (`json`, and SARIF with the
//! added findings through [`super::sarif`]). This module words what [`crate::diff`]
//! found; the formats lay it out.

pub mod human;
pub mod json;
pub mod markdown;

use crate::diff::{Gate, Moment, Move, RoleKind, SettingChange, StopOrder, Tally};
use crate::report::subject;
use crate::rules::describe;
use crate::time::Millis;

/// What the two sides are, and what else the report says about the run.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// The first side (`HEAD~1`, `today's profile`).
    pub before: String,
    /// The second side (`files`, `--to istio=1.27`).
    pub after: String,
    /// The assumptions only the first side makes.
    pub before_only: Vec<String>,
    /// The assumptions only the second side makes.
    pub after_only: Vec<String>,
    /// Inputs of either side that could not be read.
    pub input_errors: Vec<crate::load::InputError>,
    /// Notes of either side (versions beyond the model, objects not linted).
    pub notes: Vec<crate::load::InputError>,
}

impl Header {
    /// The assumptions each side makes that the other does not, in order.
    pub fn assumptions(&mut self, before: &[String], after: &[String]) {
        self.before_only = before
            .iter()
            .filter(|a| !after.contains(a))
            .cloned()
            .collect();
        self.after_only = after
            .iter()
            .filter(|a| !before.contains(a))
            .cloned()
            .collect();
    }
}

/// How a container runs, as a noun phrase.
pub fn role(kind: RoleKind) -> &'static str {
    match kind {
        RoleKind::App => "an app container",
        RoleKind::ClassicSidecar => "a classic sidecar",
        RoleKind::NativeSidecar => "a native sidecar",
        RoleKind::InitStep => "an init step",
        RoleKind::BlockingInit => "an init container that never exits",
    }
}

/// What an app's start waits for, after "starts".
fn gate(gate: &Gate) -> String {
    match gate {
        Gate::Nothing => "with nothing holding it for its proxy".to_owned(),
        Gate::StartupProbe { sidecar } => format!("once the startupProbe of `{sidecar}` passes"),
        Gate::PostStart { sidecar } => format!("once the postStart hook of `{sidecar}` returns"),
        Gate::OwnCommand => "once its own command's wait for the proxy ends".to_owned(),
    }
}

/// `5 s`, or `never`.
pub fn moment(at: Option<Millis>) -> String {
    at.map_or_else(|| "never".to_owned(), |at| at.to_string())
}

/// The part of the timeline a moment is on, as the line starts.
fn phase(moment: Moment) -> &'static str {
    match moment.phase() {
        crate::simulate::Phase::Startup => "start-up",
        crate::simulate::Phase::Termination => "termination",
        crate::simulate::Phase::Completion => "Job's end",
    }
}

/// One move, as a line: `termination: `istio-proxy` exits 5 s → 35 s`.
pub fn movement(m: &Move) -> String {
    match m {
        Move::Container {
            name,
            appears,
            role: kind,
        } => {
            if *appears {
                format!("`{name}` appears, {}", role(*kind))
            } else {
                format!("`{name}` goes away (it was {})", role(*kind))
            }
        }
        Move::Role {
            container,
            before,
            after,
        } => format!(
            "`{container}` becomes {} (was {})",
            role(*after),
            role(*before)
        ),
        Move::Gate {
            container,
            before,
            after,
        } => format!(
            "start-up: `{container}` starts {}, instead of {}",
            gate(after),
            gate(before)
        ),
        Move::StopOrder {
            container,
            before: _,
            after,
        } => match after {
            StopOrder::AfterApps => {
                format!("termination: `{container}` stops after the apps instead of with them")
            }
            StopOrder::WithApps => {
                format!("termination: `{container}` stops with the apps instead of after them")
            }
        },
        Move::Time {
            container,
            moment: which,
            before,
            after,
        } => {
            let what = match (container, which) {
                (Some(name), Moment::Starts) => format!("`{name}` starts"),
                (Some(name), Moment::Ready) => format!("`{name}` is ready"),
                (Some(name), Moment::Sigterm) => format!("`{name}` gets SIGTERM"),
                (Some(name), Moment::Exits | Moment::ExitsAfterWork) => format!("`{name}` exits"),
                (_, Moment::PodReady) => "the pod is ready".to_owned(),
                (_, Moment::PodGone) => "the pod is gone".to_owned(),
                (_, Moment::JobCompletes) => "the Job completes".to_owned(),
                (None, other) => format!("the pod {}", other.as_str()),
            };
            format!(
                "{}: {what} {} → {}",
                phase(*which),
                moment(*before),
                moment(*after)
            )
        }
        Move::Window {
            rule,
            container,
            phase: _,
            before,
            after,
        } => {
            let lane = container
                .as_ref()
                .map(|c| format!(" on `{c}`"))
                .unwrap_or_default();
            let what = format!("loss window of {} {}{lane}", rule.id, rule.name);
            match (before, after) {
                (None, Some(after)) => format!("{what} opens: {after}"),
                (Some(before), None) => format!("{what} closes (was {before})"),
                (Some(before), Some(after)) if after > before => {
                    format!("{what} grows {before} → {after}")
                }
                (Some(before), Some(after)) => format!("{what} shrinks {before} → {after}"),
                (None, None) => what,
            }
        }
    }
}

/// One setting that becomes moot or starts to apply, as a line.
pub fn setting(change: &SettingChange) -> String {
    let why = describe::moot(&change.setting.why);
    let source = &change.setting.source;
    if change.becomes_moot {
        format!("becomes moot ({source}): {why}")
    } else {
        format!("starts to apply ({source}); it was moot: {why}")
    }
}

/// `Deployment shop/web`, as a workload's heading names it.
pub fn workload_name(change: &crate::diff::WorkloadChange) -> String {
    subject(&change.workload)
}

/// `+1 error, −2 warnings`, or `none` when nothing is counted.
pub fn counts(sign: char, counts: [usize; 3]) -> Vec<String> {
    let words = [
        ("error", "errors"),
        ("warning", "warnings"),
        ("info", "infos"),
    ];
    counts
        .iter()
        .zip(words)
        .filter(|(n, _)| **n > 0)
        .map(|(n, (one, many))| format!("{sign}{n} {}", if *n == 1 { one } else { many }))
        .collect()
}

/// The last line: `2 workloads changed, 5 unchanged; findings +1 error, −2 errors, 1
/// changed`.
pub fn summary(tally: &Tally) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{} changed, {} unchanged",
        plural(tally.changed, "workload"),
        tally.unchanged
    );
    let mut findings = counts('+', tally.added);
    findings.extend(counts('−', tally.removed));
    if tally.changed_findings > 0 {
        findings.push(format!("{} changed", tally.changed_findings));
    }
    if findings.is_empty() {
        line.push_str("; no finding added or removed");
    } else {
        line.push_str(&format!("; findings {}", findings.join(", ")));
    }
    line
}
