//! The unified diff `lint --diff` prints: `--- a/PATH` and `+++ b/PATH` headers and
//! hunks with three lines of context, as git prints them, so `git apply` (and
//! `patch -p1`) take it as it is. A path git would quote is quoted as git quotes it
//! (`core.quotePath`, git's `quote_c_style`): in double quotes, with C escapes for
//! control characters, `"` and `\`, and every byte outside ASCII in octal
//! (`"a/\303\274.yaml"`); a path with a space but nothing to quote is followed by a
//! tab, as git writes it, so `patch` finds where the name ends.

use similar::TextDiff;

/// The unified diff from `original` to `fixed` of the file `path`, or an empty string
/// when they are equal. `path` is relative to the directory the diff applies in, with
/// `/` separators, or absolute; an absolute path loses its leading `/` after the `a/`
/// and `b/` prefixes (`a/tmp/deploy.yaml`), as `git diff --no-index` writes it. Line
/// ends are kept as they are; a last line without a line break is marked
/// `\ No newline at end of file`.
pub fn unified_diff(path: &str, original: &str, fixed: &str) -> String {
    let path = path.trim_start_matches('/');
    diff(original, fixed, &header("a/", path), &header("b/", path))
}

/// [`unified_diff`] with the path as it is in both headers, without git's `a/` and
/// `b/` (`--no-prefix`, as `git diff --no-prefix` writes them): `patch -p0` applies it
/// where `path` is relative to, and `git apply -p0`.
pub fn unified_diff_without_prefix(path: &str, original: &str, fixed: &str) -> String {
    let name = header("", path);
    diff(original, fixed, &name, &name)
}

fn diff(original: &str, fixed: &str, from: &str, to: &str) -> String {
    if original == fixed {
        return String::new();
    }
    TextDiff::from_lines(original, fixed)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
}

/// `prefix` and `path` as a header names them, quoted as git quotes them.
fn header(prefix: &str, path: &str) -> String {
    let name = format!("{prefix}{path}");
    let quoted =
        |byte: u8| byte < 0x20 || byte == 0x7f || byte >= 0x80 || byte == b'"' || byte == b'\\';
    let mut out = if name.bytes().any(quoted) {
        c_quoted(&name, quoted)
    } else {
        name
    };
    if out.contains(' ') {
        out.push('\t');
    }
    out
}

/// `name` in double quotes with C escapes, the bytes `quoted` picks in octal.
fn c_quoted(name: &str, quoted: impl Fn(u8) -> bool) -> String {
    let mut out = String::from("\"");
    for byte in name.bytes() {
        match byte {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            byte if quoted(byte) => out.push_str(&format!("\\{byte:03o}")),
            byte => out.push(char::from(byte)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_headers_and_hunks_like_ruff() {
        let original = "a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\n";
        let fixed = original.replace("b: 2", "b: 20");
        assert_eq!(
            unified_diff("deploy.yaml", original, &fixed),
            "--- a/deploy.yaml\n+++ b/deploy.yaml\n@@ -1,5 +1,5 @@\n a: 1\n-b: 2\n+b: 20\n c: 3\n d: 4\n e: 5\n"
        );
        assert_eq!(unified_diff("deploy.yaml", original, original), "");
    }

    #[test]
    fn an_absolute_path_is_written_after_the_prefix_as_git_writes_it() {
        let diff = unified_diff("/tmp/deploy.yaml", "a: 1\n", "a: 2\n");
        assert!(
            diff.starts_with("--- a/tmp/deploy.yaml\n+++ b/tmp/deploy.yaml\n"),
            "{diff}"
        );
    }

    #[test]
    fn paths_are_quoted_as_git_quotes_them() {
        // As `git diff --no-index` prints these names (git 2.47).
        let header_of = |path: &str| {
            unified_diff(path, "a\n", "b\n")
                .lines()
                .take(2)
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(
            header_of("sp ace.yaml"),
            "--- a/sp ace.yaml\t\n+++ b/sp ace.yaml\t"
        );
        assert_eq!(
            header_of("ü.yaml"),
            "--- \"a/\\303\\274.yaml\"\n+++ \"b/\\303\\274.yaml\""
        );
        assert_eq!(
            header_of("q\"t\\.yaml"),
            "--- \"a/q\\\"t\\\\.yaml\"\n+++ \"b/q\\\"t\\\\.yaml\""
        );
        assert_eq!(
            header_of("tab\there.yaml"),
            "--- \"a/tab\\there.yaml\"\n+++ \"b/tab\\there.yaml\""
        );
    }

    #[test]
    fn a_missing_last_line_break_is_marked() {
        let diff = unified_diff("x.yaml", "a: 1", "a: 1\nb: 2");
        assert_eq!(
            diff,
            "--- a/x.yaml\n+++ b/x.yaml\n@@ -1 +1,2 @@\n-a: 1\n\\ No newline at end of file\n+a: 1\n+b: 2\n\\ No newline at end of file\n"
        );
    }
}
