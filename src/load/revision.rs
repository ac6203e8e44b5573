//! The manifests at a git revision, read with the user's own `git` (`git -C DIR show
//! REV:PATH`), for `diff --base REV`: which files the revision has, which were renamed
//! or deleted since, and their text there.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A revision of the repository the working directory is in.
#[derive(Clone, Debug)]
pub struct Revision {
    /// The repository's top directory, absolute.
    pub root: PathBuf,
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
    pub fn open(dir: &Path, name: &str) -> Result<Revision, String> {
        let root = git(dir, &["rev-parse", "--show-toplevel"])
            .map_err(|error| format!("{} is not in a git repository: {error}", dir.display()))?;
        let root = PathBuf::from(String::from_utf8_lossy(&root).trim_end_matches(['\n', '\r']));
        let commit = git(
            &root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{name}^{{commit}}"),
            ],
        )
        .map_err(|_| {
            format!(
                "`{name}` is not a revision of the repository at {}",
                root.display()
            )
        })?;
        Ok(Revision {
            root,
            name: name.to_owned(),
            commit: String::from_utf8_lossy(&commit).trim().to_owned(),
        })
    }

    /// What changed between the revision and the working tree: renames, deletions and
    /// additions of tracked files (`git diff -M --name-status REV`).
    pub fn changes(&self) -> Result<Vec<Change>, String> {
        let output = git(
            &self.root,
            &["diff", "-M", "--name-status", "-z", &self.commit, "--"],
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
        use std::io::{BufRead, BufReader, Read, Write};
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| format!("cannot run git: {error}"))?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let requests: String = paths
            .iter()
            .map(|path| format!("{}:{path}\n", self.commit))
            .collect();
        // Written beside the reading, so that neither pipe fills while the other waits.
        let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
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
            let mut text = vec![0; size + 1];
            stdout
                .read_exact(&mut text)
                .map_err(|_| broken("in the middle of an object"))?;
            text.pop();
            // A directory at that path is no file.
            texts.push((kind == "blob").then_some(text));
        }
        let _ = writer.join();
        let _ = child.wait();
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

/// Runs `git -C dir ARGS` and returns its standard output; the error is git's own
/// message, or why git could not run.
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run git: {error}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let message = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        Err(if message.is_empty() {
            format!("git {} failed", args.join(" "))
        } else {
            message
        })
    }
}
