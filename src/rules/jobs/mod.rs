//! Job rules (ML3xx): sidecars that keep a Job from completing or lose its result.

mod job_sidecar_never_exits;

pub use job_sidecar_never_exits::JobSidecarNeverExits;
