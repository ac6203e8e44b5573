//! Named presets for managed meshes whose defaults differ from upstream.

use k8s_openapi::api::core::v1::{ExecAction, Lifecycle, LifecycleHandler};

use super::{Settings, Source, Sourced};

/// The preset names, for help and errors.
pub const PRESETS: [&str; 1] = ["alibaba-asm"];

/// Applies the preset `name`.
pub fn apply(name: &str, settings: &mut Settings) -> Result<(), String> {
    let source = Source::Preset(PRESET_ALIBABA);
    match name {
        // Alibaba Cloud Service Mesh turns holdApplicationUntilProxyStarts on mesh-wide and
        // gives the proxy a `sleep 15` preStop hook (docs/lifecycle.md §8, from its documentation).
        PRESET_ALIBABA => {
            settings.istio.hold_helm_global = Some(Sourced::new(true, source.clone()));
            let exec = |command: &[&str]| LifecycleHandler {
                exec: Some(ExecAction {
                    command: Some(command.iter().map(|arg| (*arg).to_owned()).collect()),
                }),
                ..LifecycleHandler::default()
            };
            let lifecycle = Lifecycle {
                post_start: Some(exec(&["pilot-agent", "wait"])),
                pre_stop: Some(exec(&["/bin/sh", "-c", "sleep 15"])),
                ..Lifecycle::default()
            };
            settings.istio.set_lifecycle(lifecycle, source);
            Ok(())
        }
        other => Err(format!(
            "unknown preset `{other}`; known presets: {}",
            PRESETS.join(", ")
        )),
    }
}

const PRESET_ALIBABA: &str = "alibaba-asm";
