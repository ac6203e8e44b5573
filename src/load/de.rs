//! Typed values straight from the tree: a serde [`Deserializer`] over [`Node`] whose
//! errors carry the position of the node at fault.
//!
//! Two readings, because Kubernetes objects and the linter's own settings are read by
//! different rules:
//!
//! * [`Reading::ApiObject`] reads what the API server's Go decoder reads from the JSON
//!   kubectl sends: a `null` is the zero value of the field's type (`labels: {app: }` is
//!   the label `app: ""`, as Go's `encoding/json` leaves the string empty), and a float
//!   without a fraction is an integer, since Go's JSON encoder writes `12.0` as `12`.
//!   Everything else is as strict as the API server: `"30"` is no integer and `8080`
//!   no string.
//! * [`Reading::Settings`] reads `.mesh-lifecycle.yaml` and mesh config: a plain scalar
//!   read as a string is the text written, so `version: 1.30` is `"1.30"` and
//!   `rules: {ML207: off}` is `"off"`, not YAML 1.1's `false`; a `null` is no value.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};

use super::SourceText;
use super::tree::{Entry, Node, Pos, Style, Value, go_integer};

/// Which rules a value is read by.
#[derive(Clone, Copy, Debug)]
pub enum Reading<'s> {
    /// A Kubernetes object in this text, read as the API server reads it.
    ApiObject(&'s SourceText),
    /// The linter's settings, read from this text.
    Settings(&'s SourceText),
}

/// A value that could not be read, at the node at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What is wrong, as one sentence.
    pub message: String,
    /// The key of an unknown field, or the value of a wrong one; `None` only for an
    /// error raised outside any node.
    pub pos: Option<Pos>,
    /// Whether `pos` is a key (an unknown field) rather than a value.
    pub at_key: bool,
}

impl Error {
    /// The error, placed at the value at `pos` unless a node inside has already placed it.
    fn at(mut self, pos: Pos) -> Error {
        self.pos.get_or_insert(pos);
        self
    }

    /// The error, placed at the key at `pos` unless already placed.
    fn at_key(mut self, pos: Pos) -> Error {
        if self.pos.is_none() {
            self.pos = Some(pos);
            self.at_key = true;
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error {
            message: message.to_string(),
            pos: None,
            at_key: false,
        }
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Error::custom(format_args!(
            "`{variant}` is not one of: {}",
            expected.join(", ")
        ))
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Error::custom(format_args!(
            "unknown setting `{field}`; expected one of: {}",
            expected.join(", ")
        ))
    }
}

/// Reads a `T` from `node`. On failure: the path to the node at fault (`istio.version`)
/// and the error, which carries its position. The path is tracked only once a reading
/// has failed, by reading again: tracking it costs as much as the reading itself, and
/// nearly every object reads.
pub fn from_node<'de, T: de::Deserialize<'de>>(
    node: &'de Node,
    reading: Reading<'_>,
) -> Result<T, (serde_path_to_error::Path, Error)> {
    let deserializer = NodeDeserializer { node, reading };
    if let Ok(value) = T::deserialize(deserializer) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let path = error.path().clone();
        let error = error.into_inner().at(node.span.start);
        (path, error)
    })
}

/// Deserializes one node.
#[derive(Clone, Copy)]
struct NodeDeserializer<'de, 's> {
    node: &'de Node,
    reading: Reading<'s>,
}

impl<'de, 's> NodeDeserializer<'de, 's> {
    /// A deserializer for `node`.
    pub fn new(node: &'de Node, reading: Reading<'s>) -> Self {
        NodeDeserializer { node, reading }
    }

    fn api_null(&self) -> bool {
        matches!(self.reading, Reading::ApiObject(_)) && self.node.value == Value::Null
    }

    /// The text of a plain scalar as written, for settings read as strings.
    fn written(&self) -> Option<String> {
        if !matches!(self.reading, Reading::Settings(_)) {
            return None;
        }
        if self.node.style != Style::Plain
            || matches!(
                self.node.value,
                Value::Null | Value::String(_) | Value::Seq(_) | Value::Map(_)
            )
        {
            return None;
        }
        self.text()
    }

    /// The node's text as written, trimmed.
    fn text(&self) -> Option<String> {
        let (Reading::ApiObject(source) | Reading::Settings(source)) = self.reading;
        let (start, end) = (
            source.offset(self.node.span.start),
            source.offset(self.node.span.end),
        );
        source
            .text
            .get(start..end)
            .map(|text| text.trim().to_owned())
    }

    /// A whole number beyond 64 bits read for an integer field. go-yaml reads such a
    /// literal as a float, which the API server rejects for an integer field; the
    /// error names the integer as written, not the float nobody wrote.
    fn integer_beyond_64_bits(&self, expected: &dyn de::Expected) -> Option<Error> {
        let Value::Float(f) = self.node.value else {
            return None;
        };
        if !f.is_finite() || f.fract() != 0.0 || go_integer(f).is_some() {
            return None;
        }
        let written = self.text()?;
        let digits = written.strip_prefix(['-', '+']).unwrap_or(&written);
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '_') {
            return None;
        }
        Some(<Error as de::Error>::custom(format_args!(
            "integer `{written}` does not fit in 64 bits, expected {expected}"
        )))
    }
}

impl<'de> Deserializer<'de> for NodeDeserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.node.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(i) => visitor.visit_i64(*i),
            Value::UInt(u) => visitor.visit_u64(*u),
            Value::Float(f) => match go_integer(*f) {
                Some(Value::Int(i)) => visitor.visit_i64(i),
                Some(Value::UInt(u)) => visitor.visit_u64(u),
                _ => visitor.visit_f64(*f),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Seq(items) => visitor.visit_seq(Items {
                items: items.iter(),
                reading: self.reading,
            }),
            Value::Map(entries) => visitor.visit_map(Entries {
                entries: entries.iter(),
                value: None,
                reading: self.reading,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.api_null() {
            return visitor.visit_borrowed_str("");
        }
        match self.written() {
            Some(text) => visitor.visit_string(text),
            None => self.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.api_null() {
            return visitor.visit_bool(false);
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.api_null() {
            return visitor.visit_i64(0);
        }
        if let Some(error) = self.integer_beyond_64_bits(&visitor) {
            return Err(error);
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.api_null() {
            return visitor.visit_f64(0.0);
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.api_null() {
            return visitor.visit_seq(Items {
                items: [].iter(),
                reading: self.reading,
            });
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.api_null() {
            return visitor.visit_map(Entries {
                entries: [].iter(),
                value: None,
                reading: self.reading,
            });
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match (&self.node.value, self.written()) {
            (_, Some(text)) => visitor.visit_enum(text.into_deserializer()),
            (Value::String(s), None) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct tuple tuple_struct
    }
}

/// The items of a sequence.
struct Items<'de, 's> {
    items: std::slice::Iter<'de, Node>,
    reading: Reading<'s>,
}

impl<'de> de::SeqAccess<'de> for Items<'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(node) = self.items.next() else {
            return Ok(None);
        };
        seed.deserialize(NodeDeserializer::new(node, self.reading))
            .map(Some)
            .map_err(|error| error.at(node.span.start))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The entries of a mapping; keys are strings, as JSON's are.
struct Entries<'de, 's> {
    entries: std::slice::Iter<'de, Entry>,
    value: Option<&'de Node>,
    reading: Reading<'s>,
}

impl<'de> de::MapAccess<'de> for Entries<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(&entry.value);
        let key: de::value::BorrowedStrDeserializer<'de, Error> =
            de::value::BorrowedStrDeserializer::new(&entry.key);
        seed.deserialize(key)
            .map(Some)
            .map_err(|error| error.at_key(entry.key_span.start))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some(node) = self.value.take() else {
            return Err(de::Error::custom("a value was read before its key"));
        };
        seed.deserialize(NodeDeserializer::new(node, self.reading))
            .map_err(|error| error.at(node.span.start))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::load::parse::{Limits, parse_documents};

    fn tree(text: &str) -> (Node, SourceText) {
        let root = parse_documents(text, 1, &Limits::default())
            .unwrap()
            .remove(0);
        let source = SourceText::new(Arc::from("x.yaml"), 1, Arc::from(text));
        (root, source)
    }

    #[test]
    fn api_objects_read_null_as_the_zero_value() {
        let (root, source) = tree("labels: {app: , tier: web}\ncount: ~\n");
        #[derive(serde::Deserialize)]
        struct Meta {
            labels: BTreeMap<String, String>,
            count: i32,
        }
        let meta: Meta = from_node(&root, Reading::ApiObject(&source)).unwrap();
        assert_eq!(meta.labels["app"], "");
        assert_eq!(meta.labels["tier"], "web");
        assert_eq!(meta.count, 0);
    }

    #[test]
    fn api_objects_read_integral_floats_as_integers() {
        #[derive(serde::Deserialize, Debug)]
        struct A {
            a: i32,
        }
        let (root, source) = tree("a: 12.0\n");
        assert_eq!(
            from_node::<A>(&root, Reading::ApiObject(&source))
                .unwrap()
                .a,
            12
        );
        let (root, source) = tree("a: 12.5\n");
        let (path, error) = from_node::<A>(&root, Reading::ApiObject(&source)).unwrap_err();
        assert_eq!(path.to_string(), "a");
        assert_eq!(error.pos, Some(Pos { line: 1, column: 4 }));
        assert!(error.message.contains("floating point `12.5`"), "{error:?}");
    }

    #[test]
    fn integers_beyond_64_bits_are_named_as_written() {
        #[derive(serde::Deserialize, Debug)]
        struct A {
            #[allow(dead_code)]
            a: i64,
        }
        let (root, source) = tree("a: 18446744073709551616\n");
        let (_, error) = from_node::<A>(&root, Reading::ApiObject(&source)).unwrap_err();
        assert_eq!(
            error.message,
            "integer `18446744073709551616` does not fit in 64 bits, expected i64"
        );
        // A float written as one stays a float in the message.
        let (root, source) = tree("a: 1.0e30\n");
        let (_, error) = from_node::<A>(&root, Reading::ApiObject(&source)).unwrap_err();
        assert!(error.message.contains("floating point"), "{error:?}");
    }

    #[test]
    fn api_objects_keep_the_api_server_s_strictness() {
        #[derive(serde::Deserialize, Debug)]
        struct A {
            #[allow(dead_code)]
            a: Option<String>,
        }
        let (root, source) = tree("a: 8080\n");
        let (_, error) = from_node::<A>(&root, Reading::ApiObject(&source)).unwrap_err();
        assert!(
            error.message.contains("invalid type: integer `8080`"),
            "{error:?}"
        );
    }

    #[test]
    fn settings_read_plain_scalars_as_written() {
        let (root, source) = tree("version: 1.30\nlevel: off\nquoted: '1.20'\n");
        let settings: BTreeMap<String, String> =
            from_node(&root, Reading::Settings(&source)).unwrap();
        assert_eq!(settings["version"], "1.30");
        assert_eq!(settings["level"], "off");
        assert_eq!(settings["quoted"], "1.20");
    }

    #[test]
    fn unknown_fields_point_at_the_key_and_wrong_types_at_the_value() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Inner {
            enabled: Option<bool>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Outer {
            inner: Option<Inner>,
        }
        let (root, source) = tree("inner:\n  enabledd: true\n");
        let (path, error) = from_node::<Outer>(&root, Reading::Settings(&source)).unwrap_err();
        assert_eq!(path.to_string(), "inner.enabledd");
        assert_eq!(error.pos, Some(Pos { line: 2, column: 3 }));
        assert!(
            error
                .message
                .starts_with("unknown setting `enabledd`; expected one of: enabled")
        );
        let (root, source) = tree("inner:\n  enabled: maybe\n");
        let (path, error) = from_node::<Outer>(&root, Reading::Settings(&source)).unwrap_err();
        assert_eq!(path.to_string(), "inner.enabled");
        assert_eq!(
            error.pos,
            Some(Pos {
                line: 2,
                column: 12
            })
        );
    }
}
