//! `helm template`: a chart's rendered stream. Helm heads each document with the
//! template it came from (`# Source: shop/templates/deployment.yaml`), which reports
//! name as a path of the chart's directory.
//!
//! The chart is released under its own name, when Helm would take that name for a
//! release; the name comes from the chart's `Chart.yaml`, which is the repository's
//! content, so it is given after `--` and only when it is one (a `name:
//! "--post-renderer=evil.sh"` is released as `release`).

use std::path::Path;

use super::{Bounds, Failure, run, start_failure, tool_failure};
use crate::external::{Args, CommandLine};
use crate::load::Node;
use crate::load::rendered::{Renderer, Rendering};

/// The release name when the chart's own is not one Helm takes.
const FALLBACK_RELEASE: &str = "release";

/// The longest release name Helm takes (`chartutil.ValidateReleaseName`).
const MAX_RELEASE_NAME: usize = 53;

/// Renders the chart in `dir` with its default values, released under its own name.
pub fn render(dir: &Path, bounds: &Bounds) -> Result<(Vec<u8>, Rendering), Failure> {
    let chart = crate::load::parse_file(&dir.join("Chart.yaml"))
        .and_then(|documents| documents.into_iter().next())
        .and_then(|document| {
            document
                .root
                .get("name")
                .and_then(Node::as_str)
                .map(str::to_owned)
        });
    let release = chart
        .as_deref()
        .filter(|name| is_release_name(name))
        .unwrap_or(FALLBACK_RELEASE);
    let line =
        CommandLine::new("helm").args(&Args::new().word("template").operand(release).path(dir));
    let finished = match run(&line, bounds) {
        Ok(finished) => finished,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Missing(format!(
                "a Helm chart, not rendered: `helm` is not on PATH; install Helm (https://helm.sh/docs/intro/install/), or render it yourself: {} | kubectl mesh-lifecycle lint -",
                line.shown()
            )));
        }
        Err(error) => return Err(Failure::Failed(start_failure(&line, &error))),
    };
    if let Some(message) = tool_failure(&line, &finished, bounds) {
        return Err(Failure::Failed(message));
    }
    Ok((
        finished.stdout,
        Rendering::new(
            Renderer::Helm,
            dir.to_path_buf(),
            chart,
            Vec::new(),
            Vec::new(),
        ),
    ))
}

/// Whether Helm takes `name` as a release name (`chartutil.ValidateReleaseName`): at
/// most 53 characters, in dot-separated parts of lower-case letters, digits and `-`,
/// each beginning and ending with a letter or digit. None begins with `-`.
fn is_release_name(name: &str) -> bool {
    let part = |part: &str| {
        let bytes = part.as_bytes();
        let alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        bytes.first().is_some_and(alphanumeric)
            && bytes.last().is_some_and(alphanumeric)
            && bytes.iter().all(|b| alphanumeric(b) || *b == b'-')
    };
    name.len() <= MAX_RELEASE_NAME && name.split('.').all(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_are_the_ones_helm_takes() {
        for name in ["shop", "my-app", "a", "a.b-c.d9", &"x".repeat(53)] {
            assert!(is_release_name(name), "{name}");
        }
        for name in [
            "",
            "--post-renderer=evil.sh",
            "-shop",
            "shop-",
            "Shop",
            "my_app",
            "a..b",
            ".a",
            &"x".repeat(54),
        ] {
            assert!(!is_release_name(name), "{name}");
        }
    }
}
