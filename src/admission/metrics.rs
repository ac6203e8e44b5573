//! What the server counts, in Prometheus' text format at `/metrics`: reviews by kind
//! and verdict, findings by rule, how long each review took, the reviews in flight and
//! the certificate reloads.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use super::review::Verdict;

/// The kinds a review is counted under; any other is `other`, so that a caller cannot
/// grow the metrics without bound.
const KINDS: &[&str] = &[
    "Pod",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "ReplicationController",
    "Job",
    "CronJob",
    "Rollout",
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReviewLabels {
    kind: &'static str,
    verdict: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FindingLabels {
    rule: &'static str,
    severity: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReloadLabels {
    result: &'static str,
}

/// The server's metrics.
pub struct Metrics {
    registry: Registry,
    reviews: Family<ReviewLabels, Counter>,
    findings: Family<FindingLabels, Counter>,
    duration: Histogram,
    in_flight: Gauge,
    reloads: Family<ReloadLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric at zero.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("mesh_lifecycle_admission");
        let reviews = Family::<ReviewLabels, Counter>::default();
        let findings = Family::<FindingLabels, Counter>::default();
        // 0.5 ms to about 8 s, doubling.
        let duration = Histogram::new(exponential_buckets(0.0005, 2.0, 15));
        let in_flight = Gauge::default();
        let reloads = Family::<ReloadLabels, Counter>::default();
        registry.register(
            "reviews",
            "AdmissionReviews answered, by the object's kind and the verdict",
            reviews.clone(),
        );
        registry.register(
            "findings",
            "Findings reported in answers, by rule and severity",
            findings.clone(),
        );
        registry.register(
            "review_duration_seconds",
            "Time from a review's body read to its answer",
            duration.clone(),
        );
        registry.register(
            "reviews_in_flight",
            "Reviews being linted now",
            in_flight.clone(),
        );
        registry.register(
            "certificate_reloads",
            "Reloads of the TLS certificate and key that found them changed, by result",
            reloads.clone(),
        );
        for verdict in Verdict::ALL {
            reviews
                .get_or_create(&ReviewLabels {
                    kind: "Pod",
                    verdict: verdict.as_str(),
                })
                .get();
        }
        Metrics {
            registry,
            reviews,
            findings,
            duration,
            in_flight,
            reloads,
        }
    }

    /// Counts one answered review.
    pub fn review(&self, kind: Option<&str>, verdict: Verdict, took: Duration) {
        let kind = kind
            .and_then(|kind| KINDS.iter().find(|known| **known == kind).copied())
            .unwrap_or(if kind.is_some() { "other" } else { "unknown" });
        self.reviews
            .get_or_create(&ReviewLabels {
                kind,
                verdict: verdict.as_str(),
            })
            .inc();
        self.duration.observe(took.as_secs_f64());
    }

    /// Counts a finding an answer reported.
    pub fn finding(&self, rule: &'static str, severity: crate::rules::Severity) {
        self.findings
            .get_or_create(&FindingLabels {
                rule,
                severity: severity.as_str(),
            })
            .inc();
    }

    /// The gauge of reviews being linted.
    pub fn in_flight(&self) -> &Gauge {
        &self.in_flight
    }

    /// Counts a reload that found the files changed.
    pub fn reload(&self, ok: bool) {
        self.reloads
            .get_or_create(&ReloadLabels {
                result: if ok { "loaded" } else { "failed" },
            })
            .inc();
    }

    /// The metrics in the OpenMetrics text format.
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}
