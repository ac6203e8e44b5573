//! Remedies more than one rule makes: the same change removes several rules' hazards,
//! so each finding carries the same remedy and `lint --fix` makes it once.

use serde_json::Value as Json;

use super::headroom::Headroom;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::PodPlan;
use crate::settings::Source;
use crate::simulate;

/// `terminationGracePeriodSeconds` raised to the shortest grace period with which every
/// container of the pod exits on its own ([`simulate::grace_needed`]) plus the fixes'
/// headroom ([`Headroom`]), inserted in the pod spec when it is not set. Unsafe: every
/// deletion of the pod may then take that long. `None` when the period is not the pod's
/// own to raise (a deletion's `--grace-period`, a value set outside the manifest) or no
/// period is long enough (a hook that never ends).
pub fn raise_grace_period(plan: &PodPlan) -> Option<Remedy> {
    let grace = Headroom::over(simulate::grace_needed(plan)?);
    Some(Remedy::new(
        Applicability::Unsafe,
        format!(
            "raise `terminationGracePeriodSeconds` to {grace}, the time every container needs to exit on its own"
        ),
        vec![grace_period_at(plan, grace.seconds())?],
    ))
}

/// `terminationGracePeriodSeconds` set to `seconds`, when that raises it and the period
/// is the pod's own to raise (not a deletion's `--grace-period` or a value set outside
/// the manifest).
pub fn grace_period_at(plan: &PodPlan, seconds: i64) -> Option<Change> {
    let path = plan.grace_period_path();
    let own = match &plan.grace_period.source {
        Source::Default => true,
        Source::Manifest(at) => *at == path,
        _ => false,
    };
    (own && seconds > plan.grace_period.value).then(|| Change::Set(path, Json::from(seconds)))
}
