//! The host's answers to input requests, checked against the shape the method's result must have
//! before they go to the server: an answer meant for another method (an elicitation answer to a
//! sampling request) becomes a clear JSON-RPC error, instead of a validator dump from the server.

use crate::json::Value;

use crate::protocol::jsonrpc::RpcError;

/// `answer` unchanged when it fits `method`'s result (or the method is not one this client
/// knows), else the error to send in its place.
pub fn check(method: &str, answer: Result<Value, RpcError>) -> Result<Value, RpcError> {
    let v = answer?;
    match mismatch(method, &v) {
        None => Ok(v),
        Some(why) => Err(RpcError::new(
            -32603,
            ["the client's answer to ", method, " is not valid: ", why].concat(),
        )),
    }
}

/// What is wrong with `v` as the result of `method`, if anything.
fn mismatch(method: &str, v: &Value) -> Option<&'static str> {
    let has = |k: &str| v.get(k).is_some();
    let is_str = |k: &str| v.get(k).is_some_and(Value::is_string);
    match method {
        "elicitation/create" => match v.get("action").and_then(Value::as_str) {
            Some("accept" | "decline" | "cancel") => None,
            _ => Some("`action` must be \"accept\", \"decline\" or \"cancel\""),
        },
        "sampling/createMessage" if !is_str("model") => Some("`model` (a string) is missing"),
        "sampling/createMessage" if !is_str("role") => Some("`role` (a string) is missing"),
        "sampling/createMessage" if !has("content") => Some("`content` is missing"),
        "roots/list" if !v.get("roots").is_some_and(Value::is_array) => {
            Some("`roots` (an array) is missing")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::json::json;

    use super::*;

    fn ok(method: &str, v: Value) -> bool {
        check(method, Ok(v)).is_ok()
    }

    #[test]
    fn answers_that_fit_their_method_pass_unchanged() {
        let v = json!({"action": "accept", "content": {"n": 1}});
        assert_eq!(check("elicitation/create", Ok(v.clone())), Ok(v));
        assert!(ok("elicitation/create", json!({"action": "cancel"})));
        let s =
            json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}});
        assert!(ok("sampling/createMessage", s));
        assert!(ok("roots/list", json!({"roots": []})));
        assert!(ok("vendor/other", json!({})));
    }

    #[test]
    fn an_answer_for_another_method_becomes_an_error_naming_the_method() {
        let e = check("sampling/createMessage", Ok(json!({"action": "accept"}))).unwrap_err();
        assert_eq!(e.code, -32603);
        assert!(e.message.contains("sampling/createMessage") && e.message.contains("model"));
        assert!(!ok("elicitation/create", json!({"roots": []})));
        assert!(!ok("elicitation/create", json!({"action": "maybe"})));
        assert!(!ok("roots/list", json!({"action": "accept"})));
        assert!(!ok(
            "sampling/createMessage",
            json!({"model": "m", "role": "user"})
        ));
    }

    #[test]
    fn a_handler_error_passes_through() {
        let e = RpcError::new(-1, "no");
        assert_eq!(check("roots/list", Err(e.clone())), Err(e));
    }
}
