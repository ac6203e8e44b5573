//! What `kubectl get -o json` and a raw list request print, read as objects: a list's
//! items with the kind the API server leaves out of them, one named object, or nothing,
//! and where the next page of a chunked list starts.

use serde_json::Value;

use super::ApiObject;

/// The objects of a `kubectl get -o json`: a `List`'s items, the object itself when one
/// was named, nothing for empty output (`--ignore-not-found` that found nothing).
pub fn parse_list(stdout: &[u8]) -> Result<Vec<ApiObject>, String> {
    Ok(parse_page(stdout)?.objects)
}

/// One page of a list, as the API server sends it (`kubectl get --raw
/// '/api/v1/pods?limit=500'`), or the output of `kubectl get -o json`.
#[derive(Debug, Default)]
pub struct Page {
    /// The items, each with the `kind` and `apiVersion` the API server leaves out of a
    /// list's items (the list's own, `PodList` giving `Pod`), as kubectl restores them.
    pub objects: Vec<ApiObject>,
    /// `metadata.continue`: where the next page starts, when there is one.
    pub next: Option<String>,
}

/// Reads a page of a list, or a single object; empty output is an empty page.
pub fn parse_page(stdout: &[u8]) -> Result<Page, String> {
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Page::default());
    }
    let value: Value = serde_json::from_slice(stdout)
        .map_err(|error| format!("kubectl printed something that is not JSON: {error}"))?;
    let Value::Object(mut map) = value else {
        return Err(format!(
            "kubectl printed JSON that is not an object, but {}",
            type_name(&value)
        ));
    };
    if !map.contains_key("items") {
        return Ok(Page {
            objects: ApiObject::new(Value::Object(map)).into_iter().collect(),
            next: None,
        });
    }
    let items = match map.remove("items") {
        Some(Value::Array(items)) => items,
        Some(Value::Null) => Vec::new(),
        Some(other) => {
            return Err(format!(
                "kubectl printed a list whose `items` is not a list, but {}",
                type_name(&other)
            ));
        }
        None => Vec::new(),
    };
    let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_owned);
    let item_kind = text("kind").and_then(|kind| kind.strip_suffix("List").map(str::to_owned));
    let api_version = text("apiVersion");
    let next = map
        .get("metadata")
        .and_then(|metadata| metadata.get("continue"))
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty())
        .map(str::to_owned);
    let objects = items
        .into_iter()
        .filter_map(|mut item| {
            if let Value::Object(fields) = &mut item {
                for (key, value) in [("kind", &item_kind), ("apiVersion", &api_version)] {
                    if let (false, Some(value)) = (fields.contains_key(key), value) {
                        fields.insert(key.to_owned(), Value::String(value.clone()));
                    }
                }
            }
            ApiObject::new(item)
        })
        .collect();
    Ok(Page { objects, next })
}

/// `a string`, `an array`: what a JSON value is, for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_named_objects_and_empty_output() {
        assert!(parse_list(b"").unwrap().is_empty());
        let one = parse_list(br#"{"kind": "Pod", "metadata": {"name": "a"}}"#).unwrap();
        assert_eq!(one[0].name, "a");
        let list = parse_list(
            br#"{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "b"}}]}"#,
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        assert!(parse_list(b"error").is_err());
        assert!(parse_list(b"[1, 2]").is_err());
        assert!(parse_list(br#"{"kind": "List", "items": 3}"#).is_err());
    }

    #[test]
    fn a_page_gets_its_items_kind_back_and_says_where_the_next_starts() {
        let page = parse_page(
            br#"{"kind": "DeploymentList", "apiVersion": "apps/v1",
                "metadata": {"continue": "eyJ2IjoxfQ"},
                "items": [{"metadata": {"name": "web", "uid": "1"}}]}"#,
        )
        .unwrap();
        assert_eq!(page.next.as_deref(), Some("eyJ2IjoxfQ"));
        assert_eq!(page.objects[0].kind, "Deployment");
        assert_eq!(page.objects[0].api_version, "apps/v1");
        let last = parse_page(br#"{"kind": "PodList", "apiVersion": "v1", "metadata": {"continue": ""}, "items": []}"#)
            .unwrap();
        assert_eq!(last.next, None);
    }
}
