//! Termination rules (ML2xx): containers cut off by SIGKILL, proxies gone before the
//! app, requests refused or cut during shutdown, hooks that cannot run, signals that
//! never reach the program.

mod app_without_prestop_delay;
pub(super) mod drain_setting_ignored;
mod grace_period_exceeded;
mod inbound_closed_before_endpoints_removed;
mod long_requests_cut;
mod prestop_needs_shell;
mod prestop_outlives_grace;
mod proxy_exits_before_app;
mod shell_drops_sigterm;
pub(super) mod sleep_action_unsupported;

pub use app_without_prestop_delay::AppWithoutPrestopDelay;
pub use drain_setting_ignored::DrainSettingIgnored;
pub use grace_period_exceeded::GracePeriodExceeded;
pub use inbound_closed_before_endpoints_removed::InboundClosedBeforeEndpointsRemoved;
pub use long_requests_cut::LongRequestsCut;
pub use prestop_needs_shell::PrestopNeedsShell;
pub use prestop_outlives_grace::PrestopOutlivesGrace;
pub use proxy_exits_before_app::ProxyExitsBeforeApp;
pub use shell_drops_sigterm::ShellDropsSigterm;
pub use sleep_action_unsupported::SleepActionUnsupported;

use crate::resolve::{PlannedContainer, PodPlan};
use crate::rules::fixes::raise_grace_period;
use crate::rules::help::grace_label;
use crate::rules::{Finding, Label, Violation};
use crate::simulate::Phase;
use crate::time::Millis;

/// A finding about `container`'s stop cut short by the grace period (ML201, ML206):
/// the grace period as the other side, the time lost as its window, and the remedy
/// both rules share, a grace period raised to what the timeline needs.
fn cut_by_grace<V: Violation>(
    violation: &V,
    primary: Label,
    plan: &PodPlan,
    container: &PlannedContainer,
    (from, to): (Millis, Millis),
) -> Finding {
    Finding::new(violation, primary)
        .with_proposal(raise_grace_period(plan))
        .container(&container.name)
        .related(grace_label(plan))
        .window(Phase::Termination, from, to, Some(&container.name))
}
