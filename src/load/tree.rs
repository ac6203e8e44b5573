//! The parsed YAML tree: JSON-shaped values that remember where they came from.
//!
//! Every node and every mapping key keeps its position in the file, so a finding can
//! point at the exact node a user has to change. Values follow the JSON data model
//! because that is what the Kubernetes API sees after `kubectl` converts YAML.

use super::path::{JsonPath, Segment};

/// A position in an input file: 1-based line, 1-based column counted in Unicode code
/// points (the unit SARIF calls `unicodeCodePoints`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, in code points.
    pub column: u32,
}

/// The extent of a node, start inclusive and end exclusive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first position.
    pub start: Pos,
    /// The position just after the last.
    pub end: Pos,
}

/// A YAML node converted to the JSON data model, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Where the node is in its file.
    pub span: Span,
    /// The node's value.
    pub value: Value,
    /// How the scalar was written; collections are `Plain`.
    pub style: Style,
}

/// How a scalar is written, which decides how positions inside it map to the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    #[default]
    /// A plain scalar, or a collection.
    Plain,
    /// `'…'`: one character of quoting before the content.
    SingleQuoted,
    /// `"…"`: escapes may shift columns inside.
    DoubleQuoted,
    /// `|`: content lines are file lines, with the indentation removed.
    Literal,
    /// `>`: lines are folded, so inner positions do not map back.
    Folded,
}

/// A node's value. Scalars are already resolved with Kubernetes' YAML 1.1 rules.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`, `~` or an empty value.
    Null,
    /// A YAML 1.1 boolean (`true`, `yes`, `on`…).
    Bool(bool),
    /// An integer that fits 64 signed bits.
    Int(i64),
    /// Integers above `i64::MAX` that still fit an unsigned 64-bit integer.
    UInt(u64),
    /// A floating-point number.
    Float(f64),
    /// Any other scalar.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in the order written.
    Map(Vec<Entry>),
}

/// One `key: value` pair; keys are strings, as JSON requires.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key, as a string.
    pub key: String,
    /// Where the key is.
    pub key_span: Span,
    /// The value.
    pub value: Node,
}

/// Which part of a mapping entry a location should point at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryPart {
    /// The key (`preStop:`): "this field is the problem".
    Key,
    /// The value (`45` in `sleep 45`): "this value is the problem".
    Value,
}

impl Node {
    /// The value of `key` when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|entry| &entry.value)
    }

    /// The entry of `key` when this node is a mapping.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|entry| entry.key == key),
            _ => None,
        }
    }

    /// The string value, when this node is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The node at `path` below this one.
    pub fn at(&self, path: &JsonPath) -> Option<&Node> {
        path.segments()
            .iter()
            .try_fold(self, |node, segment| node.child(segment))
    }

    fn child(&self, segment: &Segment) -> Option<&Node> {
        match (segment, &self.value) {
            (Segment::Key(key), Value::Map(_)) => self.get(key),
            (Segment::Index(index), Value::Seq(items)) => items.get(*index),
            _ => None,
        }
    }

    /// Converts the tree to `serde_json::Value` for typed decoding.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::UInt(u) => J::from(*u),
            Value::Float(f) => json_float(*f),
            Value::String(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|entry| (entry.key.clone(), entry.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// A float as kubectl sends it: Go's encoder writes an integral float below 1e21
/// without a fraction (`12.0` is `12`), so it reads as an integer on the other side.
fn json_float(f: f64) -> serde_json::Value {
    match go_integer(f) {
        Some(Value::Int(int)) => serde_json::Value::from(int),
        Some(Value::UInt(int)) => serde_json::Value::from(int),
        _ => serde_json::Number::from_f64(f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
    }
}

/// The integer a float is on the other side of Go's JSON encoder, if any: below 1e21 it
/// writes the shortest digits that read back as `f`, padded with zeros and without a
/// fraction when there is none (`12.0` is `12`, 2^63 is `9223372036854776000`, too
/// large for an int64), as Rust prints floats.
pub fn go_integer(f: f64) -> Option<Value> {
    if f.fract() != 0.0 || f.abs() >= 1e21 {
        return None;
    }
    let text = f.to_string();
    text.parse::<i64>()
        .map(Value::Int)
        .or_else(|_| text.parse::<u64>().map(Value::UInt))
        .ok()
}
