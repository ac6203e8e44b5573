//! Job rules (ML3xx): sidecars that keep a Job from completing or lose its result.

pub(super) mod container_restarts_in_place;
mod endpoint_call;
mod job_exit_call_ineffective;
mod job_exit_status_lost;
mod job_kill_needs_shared_pid;
mod job_sidecar_never_exits;

pub use container_restarts_in_place::ContainerRestartsInPlace;
pub use job_exit_call_ineffective::JobExitCallIneffective;
pub use job_exit_status_lost::JobExitStatusLost;
pub use job_kill_needs_shared_pid::JobKillNeedsSharedPid;
pub use job_sidecar_never_exits::JobSidecarNeverExits;
