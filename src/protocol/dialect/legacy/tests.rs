use crate::json::json;

use super::super::test_support::{headers, Fixture};
use super::super::{Codec, InputRequest, Message, RpcError};
use super::*;
use crate::protocol::model::{Outcome, TaskStatus};

fn fx() -> Fixture {
    Fixture::new("2025-11-25", Some("sess-1"))
}

const SESSION_HEADERS: [(&str, &str); 2] = [
    ("MCP-Protocol-Version", "2025-11-25"),
    ("Mcp-Session-Id", "sess-1"),
];

#[test]
fn initialize_asks_for_2025_11_25_without_the_modern_extension() {
    let f = fx();
    let o = Legacy.build_initialize(&f.s()).unwrap();
    assert_eq!(o.method, "initialize");
    assert!(o.expects_response);
    assert_eq!(o.params["protocolVersion"], "2025-11-25");
    // Elicitation can be hosted as a task (sampling is not declared); a build without the
    // receiver declares no tasks.
    let tasks = json!({"list": {}, "cancel": {}, "requests": {"elicitation": {"create": {}}}});
    let caps = if cfg!(feature = "receiver") {
        json!({"elicitation": {}, "tasks": tasks})
    } else {
        json!({"elicitation": {}})
    };
    assert_eq!(o.params["capabilities"], caps);
    assert_eq!(
        o.params["clientInfo"],
        json!({"name": "mcp-task-client", "version": "0.1.0"})
    );
    // A new session: the old session id and version are not sent.
    assert_eq!(headers(&o), vec![]);
}

#[test]
fn initialize_keeps_other_extensions() {
    let mut f = fx();
    f.caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}, "com.example/x": {}}});
    let o = Legacy.build_initialize(&f.s()).unwrap();
    assert_eq!(
        o.params["capabilities"],
        json!({"extensions": {"com.example/x": {}}})
    );
}

#[test]
fn initialized_notification_carries_the_session() {
    let f = fx();
    let o = Legacy.build_initialized(&f.s()).unwrap();
    assert_eq!(o.method, "notifications/initialized");
    assert!(!o.expects_response);
    assert_eq!(o.params, json!({}));
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
}

#[test]
fn augmented_tool_call_sets_params_task_ttl() {
    let f = fx();
    let augment = TaskAugment {
        ttl_ms: Some(60_000),
        task_id: None,
    };
    let params = json!({"name": "long_job", "arguments": {"n": 5}});
    let o = Legacy.build_request(&f.s(), "tools/call", params, Some(&augment));
    assert_eq!(o.method, "tools/call");
    assert!(o.expects_response);
    assert_eq!(
        o.params,
        json!({"name": "long_job", "arguments": {"n": 5}, "task": {"ttl": 60000}})
    );
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
}

#[test]
fn augment_without_ttl_sends_an_empty_task_object() {
    let f = fx();
    let augment = TaskAugment {
        ttl_ms: None,
        task_id: Some("ignored".into()),
    };
    let o = Legacy.build_request(&f.s(), "tools/call", json!({"name": "t"}), Some(&augment));
    assert_eq!(o.params, json!({"name": "t", "task": {}}));
}

#[test]
fn plain_request_is_untouched_and_null_params_become_an_object() {
    let f = fx();
    let o = Legacy.build_request(&f.s(), "tools/list", Value::Null, None);
    assert_eq!(o.params, json!({}));
    let o = Legacy.build_request(
        &f.s(),
        "tools/call",
        json!({"name": "t", "_meta": {"progressToken": 3}}),
        None,
    );
    assert_eq!(
        o.params,
        json!({"name": "t", "_meta": {"progressToken": 3}})
    );
}

#[test]
fn headers_wait_for_the_session_id() {
    let f = Fixture::new("2025-11-25", None);
    let o = Legacy.build_request(&f.s(), "tools/list", json!({}), None);
    assert_eq!(headers(&o), vec![("MCP-Protocol-Version", "2025-11-25")]);
}

#[test]
fn nested_create_task_result_maps_to_a_task() {
    let result = json!({
        "task": {
            "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
            "status": "working",
            "statusMessage": "queued",
            "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00+00:00",
            "ttl": 60000,
            "pollInterval": 5000
        },
        "_meta": {"io.modelcontextprotocol/model-immediate-response": "started"}
    });
    let CallReply::Task(task) = Legacy.parse_call_reply(result).unwrap() else {
        panic!("not a task")
    };
    assert_eq!(task.task_id, "786512e2-9e0d-44bd-8f29-789f320fe840");
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.status_message.as_deref(), Some("queued"));
    assert_eq!(task.created_at.as_deref(), Some("2025-11-25T10:30:00Z"));
    assert_eq!(
        task.last_updated_at.as_deref(),
        Some("2025-11-25T10:30:00+00:00")
    );
    assert_eq!(task.ttl_ms, Some(60_000));
    assert_eq!(task.poll_interval_ms, Some(5_000));
    assert_eq!(task.outcome, None);
    assert!(task.input_requests.is_empty());
}

#[test]
fn create_result_may_already_need_input_and_have_null_ttl() {
    let result = json!({"task": {
        "taskId": "3", "status": "input_required",
        "createdAt": "2026-11-30T08:00:00.123456789Z", "lastUpdatedAt": "2026-11-30T08:00:00.5Z",
        "ttl": null, "pollInterval": 1000.0
    }});
    let CallReply::Task(task) = Legacy.parse_call_reply(result).unwrap() else {
        panic!()
    };
    assert_eq!(task.task_id, "3");
    assert_eq!(task.status, TaskStatus::InputRequired);
    assert_eq!(
        task.created_at.as_deref(),
        Some("2026-11-30T08:00:00.123456789Z")
    );
    assert_eq!(task.ttl_ms, None);
    assert_eq!(task.poll_interval_ms, Some(1000));
}

#[test]
fn plain_tool_result_is_complete() {
    let result = json!({"content": [{"type": "text", "text": "hi"}], "isError": false});
    assert_eq!(
        Legacy.parse_call_reply(result.clone()).unwrap(),
        CallReply::Complete(result)
    );
    // A `task` member that is not an object is not a CreateTaskResult.
    let odd = json!({"content": [], "task": "just a field"});
    assert_eq!(
        Legacy.parse_call_reply(odd.clone()).unwrap(),
        CallReply::Complete(odd)
    );
}

#[test]
fn hybrid_flat_task_is_accepted() {
    let result = json!({"resultType": "task", "taskId": "t", "status": "working", "ttlMs": 5, "pollIntervalMs": 7});
    let CallReply::Task(task) = Legacy.parse_call_reply(result).unwrap() else {
        panic!()
    };
    assert_eq!((task.ttl_ms, task.poll_interval_ms), (Some(5), Some(7)));
}

#[test]
fn malformed_create_results_are_protocol_errors() {
    for bad in [
        json!([1, 2]),
        json!("x"),
        json!({"task": {"status": "working"}}),
        json!({"task": {"taskId": "t"}}),
        json!({"task": {"taskId": "t", "status": 3}}),
        json!({"task": {"taskId": "t", "status": "sleeping"}}),
        json!({"task": {"taskId": true, "status": "working"}}),
        json!({"task": {"taskId": "t", "status": "working", "ttl": "60s"}}),
        json!({"task": {"taskId": "t", "status": "working", "ttl": -1}}),
        json!({"task": {"taskId": "t", "status": "working", "statusMessage": 5}}),
        json!({"task": {"taskId": "t", "status": "working", "createdAt": {}}}),
    ] {
        assert!(Legacy.parse_call_reply(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn task_requests_carry_task_id_and_session_headers_but_no_related_task() {
    let f = fx();
    for (o, method) in [
        (Legacy.build_get(&f.s(), "abc:123"), "tasks/get"),
        (
            Legacy.build_result(&f.s(), "abc:123").unwrap(),
            "tasks/result",
        ),
        (
            Legacy.build_cancel(&f.s(), "abc:123", Some(&Id::Number(9))),
            "tasks/cancel",
        ),
    ] {
        assert_eq!(o.method, method);
        assert!(o.expects_response);
        assert_eq!(o.params, json!({"taskId": "abc:123"}), "{method}");
        assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
    }
}

#[test]
fn list_request_has_an_optional_cursor() {
    let f = fx();
    let o = Legacy.build_list(&f.s(), None).unwrap();
    assert_eq!((o.method.as_str(), &o.params), ("tasks/list", &json!({})));
    let o = Legacy.build_list(&f.s(), Some("page-2")).unwrap();
    assert_eq!(o.params, json!({"cursor": "page-2"}));
    assert_eq!(headers(&o), SESSION_HEADERS.to_vec());
}

#[test]
fn get_result_is_the_flat_task_with_extra_fields_ignored() {
    let result = json!({
        "taskId": "t-1", "status": "completed", "createdAt": "a", "lastUpdatedAt": "b",
        "ttl": 300000, "somethingNew": [1, 2], "_meta": {}
    });
    let task = Legacy.parse_get(result).unwrap();
    assert_eq!(task.task_id, "t-1");
    assert_eq!(task.status, TaskStatus::Completed);
    assert_eq!(task.poll_interval_ms, None);
    assert_eq!(task.outcome, None);
}

#[test]
fn get_tolerates_a_nested_task_and_missing_optional_fields() {
    let task = Legacy
        .parse_get(json!({"task": {"taskId": "n", "status": "failed"}}))
        .unwrap();
    assert_eq!(
        (task.task_id.as_str(), task.status),
        ("n", TaskStatus::Failed)
    );
    assert_eq!(task.created_at, None);
    assert_eq!(task.ttl_ms, None);
}

#[test]
fn cancel_result_parses_as_a_task() {
    let task = Legacy
        .parse_get(
            json!({"taskId": "c", "status": "cancelled", "statusMessage": "by user", "ttl": 1e3}),
        )
        .unwrap();
    assert_eq!(task.status, TaskStatus::Cancelled);
    assert_eq!(task.ttl_ms, Some(1000));
}

#[test]
fn list_page_maps_every_task() {
    let result = json!({
        "tasks": [
            {"taskId": "a", "status": "working", "ttl": null},
            {"taskId": "b", "status": "completed", "ttl": 10, "pollInterval": 2.6}
        ],
        "nextCursor": "next"
    });
    let (tasks, cursor) = Legacy.parse_list(result).unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[1].poll_interval_ms, Some(3));
    assert_eq!(cursor.as_deref(), Some("next"));
    let (tasks, cursor) = Legacy.parse_list(json!({"tasks": []})).unwrap();
    assert!(tasks.is_empty() && cursor.is_none());
}

#[test]
fn malformed_list_pages_are_protocol_errors() {
    for bad in [
        json!({}),
        json!({"tasks": {}}),
        json!({"tasks": [{"taskId": "a"}]}),
        json!({"tasks": [], "nextCursor": 3}),
        json!(null),
    ] {
        assert!(Legacy.parse_list(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn input_answer_is_a_response_with_related_task_meta() {
    let f = fx();
    let request = InputRequest {
        key: "17".into(),
        method: "elicitation/create".into(),
        params: json!({"message": "name?"}),
    };
    let answer = Ok(json!({"action": "accept", "content": {"name": "Ada"}, "_meta": {"k": 1}}));
    let m = Legacy.build_input_answer(&f.s(), Some("t-9"), &request, Some(&Id::Number(17)), answer);
    assert_eq!(
        m,
        Message::Response {
            id: Id::Number(17),
            result: json!({
                "action": "accept", "content": {"name": "Ada"},
                "_meta": {"k": 1, "io.modelcontextprotocol/related-task": {"taskId": "t-9"}}
            })
        }
    );
}

#[test]
fn input_refusal_is_a_json_rpc_error() {
    let f = fx();
    let request = InputRequest {
        key: "s-1".into(),
        method: "sampling/createMessage".into(),
        params: json!({}),
    };
    let error = RpcError::new(-32600, "declined");
    let m = Legacy.build_input_answer(&f.s(), Some("t"), &request, None, Err(error.clone()));
    assert_eq!(
        m,
        Message::Error {
            id: Some(Id::String("s-1".into())),
            error
        }
    );
}

#[test]
fn input_answer_without_server_id_recovers_it_from_the_key() {
    let f = fx();
    let answer = |key: &str| {
        let request = InputRequest {
            key: key.into(),
            method: "roots/list".into(),
            params: json!({}),
        };
        match Legacy.build_input_answer(&f.s(), None, &request, None, Ok(json!({"roots": []}))) {
            Message::Response { id, result } => (id, result),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(answer("7"), (Id::Number(7), json!({"roots": []})));
    assert_eq!(answer("007").0, Id::String("007".into()));
    assert_eq!(answer("abc").0, Id::String("abc".into()));
}

#[test]
fn input_answer_headers_are_the_session_headers() {
    let f = fx();
    let m = Message::Response {
        id: Id::Number(1),
        result: json!({}),
    };
    let mut h = Legacy.message_headers(&f.s(), &m);
    h.sort();
    assert_eq!(
        h,
        vec![
            ("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()),
            ("Mcp-Session-Id".to_owned(), "sess-1".to_owned()),
        ]
    );
}

#[test]
fn status_notification_carries_the_whole_task() {
    let params = json!({"taskId": "t", "status": "completed", "createdAt": "c", "lastUpdatedAt": "u", "ttl": 5});
    let Some(TaskNotice::Status(task)) =
        Legacy.parse_notification(STATUS_NOTIFICATION, Some(&params))
    else {
        panic!()
    };
    assert_eq!(
        (task.task_id.as_str(), task.status, task.ttl_ms),
        ("t", TaskStatus::Completed, Some(5))
    );
    assert_eq!(Legacy.parse_notification(STATUS_NOTIFICATION, None), None);
    assert_eq!(
        Legacy.parse_notification(STATUS_NOTIFICATION, Some(&json!({"taskId": 1.5}))),
        None
    );
    assert_eq!(
        Legacy.parse_notification("notifications/message", Some(&params)),
        None
    );
    assert_eq!(
        Legacy.parse_notification("notifications/tasks/created", Some(&params)),
        None
    );
}

#[test]
fn related_task_reads_the_io_key() {
    let params = json!({"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-5"}}});
    assert_eq!(Legacy.related_task(&params).as_deref(), Some("t-5"));
    for none in [
        json!({}),
        json!({"_meta": {"modelcontextprotocol.io/related-task": {"taskId": "draft"}}}),
        json!({"_meta": {"io.modelcontextprotocol/related-task": {"taskId": 5}}}),
        json!({"_meta": "x"}),
        json!([1]),
    ] {
        assert_eq!(Legacy.related_task(&none), None, "{none}");
    }
}

#[test]
fn modern_only_features_are_absent() {
    let f = fx();
    assert_eq!(Legacy.dialect(), Dialect::Legacy);
    assert_eq!(Legacy.build_listen(&f.s(), &["t".into()]), None);
    assert_eq!(
        Legacy.retry_with_input(&f.s(), "tools/call", json!({}), json!({}), None),
        None
    );
    assert_eq!(Legacy.build_delete(&f.s(), "t"), None);
}

#[test]
fn completed_outcome_is_not_inline() {
    let task = Legacy
        .parse_get(json!({"taskId": "t", "status": "completed", "result": {"x": 1}}))
        .unwrap();
    assert_eq!(task.outcome, None::<Outcome>);
}
