//! Termination rules (ML2xx): containers cut off by SIGKILL, proxies gone before the
//! app, requests refused or cut during shutdown, hooks that cannot run.

mod app_without_prestop_delay;
mod drain_setting_ignored;
mod grace_period_exceeded;
mod inbound_closed_before_endpoints_removed;
mod long_requests_cut;
mod prestop_needs_shell;
mod prestop_outlives_grace;
mod proxy_exits_before_app;
pub(super) mod sleep_action_unsupported;

pub use app_without_prestop_delay::AppWithoutPrestopDelay;
pub use drain_setting_ignored::DrainSettingIgnored;
pub use grace_period_exceeded::GracePeriodExceeded;
pub use inbound_closed_before_endpoints_removed::InboundClosedBeforeEndpointsRemoved;
pub use long_requests_cut::LongRequestsCut;
pub use prestop_needs_shell::PrestopNeedsShell;
pub use prestop_outlives_grace::PrestopOutlivesGrace;
pub use proxy_exits_before_app::ProxyExitsBeforeApp;
pub use sleep_action_unsupported::SleepActionUnsupported;
