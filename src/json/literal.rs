//! `json!`: a JSON value written as a literal, `crate::json::json!`'s syntax — `null`, arrays,
//! objects with literal (or parenthesized) keys, and any expression with a `Value::from`.

/// Builds a [`Value`](super::Value) from JSON-like syntax: `json!({ "a": [1, null, x] })`
/// (`mcp_task_client::json::json!`).
#[doc(hidden)]
#[macro_export]
macro_rules! __json_literal {
    // Array items, gathered one at a time into `[done]`.
    (@array [$($done:expr,)*]) => { vec![$($done,)*] };
    (@array [$($done:expr,)*] , $($rest:tt)*) => {
        $crate::json::json!(@array [$($done,)*] $($rest)*)
    };
    (@array [$($done:expr,)*] null $($rest:tt)*) => {
        $crate::json::json!(@array [$($done,)* $crate::json::Value::Null,] $($rest)*)
    };
    (@array [$($done:expr,)*] [$($items:tt)*] $($rest:tt)*) => {
        $crate::json::json!(@array [$($done,)* $crate::json::json!([$($items)*]),] $($rest)*)
    };
    (@array [$($done:expr,)*] {$($members:tt)*} $($rest:tt)*) => {
        $crate::json::json!(@array [$($done,)* $crate::json::json!({$($members)*}),] $($rest)*)
    };
    (@array [$($done:expr,)*] $next:expr $(, $($rest:tt)*)?) => {
        $crate::json::json!(@array [$($done,)* $crate::json::ToJson::to_json(&$next),] $($($rest)*)?)
    };

    // Object members, inserted one at a time into `$object`; a key is every token before `:`.
    (@object $object:ident) => {};
    (@object $object:ident , $($rest:tt)*) => { $crate::json::json!(@object $object $($rest)*) };
    (@object $object:ident $($rest:tt)+) => { $crate::json::json!(@key $object () $($rest)+) };
    (@key $object:ident ($($key:tt)+) : null $($rest:tt)*) => {
        $object.insert(String::from($($key)+), $crate::json::Value::Null);
        $crate::json::json!(@object $object $($rest)*);
    };
    (@key $object:ident ($($key:tt)+) : [$($items:tt)*] $($rest:tt)*) => {
        $object.insert(String::from($($key)+), $crate::json::json!([$($items)*]));
        $crate::json::json!(@object $object $($rest)*);
    };
    (@key $object:ident ($($key:tt)+) : {$($members:tt)*} $($rest:tt)*) => {
        $object.insert(String::from($($key)+), $crate::json::json!({$($members)*}));
        $crate::json::json!(@object $object $($rest)*);
    };
    (@key $object:ident ($($key:tt)+) : $value:expr $(, $($rest:tt)*)?) => {
        $object.insert(String::from($($key)+), $crate::json::ToJson::to_json(&$value));
        $crate::json::json!(@object $object $($($rest)*)?);
    };
    (@key $object:ident ($($key:tt)*) $next:tt $($rest:tt)*) => {
        $crate::json::json!(@key $object ($($key)* $next) $($rest)*)
    };

    (null) => { $crate::json::Value::Null };
    ([$($items:tt)*]) => { $crate::json::Value::Array($crate::json::json!(@array [] $($items)*)) };
    ({$($members:tt)*}) => {{
        #[allow(unused_mut)]
        let mut object = $crate::json::Map::new();
        $crate::json::json!(@object object $($members)*);
        $crate::json::Value::Object(object)
    }};
    ($other:expr) => { $crate::json::ToJson::to_json(&$other) };
}
pub use crate::__json_literal as json;

#[cfg(test)]
mod tests {
    use crate::json::{json, Map, Value};

    #[test]
    fn builds_what_it_spells() {
        let x = 3;
        let name = "n";
        let v = json!({ "a": [1, null, x + 1, [], {}, { "b": -2 }], "c": null, (name): "s", "d": { "e": true }, name.to_uppercase(): 0, "f": 1.5, });
        let mut d = Map::new();
        d.insert("e".into(), Value::Bool(true));
        let mut b = Map::new();
        b.insert("b".into(), Value::from(-2));
        let mut expected = Map::new();
        let items = vec![
            Value::from(1),
            Value::Null,
            Value::from(4),
            Value::Array(vec![]),
            Value::Object(Map::new()),
            Value::Object(b),
        ];
        expected.insert("a".into(), Value::Array(items));
        expected.insert("c".into(), Value::Null);
        expected.insert("n".into(), Value::from("s"));
        expected.insert("d".into(), Value::Object(d));
        expected.insert("N".into(), Value::from(0));
        expected.insert("f".into(), Value::from(1.5));
        assert_eq!(v, Value::Object(expected));
        assert_eq!(json!(null), Value::Null);
        assert_eq!(json!([null, [null]]).to_string(), "[null,[null]]");
    }
}
