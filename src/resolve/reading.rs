//! How settings written as text are read: the forms their readers parse (a Go
//! duration, whole seconds, `enabled`/`disabled`, a Go boolean), each as its reader
//! upstream parses it, and the one flow every model reads a setting through
//! ([`Builder::read_setting`]): its value when it reads, else the problem recorded where
//! the manifest writes it and the reader's default kept.

use super::{Builder, Expected, Fault, Unreadable};
use crate::settings::{Source, Sourced};
use crate::time::{Millis, parse_go_duration};

/// A form a setting's text takes, as its reader parses it, and what that reader
/// accepts, for the problem when it cannot.
pub struct Reading<T> {
    read: fn(&str) -> Option<T>,
    expected: Expected,
}

impl<T> Reading<T> {
    /// The value `text` reads as, if it does.
    pub fn read(&self, text: &str) -> Option<T> {
        (self.read)(text)
    }
}

impl Reading<Millis> {
    /// A Go duration, not negative (`time.ParseDuration`: `30s`, `1m30s`).
    pub const fn duration(example: &'static str) -> Reading<Millis> {
        Reading {
            read: go_duration,
            expected: Expected::Duration { example },
        }
    }

    /// Whole seconds, not negative, spaces around them allowed.
    pub const fn whole_seconds() -> Reading<Millis> {
        Reading {
            read: whole_seconds,
            expected: Expected::WholeSeconds { fallback: None },
        }
    }

    /// Whole seconds written with digits only (`strconv.ParseUint(value, 10, 64)`).
    pub const fn unsigned_seconds() -> Reading<Millis> {
        Reading {
            read: unsigned_seconds,
            expected: Expected::WholeSeconds { fallback: None },
        }
    }
}

impl Reading<i64> {
    /// A whole number, of any sign (`strconv.Atoi`); `fallback`: the sidecar and the
    /// length its reader keeps when the text is not one.
    pub const fn integer(fallback: Option<(&'static str, Millis)>) -> Reading<i64> {
        Reading {
            read: integer,
            expected: Expected::WholeSeconds { fallback },
        }
    }
}

impl Reading<bool> {
    /// `enabled` or `disabled`; an injector ignores anything else.
    pub const SWITCH: Reading<bool> = Reading {
        read: switch,
        expected: Expected::Switch,
    };
}

fn go_duration(text: &str) -> Option<Millis> {
    parse_go_duration(text).filter(|duration| *duration >= Millis::ZERO)
}

fn whole_seconds(text: &str) -> Option<Millis> {
    let seconds = text.trim().parse::<i64>().ok()?;
    (seconds >= 0).then(|| Millis::secs(seconds))
}

fn unsigned_seconds(text: &str) -> Option<Millis> {
    let digits = !text.is_empty() && text.bytes().all(|c| c.is_ascii_digit());
    digits
        .then(|| text.parse::<i64>().ok())
        .flatten()
        .map(Millis::secs)
}

fn integer(text: &str) -> Option<i64> {
    text.parse().ok()
}

fn switch(text: &str) -> Option<bool> {
    match text {
        "enabled" => Some(true),
        "disabled" => Some(false),
        _ => None,
    }
}

/// Go's `strconv.ParseBool`, which pilot-agent (its environment) and Linkerd's
/// injector (its annotations) read booleans with; `None` for anything else.
pub fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

impl Builder<'_> {
    /// The setting `key` as `written` (its text and where it is), read as `reading`:
    /// `None` when it is not written, or when its text does not read; the problem is
    /// then recorded where the manifest writes it (a value from the namespace or the
    /// profile is theirs to fix), and the caller keeps its default.
    pub fn read_setting<T>(
        &mut self,
        key: &str,
        written: Option<(impl AsRef<str>, Source)>,
        reading: &Reading<T>,
    ) -> Option<Sourced<T>> {
        let (text, source) = written?;
        let text = text.as_ref();
        if let Some(value) = reading.read(text) {
            return Some(Sourced::new(value, source));
        }
        if let Source::Manifest(path) = source {
            self.problem(
                path,
                Fault::Unreadable(Unreadable::Value {
                    setting: key.to_owned(),
                    value: text.to_owned(),
                    expected: reading.expected,
                }),
            );
        }
        None
    }

    /// The pod annotation `key`, read as `reading` ([`Builder::read_setting`]).
    pub fn read_annotation<T>(&mut self, key: &str, reading: &Reading<T>) -> Option<Sourced<T>> {
        let workload = self.workload;
        let written = workload
            .pod_annotation(key)
            .map(|(text, path)| (text, Source::Manifest(path)));
        self.read_setting(key, written, reading)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_reads_as_its_reader_does() {
        let duration = Reading::duration("30s");
        assert_eq!(duration.read("1m30s"), Some(Millis::secs(90)));
        assert_eq!(duration.read("-5s"), None);
        assert_eq!(
            Reading::whole_seconds().read(" 20 "),
            Some(Millis::secs(20))
        );
        assert_eq!(Reading::whole_seconds().read("-1"), None);
        assert_eq!(Reading::unsigned_seconds().read(" 20"), None);
        assert_eq!(Reading::unsigned_seconds().read("+20"), None);
        assert_eq!(
            Reading::unsigned_seconds().read("20"),
            Some(Millis::secs(20))
        );
        assert_eq!(Reading::integer(None).read("-3"), Some(-3));
        assert_eq!(Reading::SWITCH.read("enabled"), Some(true));
        assert_eq!(Reading::SWITCH.read("true"), None);
        assert_eq!(parse_go_bool("T"), Some(true));
        assert_eq!(parse_go_bool("yes"), None);
    }
}
