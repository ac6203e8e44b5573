//! Start-up rules (ML1xx): the app running before the proxy it depends on.

mod app_starts_before_proxy;
mod proxy_gate_ineffective;

pub use app_starts_before_proxy::AppStartsBeforeProxy;
pub use proxy_gate_ineffective::ProxyGateIneffective;
