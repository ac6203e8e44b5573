//! The text of a picture: markup escaped, and numbers written short.

/// `svg` with every `.0` dropped from the numbers of its attributes (`x="155.0"` is
/// `x="155"`): the coordinates are written with one decimal, mostly zero, and a page
/// holds thousands of them. Text between tags is left as it is.
pub(super) fn whole_numbers(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find("=\"") {
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        let end = rest.find('"').unwrap_or(rest.len());
        let value = &rest[..end];
        if value
            .chars()
            .all(|c| c.is_ascii_digit() || " .,-MLVH".contains(c))
        {
            let bytes = value.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                let zero = bytes[i] == b'.'
                    && bytes.get(i + 1) == Some(&b'0')
                    && !bytes.get(i + 2).is_some_and(u8::is_ascii_digit)
                    && i > 0
                    && bytes[i - 1].is_ascii_digit();
                if zero {
                    i += 2;
                } else {
                    out.push(char::from(bytes[i]));
                    i += 1;
                }
            }
        } else {
            out.push_str(value);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `text` for SVG and HTML character data and attribute values: markup escaped, and
/// control characters, which XML cannot hold even as references, shown as escapes.
pub(crate) fn escape(text: &str) -> String {
    crate::escape::controls(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_lose_their_decimal_in_attributes_only() {
        assert_eq!(
            whole_numbers(r#"<line x1="155.0" y1="36.5" d="M1.0 2.0V30.0"/><text>v1.0</text>"#),
            r#"<line x1="155" y1="36.5" d="M1 2V30"/><text>v1.0</text>"#
        );
        assert_eq!(
            whole_numbers(r#"<a b="10.05" c="x.0">"#),
            r#"<a b="10.05" c="x.0">"#
        );
    }
}
