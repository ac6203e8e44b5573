//! What can be told about a container image from its name alone. The facts of a
//! sidecar's own images are its model's: they come in through the [`Lexicon`].

use super::shell::ShellFamily;
use super::vocabulary::Lexicon;
#[cfg(test)]
use super::vocabulary::ShellLessImage;

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

/// What `image` most likely lacks; `lexicon` names the sidecars' images that lack a
/// shell although their names do not say so.
pub fn missing_tools(image: &str, lexicon: &Lexicon) -> MissingTools {
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
    let shell_less = lexicon.shell_less_images().find(|known| {
        image.contains(known.mark)
            && !known
                .shell_variants
                .iter()
                .any(|variant| image.ends_with(variant))
    });
    if let Some(known) = shell_less {
        return MissingTools {
            shell: true,
            sleep: !known.has_sleep,
        };
    }
    let minimal = MINIMAL_MARKS.iter().any(|mark| image.contains(mark));
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
    use crate::resolve::vocabulary::Vocabulary;

    fn lacks_shell(image: &str) -> bool {
        missing_tools(image, &Lexicon::default()).shell
    }

    #[test]
    fn distroless_and_static_images() {
        assert!(lacks_shell("gcr.io/distroless/static-debian12:nonroot"));
        assert!(lacks_shell("gcr.io/distroless/java21"));
        assert!(lacks_shell("cgr.dev/chainguard/static:latest"));
        assert!(lacks_shell("docker.io/envoyproxy/envoy-distroless:v1.32.1"));
        assert!(!lacks_shell("nginx:1.27"));
        assert!(!lacks_shell("busybox"));
        let tools = missing_tools("gcr.io/distroless/static", &Lexicon::default());
        assert!(tools.lacks("sh") && tools.lacks("sleep"));
    }

    #[test]
    fn a_sidecar_s_own_images_are_known_from_its_vocabulary() {
        static TOOL: Vocabulary = Vocabulary {
            shell_less_images: &[ShellLessImage {
                mark: "example/tool:",
                has_sleep: true,
                shell_variants: &["-debug"],
            }],
            ..Vocabulary::NONE
        };
        let lexicon = Lexicon::new(vec![&TOOL]);
        assert!(
            !lacks_shell("example/tool:1.0"),
            "not without the vocabulary"
        );
        let tools = missing_tools("registry.example/example/tool", &lexicon);
        assert!(tools.lacks("sh") && !tools.lacks("sleep"), "untagged");
        let tools = missing_tools("example/tool:1.0-debug", &lexicon);
        assert!(
            !tools.lacks("sh") && !tools.lacks("sleep"),
            "a variant with a shell"
        );
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
