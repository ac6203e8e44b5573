//! `helm template`: a chart's rendered stream. Helm heads each document with the
//! template it came from (`# Source: shop/templates/deployment.yaml`), which reports
//! name as a path of the chart's directory.

use std::ffi::OsStr;
use std::path::Path;

use super::{Failure, run, tool_message};
use crate::load::Node;
use crate::load::rendered::{Renderer, Rendering};

/// Renders the chart in `dir` with its default values, released under its own name.
pub fn render(dir: &Path) -> Result<(Vec<u8>, Rendering), Failure> {
    let chart = crate::load::parse_file(&dir.join("Chart.yaml"))
        .and_then(|documents| documents.into_iter().next())
        .and_then(|document| {
            document
                .root
                .get("name")
                .and_then(Node::as_str)
                .map(str::to_owned)
        });
    let release = chart.clone().unwrap_or_else(|| "release".to_owned());
    let shown = format!("helm template {release} {}", dir.display());
    let output = match run(
        OsStr::new("helm"),
        &[
            OsStr::new("template"),
            OsStr::new(&release),
            dir.as_os_str(),
        ],
    ) {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Missing(format!(
                "a Helm chart, not rendered: `helm` is not on PATH; install Helm (https://helm.sh/docs/intro/install/), or render it yourself: {shown} | kubectl mesh-lifecycle lint -"
            )));
        }
        Err(error) => return Err(Failure::Failed(format!("cannot run `{shown}`: {error}"))),
    };
    if !output.status.success() {
        return Err(Failure::Failed(tool_message(&shown, &output)));
    }
    Ok((
        output.stdout,
        Rendering::new(
            Renderer::Helm,
            dir.to_path_buf(),
            chart,
            Vec::new(),
            Vec::new(),
        ),
    ))
}
