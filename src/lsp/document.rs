//! A document the editor has open: the buffer's text as the editor holds it, which is
//! what gets linted, not the file on disk.

use std::path::PathBuf;
use std::sync::Arc;

use lsp_types::{TextDocumentContentChangeEvent, Uri};

use super::position::{Encoding, LineIndex};

/// An open document.
#[derive(Clone, Debug)]
pub struct OpenDocument {
    /// The editor's name for it.
    pub uri: Uri,
    /// The file it is, for a `file:` URI: where its config file and workspace are
    /// looked for.
    pub path: Option<PathBuf>,
    /// The editor's version of the text; every change raises it.
    pub version: i32,
    /// The buffer's text.
    pub text: Arc<str>,
}

impl OpenDocument {
    /// A document opened with `text` at `version`.
    pub fn new(uri: Uri, version: i32, text: String) -> OpenDocument {
        OpenDocument {
            path: super::uri::to_path(&uri),
            uri,
            version,
            text: Arc::from(text),
        }
    }

    /// Applies the editor's changes, in order, as the protocol defines them: a change
    /// with a range replaces that range of the text as the previous changes left it; one
    /// without replaces the whole text.
    pub fn apply(
        &mut self,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        encoding: Encoding,
    ) {
        let mut text = self.text.to_string();
        for change in changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let index = LineIndex::new(&text, encoding);
                    let start = index.offset(&text, range.start);
                    let end = index.offset(&text, range.end).max(start);
                    text.replace_range(start..end, &change.text);
                }
            }
        }
        self.text = Arc::from(text);
        self.version = version;
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use lsp_types::{Position, Range};

    use super::*;

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range.map(|(start, end)| {
                Range::new(Position::new(start.0, start.1), Position::new(end.0, end.1))
            }),
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn changes_apply_in_order_on_the_text_the_previous_ones_left() {
        let uri = Uri::from_str("file:///w/a.yaml").unwrap();
        let mut document = OpenDocument::new(uri, 1, "kind: Pod\nmetadata: {name: é}\n".into());
        assert_eq!(
            document.path.as_deref(),
            Some(std::path::Path::new("/w/a.yaml"))
        );
        document.apply(
            2,
            vec![
                // `é` is one UTF-16 unit: `}` is at column 18.
                change(Some(((1, 18), (1, 18))), ", namespace: shop"),
                change(Some(((0, 6), (0, 9))), "Job"),
            ],
            Encoding::Utf16,
        );
        assert_eq!(
            &*document.text,
            "kind: Job\nmetadata: {name: é, namespace: shop}\n"
        );
        assert_eq!(document.version, 2);
        document.apply(3, vec![change(None, "kind: Pod\n")], Encoding::Utf16);
        assert_eq!(&*document.text, "kind: Pod\n");
    }
}
