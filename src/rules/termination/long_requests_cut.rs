use crate::resolve::PlannedContainer;
use crate::rules::fixes::raise_grace_period;
use crate::rules::help::container_label;
use crate::rules::stay::{self, StayAnswer};
use crate::rules::{Finding, Pod, Rule, RuleMeta, Violation, declare_rule};
use crate::settings::Sourced;
use crate::simulate::Phase;
use crate::time::Millis;

declare_rule! {
    /// ## What it detects
    /// With a longest request configured (the `longest-request` scenario value), a
    /// request admitted just before the pod stops taking new ones would still be running
    /// when its proxy exits or the app is killed. Without that value the rule does not
    /// run: no manifest says how long requests take.
    ///
    /// ## Why it loses traffic
    /// Requests keep arriving until endpoint removal has propagated or the app stops
    /// accepting them (docs/lifecycle.md §2.1). Each may run for the longest-request time. Istio's
    /// agent kills Envoy after `terminationDrainDuration`, Linkerd cuts at its shutdown
    /// grace period, and SIGKILL ends everything at the grace period (docs/lifecycle.md §3.6,
    /// §4.3, §2.2): long uploads, reports and streams are cut (Alibaba Cloud ASM documents it, docs/lifecycle.md §8).
    ///
    /// ## Example
    /// ```yaml
    /// # kubectl mesh-lifecycle lint --longest-request 60s
    /// terminationGracePeriodSeconds: 30
    /// ```
    ///
    /// ## Fix
    /// Give requests the time they need: a grace period longer than the admission
    /// window plus the longest request, and a proxy that stays until the app's
    /// connections are done (`EXIT_ON_ZERO_ACTIVE_CONNECTIONS`, or a native sidecar).
    ///
    /// `lint --fix --unsafe-fixes` makes the change the cut calls for, with the
    /// longest request the user gave: where a proxy cuts the request, its own setting
    /// at the one value that lets the request finish and also clears its ML202 and
    /// ML203 (Istio's `terminationDrainDuration`, Linkerd's wait, Dapr's block,
    /// Consul's shutdown grace period), with
    /// the grace period raised to it when it would not fit; where SIGKILL cuts it, the
    /// grace period raised to what every container needs, requests in flight included.
    /// Safe where nothing the value adds up is assumed, as for ML201; otherwise unsafe,
    /// saying what it assumes. A sidecar with no
    /// setting of its own gets no fix (there is nothing to set), nor a grace period set
    /// outside the manifest (`--deletion-grace-period`: it is not in the file).
    ///
    /// ## Evidence
    /// Proven from the manifest and the timeline: it keeps its warning. Assumed when it needs a
    /// reading the input does not state (a hook of unknown length or whose program the image
    /// lacks, a version's default where releases differ): info, naming the reading and
    /// how to settle it (the default; `--assumed-losses full` keeps the warning).
    ///
    /// ## References
    /// - docs/lifecycle.md §2.1, §2.2 (SIGKILL at the grace period), §3.6 (the 5 s default drain), §4.3, §7 F10
    /// - Alibaba Cloud ASM, "Why long-running requests fail after sidecar proxy injection"
    pub struct LongRequestsCut {
        id: "ML204",
        name: "long-requests-cut",
        severity: Warning,
        fix: Sometimes,
        group: Termination,
        summary: "requests admitted before shutdown cannot finish in time",
        since: "0.1.0",
    }
}

/// A request taken before shutdown that is cut before it finishes.
struct RequestCut<'a> {
    /// The app that takes it.
    app: &'a PlannedContainer,
    /// Until when the app takes requests.
    admitted_until: Millis,
    /// The longest request, and where that length comes from.
    longest: &'a Sourced<Millis>,
    /// When the longest request taken last finishes.
    finishes: Millis,
    /// The proxy that is gone first, or `None` when SIGKILL ends the app first.
    cutter: Option<&'a PlannedContainer>,
    /// When it is cut.
    cut_at: Millis,
    /// The value of the cutting proxy's own setting that lets the request finish.
    stay: Option<StayAnswer>,
}

impl Violation for RequestCut<'_> {
    const RULE: &'static RuleMeta = &LongRequestsCut::META;

    fn message(&self) -> String {
        let cut_at = self.cut_at;
        let what = match self.cutter {
            None => format!("SIGKILL ends `{}` at {cut_at}", self.app.name),
            Some(proxy) => format!("`{}` is gone at {cut_at}", proxy.name),
        };
        format!(
            "`{}` takes requests until {}; one of the longest ({}, {}) runs until {}, but {what}: {} of it are cut",
            self.app.name,
            self.admitted_until,
            self.longest.value,
            self.longest.source,
            self.finishes,
            self.finishes - cut_at
        )
    }

    fn help(&self) -> String {
        if let Some(stay) = &self.stay {
            return stay.help_for(Self::RULE);
        }
        format!(
            "let requests finish: a grace period of at least {} s and a proxy that leaves only when the app's connections are done (EXIT_ON_ZERO_ACTIVE_CONNECTIONS, or a native sidecar)",
            (self.finishes.0.saturating_add(999) / 1000).saturating_add(2)
        )
    }
}

impl Rule for LongRequestsCut {
    fn check(&self, pod: &Pod, findings: &mut Vec<Finding>) {
        let plan = pod.plan;
        let Some(longest) = &plan.scenario.longest_request else {
            return;
        };
        let ends = stay::ProxyEnds::of(plan, pod.timeline);
        // Every cut request has the same cutter (the first proxy gone): its answer is
        // found once.
        let cutter_stay = std::cell::OnceCell::new();
        for (app_index, app) in plan.apps() {
            if !app.serves() {
                continue;
            }
            let Some(cut) = stay::cut_request(plan, pod.timeline, &ends, app_index) else {
                continue;
            };
            // The proxy's own setting where it cuts the request, else the grace period.
            let (stay, fix) = match cut.cutter {
                Some(proxy) => {
                    let stay = cutter_stay
                        .get_or_init(|| {
                            stay::answer(plan, pod.timeline, proxy)
                                .filter(|stay| stay.clears(&LongRequestsCut::META))
                        })
                        .clone();
                    let fix = stay.as_ref().and_then(|stay| stay.fix.clone());
                    (stay, fix)
                }
                None => (None, raise_grace_period(plan)),
            };
            let violation = RequestCut {
                app,
                admitted_until: cut.admitted_until,
                longest,
                finishes: cut.finishes,
                cutter: cut.cutter.map(|proxy| &plan.containers[proxy]),
                cut_at: cut.cut_at,
                stay,
            };
            findings.push(
                Finding::new(
                    &violation,
                    container_label(app, format!("takes requests until {}", cut.admitted_until)),
                )
                .container(&app.name)
                .window(
                    Phase::Termination,
                    cut.cut_at,
                    cut.finishes,
                    Some(&app.name),
                )
                .with_proposal(fix),
            );
        }
    }
}
