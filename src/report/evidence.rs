//! A finding's evidence in words and as data: the facts it rests on, and each premise
//! the input does not prove with how to settle it (JSON, SARIF, the language server,
//! the HTML and human reports).

use serde::Serialize;

use super::assumptions::assumed;
use crate::rules::{Evidence, Premise, Subject, Weight};

/// A premise in words: "`web` calls out during shutdown".
pub fn premise_text(premise: &Premise) -> String {
    match &premise.subject {
        Subject::Plan(reading) => assumed(reading),
        Subject::AppShutdown { container, value } => {
            format!("`{container}` takes {value} to exit after SIGTERM (the default)")
        }
        Subject::EndpointPropagation(value) => {
            format!("endpoint removal takes {value} to reach every client (the default)")
        }
        Subject::CallsOut { container } => {
            format!("`{container}` calls out while its proxy is gone")
        }
        Subject::RequestsArrive => {
            "requests arrive: a Service outside the input selects the pod".to_owned()
        }
        Subject::ThroughSidecar { container, ports } => format!(
            "requests reach the pod through `{container}` (port {}), not only on the app's own port",
            ports
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What a premise is about, for machines: `plan`, `appShutdown`, `endpointPropagation`,
/// `callsOut`, `requestsArrive`, `throughSidecar`.
pub fn premise_kind(premise: &Premise) -> &'static str {
    match premise.subject {
        Subject::Plan(_) => "plan",
        Subject::AppShutdown { .. } => "appShutdown",
        Subject::EndpointPropagation(_) => "endpointPropagation",
        Subject::CallsOut { .. } => "callsOut",
        Subject::RequestsArrive => "requestsArrive",
        Subject::ThroughSidecar { .. } => "throughSidecar",
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
        premises: evidence
            .premises
            .iter()
            .map(|premise| PremiseJson {
                kind: premise_kind(premise),
                text: premise_text(premise),
                settle: premise.settle.clone(),
                lowers: premise.weight,
            })
            .collect(),
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
            let text = premise_text(premise);
            if text.contains(&premise.settle) {
                text
            } else {
                format!("{text} ({})", premise.settle)
            }
        })
        .collect();
    Some(format!("assumed: {}", items.join("; ")))
}
