//! What can be told about a container image from its name alone.

use super::shell::ShellFamily;

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

/// Images known to ship without a shell although their name does not say so, with
/// whether they still carry a `sleep` binary. Linkerd's proxy image has `/bin/sleep`
/// for its injected wait-before-exit hook, and nothing else.
const SHELL_LESS: [(&str, bool); 2] = [
    ("linkerd/proxy:", true),
    ("envoyproxy/envoy-distroless", false),
];

/// The programs of hooks that an image most likely lacks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MissingTools {
    /// No `sh`, `bash` or `busybox`.
    pub shell: bool,
    /// No `sleep`.
    pub sleep: bool,
}

impl MissingTools {
    /// Whether `program` (a basename) is most likely missing.
    pub fn lacks(self, program: &str) -> bool {
        match program {
            // Without a shell there is no procps or util-linux either.
            "sh" | "bash" | "ash" | "dash" | "busybox" | "kill" | "pkill" | "killall" => self.shell,
            "sleep" => self.sleep,
            _ => false,
        }
    }
}

/// Images whose default variant is distroless, with the tag suffixes of the variants
/// that have a shell (the Cloud SQL Auth Proxy publishes `-alpine`, `-bullseye` and
/// `-bookworm`; v1's `gce-proxy` `-alpine`, `-buster`, `-bullseye` and `-bookworm`).
const DISTROLESS_BY_DEFAULT: [(&str, &[&str]); 2] = [
    ("cloud-sql-proxy:", &["-alpine", "-bullseye", "-bookworm"]),
    (
        "gce-proxy:",
        &["-alpine", "-buster", "-bullseye", "-bookworm"],
    ),
];

/// What `image` most likely lacks.
pub fn missing_tools(image: &str) -> MissingTools {
    let mut image = image.to_ascii_lowercase();
    // An image named without a tag is `:latest`, as the container runtime reads it.
    if !image
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .contains([':', '@'])
    {
        image.push_str(":latest");
    }
    let default_variant = DISTROLESS_BY_DEFAULT.iter().any(|(mark, variants)| {
        image.contains(mark) && !variants.iter().any(|variant| image.ends_with(variant))
    });
    if let Some((_, has_sleep)) = SHELL_LESS.iter().find(|(mark, _)| image.contains(mark)) {
        return MissingTools {
            shell: true,
            sleep: !has_sleep,
        };
    }
    let minimal = default_variant || MINIMAL_MARKS.iter().any(|mark| image.contains(mark));
    MissingTools {
        shell: minimal,
        sleep: minimal,
    }
}

/// Marks of an image's distribution in its name, with what its `sh` is: BusyBox's ash
/// in Alpine and BusyBox images, Debian's dash in Debian and Ubuntu ones (the official
/// images' `-slim` and release-named tags), bash in Red Hat's family.
const SH_MARKS: [(&str, ShellFamily); 22] = [
    ("alpine", ShellFamily::BusyboxAsh),
    ("busybox", ShellFamily::BusyboxAsh),
    ("curlimages/curl", ShellFamily::BusyboxAsh),
    ("debian", ShellFamily::DebianDash),
    ("ubuntu", ShellFamily::DebianDash),
    ("-slim", ShellFamily::DebianDash),
    ("bookworm", ShellFamily::DebianDash),
    ("bullseye", ShellFamily::DebianDash),
    ("buster", ShellFamily::DebianDash),
    ("trixie", ShellFamily::DebianDash),
    ("jammy", ShellFamily::DebianDash),
    ("focal", ShellFamily::DebianDash),
    ("noble", ShellFamily::DebianDash),
    ("/ubi8", ShellFamily::Bash),
    ("/ubi9", ShellFamily::Bash),
    ("ubi-minimal", ShellFamily::Bash),
    ("centos", ShellFamily::Bash),
    ("rhel", ShellFamily::Bash),
    ("fedora", ShellFamily::Bash),
    ("rockylinux", ShellFamily::Bash),
    ("almalinux", ShellFamily::Bash),
    ("amazonlinux", ShellFamily::Bash),
];

/// What `sh` is in `image`, when its name tells (docs/lifecycle.md §2.7).
pub fn sh_family(image: &str) -> Option<ShellFamily> {
    let image = image.to_ascii_lowercase();
    SH_MARKS
        .iter()
        .find(|(mark, _)| image.contains(mark))
        .map(|(_, family)| *family)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lacks_shell(image: &str) -> bool {
        missing_tools(image).shell
    }

    #[test]
    fn distroless_and_static_images() {
        assert!(lacks_shell("gcr.io/distroless/static-debian12:nonroot"));
        assert!(lacks_shell("gcr.io/distroless/java21"));
        assert!(lacks_shell("cgr.dev/chainguard/static:latest"));
        assert!(!lacks_shell("nginx:1.27"));
        assert!(!lacks_shell("busybox"));
        assert!(!lacks_shell("docker.io/istio/proxyv2:1.24.0"));
    }

    #[test]
    fn the_linkerd_proxy_has_sleep_but_no_shell() {
        assert!(missing_tools("cr.l5d.io/linkerd/proxy").shell, "untagged");
        let tools = missing_tools("cr.l5d.io/linkerd/proxy:edge-24.11.8");
        assert!(tools.lacks("sh") && !tools.lacks("sleep"));
        let tools = missing_tools("gcr.io/distroless/static");
        assert!(tools.lacks("sh") && tools.lacks("sleep"));
    }

    #[test]
    fn the_cloud_sql_proxy_is_distroless_unless_a_variant_says_otherwise() {
        assert!(lacks_shell(
            "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1"
        ));
        assert!(!lacks_shell(
            "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1-alpine"
        ));
        assert!(!lacks_shell(
            "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1-bookworm"
        ));
        assert!(lacks_shell("gcr.io/cloudsql-docker/gce-proxy:1.33.2"));
        assert!(!lacks_shell(
            "gcr.io/cloudsql-docker/gce-proxy:1.33.2-alpine"
        ));
    }

    #[test]
    fn the_sh_of_an_image_by_its_distribution() {
        assert_eq!(sh_family("alpine:3.20"), Some(ShellFamily::BusyboxAsh));
        assert_eq!(sh_family("python:3.12-slim"), Some(ShellFamily::DebianDash));
        assert_eq!(
            sh_family("eclipse-temurin:21-jammy"),
            Some(ShellFamily::DebianDash)
        );
        assert_eq!(
            sh_family("registry.access.redhat.com/ubi9/ubi-minimal"),
            Some(ShellFamily::Bash)
        );
        assert_eq!(sh_family("example/api:1.0"), None);
    }
}
