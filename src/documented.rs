//! Settings documented where they are decoded: [`documented!`] wraps the serde struct of
//! a config section and records, next to each field, its doc comment, the type's name in
//! the docs and what applies when the key is absent. The keys are serde's own (read back
//! from the derived `Deserialize`, so they follow every rename), and the list of settings
//! in docs/configuration.md is generated from this table, so a setting cannot exist undocumented.
//!
//! A `macro_rules!` macro is enough: it sees each field's doc attributes, type and
//! default as tokens, and serde reports the keys; a derive crate would add a build
//! dependency and a second compile unit for the same table.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// What a section's fields are, for its docs.
pub struct Section {
    /// The Rust struct, for messages about the table itself.
    pub name: &'static str,
    /// Its fields, in declaration order (serde's order too).
    pub fields: &'static [Field],
    /// The keys serde accepts, in the same order.
    pub keys: fn() -> &'static [&'static str],
}

/// One field of a [`Section`].
pub struct Field {
    /// The field's name in Rust.
    pub ident: &'static str,
    /// Its doc comment, one line of source per line.
    pub doc: &'static str,
    /// What applies when the key is absent.
    pub absent: Absent,
    /// The value's type as the docs name it.
    pub kind: fn() -> String,
    /// The section nested under the key, when the value has fields of its own.
    pub nested: fn() -> Option<Nested>,
}

/// What a setting is when the file does not set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Absent {
    /// The key must be written.
    Required,
    /// This, in words.
    Default(&'static str),
}

/// A section reached through a key: directly (`istio.version`), through the entries of a
/// list (`sidecars[].name`) or the values of a mapping (`namespaces.<name>.labels`).
pub struct Nested {
    /// What comes between the key and the nested keys: ``, `[]`, `.<name>`.
    pub step: String,
    /// The nested section.
    pub section: &'static Section,
}

/// A value type of a documented setting: how the docs name it, and what it nests.
pub trait Documented {
    /// Its name in the docs: `duration (5s, 1m30s)`, `list of strings`.
    fn kind() -> String;
    /// The section under it, for a mapping with fields of its own.
    fn nested() -> Option<Nested> {
        None
    }
}

/// Wraps the serde struct of a config section: each field is written as
/// `/// doc` `name: Type = default,` where the default is `required` or a text, and the
/// struct gains the [`Documented`] table of its fields. A field without a doc comment
/// does not compile.
#[macro_export]
macro_rules! documented {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $(#[serde($($serde:tt)*)])*
                $fvis:vis $field:ident : $ty:ty = $absent:tt
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $(
                $(#[doc = $doc])+
                $(#[serde($($serde)*)])*
                $fvis $field: $ty,
            )*
        }

        impl $crate::documented::Documented for $name {
            fn kind() -> String {
                "mapping".to_owned()
            }
            fn nested() -> Option<$crate::documented::Nested> {
                static SECTION: $crate::documented::Section = $crate::documented::Section {
                    name: stringify!($name),
                    fields: &[$(
                        $crate::documented::Field {
                            ident: stringify!($field),
                            doc: concat!($($doc, "\n"),+),
                            absent: $crate::documented!(@absent $absent),
                            kind: <$ty as $crate::documented::Documented>::kind,
                            nested: <$ty as $crate::documented::Documented>::nested,
                        },
                    )*],
                    keys: $crate::documented::serde_keys::<$name>,
                };
                Some($crate::documented::Nested { step: String::new(), section: &SECTION })
            }
        }
    };
    (@absent required) => { $crate::documented::Absent::Required };
    (@absent $text:literal) => { $crate::documented::Absent::Default($text) };
}

/// Names value types in the docs: `Type => "its name"`, for types without fields.
#[macro_export]
macro_rules! value_kinds {
    ($($ty:ty => $kind:expr),* $(,)?) => {
        $(
            impl $crate::documented::Documented for $ty {
                fn kind() -> String {
                    $kind.to_owned()
                }
            }
        )*
    };
}

/// The section of a documented struct.
pub fn section_of<T: Documented>() -> &'static Section {
    match T::nested() {
        Some(nested) => nested.section,
        None => panic!("{} is not a documented section", std::any::type_name::<T>()),
    }
}

/// The keys the derived `Deserialize` of `T` accepts: serde hands them to
/// `deserialize_struct`, where a deserializer that reads nothing records them.
pub fn serde_keys<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut keys = None;
    let _ = T::deserialize(KeysOf(&mut keys));
    keys.unwrap_or(&[])
}

/// A deserializer that records the fields of the struct asked of it and yields nothing.
struct KeysOf<'a>(&'a mut Option<&'static [&'static str]>);

/// The end of a [`KeysOf`] reading.
#[derive(Debug)]
struct Recorded;

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("fields recorded")
    }
}

impl std::error::Error for Recorded {}

impl de::Error for Recorded {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Recorded
    }
}

impl<'de> Deserializer<'de> for KeysOf<'_> {
    type Error = Recorded;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Recorded> {
        Err(Recorded)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Recorded> {
        *self.0 = Some(fields);
        Err(Recorded)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
        identifier ignored_any
    }
}

/// One line of the settings list: a key with its full path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The path of the key: `istio.version`, `sidecars[].name`.
    pub key: String,
    /// The value's type.
    pub kind: String,
    /// What applies when it is absent.
    pub absent: Absent,
    /// The doc comment, in one paragraph.
    pub doc: String,
}

/// Every setting of `section` and of the sections under it, depth first, each after the
/// key that holds it.
pub fn rows(section: &Section) -> Vec<Row> {
    let mut rows = Vec::new();
    push_rows(section, "", &mut rows);
    rows
}

fn push_rows(section: &Section, prefix: &str, rows: &mut Vec<Row>) {
    let keys = (section.keys)();
    assert_eq!(
        keys.len(),
        section.fields.len(),
        "{}: serde accepts {keys:?}, the table has {} fields",
        section.name,
        section.fields.len()
    );
    for (key, field) in keys.iter().zip(section.fields) {
        let path = format!("{prefix}{key}");
        rows.push(Row {
            key: path.clone(),
            kind: (field.kind)(),
            absent: field.absent,
            doc: paragraph(field.doc),
        });
        if let Some(nested) = (field.nested)() {
            push_rows(nested.section, &format!("{path}{}.", nested.step), rows);
        }
    }
}

/// A doc comment's lines joined into one paragraph.
fn paragraph(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rows as a Markdown table: key, type, default, meaning.
pub fn markdown(rows: &[Row]) -> String {
    let cell = |text: &str| text.replace('|', "\\|");
    let mut out = String::from("| key | type | default | meaning |\n|---|---|---|---|\n");
    for row in rows {
        let absent = match row.absent {
            Absent::Required => "required",
            Absent::Default(text) => text,
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            row.key,
            cell(&row.kind),
            cell(absent),
            cell(&row.doc)
        ));
    }
    out
}

impl<T: Documented> Documented for Option<T> {
    fn kind() -> String {
        T::kind()
    }
    fn nested() -> Option<Nested> {
        T::nested()
    }
}

impl<T: Documented> Documented for Vec<T> {
    fn kind() -> String {
        format!("list of {}", plural(&T::kind()))
    }
    fn nested() -> Option<Nested> {
        T::nested().map(|nested| Nested {
            step: format!("[]{}", nested.step),
            section: nested.section,
        })
    }
}

impl<T: Documented> Documented for BTreeMap<String, T> {
    fn kind() -> String {
        format!("mapping of names to {}", plural(&T::kind()))
    }
    fn nested() -> Option<Nested> {
        T::nested().map(|nested| Nested {
            step: format!(".<name>{}", nested.step),
            section: nested.section,
        })
    }
}

/// `mapping` → `mappings`, `string` → `strings`: the element of a list or mapping.
fn plural(kind: &str) -> String {
    match kind.split_once(' ') {
        Some((head, rest)) => format!("{head}s {rest}"),
        None => format!("{kind}s"),
    }
}

crate::value_kinds! {
    bool => "boolean",
    String => "string",
    PathBuf => "path",
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    crate::documented! {
        /// A section whose keys serde renames.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        #[allow(dead_code)]
        struct Outer {
            /// Renamed on its own.
            #[serde(rename = "other")]
            some_key: Option<bool> = "false",
            /// Entries, each with its fields.
            entry_list: Vec<Inner> = required,
        }
    }

    crate::documented! {
        /// The section of each entry.
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Inner {
            /// A name,
            /// over two lines.
            name: BTreeMap<String, String> = "none",
        }
    }

    #[test]
    fn rows_take_serdes_keys_and_nest_under_their_key() {
        let rows = rows(section_of::<Outer>());
        let row = |key: &str, kind: &str, absent, doc: &str| Row {
            key: key.to_owned(),
            kind: kind.to_owned(),
            absent,
            doc: doc.to_owned(),
        };
        assert_eq!(
            rows,
            [
                row(
                    "other",
                    "boolean",
                    Absent::Default("false"),
                    "Renamed on its own."
                ),
                row(
                    "entryList",
                    "list of mappings",
                    Absent::Required,
                    "Entries, each with its fields."
                ),
                row(
                    "entryList[].name",
                    "mapping of names to strings",
                    Absent::Default("none"),
                    "A name, over two lines."
                ),
            ]
        );
        assert!(markdown(&rows).contains("| `entryList[].name` | mapping of names to strings | none | A name, over two lines. |\n"));
    }
}
