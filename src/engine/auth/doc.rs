//! Reading the JSON documents of OAuth servers field by field (through `serde_json::Value`, which
//! the package already carries, rather than one generated deserializer per document). The text is
//! parsed by [`crate::json::parse`], so wasm carries no JSON parser of its own.

use serde_json::{Map, Value};

/// A JSON object's members; `what` names the document in the error.
pub fn object(body: &str, what: &str) -> Result<Map<String, Value>, String> {
    match crate::json::parse(body) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(format!("{what}: not a JSON object")),
        Err(e) => Err(format!("{what}: {e}")),
    }
}

/// An optional string member (absent or `null`: `None`; another type is an error).
pub fn text(o: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{key} must be a string")),
    }
}

/// A required string member.
pub fn required(o: &Map<String, Value>, key: &str) -> Result<String, String> {
    text(o, key)?.ok_or_else(|| format!("{key} is missing"))
}

/// An optional array of strings.
pub fn texts(o: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| format!("{key} must be an array of strings")),
        Some(_) => Err(format!("{key} must be an array of strings")),
    }
}

/// An object from the members whose value is present.
pub fn build(members: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect(),
    )
}
