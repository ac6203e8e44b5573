//! Which rules run, and at what severity: `--select` and `--ignore`, then the config
//! file's `rules:` section.

use std::collections::BTreeMap;

use super::{Finding, Severity};
use crate::load::InputError;
use crate::settings::config::{Fixable, RuleLevel, RuleName, RuleSetting};

/// Which rules are on, and severities users changed.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Rule ids turned off.
    pub disabled: Vec<&'static str>,
    /// Only these rule ids, when not empty.
    pub selected: Vec<&'static str>,
    /// Severity overrides by rule id.
    pub severities: BTreeMap<&'static str, Severity>,
    /// Rules whose findings carry no fix (`fixable:`/`unfixable:` of the config file):
    /// shown, never fixed.
    pub unfixable: Vec<&'static str>,
    /// How findings that rest on a premise count: lowered, or at full severity; `None`
    /// until a flag or the config file says (full).
    pub assumed_losses: Option<super::AssumedLosses>,
}

impl Policy {
    /// The policy of `--select` and `--ignore` (rule ids or names); an unknown rule is
    /// an error naming it.
    pub fn from_flags(select: &[String], ignore: &[String]) -> Result<Policy, String> {
        let ids = |keys: &[String]| -> Result<Vec<&'static str>, String> {
            keys.iter()
                .filter(|k| !k.is_empty())
                .map(|key| {
                    super::find(key).map(|rule| rule.meta().id).ok_or_else(|| {
                        format!("unknown rule `{key}` (see `kubectl mesh-lifecycle rules`)")
                    })
                })
                .collect()
        };
        Ok(Policy {
            selected: ids(select)?,
            disabled: ids(ignore)?,
            ..Policy::default()
        })
    }

    /// Adds the `rules:` section of the config file; flags were applied first and
    /// `--select` still limits what runs. An unknown rule is an error at its setting.
    pub fn with_config_rules(
        mut self,
        settings: &[RuleSetting],
    ) -> Result<Policy, Vec<InputError>> {
        let mut errors = Vec::new();
        for setting in settings {
            let Some(rule) = super::find(&setting.rule) else {
                errors.push(InputError {
                    file: setting.file.clone(),
                    pos: Some(setting.pos),
                    message: format!(
                        "unknown rule `{}` (see `kubectl mesh-lifecycle rules`)",
                        setting.rule
                    ),
                    related: None,
                    source: Some(setting.source.clone()),
                });
                continue;
            };
            let id = rule.meta().id;
            let severity = match setting.level {
                RuleLevel::Off => {
                    if !self.disabled.contains(&id) {
                        self.disabled.push(id);
                    }
                    continue;
                }
                RuleLevel::Error => Severity::Error,
                RuleLevel::Warning => Severity::Warning,
                RuleLevel::Info => Severity::Info,
            };
            self.severities.insert(id, severity);
        }
        if errors.is_empty() {
            Ok(self)
        } else {
            Err(errors)
        }
    }

    /// Adds the config file's `fixable:` and `unfixable:`: a rule outside `fixable`
    /// (when given; `ALL` names every rule) or in `unfixable` has its findings reported
    /// without a fix, as ruff's lists do. An unknown rule is an error at its place.
    pub fn with_fixable(mut self, lists: &Fixable) -> Result<Policy, Vec<InputError>> {
        let mut errors = Vec::new();
        let mut ids = |names: &[RuleName]| -> Vec<&'static str> {
            let mut ids = Vec::new();
            for name in names {
                if name.rule.eq_ignore_ascii_case("all") {
                    ids.extend(super::RULES.iter().map(|rule| rule.meta().id));
                    continue;
                }
                match super::find(&name.rule) {
                    Some(rule) => ids.push(rule.meta().id),
                    None => errors.push(InputError {
                        file: name.file.clone(),
                        pos: Some(name.pos),
                        message: format!(
                            "unknown rule `{}` (see `kubectl mesh-lifecycle rules`, or ALL)",
                            name.rule
                        ),
                        related: None,
                        source: Some(name.source.clone()),
                    }),
                }
            }
            ids
        };
        let fixable = lists.fixable.as_deref().map(&mut ids);
        let unfixable = ids(&lists.unfixable);
        self.unfixable = super::RULES
            .iter()
            .map(|rule| rule.meta().id)
            .filter(|id| {
                unfixable.contains(id) || fixable.as_ref().is_some_and(|list| !list.contains(id))
            })
            .collect();
        if errors.is_empty() {
            Ok(self)
        } else {
            Err(errors)
        }
    }

    /// Adds the config file's `assumedLosses:`, unless a flag said already.
    pub fn with_assumed_losses(mut self, config: Option<super::AssumedLosses>) -> Policy {
        self.assumed_losses = self.assumed_losses.or(config);
        self
    }

    /// Whether the rule `id` runs.
    pub fn applies(&self, id: &str) -> bool {
        (self.selected.is_empty() || self.selected.contains(&id)) && !self.disabled.contains(&id)
    }

    /// `finding` if its rule runs, at the severity the policy gives it, without its fix
    /// when the rule is not fixable.
    pub fn judge(&self, mut finding: Finding) -> Option<Finding> {
        if !self.applies(finding.rule.id) {
            return None;
        }
        finding.severity = self.grade(&finding);
        if self.unfixable.contains(&finding.rule.id) {
            finding.fix = None;
        }
        Some(finding)
    }

    /// The severity the policy gives `finding`, whether its rule runs or not: what the
    /// fix loop weighs findings by.
    /// A finding that rests on a premise is lowered as its rule's doc states, unless
    /// assumed losses count at full severity.
    pub fn grade(&self, finding: &Finding) -> Severity {
        let severity = self
            .severities
            .get(finding.rule.id)
            .copied()
            .unwrap_or(finding.severity);
        match self.assumed_losses.unwrap_or_default() {
            super::AssumedLosses::Full => severity,
            super::AssumedLosses::Lowered => finding.evidence.lowered(severity, finding.rule),
        }
    }
}
