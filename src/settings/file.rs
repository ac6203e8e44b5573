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

/// The largest settings file read by default: real mesh configs (the injector's ConfigMap,
/// with its templates, is the largest) are around 100 KiB; the limit keeps
/// `--mesh-config /dev/zero` from exhausting memory.
pub const MAX_BYTES: u64 = 4 << 20;

impl SettingsFile {
    /// Reads and parses `path`, up to [`MAX_BYTES`]; any failure is one error naming the
    /// file and the place.
    pub fn read(path: &Path) -> Result<SettingsFile, InputError> {
        Self::read_bounded(path, MAX_BYTES)
    }

    /// Reads and parses `path`, refusing it past `max_bytes`. The file is read once, so
    /// that `--mesh-config <(kubectl get cm istio -o yaml)` works.
    pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<SettingsFile, InputError> {
        use std::io::Read;
        let name: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
        let cannot = |error: std::io::Error| {
            InputError::whole(name.clone(), load::discover::describe_io(&error))
        };
        let mut text = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| {
                file.take(max_bytes.saturating_add(1))
                    .read_to_end(&mut text)
            })
            .map_err(cannot)?;
        if text.len() as u64 > max_bytes {
            return Err(InputError::whole(
                name,
                format!(
                    "larger than {}, the limit on config and mesh-config files; not read (--max-config-size raises the limit)",
                    load::size(max_bytes)
                ),
            ));
        }
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
