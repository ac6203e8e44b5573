//! What a run may not write over: any file it reads. The report (`--output`), the
//! baseline it records (`--write-baseline`), the GitHub job summary
//! (`$GITHUB_STEP_SUMMARY`) and the files `--fix` writes back are each checked here,
//! against the same list: the manifests named or found by a directory search, the
//! file standard input is redirected from, the config file and the mesh configs, and
//! the baseline being read — through any path, symbolic link or hard link. A write
//! that would land on one is refused with exit status 2, before anything is written:
//! a gate that destroys its own input and exits 0 would hide that it did.

use std::path::{Path, PathBuf};

use crate::load::discover::{Input, identity};

/// What a run would write over a file it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// The report, `--output FILE`.
    Output,
    /// The baseline, `--write-baseline FILE`.
    WriteBaseline,
    /// The GitHub job summary, `$GITHUB_STEP_SUMMARY`.
    JobSummary,
    /// A file `--fix` writes back.
    Fix,
}

impl Writer {
    /// The flag or variable that names the file.
    fn named_by(self) -> &'static str {
        match self {
            Writer::Output => "--output",
            Writer::WriteBaseline => "--write-baseline",
            Writer::JobSummary => "$GITHUB_STEP_SUMMARY",
            Writer::Fix => "--fix: the fixed file",
        }
    }

    /// What it writes.
    fn writes(self) -> &'static str {
        match self {
            Writer::Output => "the report",
            Writer::WriteBaseline => "the baseline",
            Writer::JobSummary => "the job summary",
            Writer::Fix => "the fixes",
        }
    }
}

/// Why a file is read by the run.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Role {
    /// A manifest: named on the command line, or found by a directory search.
    Input { name: String, named: bool },
    /// The file standard input is redirected from.
    Stdin,
    /// The config file in force, or a mesh config (`--mesh-config`, `istio.meshConfig`).
    Settings { path: PathBuf, config: bool },
    /// The baseline `--baseline` reads.
    Baseline(PathBuf),
}

/// Every file the run reads, by identity.
#[derive(Clone, Debug, Default)]
pub struct ReadFiles {
    files: Vec<(identity::FileId, Role)>,
}

/// A write refused: the file it would land on, and why the run reads that file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    writer: Writer,
    path: PathBuf,
    role: Role,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = shown(&self.path);
        let input = match &self.role {
            Role::Input { name, .. } => crate::report::escape::controls(name).into_owned(),
            Role::Stdin => "- (standard input)".to_owned(),
            Role::Settings { path, config: true } => format!("{}, the config file", shown(path)),
            Role::Settings {
                path,
                config: false,
            } => format!("{}, a mesh config", shown(path)),
            Role::Baseline(path) => format!("{}, the baseline read", shown(path)),
        };
        let writes = self.writer.writes();
        write!(
            f,
            "{} {path} is the same file as the input {input}; writing {writes} there would overwrite it",
            self.writer.named_by()
        )?;
        if let Role::Input { named: false, .. } = self.role {
            // A file of an earlier run, found again by a directory search: say how to
            // keep the two apart rather than leave the user guessing.
            let file = self
                .path
                .file_name()
                .map_or_else(|| path.clone(), |name| shown(Path::new(name)));
            write!(
                f,
                " (a directory search found it): write {writes} outside the searched directories, or leave it out with --exclude '{file}'"
            )?;
        }
        Ok(())
    }
}

/// `path` as messages show it: control characters escaped.
fn shown(path: &Path) -> String {
    crate::report::escape::controls(&path.display().to_string()).into_owned()
}

impl ReadFiles {
    /// The files of `inputs` (`named` being the paths on the command line, to tell the
    /// files named from those a search found), the config file `config` and the mesh
    /// configs among `settings` (every settings file read), and `baseline`.
    pub fn new(
        inputs: &[Input],
        named: &[String],
        settings: &[PathBuf],
        config: Option<&Path>,
        baseline: Option<&Path>,
    ) -> ReadFiles {
        let named: Vec<identity::FileId> = named
            .iter()
            .filter_map(|name| identity::of_path(Path::new(name)))
            .collect();
        let mut files = Vec::new();
        for input in inputs {
            let Some(id) = input.identity() else { continue };
            let role = match input {
                Input::Stdin => Role::Stdin,
                _ => Role::Input {
                    name: input.display_name().to_string(),
                    named: named.contains(&id),
                },
            };
            files.push((id, role));
        }
        let config = config.and_then(identity::of_path);
        for path in settings {
            if let Some(id) = identity::of_path(path) {
                let config = config.as_ref() == Some(&id);
                files.push((
                    id,
                    Role::Settings {
                        path: path.clone(),
                        config,
                    },
                ));
            }
        }
        if let Some(path) = baseline
            && let Some(id) = identity::of_path(path)
        {
            files.push((id, Role::Baseline(path.to_path_buf())));
        }
        ReadFiles { files }
    }

    /// Why `writer` must not write `path`, when it is a file the run reads; `None`
    /// when it may. Only a regular file can be overwritten (`-o /dev/stdout` on the
    /// terminal that is also standard input is fine); a file `--fix` writes is an
    /// input by definition, and refused only when the run reads it as something else.
    pub fn refuse(&self, writer: Writer, path: &Path) -> Option<Refusal> {
        if !path.is_file() {
            return None;
        }
        let target = identity::of_path(path)?;
        self.files
            .iter()
            .filter(|(id, _)| *id == target)
            .map(|(_, role)| role)
            .find(|role| !(writer == Writer::Fix && matches!(role, Role::Input { .. })))
            .map(|role| Refusal {
                writer,
                path: path.to_path_buf(),
                role: role.clone(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_writer_is_refused_over_every_file_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, "a: b\n").unwrap();
            path
        };
        let (manifest, found, config, mesh, baseline) = (
            file("web.yaml"),
            file("found.yaml"),
            file("config.yaml"),
            file("mesh.yaml"),
            file("baseline.json"),
        );
        let named = manifest.to_string_lossy().into_owned();
        let read = ReadFiles::new(
            &[Input::File(manifest.clone()), Input::File(found.clone())],
            &[named],
            &[config.clone(), mesh.clone()],
            Some(&config),
            Some(&baseline),
        );
        for writer in [Writer::Output, Writer::WriteBaseline, Writer::JobSummary] {
            for path in [&manifest, &found, &config, &mesh, &baseline] {
                assert!(read.refuse(writer, path).is_some(), "{writer:?} {path:?}");
            }
            assert_eq!(read.refuse(writer, &dir.path().join("new.json")), None);
        }
        // --fix writes its inputs, never the settings or the baseline.
        assert_eq!(read.refuse(Writer::Fix, &manifest), None);
        for path in [&config, &mesh, &baseline] {
            assert!(read.refuse(Writer::Fix, path).is_some(), "{path:?}");
        }
        let found = read
            .refuse(Writer::WriteBaseline, &found)
            .unwrap()
            .to_string();
        assert!(
            found.starts_with("--write-baseline ")
                && found.contains("is the same file as the input")
                && found.contains("writing the baseline there would overwrite it")
                && found.ends_with("--exclude 'found.yaml'"),
            "{found}"
        );
        let config = read.refuse(Writer::Output, &config).unwrap().to_string();
        assert!(config.contains("config.yaml, the config file;"), "{config}");
    }
}
