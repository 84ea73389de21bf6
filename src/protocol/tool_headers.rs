//! Modern `x-mcp-header` support: tool parameters a server asks to have mirrored into
//! `Mcp-Param-{Name}` headers on `tools/call`, and the validity rules a tool definition must meet
//! (an invalid tool is to be left out of `tools/list`).

use crate::json::{Map, Value};

use super::dialect::ProtocolError;
use super::headers::{encode_value, is_tchar, PARAM_PREFIX};
use crate::json::digits;

const ANNOTATION: &str = "x-mcp-header";
/// Largest integer JavaScript represents exactly (2^53 - 1).
const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// One `x-mcp-header` annotation: the header name part and the `properties` path to the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    pub name: String,
    pub path: Vec<String>,
}

/// The annotations of a tool's `inputSchema`, or why the tool definition is invalid.
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, ProtocolError> {
    let mut found = Vec::new();
    walk(input_schema, Some(&mut Vec::new()), &mut found)?;
    // Header names compare without regard to ASCII case.
    for (i, header) in found.iter().enumerate() {
        let earlier = found.get(..i).unwrap_or_default();
        if earlier
            .iter()
            .any(|e| e.name.eq_ignore_ascii_case(&header.name))
        {
            return Err(invalid(["`", &header.name, "` is declared twice"].concat()));
        }
    }
    Ok(found)
}

/// The `Mcp-Param-*` headers for calling a tool with `arguments` (absent or `null` values omit
/// their header).
pub fn tool_param_headers(
    input_schema: &Value,
    arguments: &Value,
) -> Result<Vec<(String, String)>, ProtocolError> {
    let mut out = Vec::new();
    for header in &param_headers(input_schema)? {
        let value = header.path.iter().try_fold(arguments, |v, key| v.get(key));
        let text =
            match value {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) => s.clone(),
                Some(Value::Bool(b)) => (if *b { "true" } else { "false" }).to_owned(),
                Some(Value::Number(n)) => digits::signed(safe_integer(n).ok_or_else(|| {
                    invalid(["`", &header.name, "` is not a safe integer"].concat())
                })?),
                Some(_) => {
                    return Err(invalid(
                        ["`", &header.name, "` is not a primitive value"].concat(),
                    ))
                }
            };
        out.push(([PARAM_PREFIX, &header.name].concat(), encode_value(&text)));
    }
    Ok(out)
}

fn safe_integer(n: &crate::json::Number) -> Option<i64> {
    let i = match n.as_i64() {
        Some(i) => i,
        None => {
            let f = n.as_f64()?;
            if f.fract() != 0.0 || f.abs() > MAX_SAFE_INTEGER as f64 {
                return None;
            }
            f as i64
        }
    };
    (i.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs()).then_some(i)
}

fn invalid(why: String) -> ProtocolError {
    ProtocolError::new(["invalid x-mcp-header: ", &why].concat())
}

/// Schema keywords whose values are data, not schemas (never walked).
const DATA_KEYWORDS: [&str; 5] = [ANNOTATION, "const", "default", "examples", "enum"];
/// Schema keywords whose values map names to schemas (walked as unreachable, except `properties`).
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Walks a schema. `path` is `Some` while the node is reachable from the root through
/// `properties` keys only; an annotation anywhere else makes the tool invalid.
fn walk(
    schema: &Value,
    mut path: Option<&mut Vec<String>>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), ProtocolError> {
    let obj = match schema {
        Value::Object(obj) => obj,
        Value::Array(items) => {
            return items.iter().try_for_each(|item| walk(item, None, found));
        }
        _ => return Ok(()),
    };
    if let Some(name) = obj.get(ANNOTATION) {
        found.push(annotation(obj, name, path.as_deref())?);
    }
    for (key, value) in obj {
        let key = key.as_str();
        if DATA_KEYWORDS.contains(&key) {
            continue;
        }
        if !SCHEMA_MAPS.contains(&key) {
            walk(value, None, found)?;
            continue;
        }
        let Some(props) = value.as_object() else {
            continue;
        };
        // Only `properties` keeps the node reachable.
        let mut path = path.as_deref_mut().filter(|_| key == "properties");
        for (name, sub) in props {
            if let Some(p) = path.as_deref_mut() {
                p.push(name.clone());
            }
            let walked = walk(sub, path.as_deref_mut(), found);
            if let Some(p) = path.as_deref_mut() {
                p.pop();
            }
            walked?;
        }
    }
    Ok(())
}

fn annotation(
    obj: &Map<String, Value>,
    name: &Value,
    path: Option<&Vec<String>>,
) -> Result<ParamHeader, ProtocolError> {
    let path = match path {
        Some(p) if !p.is_empty() => p.clone(),
        _ => return Err(invalid("not on a statically reachable property".into())),
    };
    let name = match name {
        Value::String(s) if !s.is_empty() && s.bytes().all(is_tchar) => s.clone(),
        _ => return Err(invalid(["bad header name ", &super::text(name)].concat())),
    };
    match obj.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(ParamHeader { name, path }),
        _ => Err(invalid(
            ["`", &name, "` is not on a string, integer or boolean"].concat(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::json::json;

    use super::*;

    fn sql_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
                "opts": {"type": "object", "properties": {
                    "shard": {"type": "integer", "x-mcp-header": "Shard"},
                    "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
                }}
            }
        })
    }

    #[test]
    fn mirrors_annotated_values() {
        let args = json!({"region": "us-west1", "query": "SELECT 1", "opts": {"shard": 42.0, "dry": true}});
        let mut headers = tool_param_headers(&sql_schema(), &args).unwrap();
        headers.sort();
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Dry-Run".to_owned(), "true".to_owned()),
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
                ("Mcp-Param-Shard".to_owned(), "42".to_owned()),
            ]
        );
    }

    #[test]
    fn absent_or_null_values_omit_the_header() {
        let args = json!({"region": null, "opts": {}});
        assert_eq!(tool_param_headers(&sql_schema(), &args).unwrap(), vec![]);
        assert_eq!(
            tool_param_headers(&sql_schema(), &Value::Null).unwrap(),
            vec![]
        );
    }

    #[test]
    fn unsafe_text_is_base64_encoded() {
        let args = json!({"region": "Hello, 世界"});
        assert_eq!(
            tool_param_headers(&sql_schema(), &args).unwrap(),
            vec![(
                "Mcp-Param-Region".to_owned(),
                "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
            )]
        );
    }

    #[test]
    fn rejects_invalid_definitions() {
        let bad = [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": 7}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"},
                                  "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}}}),
            json!({"oneOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"type": "string", "x-mcp-header": "Root"}),
        ];
        for schema in bad {
            assert!(param_headers(&schema).is_err(), "{schema}");
        }
    }

    #[test]
    fn a_repeat_in_another_case_is_named_in_the_error() {
        let schema = json!({"properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "Shard"},
            "c": {"type": "string", "x-mcp-header": "REGION"}
        }});
        let e = param_headers(&schema).unwrap_err();
        assert!(e.what.ends_with("`REGION` is declared twice"), "{}", e.what);
    }

    #[test]
    fn a_bad_name_is_quoted_as_json_in_the_error() {
        for (name, shown) in [
            (json!(7), "7"),
            (json!("A B"), "\"A B\""),
            (json!({"n": [1]}), "{\"n\":[1]}"),
        ] {
            let schema = json!({"properties": {"a": {"type": "string", "x-mcp-header": name}}});
            let e = param_headers(&schema).unwrap_err();
            assert!(
                e.what.ends_with(&format!("bad header name {shown}")),
                "{}",
                e.what
            );
        }
    }

    #[test]
    fn value_keywords_and_property_names_are_not_annotations() {
        let schema = json!({"properties": {
            "x-mcp-header": {"type": "string"},
            "a": {"type": "object", "default": {"x-mcp-header": "Nope"}}
        }});
        assert_eq!(param_headers(&schema).unwrap(), vec![]);
    }

    #[test]
    fn rejects_wrong_argument_types() {
        assert!(tool_param_headers(&sql_schema(), &json!({"region": ["x"]})).is_err());
        assert!(tool_param_headers(&sql_schema(), &json!({"opts": {"shard": 1.5}})).is_err());
        assert!(tool_param_headers(
            &sql_schema(),
            &json!({"opts": {"shard": 9_007_199_254_740_992u64}})
        )
        .is_err());
    }
}
