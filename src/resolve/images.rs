//! What can be told about a container image from its name alone.

/// Marks of images built without a shell or coreutils (distroless, scratch-based,
/// static), where an exec hook running `sh` or `sleep` fails.
const MINIMAL_MARKS: [&str; 6] = [
    "distroless",
    "/static",
    "-static",
    ":nonroot",
    "scratch",
    "chainguard/static",
];

/// Images known to ship without a shell although their name does not say so.
const SHELL_LESS: [&str; 2] = ["linkerd/proxy:", "envoyproxy/envoy-distroless"];

/// Whether the image most likely has no `sh` and no `sleep`.
pub fn lacks_shell(image: &str) -> bool {
    let image = image.to_ascii_lowercase();
    MINIMAL_MARKS.iter().any(|mark| image.contains(mark))
        || SHELL_LESS.iter().any(|mark| image.contains(mark))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distroless_and_static_images() {
        assert!(lacks_shell("gcr.io/distroless/static-debian12:nonroot"));
        assert!(lacks_shell("gcr.io/distroless/java21"));
        assert!(lacks_shell("cgr.dev/chainguard/static:latest"));
        assert!(!lacks_shell("nginx:1.27"));
        assert!(!lacks_shell("busybox"));
        assert!(!lacks_shell("docker.io/istio/proxyv2:1.24.0"));
    }
}
