//! Sidecars the user declares in the config file (`sidecars:`): known by their
//! container's name, with the start-up and shutdown the declaration gives.

use super::{Description, Remedies, SidecarModel};
use crate::resolve::Builder;
use crate::resolve::plan::*;
use crate::resolve::vocabulary::Vocabulary;
use crate::settings::{Source, Sourced};

/// The sidecars of the config file.
pub struct Declared;

static DECLARED_SIDECARS: Description = Description {
    id: "declared",
    label: "declared sidecar",
    mesh: None,
    vocabulary: &Vocabulary::NONE,
    remedies: &Remedies::NONE,
};

impl SidecarModel for Declared {
    fn description(&self) -> &Description {
        &DECLARED_SIDECARS
    }

    /// Marks the regular containers not yet known that the config declares.
    fn resolve(&self, b: &mut Builder) {
        for index in 0..b.regular.len() {
            if b.regular[index].role != Role::App {
                continue;
            }
            let name = b.regular[index].name.clone();
            let Some(declared) = b
                .settings
                .declared_sidecars
                .iter()
                .find(|d| d.name == name)
                .cloned()
            else {
                continue;
            };
            b.make_sidecar(
                ContainerList::Regular,
                index,
                SidecarKind::Declared(name),
                declared.carries_traffic,
            );
            let container = &mut b.regular[index];
            if let Some(startup) = declared.startup {
                container.startup = startup;
            }
            container.exit = ExitPolicy::After(Sourced::new(declared.shutdown, Source::Default));
            if declared.carries_traffic {
                container.traffic = Some(TrafficCuts {
                    inbound_refused: Cut::Exit,
                    inbound_drained: Cut::Signal,
                    outbound_refused: Cut::Exit,
                });
            }
        }
    }
}
