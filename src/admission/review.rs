//! One AdmissionReview answered: the request read with kube-core's types, its object
//! linted by the pipeline `lint` runs, and the findings turned into the response's
//! warnings, audit annotation and, under `--deny-on`, a denial.
//!
//! Nothing here waits or does I/O: the server (`admission::http`) bounds its time and
//! its input, so that this module can be called, and tested, on any bytes.

use std::collections::HashMap;

use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kube_core::{DynamicObject, Status};

use super::wording;
use crate::load::Inputs;
use crate::pipeline::{self, RunOptions};
use crate::rules::Severity;
use crate::settings::Settings;

/// The AdmissionReview version the server speaks; the webhook configuration asks for
/// it alone (`admissionReviewVersions: [v1]`).
pub const REVIEW_API_VERSION: &str = "admission.k8s.io/v1";

/// The namespace label that turns the webhook off for a namespace, as the webhook
/// configuration's `namespaceSelector` leaves it out, and as the server, when the
/// profile knows the namespace's labels, answers for it.
pub const OPT_OUT_LABEL: &str = "mesh-lifecycle.io/admission";

/// The value of [`OPT_OUT_LABEL`] that opts out.
pub const OPT_OUT_VALUE: &str = "disabled";

/// The key of the audit annotation naming the rules that fired; the API server records
/// it as `<webhook name>/<key>`.
pub const AUDIT_KEY: &str = "rules";

/// What the server judges every review with.
pub struct Reviewer {
    /// The profile: the config file's mesh versions, namespace labels and scenario.
    pub settings: Settings,
    /// The rules that run, and the bounds on the object read.
    pub options: RunOptions,
    /// The lowest severity worth a warning: findings below it are left out of the
    /// answer.
    pub warn_on: Severity,
    /// The lowest severity that denies the request; `None` warns only.
    pub deny_on: Option<Severity>,
}

/// How a review was answered, for the metrics and the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed without a word: no finding, an object the linter does not read, or an
    /// operation with nothing to lint (DELETE, CONNECT).
    Allowed,
    /// Allowed, with the findings as warnings.
    Warned,
    /// Denied under `--deny-on`.
    Denied,
    /// Allowed unchecked: the namespace opts out.
    OptedOut,
    /// Allowed unchecked: the review ran out of time.
    TimedOut,
    /// Not a review the server can read: answered with HTTP 400, which the API server
    /// treats as a failed call (`failurePolicy: Ignore` admits the object).
    Invalid,
}

impl Verdict {
    /// The name the metrics give it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Warned => "warned",
            Verdict::Denied => "denied",
            Verdict::OptedOut => "opted_out",
            Verdict::TimedOut => "timed_out",
            Verdict::Invalid => "invalid",
        }
    }

    /// Every verdict, for metrics that show each from the start.
    pub const ALL: [Verdict; 6] = [
        Verdict::Allowed,
        Verdict::Warned,
        Verdict::Denied,
        Verdict::OptedOut,
        Verdict::TimedOut,
        Verdict::Invalid,
    ];
}

/// The answer to one review: the HTTP status and body, and what it came to.
#[derive(Debug)]
pub struct Answer {
    /// 200 for a review answered, 400 for one that cannot be read.
    pub status: u16,
    /// An AdmissionReview, as JSON.
    pub body: Vec<u8>,
    /// What the answer says.
    pub verdict: Verdict,
    /// The kind of the object reviewed (`Pod`, `Deployment`), when the review names it.
    pub kind: Option<String>,
    /// The findings the answer reports.
    pub findings: Vec<wording::Found>,
}

/// A review read, before its object is linted.
pub struct Request {
    request: AdmissionRequest<DynamicObject>,
}

impl Request {
    /// The review's uid, which the answer must carry.
    pub fn uid(&self) -> &str {
        &self.request.uid
    }

    /// The kind of the object under review.
    pub fn kind(&self) -> &str {
        &self.request.kind.kind
    }
}

/// Reads `body` as an `admission.k8s.io/v1` AdmissionReview holding a request, or
/// answers why it is not one.
pub fn read(body: &[u8]) -> Result<Request, Answer> {
    let review: AdmissionReview<DynamicObject> = serde_json::from_slice(body)
        .map_err(|error| invalid(&format!("not an AdmissionReview: {error}")))?;
    if review.types.api_version != REVIEW_API_VERSION || review.types.kind != "AdmissionReview" {
        return Err(invalid(&format!(
            "expected kind AdmissionReview of apiVersion {REVIEW_API_VERSION}, got kind {:?} of apiVersion {:?}",
            review.types.kind, review.types.api_version
        )));
    }
    let request: AdmissionRequest<DynamicObject> = review
        .try_into()
        .map_err(|_| invalid("the AdmissionReview holds no request"))?;
    Ok(Request { request })
}

impl Reviewer {
    /// Reads and answers `body`.
    pub fn review(&self, body: &[u8]) -> Answer {
        match read(body) {
            Ok(request) => self.judge(&request),
            Err(answer) => answer,
        }
    }

    /// Answers a review read: lints its object and words the findings.
    pub fn judge(&self, request: &Request) -> Answer {
        let request = &request.request;
        let response = AdmissionResponse::from(request);
        let kind = Some(request.kind.kind.clone());
        let answered = |response: AdmissionResponse, verdict, findings| Answer {
            status: 200,
            body: encode(response),
            verdict,
            kind: kind.clone(),
            findings,
        };
        if matches!(request.operation, Operation::Delete | Operation::Connect) {
            return answered(response, Verdict::Allowed, Vec::new());
        }
        let Some(object) = &request.object else {
            return answered(response, Verdict::Allowed, Vec::new());
        };
        if let Some(namespace) = &request.namespace
            && self.opted_out(namespace)
        {
            return answered(response, Verdict::OptedOut, Vec::new());
        }
        let findings = self.lint(object, request.namespace.as_deref());
        if findings.is_empty() {
            return answered(response, Verdict::Allowed, Vec::new());
        }
        let mut response = response;
        response.warnings = Some(wording::warnings(&findings));
        response.audit_annotations =
            HashMap::from([(AUDIT_KEY.to_owned(), wording::rule_ids(&findings))]);
        let denied = self
            .deny_on
            .is_some_and(|threshold| findings.iter().any(|finding| finding.severity >= threshold));
        if denied {
            let threshold = self.deny_on.expect("a denial has its threshold");
            response.allowed = false;
            response.result =
                Status::failure(&wording::denial(&findings, threshold), "Forbidden").with_code(403);
            return answered(response, Verdict::Denied, findings);
        }
        answered(response, Verdict::Warned, findings)
    }

    /// Whether the profile's labels for `namespace` opt it out.
    fn opted_out(&self, namespace: &str) -> bool {
        self.settings
            .namespaces
            .get(namespace)
            .and_then(|info| info.labels.get(OPT_OUT_LABEL))
            .is_some_and(|value| value == OPT_OUT_VALUE)
    }

    /// The findings of `object` that no annotation suppresses, worst first, from the
    /// pipeline `lint` runs. The object is linted in the namespace of the request,
    /// which a pod a controller creates often leaves out of its metadata.
    fn lint(&self, object: &DynamicObject, namespace: Option<&str>) -> Vec<wording::Found> {
        let Ok(mut value) = serde_json::to_value(object) else {
            return Vec::new();
        };
        if let (Some(namespace), Some(metadata)) = (
            namespace,
            value.get_mut("metadata").and_then(|m| m.as_object_mut()),
        ) {
            metadata
                .entry("namespace")
                .or_insert_with(|| serde_json::Value::String(namespace.to_owned()));
        }
        let Ok(bytes) = serde_json::to_vec(&value) else {
            return Vec::new();
        };
        let inputs = Inputs::from_bytes(bytes);
        let mut found = Vec::new();
        pipeline::run(&inputs, &self.settings, &self.options, |report| {
            let located = report
                .analyses
                .into_iter()
                .flat_map(|analysis| analysis.findings);
            found.extend(
                located
                    .filter(|located| located.suppressed.is_none())
                    .map(|located| wording::Found::from(&located)),
            );
        });
        let shown = self
            .deny_on
            .map_or(self.warn_on, |deny| deny.min(self.warn_on));
        found.retain(|finding| finding.severity >= shown);
        // Worst first, each severity in the rules' order.
        found.sort_by_key(|finding| std::cmp::Reverse(finding.severity));
        found
    }
}

/// The answer to a review that ran out of time: allowed, with a warning saying it was
/// not checked.
pub fn timed_out(uid: &str, kind: Option<String>, budget: std::time::Duration) -> Answer {
    let mut response = AdmissionResponse::invalid("");
    response.uid = uid.to_owned();
    response.allowed = true;
    response.result = Status::success();
    response.warnings = Some(vec![wording::timed_out(budget)]);
    Answer {
        status: 200,
        body: encode(response),
        verdict: Verdict::TimedOut,
        kind,
        findings: Vec::new(),
    }
}

/// The answer to a body that is not a review: HTTP 400 with an AdmissionReview whose
/// status says why.
pub fn invalid(reason: &str) -> Answer {
    Answer {
        status: 400,
        body: encode(AdmissionResponse::invalid(reason)),
        verdict: Verdict::Invalid,
        kind: None,
        findings: Vec::new(),
    }
}

/// The response wrapped in its AdmissionReview, as JSON.
fn encode(response: AdmissionResponse) -> Vec<u8> {
    let mut review = serde_json::to_value(response.into_review()).unwrap_or_default();
    // kube-core names the review's version; the server answers in the one it speaks.
    if let Some(fields) = review.as_object_mut() {
        fields.insert("apiVersion".into(), REVIEW_API_VERSION.into());
        fields.insert("kind".into(), "AdmissionReview".into());
    }
    serde_json::to_vec(&review).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reviewer() -> Reviewer {
        Reviewer {
            settings: Settings::default(),
            options: RunOptions {
                threads: 1,
                fixes: crate::pipeline::FixMode::Unchecked,
                ..RunOptions::default()
            },
            warn_on: Severity::Info,
            deny_on: Some(Severity::Error),
        }
    }

    const REVIEW: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"shop","operation":"CREATE","userInfo":{},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"linkerd.io/inject":"enabled"}},"spec":{"containers":[{"name":"app","image":"app"},{"name":"linkerd-proxy","image":"cr.l5d.io/linkerd/proxy:stable-2.14.0"}]}}}}"#;

    fn answer_is_well_formed(answer: &Answer) {
        let review: serde_json::Value =
            serde_json::from_slice(&answer.body).expect("an answer is JSON");
        assert_eq!(review["apiVersion"], REVIEW_API_VERSION);
        assert_eq!(review["kind"], "AdmissionReview");
        assert!(review["response"]["allowed"].is_boolean(), "{review}");
        assert!(matches!(answer.status, 200 | 400), "{}", answer.status);
    }

    #[test]
    fn a_review_is_answered_with_its_uid_in_the_namespace_of_the_request() {
        let answer = reviewer().review(REVIEW.as_bytes());
        answer_is_well_formed(&answer);
        let review: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(review["response"]["uid"], "u1");
        assert_eq!(answer.kind.as_deref(), Some("Pod"));
    }

    #[test]
    fn delete_and_connect_are_allowed_unread() {
        let delete = REVIEW.replace("\"CREATE\"", "\"DELETE\"");
        let answer = reviewer().review(delete.as_bytes());
        assert_eq!(answer.verdict, Verdict::Allowed);
        assert!(answer.findings.is_empty());
    }

    #[test]
    fn a_namespace_labelled_out_is_not_linted() {
        let mut reviewer = reviewer();
        reviewer.settings.namespaces.insert(
            "shop".into(),
            crate::settings::NamespaceInfo {
                labels: [(OPT_OUT_LABEL.to_owned(), OPT_OUT_VALUE.to_owned())].into(),
                ..Default::default()
            },
        );
        assert_eq!(
            reviewer.review(REVIEW.as_bytes()).verdict,
            Verdict::OptedOut
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any bytes get a well-formed answer, never a panic.
        #[test]
        fn any_body_is_answered(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            answer_is_well_formed(&reviewer().review(&body));
        }

        /// So does a real review cut anywhere or with a byte changed.
        #[test]
        fn a_damaged_review_is_answered(cut in 0..REVIEW.len(), at in 0..REVIEW.len(), byte in any::<u8>()) {
            answer_is_well_formed(&reviewer().review(&REVIEW.as_bytes()[..cut]));
            let mut changed = REVIEW.as_bytes().to_vec();
            changed[at] = byte;
            answer_is_well_formed(&reviewer().review(&changed));
        }
    }
}
