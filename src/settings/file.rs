//! Reading a settings file (the config file, a mesh config) into a positioned tree, and
//! reporting what is wrong in it at its line and column.

use std::path::Path;
use std::sync::Arc;

use crate::load::{self, InputError, Limits, Node, Pos, SourceText, split};

/// A settings file, parsed, with what is needed to report errors in it.
pub struct SettingsFile {
    /// The path as given, for messages.
    pub name: Arc<str>,
    /// Its documents (a mesh config may be one document of several).
    pub documents: Vec<(Node, SourceText)>,
}

impl SettingsFile {
    /// Reads and parses `path`; any failure is one error naming the file and the place.
    pub fn read(path: &Path) -> Result<SettingsFile, InputError> {
        let name: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
        let text = std::fs::read(path).map_err(|error| {
            InputError::whole(name.clone(), load::discover::describe_io(&error))
        })?;
        Self::parse_bytes(name, &text)
    }

    /// Parses a file's text.
    pub fn parse(name: Arc<str>, text: String) -> Result<SettingsFile, InputError> {
        Self::parse_bytes(name, text.as_bytes())
    }

    fn parse_bytes(name: Arc<str>, bytes: &[u8]) -> Result<SettingsFile, InputError> {
        let limits = Limits::default();
        let mut documents = Vec::new();
        for (index, chunk) in split::Splitter::new(bytes, limits.max_document_bytes).enumerate() {
            let chunk = chunk.map_err(|error| load::chunk_error(&name, error))?;
            for document in load::parse_chunk(&name, chunk, index, &limits)? {
                documents.push((document.root, document.source));
            }
        }
        Ok(SettingsFile { name, documents })
    }

    /// An error at `pos` of document `source`.
    pub fn error_at(
        &self,
        source: &SourceText,
        pos: Pos,
        message: impl Into<String>,
    ) -> InputError {
        InputError {
            file: self.name.clone(),
            pos: Some(pos),
            message: message.into(),
            related: None,
            source: Some(source.clone()),
        }
    }
}
