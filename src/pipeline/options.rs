//! What a run is asked to do: its limits, threads, rule policy, what it does with
//! fixes and which sidecar models it runs.

use crate::fix::Applicability;
use crate::load::Limits;
use crate::resolve::Registry;
use crate::rules::selector::Policy;

/// Options of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Bounds on hostile input.
    pub limits: Limits,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Which rules run and at what severity.
    pub policy: Policy,
    /// What is done with the fixes findings carry.
    pub fixes: FixMode,
    /// The sidecar models resolve runs: the standard ones unless a caller brings its
    /// own.
    pub models: &'static Registry,
    /// A `List` document at least this many bytes long is read item by item, each
    /// item's tree dropped once its findings are reported ([`crate::load::items`]);
    /// `usize::MAX` reads every `List` whole.
    pub lists_by_item_from: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            limits: Limits::default(),
            threads: 0,
            policy: Policy::default(),
            fixes: FixMode::default(),
            models: Registry::standard(),
            lists_by_item_from: crate::load::items::BY_ITEM_FROM,
        }
    }
}

/// What a run does with the fixes its findings carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FixMode {
    /// Each is checked against the timeline ([`super::fix::rounds::verify`]); one that fails is
    /// `Err(reason)`: what every report that shows fixes needs.
    #[default]
    Verify,
    /// Built, not checked: for reports that never show them.
    Unchecked,
    /// Each piece's text fixed to a fixed point with the fixes at least this safe
    /// ([`super::fix::rounds::fix`]); its [`DocumentReport::fixed`](super::DocumentReport::fixed) says what was made.
    Apply(Applicability),
}

/// The threads one piece may use: `-j`, or one per core.
pub(super) fn threads(options: &RunOptions) -> usize {
    match options.threads {
        0 => cores(),
        n => n,
    }
}

/// The cores this process may run on, asked of the system once: the answer costs
/// several reads of files (the affinity mask, the cgroup's quota), more than the work
/// on a small document.
pub(super) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}
