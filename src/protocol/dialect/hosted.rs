//! The client as a task receiver (2025-11-25): which server→client requests the client runs as
//! tasks, declared in `initialize` as `tasks.requests.{elicitation.create, sampling.createMessage}`
//! plus `tasks.list` and `tasks.cancel`. A method is hosted only when its own capability
//! (`elicitation`, `sampling`) is declared, i.e. when the host can answer it.
//!
//! A build without the `receiver` feature runs nothing as a task: it declares no `tasks`
//! capability at all (not even one the host passed in).

#[cfg(feature = "receiver")]
use crate::json::Map;
use crate::json::Value;

#[cfg(feature = "receiver")]
use crate::protocol::object;

#[cfg(feature = "receiver")]
/// `(capability, category, method name in the category, JSON-RPC method)` of each hostable request.
const HOSTABLE: [(&str, &str, &str, &str); 2] = [
    ("elicitation", "elicitation", "create", "elicitation/create"),
    (
        "sampling",
        "sampling",
        "createMessage",
        "sampling/createMessage",
    ),
];

/// `caps` with a `tasks` capability for the hostable requests it declares (unchanged when it
/// declares `tasks` itself or none of them).
#[cfg(feature = "receiver")]
pub fn declare(caps: &Value) -> Value {
    let Value::Object(obj) = caps else {
        return caps.clone();
    };
    if obj.contains_key("tasks") {
        return caps.clone();
    }
    let mut requests = Map::new();
    for (cap, category, name, _) in HOSTABLE {
        if obj.contains_key(cap) {
            requests.insert(category.into(), object([(name, Value::Object(Map::new()))]));
        }
    }
    if requests.is_empty() {
        return caps.clone();
    }
    let mut out = obj.clone();
    out.insert(
        "tasks".into(),
        object([
            ("list", Value::Object(Map::new())),
            ("cancel", Value::Object(Map::new())),
            ("requests", Value::Object(requests)),
        ]),
    );
    Value::Object(out)
}

/// `caps` without a `tasks` capability: this build runs no server request as a task.
#[cfg(not(feature = "receiver"))]
pub fn declare(caps: &Value) -> Value {
    match caps {
        Value::Object(obj) => Value::Object(crate::protocol::without(obj.clone(), "tasks")),
        other => other.clone(),
    }
}

/// Whether the declared `caps` (after [`declare`]) run `method` as a task when asked to.
#[cfg(feature = "receiver")]
pub fn hosts(caps: &Value, method: &str) -> bool {
    let requests = caps.get("tasks").and_then(|t| t.get("requests"));
    HOSTABLE.iter().any(|(_, category, name, m)| {
        *m == method
            && requests
                .and_then(|r| r.get(category))
                .and_then(|c| c.get(name))
                .is_some()
    })
}

/// Whether the declared `caps` offer the task operation `op` (`"list"`, `"cancel"`).
#[cfg(feature = "receiver")]
pub fn offers(caps: &Value, op: &str) -> bool {
    caps.get("tasks").and_then(|t| t.get(op)).is_some()
}

#[cfg(all(test, not(feature = "receiver")))]
mod tests_without_receiver {
    use super::*;
    use crate::json::json;

    #[test]
    fn declares_no_tasks_capability() {
        let caps = json!({ "elicitation": {}, "sampling": {} });
        assert_eq!(declare(&caps), caps);
        let own = json!({ "sampling": {}, "tasks": { "requests": { "sampling": { "createMessage": {} } } } });
        assert_eq!(declare(&own), json!({ "sampling": {} }));
        assert_eq!(declare(&json!(null)), json!(null));
    }
}

#[cfg(all(test, feature = "receiver"))]
mod tests {
    use super::*;
    use crate::json::json;

    #[test]
    fn declares_only_what_the_host_answers() {
        let both = declare(&json!({ "elicitation": {}, "sampling": {} }));
        assert_eq!(
            both["tasks"],
            json!({ "list": {}, "cancel": {}, "requests": {
                "elicitation": { "create": {} }, "sampling": { "createMessage": {} } } })
        );
        assert!(hosts(&both, "elicitation/create") && hosts(&both, "sampling/createMessage"));
        assert!(offers(&both, "list") && offers(&both, "cancel"));
        let one = declare(&json!({ "elicitation": {} }));
        assert!(hosts(&one, "elicitation/create") && !hosts(&one, "sampling/createMessage"));
        assert_eq!(declare(&json!({})), json!({}));
        assert!(!hosts(&json!({}), "elicitation/create") && !offers(&json!({}), "list"));
        assert!(!hosts(&both, "roots/list"));
    }

    #[test]
    fn a_declared_tasks_capability_is_the_hosts_word() {
        let own = json!({ "sampling": {}, "tasks": { "requests": { "sampling": { "createMessage": {} } } } });
        assert_eq!(declare(&own), own);
        assert!(hosts(&own, "sampling/createMessage") && !offers(&own, "list"));
        assert_eq!(declare(&json!(null)), json!(null));
    }
}
