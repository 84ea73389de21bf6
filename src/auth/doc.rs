//! Reading the JSON documents of OAuth servers field by field (through `crate::json::Value`, which
//! the package already carries, rather than one generated deserializer per document). The text is
//! parsed by [`crate::json::parse`], the one JSON reader of the package.

use crate::json::{Map, Value};

/// A JSON object's members; `what` names the document in the error.
pub fn object(body: &str, what: &str) -> Result<Map<String, Value>, String> {
    match crate::json::parse(body) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err([what, ": not a JSON object"].concat()),
        Err(e) => Err([what, ": ", &e].concat()),
    }
}

/// An optional string member (absent or `null`: `None`; another type is an error).
pub fn text(o: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err([key, " must be a string"].concat()),
    }
}

/// A required string member.
pub fn required(o: &Map<String, Value>, key: &str) -> Result<String, String> {
    text(o, key)?.ok_or_else(|| [key, " is missing"].concat())
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
            .ok_or_else(|| [key, " must be an array of strings"].concat()),
        Some(_) => Err([key, " must be an array of strings"].concat()),
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
