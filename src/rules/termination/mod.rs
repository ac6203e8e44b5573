//! Termination rules (ML2xx): containers cut off by SIGKILL, proxies gone before the
//! app, requests refused or cut during shutdown.

mod grace_period_exceeded;
mod prestop_outlives_grace;

pub use grace_period_exceeded::GracePeriodExceeded;
pub use prestop_outlives_grace::PrestopOutlivesGrace;
