//! Plain-scalar resolution as Kubernetes does it.
//!
//! `kubectl` and the API server read YAML through sigs.k8s.io/yaml, which uses go-yaml v2
//! and therefore YAML 1.1 rules: `yes`/`on` are booleans, `0755` is octal, `1_000` is an
//! integer. A YAML 1.2 reading would accept manifests the cluster rejects (and the other
//! way round), so the linter resolves scalars exactly like go-yaml v2's `resolve`.

use super::tree::Value;

/// Resolves an untagged plain scalar, as go-yaml v2's `resolve` does (sigs.k8s.io/yaml
/// v1.4.0, `goyaml.v2/resolve.go`): a table of words, then by the first character.
pub fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Value::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Value::Bool(false);
        }
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let number = match text.as_bytes()[0] {
        // `.5`: only Go's ParseFloat on the text as written (no `_` removed).
        b'.' => is_yaml_float(text).then(|| parse_float(text)).flatten(),
        b'0'..=b'9' | b'+' | b'-' if !is_timestamp(text) => resolve_number(text),
        // Timestamps stay strings: go-yaml v2 hands them to `interface{}` as the text
        // written ("for backward compatibility", decode.go).
        _ => None,
    };
    number.unwrap_or_else(|| Value::String(text.to_owned()))
}

/// Resolves a scalar carrying a tag, as go-yaml v2 does; `None` when the text does not
/// fit a core tag (`!!int thirty`). Tags go-yaml does not resolve (`!custom`, `!`)
/// leave the text a string, and `!!binary` is decoded.
pub fn resolve_tagged(tag: &str, text: &str) -> Option<Value> {
    match tag {
        "str" => Some(Value::String(text.to_owned())),
        "timestamp" => is_timestamp(text).then(|| Value::String(text.to_owned())),
        "binary" => decode_base64(text).map(Value::String),
        "null" => matches!(resolve_plain(text), Value::Null).then_some(Value::Null),
        "bool" => match resolve_plain(text) {
            value @ Value::Bool(_) => Some(value),
            _ => None,
        },
        "int" => match resolve_plain(text) {
            value @ (Value::Int(_) | Value::UInt(_)) => Some(value),
            _ => None,
        },
        "float" => match resolve_plain(text) {
            Value::Int(i) => Some(Value::Float(i as f64)),
            value @ Value::Float(_) => Some(value),
            _ => None,
        },
        _ => Some(Value::String(text.to_owned())),
    }
}

/// `base64.StdEncoding.DecodeString`, which skips line breaks; bytes that are not UTF-8
/// become U+FFFD, as Go's JSON encoder writes them.
fn decode_base64(text: &str) -> Option<String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\r' | b'\n'))
        .collect();
    if !digits.len().is_multiple_of(4) {
        return None;
    }
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut bytes = Vec::with_capacity(digits.len() / 4 * 3);
    for (index, group) in digits.chunks(4).enumerate() {
        let last = index + 1 == digits.len() / 4;
        let padding = group.iter().rev().take_while(|&&b| b == b'=').count();
        if padding > 2 || (padding > 0 && !last) {
            return None;
        }
        let mut bits = 0u32;
        for &b in &group[..4 - padding] {
            bits = (bits << 6) | u32::from(value(b)?);
        }
        bits <<= 6 * padding;
        let decoded = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        bytes.extend_from_slice(&decoded[..3 - padding]);
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Integer first (`ParseInt`, then `ParseUint`), then go-yaml's float pattern, with
/// every `_` removed as go-yaml removes them.
fn resolve_number(text: &str) -> Option<Value> {
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(value) = parse_go_int(&plain) {
        return Some(value);
    }
    if is_yaml_float(&plain) {
        return parse_float(&plain);
    }
    None
}

/// `strconv.ParseFloat(s, 64)` on text that matches the float pattern: a value out of
/// range is an error in Go, and go-yaml then keeps the text as a string.
fn parse_float(text: &str) -> Option<Value> {
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Value::Float)
}

/// `strconv.ParseInt(s, 0, 64)` then `ParseUint(s, 0, 64)`: sign, then `0x`, `0o`, `0b`
/// or a leading `0` for octal.
fn parse_go_int(text: &str) -> Option<Value> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(rest) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        (16, rest)
    } else if let Some(rest) = unsigned
        .strip_prefix("0o")
        .or_else(|| unsigned.strip_prefix("0O"))
    {
        (8, rest)
    } else if let Some(rest) = unsigned
        .strip_prefix("0b")
        .or_else(|| unsigned.strip_prefix("0B"))
    {
        (2, rest)
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        (8, &unsigned[1..])
    } else {
        (10, unsigned)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        if magnitude <= i64::MAX as u64 + 1 {
            Some(Value::Int((magnitude as i128).wrapping_neg() as i64))
        } else {
            None
        }
    } else if let Ok(small) = i64::try_from(magnitude) {
        Some(Value::Int(small))
    } else if text.starts_with('+') {
        // ParseInt overflows and ParseUint takes no sign: the float pattern decides.
        None
    } else {
        Some(Value::UInt(magnitude))
    }
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == bytes.len()
}

/// How sigs.k8s.io/yaml spells a float mapping key, `strconv.FormatFloat(f, 'g', -1,
/// 32)` with go-yaml's names for the infinities and NaN: `1.5`, `1000` for `1e3`,
/// `1.2345679e+08` for `123456789.0` (single precision).
pub fn float_key(f: f64) -> String {
    let single = f as f32;
    if single.is_nan() {
        return ".nan".into();
    }
    if single.is_infinite() {
        return if single > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let sign = if single.is_sign_negative() { "-" } else { "" };
    // Rust prints the shortest digits that read back as the same f32, as Go does.
    let shortest = format!("{:e}", single.abs());
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if digits == "0" {
        return format!("{sign}0");
    }
    if !(-4..6).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{point}{rest}e{exp_sign}{:02}", exponent.abs());
    }
    if exponent < 0 {
        let zeros = "0".repeat((-exponent - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let whole = exponent as usize + 1;
    if digits.len() <= whole {
        format!("{sign}{digits}{}", "0".repeat(whole - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..whole], &digits[whole..])
    }
}

/// go-yaml v2 timestamps: `2001-12-14`, `2001-12-14t21:59:43.10-05:00`, `2001-12-14 21:59:43.10 -5`.
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 10
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes[5..7].iter().all(u8::is_ascii_digit)
        && bytes[7] == b'-'
        && bytes[8..10].iter().all(u8::is_ascii_digit)
        && (bytes.len() == 10 || matches!(bytes[10], b'T' | b't' | b' ' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_1_booleans_and_nulls() {
        assert_eq!(resolve_plain("yes"), Value::Bool(true));
        assert_eq!(resolve_plain("Off"), Value::Bool(false));
        assert_eq!(resolve_plain("~"), Value::Null);
        assert_eq!(resolve_plain("enabled"), Value::String("enabled".into()));
    }

    #[test]
    fn go_integer_syntax() {
        assert_eq!(resolve_plain("30"), Value::Int(30));
        assert_eq!(resolve_plain("0755"), Value::Int(493));
        assert_eq!(resolve_plain("0x1F"), Value::Int(31));
        assert_eq!(resolve_plain("1_000"), Value::Int(1000));
        assert_eq!(resolve_plain("-2"), Value::Int(-2));
        assert_eq!(resolve_plain("18446744073709551615"), Value::UInt(u64::MAX));
    }

    #[test]
    fn numbers_go_yaml_does_not_take_as_integers() {
        // "08" is not octal; go-yaml falls through to its float pattern.
        assert_eq!(resolve_plain("08"), Value::Float(8.0));
        assert_eq!(resolve_plain("1e3"), Value::Float(1000.0));
        assert_eq!(
            resolve_plain("123456789012345678901234567890"),
            Value::Float(1.2345678901234568e29)
        );
        assert_eq!(resolve_plain("1.2.3"), Value::String("1.2.3".into()));
        assert_eq!(resolve_plain("30s"), Value::String("30s".into()));
    }

    #[test]
    fn timestamps_stay_strings() {
        assert_eq!(
            resolve_plain("2001-12-14"),
            Value::String("2001-12-14".into())
        );
    }

    #[test]
    fn core_tags_force_a_type() {
        assert_eq!(
            resolve_tagged("str", "30"),
            Some(Value::String("30".into()))
        );
        assert_eq!(resolve_tagged("int", "30"), Some(Value::Int(30)));
        assert_eq!(resolve_tagged("int", "thirty"), None);
    }
}
