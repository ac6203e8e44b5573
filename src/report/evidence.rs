//! A finding's evidence in words and as data: the facts it rests on, and each premise
//! the input does not prove with how to settle it (JSON, SARIF, the language server,
//! the HTML and human reports).

use serde::Serialize;

use crate::rules::{Evidence, Premise, Subject, Weight};

/// What a premise is about, for machines: `plan`, `appShutdown`, `endpointPropagation`,
/// `callsOut`, `requestsArrive`, `throughSidecar`, `kubernetesVersion`, `noInjection`.
pub fn premise_kind(premise: &Premise) -> &'static str {
    match premise.subject {
        Subject::Plan(_) => "plan",
        Subject::AppShutdown { .. } => "appShutdown",
        Subject::EndpointPropagation(_) => "endpointPropagation",
        Subject::CallsOut { .. } => "callsOut",
        Subject::RequestsArrive => "requestsArrive",
        Subject::ThroughSidecar { .. } => "throughSidecar",
        Subject::KubernetesVersion(_) => "kubernetesVersion",
        Subject::NoInjection { .. } => "noInjection",
    }
}

/// A finding's evidence as the JSON report, SARIF and the language server carry it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceJson {
    /// The input proves the loss: no premise.
    pub proven: bool,
    /// What the input and profile show.
    pub facts: Vec<String>,
    /// What it needed that the input does not prove.
    pub premises: Vec<PremiseJson>,
}

/// One premise as data.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PremiseJson {
    /// What it is about.
    pub kind: &'static str,
    /// In words.
    pub text: String,
    /// How to settle it.
    pub settle: String,
    /// How far it lowers the finding: `lower` (one level) or `info`.
    pub lowers: Weight,
}

/// `evidence` as data.
pub fn json(evidence: &Evidence) -> EvidenceJson {
    EvidenceJson {
        proven: evidence.proven(),
        facts: evidence.facts.clone(),
        premises: evidence.premises.iter().map(premise_json).collect(),
    }
}

/// One premise as data.
pub fn premise_json(premise: &Premise) -> PremiseJson {
    PremiseJson {
        kind: premise_kind(premise),
        text: premise.text(),
        settle: premise.settle.clone(),
        lowers: premise.weight,
    }
}

/// The premises in one line, for the human report and the language server: `assumed:
/// A (settle: B); C (settle: D)`; `None` when the input proves the finding.
pub fn brief(evidence: &Evidence) -> Option<String> {
    if evidence.proven() {
        return None;
    }
    let items: Vec<String> = evidence
        .premises
        .iter()
        .map(|premise| {
            let text = premise.text();
            if text.contains(&premise.settle) {
                text
            } else {
                format!("{text} ({})", premise.settle)
            }
        })
        .collect();
    Some(format!("assumed: {}", items.join("; ")))
}
