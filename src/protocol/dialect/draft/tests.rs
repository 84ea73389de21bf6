use crate::json::json;

use super::super::test_support::{headers, Fixture};
use super::super::{Codec, InputRequest, Message};
use super::*;

fn fx() -> Fixture {
    Fixture::new("2025-06-18", Some("d-sess"))
}

const SESSION_HEADERS: [(&str, &str); 2] = [
    ("MCP-Protocol-Version", "2025-06-18"),
    ("Mcp-Session-Id", "d-sess"),
];

const ID: &str = "786512e2-9e0d-44bd-8f29-789f320fe840";

fn related_meta(task_id: &str) -> Value {
    json!({"modelcontextprotocol.io/related-task": {"taskId": task_id}})
}

#[test]
fn initialize_uses_the_sep_era_version_and_no_modern_extension() {
    let f = fx();
    let o = Draft.build_initialize(&f.s()).unwrap();
    assert_eq!(o.method, "initialize");
    assert_eq!(o.params["protocolVersion"], "2025-06-18");
    assert_eq!(o.params["capabilities"], json!({"elicitation": {}}));
    assert_eq!(o.params["clientInfo"]["name"], "mcp-task-client");
    assert_eq!(headers(&o), vec![]);
    let o = Draft.build_initialized(&f.s()).unwrap();
    assert_eq!(
        (o.method.as_str(), o.expects_response),
        ("notifications/initialized", false)
    );
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
    assert_eq!(Draft.dialect(), Dialect::Draft);
}

#[test]
fn augmented_request_names_the_task_in_meta() {
    let f = fx();
    let augment = TaskAugment {
        ttl_ms: Some(60_000),
        task_id: Some(ID.into()),
    };
    let params =
        json!({"name": "weather", "arguments": {"city": "NYC"}, "_meta": {"progressToken": 1}});
    let o = Draft.build_request(&f.s(), "tools/call", params, Some(&augment));
    assert_eq!(o.method, "tools/call");
    assert!(o.expects_response);
    assert_eq!(
        o.params,
        json!({
            "name": "weather", "arguments": {"city": "NYC"},
            "_meta": {"progressToken": 1, "modelcontextprotocol.io/task": {"taskId": ID, "keepAlive": 60000}}
        })
    );
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
}

#[test]
fn keep_alive_is_optional_and_no_id_means_no_augmentation() {
    let f = fx();
    let augment = TaskAugment {
        ttl_ms: None,
        task_id: Some("t".into()),
    };
    let o = Draft.build_request(&f.s(), "any/method", Value::Null, Some(&augment));
    assert_eq!(
        o.params,
        json!({"_meta": {"modelcontextprotocol.io/task": {"taskId": "t"}}})
    );
    let augment = TaskAugment {
        ttl_ms: Some(5),
        task_id: None,
    };
    let o = Draft.build_request(&f.s(), "tools/call", json!({"name": "x"}), Some(&augment));
    assert_eq!(o.params, json!({"name": "x"}));
}

#[test]
fn original_response_is_the_requests_own_result() {
    let result = json!({"content": [{"type": "text", "text": "72°F"}], "isError": false,
        "_meta": {"modelcontextprotocol.io/related-task": {"taskId": ID}}});
    assert_eq!(
        Draft.parse_call_reply(result.clone()).unwrap(),
        CallReply::Complete(result)
    );
    assert!(Draft.parse_call_reply(json!("text")).is_err());
}

#[test]
fn task_requests_carry_related_task_meta() {
    let f = fx();
    for (o, method) in [
        (Draft.build_get(&f.s(), ID), "tasks/get"),
        (Draft.build_result(&f.s(), ID).unwrap(), "tasks/result"),
        (Draft.build_delete(&f.s(), ID).unwrap(), "tasks/delete"),
    ] {
        assert_eq!(o.method, method);
        assert!(o.expects_response);
        assert_eq!(
            o.params,
            json!({"taskId": ID, "_meta": related_meta(ID)}),
            "{method}"
        );
        assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
    }
}

#[test]
fn list_request_has_an_optional_cursor_and_no_meta() {
    let f = fx();
    assert_eq!(Draft.build_list(&f.s(), None).unwrap().params, json!({}));
    let o = Draft
        .build_list(&f.s(), Some("optional-cursor-value"))
        .unwrap();
    assert_eq!(
        (o.method.as_str(), &o.params),
        ("tasks/list", &json!({"cursor": "optional-cursor-value"}))
    );
}

#[test]
fn get_maps_keep_alive_and_poll_frequency() {
    let result = json!({"taskId": ID, "keepAlive": 30000, "pollFrequency": 5000, "status": "submitted",
        "_meta": related_meta(ID)});
    let task = Draft.parse_get(result).unwrap();
    assert_eq!(task.task_id, ID);
    assert_eq!(task.status, TaskStatus::Submitted);
    // keepAlive is retention after the end, not a lifetime from creation.
    assert_eq!(
        (task.keep_alive_ms, task.ttl_ms, task.poll_interval_ms),
        (Some(30_000), None, Some(5000))
    );
    assert_eq!((task.created_at, task.outcome), (None, None));
}

#[test]
fn unknown_status_is_terminal_unknown() {
    let task = Draft
        .parse_get(json!({"taskId": "t", "status": "unknown", "keepAlive": null}))
        .unwrap();
    assert_eq!(task.status, TaskStatus::Unknown);
    assert!(task.status.is_terminal());
    assert_eq!((task.ttl_ms, task.keep_alive_ms), (None, None));
}

#[test]
fn failed_error_string_becomes_the_outcome_and_message() {
    let result = json!({"taskId": ID, "status": "failed", "keepAlive": 30000,
        "error": "Tool execution failed: API rate limit exceeded"});
    let task = Draft.parse_get(result).unwrap();
    assert_eq!(
        task.status_message.as_deref(),
        Some("Tool execution failed: API rate limit exceeded")
    );
    assert_eq!(
        task.outcome,
        Some(Outcome::Error {
            error: RpcError::new(-32603, "Tool execution failed: API rate limit exceeded")
        })
    );
}

#[test]
fn failed_error_object_is_kept_with_its_code() {
    let result = json!({"taskId": "t", "status": "failed", "statusMessage": "own",
        "error": {"code": -32000, "message": "x"}});
    let task = Draft.parse_get(result).unwrap();
    assert_eq!(task.status_message.as_deref(), Some("own"));
    assert_eq!(
        task.outcome,
        Some(Outcome::Error {
            error: RpcError::new(-32000, "x")
        })
    );
}

#[test]
fn error_on_a_non_failed_task_is_not_an_outcome() {
    let task = Draft
        .parse_get(json!({"taskId": "t", "status": "completed", "error": "odd"}))
        .unwrap();
    assert_eq!(task.outcome, None);
}

#[test]
fn malformed_gets_are_protocol_errors() {
    for bad in [
        json!({"taskId": "t", "status": "working", "keepAlive": "1m"}),
        json!({"taskId": "t", "status": "working", "pollFrequency": [1]}),
        json!({"taskId": "t", "status": "failed", "error": 5}),
        json!({"taskId": "t", "status": "queued"}),
        json!({"status": "working"}),
        json!(null),
    ] {
        assert!(Draft.parse_get(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn list_page_maps_every_task() {
    let result = json!({"tasks": [
        {"taskId": ID, "status": "working", "keepAlive": 30000, "pollFrequency": 5000},
        {"taskId": "abc123-def456-ghi789", "status": "completed", "keepAlive": 60000}
    ], "nextCursor": "next-page-cursor"});
    let (tasks, cursor) = Draft.parse_list(result).unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(
        (tasks[1].keep_alive_ms, tasks[1].ttl_ms),
        (Some(60_000), None)
    );
    assert_eq!(cursor.as_deref(), Some("next-page-cursor"));
    assert!(Draft
        .parse_list(json!({"tasks": [{"taskId": "a", "status": 1}]}))
        .is_err());
}

#[test]
fn cancel_is_a_cancelled_notification_for_the_original_request() {
    let f = fx();
    let o = Draft.build_cancel(&f.s(), ID, Some(&Id::Number(1)));
    assert_eq!(o.method, "notifications/cancelled");
    assert!(!o.expects_response);
    assert_eq!(o.params, json!({"requestId": 1, "_meta": related_meta(ID)}));
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
    let o = Draft.build_cancel(&f.s(), ID, Some(&Id::String("req-a".into())));
    assert_eq!(o.params["requestId"], "req-a");
    let o = Draft.build_cancel(&f.s(), ID, None);
    assert_eq!(o.params, json!({"_meta": related_meta(ID)}));
}

#[test]
fn input_answer_is_a_response_with_the_draft_related_task_key() {
    let f = fx();
    let request = InputRequest {
        key: "5".into(),
        method: "elicitation/create".into(),
        params: json!({}),
    };
    let m = Draft.build_input_answer(
        &f.s(),
        Some(ID),
        &request,
        Some(&Id::Number(5)),
        Ok(json!({"action": "decline"})),
    );
    assert_eq!(
        m,
        Message::Response {
            id: Id::Number(5),
            result: json!({"action": "decline", "_meta": related_meta(ID)})
        }
    );
    let err = RpcError::new(-32601, "no sampling");
    let m = Draft.build_input_answer(
        &f.s(),
        Some(ID),
        &request,
        Some(&Id::Number(5)),
        Err(err.clone()),
    );
    assert_eq!(
        m,
        Message::Error {
            id: Some(Id::Number(5)),
            error: err
        }
    );
    assert_eq!(Draft.message_headers(&f.s(), &m).len(), 2);
}

#[test]
fn created_notification_names_the_task_in_meta() {
    let params = json!({"_meta": related_meta(ID)});
    assert_eq!(
        Draft.parse_notification("notifications/tasks/created", Some(&params)),
        Some(TaskNotice::Created { task_id: ID.into() })
    );
    assert_eq!(
        Draft.parse_notification("notifications/tasks/created", Some(&json!({}))),
        None
    );
    assert_eq!(
        Draft.parse_notification("notifications/tasks/created", None),
        None
    );
    assert_eq!(
        Draft.parse_notification("notifications/tasks/status", Some(&params)),
        None
    );
}

#[test]
fn related_task_reads_the_draft_key() {
    assert_eq!(
        Draft
            .related_task(&json!({"_meta": related_meta("r")}))
            .as_deref(),
        Some("r")
    );
    let legacy_key = json!({"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "r"}}});
    assert_eq!(Draft.related_task(&legacy_key), None);
}

#[test]
fn modern_only_features_are_absent() {
    let f = fx();
    assert_eq!(Draft.build_listen(&f.s(), &[]), None);
    assert_eq!(
        Draft.retry_with_input(&f.s(), "m", json!({}), json!({}), None),
        None
    );
}

#[test]
fn the_requestor_names_tasks_and_deletes_them() {
    let f = fx();
    assert!(Draft.names_tasks());
    let o = Draft.build_delete(&f.s(), ID).unwrap();
    assert_eq!(o.method, "tasks/delete");
    assert_eq!(o.params["taskId"], ID);
    assert_eq!(o.params["_meta"], related_meta(ID));
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
}

#[test]
fn detection_reads_the_tasks_capability_the_draft_way() {
    // The draft fixture's declaration: boolean members, `delete`.
    let fixture = json!({"tools": {}, "tasks": {"requests": {"tools": {"call": true}}, "list": true, "delete": true}});
    assert_eq!(detect("2025-06-18", &fixture), Detection::Draft);
    // Booleans alone, or `delete` alone, even in a later version.
    let booleans = json!({"tasks": {"requests": {"tools": {"call": true}}}});
    assert_eq!(detect("2025-11-25", &booleans), Detection::Draft);
    assert_eq!(
        detect("2025-11-25", &json!({"tasks": {"delete": {}}})),
        Detection::Draft
    );
    // Any tasks capability before core tasks existed.
    assert_eq!(
        detect("2025-03-26", &json!({"tasks": {}})),
        Detection::Draft
    );
    // 2025-11-25 core tasks: objects, no delete.
    let core = json!({"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}});
    assert_eq!(detect("2025-11-25", &core), Detection::Other);
    assert_eq!(
        detect("2025-11-25", &json!({"tools": {}})),
        Detection::Other
    );
    // No sign either way: an older server without tasks, or a draft one that declares nothing.
    assert_eq!(
        detect("2025-06-18", &json!({"tools": {}})),
        Detection::Silent
    );
    assert_eq!(
        detect("2025-06-18", &json!({"tasks": null})),
        Detection::Silent
    );
    assert_eq!(detect("", &json!({"tools": {}})), Detection::Other);
    assert_eq!(detect("2025-06-18", &Value::Null), Detection::Silent);
}
