//! Start-up rules (ML1xx): the app, or an init container, running before the proxy it
//! depends on.

mod app_starts_before_proxy;
mod init_container_needs_proxy;
mod native_sidecar_not_gated;
pub(super) mod native_sidecar_unsupported;
mod proxy_gate_ineffective;

pub use app_starts_before_proxy::AppStartsBeforeProxy;
pub use init_container_needs_proxy::InitContainerNeedsProxy;
pub use native_sidecar_not_gated::NativeSidecarNotGated;
pub use native_sidecar_unsupported::NativeSidecarUnsupported;
pub use proxy_gate_ineffective::ProxyGateIneffective;
