//! One answer per setting. A sidecar that stops carrying traffic too early in a
//! termination can be too early twice: its outbound cut comes before an app has exited
//! (ML202), its inbound refusal before the endpoints stop routing to the pod (ML203).
//! Its model's [`Stay`] setting (a wait before its signal, a drain after it) moves
//! both, so its value is computed here once, from the timeline, as the smallest that
//! clears every one of them the setting can clear; both rules word their help and
//! build their fix from this answer, and say which others it clears.

use crate::resolve::mesh::{Measure, Stay, StayAt};
use crate::resolve::{ContainerId, PlannedContainer, PodPlan, Role};
use crate::rules::RuleMeta;
use crate::rules::evidence::Premise;
use crate::rules::fixes::Proposal;
use crate::rules::fixes::grace_period_at;
use crate::rules::headroom::Headroom;
use crate::rules::termination::{
    InboundClosedBeforeEndpointsRemoved, LongRequestsCut, ProxyExitsBeforeApp,
};
use crate::simulate::{StopEntry, Timeline};
use crate::time::Millis;

/// An app still running after the proxy stopped carrying its traffic (ML202's hazard).
#[derive(Clone, Copy)]
pub struct LateApp<'a> {
    /// When the proxy stops carrying the app's traffic: it refuses new outbound calls,
    /// or exits.
    pub gone: Millis,
    /// The work container that runs longest after that, and its stop.
    pub app: (ContainerId, &'a PlannedContainer, &'a StopEntry),
}

/// The app that outlives the proxy with stop `proxy_stop`, if one does (not a
/// container whose only job is to stop the sidecars).
pub fn late_app<'a>(
    plan: &'a PodPlan,
    timeline: &'a Timeline,
    proxy_stop: &StopEntry,
) -> Option<LateApp<'a>> {
    let gone = proxy_stop.outbound_refused.unwrap_or(proxy_stop.exit);
    plan.work()
        .filter_map(|(i, app)| timeline.stop(i).map(|stop| (i, app, stop)))
        .filter(|(_, _, stop)| stop.exit > gone)
        .max_by_key(|(_, _, stop)| stop.exit)
        .map(|app| LateApp { gone, app })
}

/// When a proxy refuses new inbound connections while the endpoints still route to the
/// pod (ML203's hazard): the refusal and the removal. Only for a pod that serves and
/// does not run to completion.
pub fn early_refusal(
    plan: &PodPlan,
    timeline: &Timeline,
    proxy_stop: &StopEntry,
) -> Option<(Millis, Millis)> {
    if plan.runs_to_completion() || !plan.apps().any(|(_, app)| app.serves()) {
        return None;
    }
    let removed = timeline.termination.endpoints_removed;
    proxy_stop
        .inbound_refused
        .filter(|at| *at < removed)
        .map(|refused| (refused, removed))
}

/// A request an app takes before it stops taking them, cut before it finishes (ML204's
/// hazard), with a longest request set.
#[derive(Clone, Copy, Debug)]
pub struct CutRequest {
    /// Until when the app takes requests: its signal, endpoint removal, or a proxy's
    /// inbound refusal, whichever is first.
    pub admitted_until: Millis,
    /// When the longest request taken last finishes.
    pub finishes: Millis,
    /// The proxy that is gone first, or `None` when SIGKILL ends the app first.
    pub cutter: Option<ContainerId>,
    /// When it is cut.
    pub cut_at: Millis,
}

/// What the pod's proxies do to every app's requests: the earliest inbound refusal and
/// the first proxy gone. The same for every app, so found once per pod, not per app (a
/// pod may run thousands).
#[derive(Clone, Copy, Debug)]
pub struct ProxyEnds {
    refuses: Option<Millis>,
    gone: Option<(ContainerId, Millis)>,
}

impl ProxyEnds {
    pub fn of(plan: &PodPlan, timeline: &Timeline) -> ProxyEnds {
        let mut ends = ProxyEnds {
            refuses: None,
            gone: None,
        };
        for (index, _) in plan.proxies() {
            let Some(stop) = timeline.stop(index) else {
                continue;
            };
            ends.refuses = ends.refuses.into_iter().chain(stop.inbound_refused).min();
            if ends.gone.is_none_or(|(_, exit)| stop.exit < exit) {
                ends.gone = Some((index, stop.exit));
            }
        }
        ends
    }
}

/// The request of the serving app `app_index` that is cut, if one is; `ends` is
/// [`ProxyEnds::of`] the same pod.
pub fn cut_request(
    plan: &PodPlan,
    timeline: &Timeline,
    ends: &ProxyEnds,
    app_index: ContainerId,
) -> Option<CutRequest> {
    let longest = plan.scenario.longest_request.as_ref()?;
    let app_stop = timeline.stop(app_index)?;
    // A proxy that refuses earlier ends admission sooner.
    let admitted_until = [
        Some(app_stop.signal),
        Some(timeline.termination.endpoints_removed),
        ends.refuses,
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap_or_default();
    let finishes = admitted_until + longest.value;
    // The earliest of: the app killed, the proxy gone.
    let (cutter, cut_at) = match ends.gone {
        Some((proxy, exit)) if exit < app_stop.kill => (Some(proxy), exit),
        _ => (None, app_stop.kill),
    };
    (finishes > cut_at).then_some(CutRequest {
        admitted_until,
        finishes,
        cutter,
        cut_at,
    })
}

/// The value of a proxy's [`Stay`] setting that clears every hazard of it the setting
/// can clear, as the help and the fix of each finding about them.
#[derive(Clone, Debug)]
pub struct StayAnswer {
    /// The rules whose findings on this proxy the value clears.
    pub clears: Vec<&'static RuleMeta>,
    /// The help: the model's words for the setting at that value.
    pub help: String,
    /// The change, when the pod's text can say it, with the assumed times its value
    /// rests on.
    pub fix: Option<Proposal>,
}

impl StayAnswer {
    /// The help for a finding of `rule`: the setting, and the other findings the same
    /// value clears.
    pub fn help_for(&self, rule: &RuleMeta) -> String {
        let others: Vec<&str> = self
            .clears
            .iter()
            .filter(|other| other.id != rule.id)
            .map(|other| other.id)
            .collect();
        if others.is_empty() {
            return self.help.clone();
        }
        format!(
            "{}\nthis one value also clears {} on this proxy",
            self.help.trim_end(),
            others.join(" and ")
        )
    }

    /// Whether the answer clears `rule`'s finding.
    pub fn clears(&self, rule: &RuleMeta) -> bool {
        self.clears.iter().any(|cleared| cleared.id == rule.id)
    }
}

/// The answer for the proxy `index`, when its model has a [`Stay`] setting and the
/// timeline shows a hazard the setting clears.
pub fn answer(plan: &PodPlan, timeline: &Timeline, index: ContainerId) -> Option<StayAnswer> {
    let proxy = &plan.containers[index];
    let stay = proxy
        .remedies()
        .stay
        .filter(|stay| stay.when_injected_native || !injected_native(proxy))?;
    let stop = timeline.stop(index)?;
    // Each hazard as the cut that comes too early and the moment it must reach.
    let mut hazards: Vec<(Millis, Millis, &'static RuleMeta)> = Vec::new();
    let mut assumed = Vec::new();
    if let Some(late) = late_app(plan, timeline, stop) {
        hazards.push((late.gone, late.app.2.exit, &ProxyExitsBeforeApp::META));
        if !plan.scenario.app_shutdown.is_explicit() && late.app.1.role == Role::App {
            assumed.push(Premise::app_shutdown(
                &late.app.1.name,
                plan.scenario.app_shutdown.value,
            ));
        }
    }
    if let Some((refused, removed)) = early_refusal(plan, timeline, stop).filter(|_| stay.inbound) {
        hazards.push((refused, removed, &InboundClosedBeforeEndpointsRemoved::META));
        if !plan.scenario.endpoint_propagation.is_explicit() {
            assumed.push(Premise::endpoint_propagation(
                plan.scenario.endpoint_propagation.value,
            ));
        }
    }
    let ends = ProxyEnds::of(plan, timeline);
    for (app_index, _) in plan.apps().filter(|(_, app)| app.serves()) {
        if let Some(cut) =
            cut_request(plan, timeline, &ends, app_index).filter(|cut| cut.cutter == Some(index))
        {
            hazards.push((cut.cut_at, cut.finishes, &LongRequestsCut::META));
        }
    }
    // The proxy stays past the latest target by the fixes' headroom, and the kubelet's
    // SIGKILL comes that much later again: no two of them fall on one second.
    let latest = hazards.iter().map(|(_, target, _)| *target).max()?;
    let stay_until = Headroom::over(whole_seconds(latest));
    let shift = Millis(stay_until.seconds().saturating_mul(1000)) - latest;
    let value = hazards
        .iter()
        .map(|(cut, target, _)| value_for(&stay, stop, *cut, *target + shift))
        .max()?;
    let grace_seconds = Headroom::over(stay_until.seconds());
    let grace = grace_period_at(plan, grace_seconds.seconds());
    let seconds = whole_seconds(value);
    let suggestion = (stay.at)(&StayAt {
        seconds,
        annotations: &plan.paths.pod_metadata.key("annotations"),
        written: proxy.manifest_path(),
    });
    // A Job's proxy is better made native (ML301's fix), which clears these too; a
    // wait written first would block it where the injector denies a native proxy with
    // a wait (Linkerd 2.15 to 2.19, ML402), as the check then refuses the native fix.
    let fix = suggestion
        .fix
        .filter(|_| !plan.runs_to_completion())
        .map(|mut fix| {
            fix.description = format!(
                "{}, which keeps the proxy up until {stay_until} after the deletion",
                fix.description
            );
            if grace.is_some() {
                fix.description = format!(
                    "{}, and raise `terminationGracePeriodSeconds` to {grace_seconds} for it",
                    fix.description
                );
                fix.changes.extend(grace.clone());
            }
            // A value resting on a time the scenario assumes is a guess to review.
            (fix, assumed)
        });
    Some(StayAnswer {
        clears: hazards.into_iter().map(|(_, _, rule)| rule).collect(),
        help: suggestion.help,
        fix,
    })
}

/// Whether the proxy's injector adds it as a native sidecar (not written in the
/// manifest).
fn injected_native(proxy: &PlannedContainer) -> bool {
    proxy.is_native_sidecar() && proxy.manifest_path().is_none()
}

/// `at` in whole seconds, rounded up.
fn whole_seconds(at: Millis) -> i64 {
    at.0.div_euclid(1000) + i64::from(at.0.rem_euclid(1000) > 0)
}

/// The setting's value that moves `cut` to `target`: a wait before the signal moves
/// every cut by as much as it grows; a delay after the signal is measured from it.
fn value_for(stay: &Stay, stop: &StopEntry, cut: Millis, target: Millis) -> Millis {
    match stay.measures {
        Measure::UntilSignal => stop.signal + (target - cut),
        Measure::AfterSignal => target - stop.signal,
    }
}
