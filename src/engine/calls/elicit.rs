//! Accepted elicitations get the requested schema's defaults (SEP-1034): each top-level primitive
//! property with a `default` that the host left out of `content` is filled in; what the host gave
//! is never replaced.

use crate::json::{Map, Value};

/// The elicitation method whose answers get defaults.
pub(super) const ELICIT: &str = "elicitation/create";

/// A `default` worth copying: a string, number or boolean, for a property whose `type` (when
/// given) is primitive too.
fn primitive(schema: &Value, default: &Value) -> bool {
    let typed = match schema.get("type") {
        None => true,
        Some(t) => matches!(
            t.as_str(),
            Some("string" | "number" | "integer" | "boolean")
        ),
    };
    typed
        && matches!(
            default,
            Value::String(_) | Value::Number(_) | Value::Bool(_)
        )
}

/// Fills `answer.content` (an `ElicitResult`) from `params.requestedSchema` when the host accepted.
pub(super) fn fill_defaults(params: &Value, answer: &mut Value) {
    if answer.get("action").and_then(Value::as_str) != Some("accept") {
        return;
    }
    let Some(props) = params
        .get("requestedSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return;
    };
    let Some(result) = answer.as_object_mut() else {
        return;
    };
    // Absent or null: an empty object.
    let content = result.entry("content").or_insert_with(Value::default);
    if content.is_null() {
        *content = Value::Object(Map::new());
    }
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, schema) in props {
        match schema.get("default") {
            Some(d) if primitive(schema, d) && !content.contains_key(name) => {
                content.insert(name.clone(), d.clone());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn params() -> Value {
        json!({ "message": "who?", "requestedSchema": { "type": "object", "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "score": { "type": "number", "default": 95.5 },
            "status": { "type": "string", "enum": ["active", "inactive"], "default": "active" },
            "verified": { "type": "boolean", "default": true },
            "untyped": { "default": "u" },
            "tags": { "type": "array", "default": ["a"] },
            "nested": { "type": "object", "default": { "a": 1 } },
            "nodefault": { "type": "string" }
        } } })
    }

    #[test]
    fn accepted_empty_content_gets_every_primitive_default() {
        for mut answer in [
            json!({ "action": "accept", "content": {} }),
            json!({ "action": "accept" }),
            json!({ "action": "accept", "content": null }),
        ] {
            fill_defaults(&params(), &mut answer);
            assert_eq!(
                answer["content"],
                json!({ "name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                        "verified": true, "untyped": "u" })
            );
        }
    }

    #[test]
    fn what_the_host_gave_is_never_overridden() {
        let mut answer = json!({ "action": "accept", "content": {
            "name": "Ann", "age": null, "verified": false, "extra": 1 } });
        fill_defaults(&params(), &mut answer);
        assert_eq!(
            answer["content"],
            json!({ "name": "Ann", "age": null, "verified": false, "extra": 1, "score": 95.5,
                    "status": "active", "untyped": "u" })
        );
    }

    #[test]
    fn declined_cancelled_or_odd_answers_are_left_alone() {
        for answer in [
            json!({ "action": "decline" }),
            json!({ "action": "cancel", "content": {} }),
            json!({ "action": "accept", "content": "text" }),
            json!(["accept"]),
            json!(null),
        ] {
            let mut a = answer.clone();
            fill_defaults(&params(), &mut a);
            assert_eq!(a, answer);
        }
        let mut a = json!({ "action": "accept", "content": {} });
        fill_defaults(&json!({ "requestedSchema": { "properties": [] } }), &mut a);
        fill_defaults(&json!(null), &mut a);
        assert_eq!(a, json!({ "action": "accept", "content": {} }));
    }
}
