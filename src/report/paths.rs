//! How machine-read formats name an input: relative to a base directory (the current
//! directory, or the repository checkout in GitHub Actions), with `/` separators, so
//! that code-scanning services and CI servers can match it to a file in the repository.

use std::path::{Component, Path, PathBuf};

/// Where an input is, as a report for a CI server names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// Standard input (`-`): no file to point at.
    Stdin,
    /// A path under the base directory, relative to it, with `/` separators.
    Relative(String),
    /// A file outside the base directory, as an absolute path.
    Absolute(PathBuf),
}

/// The directory report paths are relative to.
#[derive(Clone, Debug)]
pub struct PathBase {
    dir: PathBuf,
}

impl PathBase {
    /// Paths relative to `dir`, which should be absolute.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        PathBase {
            dir: normalize(&dir.into()),
        }
    }

    /// Paths relative to the current directory.
    pub fn current_dir() -> std::io::Result<Self> {
        Ok(PathBase::new(std::env::current_dir()?))
    }

    /// The base directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Names `file`, an input name as reports carry it (`-` for standard input that
    /// `--stdin-filename` did not name, else the path as the user gave it, relative to
    /// the current directory).
    pub fn artifact(&self, file: &str) -> Artifact {
        if file == crate::load::STDIN_NAME {
            return Artifact::Stdin;
        }
        let path = Path::new(file);
        let absolute = match std::env::current_dir() {
            Ok(cwd) if path.is_relative() => normalize(&cwd.join(path)),
            _ => normalize(path),
        };
        if let Some(relative) = relative_to(&absolute, &self.dir) {
            return Artifact::Relative(relative);
        }
        // The same file may be reached through a symbolic link (`/tmp` and
        // `/private/tmp` on macOS): compare the resolved paths as well.
        if let (Ok(resolved), Ok(base)) = (absolute.canonicalize(), self.dir.canonicalize())
            && let Some(relative) = relative_to(&resolved, &base)
        {
            return Artifact::Relative(relative);
        }
        Artifact::Absolute(absolute)
    }
}

/// `path` relative to `base` with `/` separators, when it is under `base`.
fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let rest = path.strip_prefix(base).ok()?;
    let parts: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Removes `.` and resolves `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// A `file://` URI for an absolute path, percent-encoded (RFC 8089); `dir` adds the
/// trailing slash a SARIF base URI must have.
pub fn file_uri(path: &Path, dir: bool) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::from("file://");
    let rest = match text.as_bytes() {
        // A Windows drive path: file:///C:/...
        [drive, b':', ..] if drive.is_ascii_alphabetic() => {
            uri.push('/');
            uri.push_str(&text[..2]);
            &text[2..]
        }
        _ => text.as_str(),
    };
    uri.push_str(&encode_path(rest));
    if dir && !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// Percent-encodes a `/`-separated path for use in a URI: everything but unreserved
/// characters and `/` is encoded, byte by byte in UTF-8 (a `:` too, so that a relative
/// reference cannot be read as a scheme).
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_files_relative_to_the_base() {
        let cwd = std::env::current_dir().unwrap();
        let base = PathBase::new(&cwd);
        assert_eq!(base.artifact("-"), Artifact::Stdin);
        assert_eq!(
            base.artifact("deploy/web.yaml"),
            Artifact::Relative("deploy/web.yaml".into())
        );
        assert_eq!(
            base.artifact("./deploy/../k8s/./web.yaml"),
            Artifact::Relative("k8s/web.yaml".into())
        );
        let absolute = cwd.join("k8s/web.yaml");
        assert_eq!(
            base.artifact(absolute.to_str().unwrap()),
            Artifact::Relative("k8s/web.yaml".into())
        );
        let outside = base.artifact("../elsewhere/web.yaml");
        assert_eq!(
            outside,
            Artifact::Absolute(normalize(&cwd.join("../elsewhere/web.yaml")))
        );
        let sub = PathBase::new(cwd.join("k8s"));
        assert_eq!(
            sub.artifact("k8s/web.yaml"),
            Artifact::Relative("web.yaml".into())
        );
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(encode_path("a b/ü#1.yaml"), "a%20b/%C3%BC%231.yaml");
        assert_eq!(
            file_uri(Path::new("/work/my repo"), true),
            "file:///work/my%20repo/"
        );
        assert_eq!(
            file_uri(Path::new("/work/x.yaml"), false),
            "file:///work/x.yaml"
        );
        assert_eq!(
            file_uri(Path::new(r"C:\work\a:b.yaml"), false),
            "file:///C:/work/a%3Ab.yaml"
        );
    }
}
