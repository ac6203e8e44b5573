//! What the `github` format takes from the GitHub Actions environment.

use std::fs::OpenOptions;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use crate::report::github::StepSummary;
use crate::report::paths::PathBase;

/// Paths are relative to the checkout (`$GITHUB_WORKSPACE`), which is what GitHub
/// matches annotations against; outside Actions, to the current directory.
pub fn workspace() -> io::Result<PathBase> {
    match std::env::var_os("GITHUB_WORKSPACE") {
        Some(dir) if Path::new(&dir).is_absolute() => Ok(PathBase::new(dir)),
        _ => PathBase::current_dir(),
    }
}

/// The job summary file, `$GITHUB_STEP_SUMMARY`, when it is set.
pub fn summary_path() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The job summary file (`$GITHUB_STEP_SUMMARY`), opened for appending, with the URL
/// that links a file at the commit under test; `output` is where the annotations go
/// (`--output`), named in the summary when its table is cut short. A summary that is a
/// file the run reads was refused before the run began
/// ([`super::overwrite`]); one that cannot be opened is reported and left out: the
/// annotations still go out.
pub fn step_summary(output: Option<&Path>) -> Option<StepSummary> {
    let path = summary_path()?;
    let file = match OpenOptions::new().create(true).append(true).open(&path) {
        Ok(file) => file,
        Err(error) => {
            super::diagnostic(&format!(
                "warning: cannot write the job summary to {}: {error}\n",
                crate::report::escape::controls(&Path::new(&path).display().to_string())
            ));
            return None;
        }
    };
    let var = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
    let blob_url = match (var("GITHUB_REPOSITORY"), var("GITHUB_SHA")) {
        (Some(repository), Some(sha)) => {
            let server = var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into());
            Some(format!("{server}/{repository}/blob/{sha}/"))
        }
        _ => None,
    };
    let existing = file.metadata().map_or(0, |m| m.len());
    let full_report = match output {
        Some(path) => format!("`{}`", path.display()),
        None => "this step's log".to_owned(),
    };
    Some(StepSummary {
        out: Box::new(BufWriter::new(file)),
        existing,
        blob_url,
        full_report,
    })
}
