//! Remedies more than one rule makes: the same change removes several rules' hazards,
//! so each finding carries the same remedy and `lint --fix` makes it once.

use serde_json::Value as Json;

use super::evidence::Premise;
use super::headroom::Headroom;
use crate::fix::{Applicability, Change, Remedy};
use crate::resolve::{ExitPolicy, PodPlan};
use crate::settings::Source;
use crate::simulate;
use crate::time::Millis;

/// A remedy and what its value rests on that the input does not show.
pub type Proposal = (Remedy, Vec<Premise>);

/// `terminationGracePeriodSeconds` raised to the shortest grace period with which every
/// container of the pod exits on its own ([`simulate::grace_needed`]) plus the fixes'
/// headroom ([`Headroom`]), inserted in the pod spec when it is not set. Safe where the
/// value follows from the manifest: the pod then exits on its own before the period
/// ends, so only the SIGKILL that lost traffic goes; it rests on each app's shutdown
/// time that is the default and moves the value. `None` when the period is not the
/// pod's own to raise (a deletion's `--grace-period`, a value set outside the
/// manifest) or no period is long enough (a hook that never ends).
pub fn raise_grace_period(plan: &PodPlan) -> Option<Proposal> {
    let needed = simulate::grace_needed(plan)?;
    let grace = Headroom::over(needed);
    let remedy = Remedy::new(
        Applicability::Safe,
        format!(
            "raise `terminationGracePeriodSeconds` to {grace}, the time every container needs to exit on its own"
        ),
        vec![grace_period_at(plan, grace.seconds())?],
    );
    Some((remedy, assumed_shutdowns(plan, needed)))
}

/// The apps whose shutdown time is the default and moves the grace period `needed`:
/// with a second more, the pod would need another period.
fn assumed_shutdowns(plan: &PodPlan, needed: i64) -> Vec<Premise> {
    let mut premises = Vec::new();
    for (index, container) in plan.apps() {
        let ExitPolicy::After(time) = &container.exit else {
            continue;
        };
        if time.is_explicit() {
            continue;
        }
        let mut trial = plan.clone();
        if let ExitPolicy::After(longer) = &mut trial.containers[index].exit {
            longer.value = longer.value + Millis::secs(1);
        }
        if simulate::grace_needed(&trial) != Some(needed) {
            premises.push(Premise::app_shutdown(&container.name, time.value));
        }
    }
    premises
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
