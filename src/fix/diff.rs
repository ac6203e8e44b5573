//! The unified diff `lint --diff` prints: `--- a/PATH` and `+++ b/PATH` headers and
//! hunks with three lines of context, as git prints them, so `git apply` (and
//! `patch -p1`) take it as it is.

use similar::TextDiff;

/// The unified diff from `original` to `fixed` of the file `path`, or an empty string
/// when they are equal. `path` is relative to the directory the diff applies in, with
/// `/` separators, or absolute; an absolute path loses its leading `/` after the `a/`
/// and `b/` prefixes (`a/tmp/deploy.yaml`), as `git diff --no-index` writes it. Line
/// ends are kept as they are; a last line without a line break is marked
/// `\ No newline at end of file`.
pub fn unified_diff(path: &str, original: &str, fixed: &str) -> String {
    if original == fixed {
        return String::new();
    }
    let path = path.trim_start_matches('/');
    TextDiff::from_lines(original, fixed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
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
    fn a_missing_last_line_break_is_marked() {
        let diff = unified_diff("x.yaml", "a: 1", "a: 1\nb: 2");
        assert_eq!(
            diff,
            "--- a/x.yaml\n+++ b/x.yaml\n@@ -1 +1,2 @@\n-a: 1\n\\ No newline at end of file\n+a: 1\n+b: 2\n\\ No newline at end of file\n"
        );
    }
}
