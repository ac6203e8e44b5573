//! The manifests at a git revision, read with the user's own `git` (`git show
//! REV:PATH` in the repository), for `diff --base REV`: which files the revision has,
//! which were renamed or deleted since, and their text there.
//!
//! Each git call runs within the bounds of rendering ([`crate::external::CallBounds`]:
//! `--render-timeout`, `--max-input-size`), in the repository's directory rather than
//! with `-C PATH`; the revision, which `rev-parse --verify` cannot take after `--`, is
//! refused when it begins with `-`, and the paths asked of `cat-file` go on its
//! standard input, never on its command line.

use std::path::{Path, PathBuf};

use crate::external::{self, Args, CallBounds as Bounds, CommandLine, Ended, Stdin};

/// A revision of the repository the working directory is in.
#[derive(Clone, Debug)]
pub struct Revision {
    /// The repository's top directory, absolute.
    pub root: PathBuf,
    /// What bounds each git call.
    bounds: Bounds,
    /// The revision as the user gave it (`HEAD~1`, `origin/main`, a hash).
    pub name: String,
    /// The commit it names, for `show`: a branch that moves during the run does not
    /// change what is read.
    commit: String,
}

/// What became of a file of the revision in the working tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Renamed (git's rename detection), perhaps changed too; paths from the top.
    Renamed {
        /// Its path in the revision.
        from: String,
        /// Its path in the working tree.
        to: String,
    },
    /// Deleted from the working tree.
    Deleted(String),
    /// New in the working tree (tracked since the revision).
    Added(String),
}

impl Revision {
    /// The revision `name` of the repository that holds `dir`; the error says why not,
    /// in git's words where git gave them.
    pub fn open(dir: &Path, name: &str, bounds: Bounds) -> Result<Revision, String> {
        let root = git(dir, &args(&["rev-parse", "--show-toplevel"]), None, &bounds)
            .map_err(|error| format!("{} is not in a git repository: {error}", dir.display()))?;
        let root = PathBuf::from(String::from_utf8_lossy(&root).trim_end_matches(['\n', '\r']));
        let verify =
            args(&["rev-parse", "--verify", "--quiet"]).checked(&format!("{name}^{{commit}}"));
        if let Some(refused) = verify.refused() {
            return Err(format!("`{name}` is not a revision: {refused}"));
        }
        let commit = git(&root, &verify, None, &bounds).map_err(|_| {
            format!(
                "`{name}` is not a revision of the repository at {}",
                root.display()
            )
        })?;
        Ok(Revision {
            root,
            bounds,
            name: name.to_owned(),
            commit: String::from_utf8_lossy(&commit).trim().to_owned(),
        })
    }

    /// What changed between the revision and the working tree: renames, deletions and
    /// additions of tracked files (`git diff -M --name-status REV`).
    pub fn changes(&self) -> Result<Vec<Change>, String> {
        let output = git(
            &self.root,
            &args(&["diff", "-M", "--name-status", "-z"])
                .checked(&self.commit)
                .word("--"),
            None,
            &self.bounds,
        )?;
        let text = String::from_utf8_lossy(&output);
        let mut fields = text.split('\0').filter(|field| !field.is_empty());
        let mut changes = Vec::new();
        while let Some(status) = fields.next() {
            let mut path = || {
                fields
                    .next()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("git diff printed a status `{status}` without its path"))
            };
            match status.chars().next() {
                Some('R') => {
                    let from = path()?;
                    let to = path()?;
                    changes.push(Change::Renamed { from, to });
                }
                Some('C') => {
                    // A copy leaves its source in place: the new file is new.
                    let _from = path()?;
                    changes.push(Change::Added(path()?));
                }
                Some('D') => changes.push(Change::Deleted(path()?)),
                Some('A') => changes.push(Change::Added(path()?)),
                _ => {
                    path()?;
                }
            }
        }
        Ok(changes)
    }

    /// The text of each of `paths` (from the top of the repository) at the revision,
    /// `None` for a path the revision does not have: what `git show REV:PATH` prints,
    /// asked of one `git cat-file --batch` for all of them.
    pub fn show(&self, paths: &[String]) -> Result<Vec<Option<Vec<u8>>>, String> {
        use std::io::{BufRead, Read};
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let requests: String = paths
            .iter()
            .map(|path| format!("{}:{path}\n", self.commit))
            .collect();
        // Each text is an input, at most the input limit; all of them are held anyway.
        let bounds = Bounds {
            max_output: self.bounds.max_output.saturating_mul(paths.len() as u64),
            ..self.bounds.clone()
        };
        let output = git(
            &self.root,
            &args(&["cat-file", "--batch"]),
            Some(requests.into_bytes()),
            &bounds,
        )?;
        let mut stdout = &output[..];
        let mut texts = Vec::with_capacity(paths.len());
        let broken = |what: &str| format!("git cat-file --batch stopped {what}");
        for _ in paths {
            let mut header = String::new();
            if stdout.read_line(&mut header).map_err(|e| e.to_string())? == 0 {
                return Err(broken("early"));
            }
            let header = header.trim_end();
            if header.ends_with(" missing") || header.ends_with(" ambiguous") {
                texts.push(None);
                continue;
            }
            let mut fields = header.split(' ');
            let kind = fields.nth(1).unwrap_or_default();
            let size: usize = fields
                .next()
                .and_then(|size| size.parse().ok())
                .ok_or_else(|| broken(&format!("with `{header}`")))?;
            let mut text = vec![0; size.min(stdout.len()) + 1];
            stdout
                .read_exact(&mut text)
                .map_err(|_| broken("in the middle of an object"))?;
            text.pop();
            // A directory at that path is no file.
            texts.push((kind == "blob").then_some(text));
        }
        Ok(texts)
    }

    /// `path`, absolute or relative to the working directory, relative to the top of
    /// the repository with `/` separators (empty for the top itself); `None` outside it.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let absolute = std::path::absolute(path).ok()?;
        let root = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone());
        let resolved = absolute
            .parent()
            .and_then(|dir| dir.canonicalize().ok())
            .and_then(|dir| Some(dir.join(absolute.file_name()?)))
            .unwrap_or(absolute);
        let rest = resolved.strip_prefix(&root).ok()?;
        let parts: Vec<String> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }
}

/// A git call made of the tool's own words.
fn args(words: &[&'static str]) -> Args {
    Args::without_end_marker().words(words)
}

/// Runs `git ARGS` in `dir`, with `input` on its standard input, within `bounds`, and
/// returns its standard output; the error is git's own message, or why git could not
/// run or was stopped.
fn git(
    dir: &Path,
    args: &Args,
    input: Option<Vec<u8>>,
    bounds: &Bounds,
) -> Result<Vec<u8>, String> {
    let line = CommandLine::new("git").args(args).current_dir(dir);
    let finished = external::run(&line, bounds.call(input.map_or(Stdin::Null, Stdin::Bytes)))
        .map_err(|error| format!("cannot run git: {error}"))?;
    let said = finished.stderr.trim();
    match finished.ended {
        Ended::Exited(0) => Ok(finished.stdout),
        Ended::Stopped => Err(format!(
            "`{}` did not finish within {} and was stopped",
            line.shown(),
            bounds.timeout
        )),
        Ended::TooLarge => Err(format!(
            "`{}` printed more than {} and was stopped (--max-input-size raises the limit)",
            line.shown(),
            crate::load::size(bounds.max_output)
        )),
        _ if !said.is_empty() => Err(said.to_owned()),
        _ => Err(format!("`{}` failed", line.shown())),
    }
}
