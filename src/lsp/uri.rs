//! `file:` URIs, as editors name documents, and the paths they stand for (RFC 8089:
//! an empty or `localhost` authority, the path percent-encoded).

use std::path::PathBuf;

use lsp_types::Uri;
use percent_encoding::percent_decode_str;

/// The local path a `file:` URI names; `None` for another scheme (an unsaved buffer,
/// `untitled:`), a remote host, or a path that is not absolute.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let scheme_end = text.find(':')?;
    if !text[..scheme_end].eq_ignore_ascii_case("file") {
        return None;
    }
    let rest = text[scheme_end + 1..].strip_prefix("//")?;
    let path_start = rest.find('/')?;
    let authority = &rest[..path_start];
    if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let encoded = &rest[path_start..];
    let encoded = encoded.split(['?', '#']).next().unwrap_or(encoded);
    let decoded = percent_decode_str(encoded).decode_utf8().ok()?;
    let path = PathBuf::from(decoded.as_ref());
    path.is_absolute().then_some(path)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::str::FromStr;

    use super::*;

    #[test]
    fn percent_encoded_paths_are_decoded() {
        let uri = Uri::from_str("file:///tmp/a%20b/%231%20100%25/%C3%A9.yaml").unwrap();
        assert_eq!(
            to_path(&uri).as_deref(),
            Some(Path::new("/tmp/a b/#1 100%/é.yaml"))
        );
    }

    #[test]
    fn only_local_files_have_paths() {
        let uri = |text: &str| Uri::from_str(text).unwrap();
        assert_eq!(
            to_path(&uri("file://localhost/etc/x.yaml")).as_deref(),
            Some(Path::new("/etc/x.yaml"))
        );
        assert_eq!(to_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(to_path(&uri("file://server/share/x.yaml")), None);
    }
}
