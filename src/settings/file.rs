//! Reading a settings file (the config file, a mesh config) into a positioned tree,
//! decoding it by type, and reporting what is wrong in it at its line and column: an
//! unknown key at the key, a wrong value at the value.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use crate::load::de::{Reading, from_node};
use crate::load::{self, InputError, Limits, Node, Pos, SourceText, split};
use crate::time::{GoDurationError, Millis, go_duration};

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
        let name: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
        let text = load::open::read_bounded(path, max_bytes)
            .map_err(|error| InputError::whole(name.clone(), error.describe()))?;
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

    /// Decodes `node`, a node of document `source`, as a `T`; the error is at the key or
    /// value at fault and names its path (`istio.version: …`).
    pub fn decode<'de, T: Deserialize<'de>>(
        &self,
        node: &'de Node,
        source: &SourceText,
    ) -> Result<T, InputError> {
        from_node(node, Reading::Settings(source)).map_err(|(path, error)| {
            let pos = error.pos.unwrap_or(node.span.start);
            self.error_at(source, pos, with_path(&path.to_string(), &error.message))
        })
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

/// `path: message`, or the message alone for the document itself.
pub fn with_path(path: &str, message: &str) -> String {
    match path {
        "" | "." => message.to_owned(),
        path => format!("{path}: {message}"),
    }
}

/// A duration setting written as Go writes durations (`5s`, `1m30s`), not negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoDuration(pub Millis);

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = GoDuration;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 5s or 1m30s")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<GoDuration, E> {
                match go_duration(text) {
                    Ok(duration) if duration >= Millis::ZERO => Ok(GoDuration(duration)),
                    Err(GoDurationError::TooLong) => Err(E::custom(format_args!(
                        "`{text}` is longer than the longest duration Go can hold (2562047h47m16s)"
                    ))),
                    _ => Err(E::custom(format_args!(
                        "`{text}` is not a duration such as 5s or 1m30s"
                    ))),
                }
            }
        }
        deserializer.deserialize_str(Text)
    }
}

/// A number of seconds: a whole number, not negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WholeSeconds(pub i64);

impl<'de> Deserialize<'de> for WholeSeconds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Seconds;
        impl Visitor<'_> for Seconds {
            type Value = WholeSeconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number of seconds")
            }
            fn visit_i64<E: de::Error>(self, seconds: i64) -> Result<WholeSeconds, E> {
                if seconds < 0 {
                    return Err(E::invalid_value(de::Unexpected::Signed(seconds), &self));
                }
                Ok(WholeSeconds(seconds))
            }
            fn visit_u64<E: de::Error>(self, seconds: u64) -> Result<WholeSeconds, E> {
                i64::try_from(seconds)
                    .map(WholeSeconds)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(seconds), &self))
            }
        }
        deserializer.deserialize_i64(Seconds)
    }
}
