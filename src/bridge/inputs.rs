//! Where a server's input request goes: withdrawn (the host hears why), to the host's `onInput`,
//! or answered at once when the host has no handler; and what `onInput` settling means.

use crate::engine::api::INPUT_WITHDRAWN;
use crate::json::Value;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::InputRequest;

/// What becomes of one input request.
#[derive(Debug, PartialEq)]
pub enum Route<'a> {
    /// It is no longer wanted, for this reason.
    Withdrawn(&'a str),
    /// The host's `onInput` answers it.
    Host,
    /// Answered here: the host has no `onInput`.
    Answer(Result<Value, RpcError>),
}

/// Where `req` goes (`answers_input`: the host has an `onInput` handler). Without one, an
/// elicitation is declined and anything else is a method the client does not have.
#[inline]
pub fn route(req: &InputRequest, answers_input: bool) -> Route<'_> {
    if req.method == INPUT_WITHDRAWN {
        let why = req.params.get("reason").and_then(Value::as_str);
        return Route::Withdrawn(why.unwrap_or("withdrawn"));
    }
    if answers_input {
        return Route::Host;
    }
    Route::Answer(if req.method == "elicitation/create" {
        Ok(crate::protocol::object([("action", "decline".into())]))
    } else {
        let why = ["no onInput handler for ", &req.method].concat();
        Err(RpcError::new(-32601, why))
    })
}

/// The answer from the value `onInput` resolved with (`None` when it is not JSON).
#[inline]
pub fn answer(resolved: Option<Value>) -> Result<Value, RpcError> {
    match resolved {
        Some(o @ Value::Object(_)) => Ok(o),
        _ => Err(RpcError::new(-32603, "onInput must return a JSON object")),
    }
}

/// The RPC error for what `onInput` threw: its numeric `code` when it is an integer, and its
/// `message`.
#[inline]
pub fn thrown(code: Option<f64>, message: String) -> RpcError {
    let code = code.filter(|c| c.fract() == 0.0);
    RpcError::new(code.map_or(-32603, |c| c as i64), message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn request(method: &str, params: Value) -> InputRequest {
        InputRequest {
            key: "k".into(),
            method: method.into(),
            params,
        }
    }

    #[test]
    fn a_withdrawn_request_tells_why() {
        let r = request(INPUT_WITHDRAWN, json!({ "reason": "task ended" }));
        assert_eq!(route(&r, true), Route::Withdrawn("task ended"));
        let r = request(INPUT_WITHDRAWN, json!({ "reason": 3 }));
        assert_eq!(route(&r, false), Route::Withdrawn("withdrawn"));
    }

    #[test]
    fn with_a_handler_every_request_goes_to_the_host() {
        for method in ["elicitation/create", "sampling/createMessage", "roots/list"] {
            assert_eq!(route(&request(method, Value::Null), true), Route::Host);
        }
    }

    #[test]
    fn without_a_handler_elicitation_is_declined_and_the_rest_unknown() {
        let r = request("elicitation/create", json!({}));
        assert_eq!(
            route(&r, false),
            Route::Answer(Ok(json!({ "action": "decline" })))
        );
        let r = request("sampling/createMessage", json!({}));
        assert_eq!(
            route(&r, false),
            Route::Answer(Err(RpcError::new(
                -32601,
                "no onInput handler for sampling/createMessage"
            )))
        );
    }

    #[test]
    fn only_an_object_answers_an_input_request() {
        let accept = json!({ "action": "accept" });
        assert_eq!(answer(Some(accept.clone())), Ok(accept));
        let not_object = Err(RpcError::new(-32603, "onInput must return a JSON object"));
        assert_eq!(answer(Some(json!([1]))), not_object);
        assert_eq!(answer(Some(json!("yes"))), not_object);
        assert_eq!(answer(None), not_object);
    }

    #[test]
    fn a_thrown_error_keeps_an_integer_code() {
        assert_eq!(thrown(Some(-32000.0), "m".into()).code, -32000);
        assert_eq!(thrown(Some(1.5), "m".into()).code, -32603);
        assert_eq!(thrown(None, "m".into()), RpcError::new(-32603, "m"));
    }
}
