use crate::json::json;

use super::super::test_support::{headers, Fixture};
use super::*;
use crate::protocol::jsonrpc::RpcError;

fn fx() -> Fixture {
    let mut f = Fixture::new("2026-07-28", None);
    f.caps = json!({"elicitation": {}, "sampling": {}});
    f
}

fn expected_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {}, "sampling": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-task-client", "version": "0.1.0"}
    })
}

#[test]
fn no_handshake() {
    assert_eq!(Modern.build_initialize(&fx().s()), None);
    assert_eq!(Modern.build_initialized(&fx().s()), None);
    assert_eq!(Modern.dialect(), Dialect::Modern);
}

#[test]
fn tool_call_carries_meta_and_routing_headers() {
    let f = fx();
    let params = json!({"name": "long_job", "arguments": {"n": 5}});
    let augment = TaskAugment {
        ttl_ms: Some(1000),
        task_id: Some("x".into()),
    };
    let o = Modern.build_request(&f.s(), "tools/call", params, Some(&augment));
    assert_eq!(o.method, "tools/call");
    assert!(o.expects_response);
    assert_eq!(
        o.params,
        json!({"name": "long_job", "arguments": {"n": 5}, "_meta": expected_meta()}),
        "no `task` param: the server decides"
    );
    assert_eq!(
        headers(&o),
        vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "long_job"),
        ]
    );
}

#[test]
fn caller_meta_and_extensions_are_kept() {
    let mut f = fx();
    f.caps = json!({"extensions": {"com.example/ui": {"v": 1}}});
    let params = json!({"name": "t", "_meta": {"progressToken": "p1"}});
    let o = Modern.build_request(&f.s(), "tools/call", params, None);
    let meta = &o.params["_meta"];
    assert_eq!(meta["progressToken"], "p1");
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        json!({"extensions": {"com.example/ui": {"v": 1}, "io.modelcontextprotocol/tasks": {}}})
    );
}

#[test]
fn extension_is_declared_even_without_capabilities() {
    let mut f = fx();
    f.caps = Value::Null;
    let o = Modern.build_request(&f.s(), "tools/list", Value::Null, None);
    assert_eq!(
        o.params["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
}

#[test]
fn mcp_name_follows_the_method() {
    let f = fx();
    let name = |method: &str, params: Value| {
        let o = Modern.build_request(&f.s(), method, params, None);
        o.headers
            .iter()
            .find(|(k, _)| k == "Mcp-Name")
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        name("resources/read", json!({"uri": "file:///a.txt"})).as_deref(),
        Some("file:///a.txt")
    );
    assert_eq!(
        name("prompts/get", json!({"name": "greet"})).as_deref(),
        Some("greet")
    );
    assert_eq!(
        name("tools/call", json!({"name": "天気"})).as_deref(),
        Some("=?base64?5aSp5rCX?=")
    );
    assert_eq!(name("tools/list", json!({})), None);
    assert_eq!(name("tools/call", json!({"name": 5})), None);
}

#[test]
fn empty_session_version_falls_back_to_2026_07_28() {
    let f = Fixture::new("", None);
    let o = Modern.build_request(&f.s(), "server/discover", json!({}), None);
    assert_eq!(
        o.params["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(headers(&o)[0], ("MCP-Protocol-Version", "2026-07-28"));
}

#[test]
fn task_result_is_flat_with_renamed_fields() {
    let result = json!({
        "resultType": "task", "taskId": "786512e2", "status": "working",
        "createdAt": "2026-11-30T10:30:00.123456789Z", "lastUpdatedAt": "2026-11-30T10:30:00.123456789Z",
        "ttlMs": 300000, "pollIntervalMs": 5000
    });
    let CallReply::Task(task) = Modern.parse_call_reply(result).unwrap() else {
        panic!()
    };
    assert_eq!(task.task_id, "786512e2");
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(
        task.created_at.as_deref(),
        Some("2026-11-30T10:30:00.123456789Z")
    );
    assert_eq!(
        (task.ttl_ms, task.poll_interval_ms),
        (Some(300_000), Some(5000))
    );
    assert_eq!(task.outcome, None);
}

#[test]
fn terminal_task_result_without_outcome_and_null_ttl() {
    let result = json!({"resultType": "task", "taskId": "t", "status": "completed", "ttlMs": null});
    let CallReply::Task(task) = Modern.parse_call_reply(result).unwrap() else {
        panic!()
    };
    assert_eq!(
        (task.status, task.ttl_ms, task.outcome),
        (TaskStatus::Completed, None, None)
    );
}

#[test]
fn complete_results_pass_through() {
    for result in [
        json!({"resultType": "complete", "content": [], "isError": true}),
        json!({"content": [{"type": "text", "text": "2025-era server"}]}),
        json!({"resultType": null, "content": []}),
    ] {
        assert_eq!(
            Modern.parse_call_reply(result.clone()).unwrap(),
            CallReply::Complete(result)
        );
    }
}

#[test]
fn input_required_result_lists_requests_and_state() {
    let result = json!({
        "resultType": "input_required",
        "inputRequests": {
            "ask-name": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {}}},
            "roots": {"method": "roots/list"}
        },
        "requestState": "opaque-blob"
    });
    let CallReply::InputRequired {
        requests,
        request_state,
    } = Modern.parse_call_reply(result).unwrap()
    else {
        panic!()
    };
    assert_eq!(
        requests,
        vec![
            InputRequest {
                key: "ask-name".into(),
                method: "elicitation/create".into(),
                params: json!({"message": "Name?", "requestedSchema": {}})
            },
            InputRequest {
                key: "roots".into(),
                method: "roots/list".into(),
                params: Value::Null
            },
        ]
    );
    assert_eq!(request_state, Some(json!("opaque-blob")));
    let state_only = json!({"resultType": "input_required", "requestState": "s"});
    assert_eq!(
        Modern.parse_call_reply(state_only).unwrap(),
        CallReply::InputRequired {
            requests: vec![],
            request_state: Some(json!("s"))
        }
    );
}

#[test]
fn malformed_call_replies_are_protocol_errors() {
    for bad in [
        json!(null),
        json!([]),
        json!({"resultType": "later"}),
        json!({"resultType": 1}),
        json!({"resultType": "task", "status": "working"}),
        json!({"resultType": "task", "taskId": "t", "status": "paused"}),
        json!({"resultType": "task", "taskId": "t", "status": "working", "ttlMs": "1"}),
        json!({"resultType": "input_required", "inputRequests": []}),
        json!({"resultType": "input_required", "inputRequests": {"k": {"params": {}}}}),
        json!({"resultType": "input_required", "inputRequests": {"k": 1}}),
    ] {
        assert!(Modern.parse_call_reply(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn retry_with_input_adds_responses_and_state() {
    let f = fx();
    let params = json!({"name": "t", "arguments": {}, "requestState": "stale"});
    let o = Modern
        .retry_with_input(
            &f.s(),
            "tools/call",
            params.clone(),
            json!({"ask": {"action": "accept"}}),
            Some(json!("s2")),
        )
        .unwrap();
    assert_eq!(
        o.params["inputResponses"],
        json!({"ask": {"action": "accept"}})
    );
    assert_eq!(o.params["requestState"], "s2");
    assert_eq!(o.params["name"], "t");
    assert_eq!(o.params["_meta"], expected_meta());
    assert!(headers(&o).contains(&("Mcp-Name", "t")));
    let o = Modern
        .retry_with_input(&f.s(), "tools/call", params, json!({}), None)
        .unwrap();
    assert_eq!(o.params.get("requestState"), None);
}

#[test]
fn task_methods_route_by_task_id() {
    let f = fx();
    for (o, method) in [
        (Modern.build_get(&f.s(), "scope:uuid-1"), "tasks/get"),
        (
            Modern.build_cancel(&f.s(), "scope:uuid-1", None),
            "tasks/cancel",
        ),
        (
            modern_request(
                &f.s(),
                "tasks/update",
                update_params("scope:uuid-1", json!({"k": {}})),
            ),
            "tasks/update",
        ),
    ] {
        assert_eq!(o.method, method);
        assert!(o.expects_response);
        assert_eq!(o.params["taskId"], "scope:uuid-1");
        assert_eq!(o.params["_meta"], expected_meta());
        assert_eq!(
            headers(&o),
            vec![
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", method),
                ("Mcp-Name", "scope:uuid-1")
            ]
        );
    }
    let update = modern_request(
        &f.s(),
        "tasks/update",
        update_params("t", json!({"k": {"roots": []}})),
    );
    assert_eq!(update.params["inputResponses"], json!({"k": {"roots": []}}));
}

#[test]
fn task_ids_that_are_not_header_safe_are_encoded() {
    let o = Modern.build_get(&fx().s(), " spaced ");
    assert_eq!(o.params["taskId"], " spaced ");
    assert!(headers(&o).contains(&("Mcp-Name", "=?base64?IHNwYWNlZCA=?=")));
}

#[test]
fn no_result_or_list_methods() {
    let f = fx();
    assert_eq!(Modern.build_result(&f.s(), "t"), None);
    assert_eq!(Modern.build_list(&f.s(), None), None);
    assert_eq!(Modern.build_delete(&f.s(), "t"), None);
}

#[test]
fn get_working_task() {
    let result = json!({"resultType": "complete", "taskId": "t", "status": "working",
        "statusMessage": "50%", "createdAt": "c", "lastUpdatedAt": "u", "ttlMs": 60000, "pollIntervalMs": 2500.4});
    let task = Modern.parse_get(result).unwrap();
    assert_eq!(task.status_message.as_deref(), Some("50%"));
    assert_eq!(task.poll_interval_ms, Some(2500));
    assert_eq!(task.outcome, None);
}

#[test]
fn get_completed_task_has_the_result_inline_even_with_is_error() {
    let result = json!({"resultType": "complete", "taskId": "t", "status": "completed",
        "ttlMs": 1, "result": {"content": [], "isError": true}});
    let task = Modern.parse_get(result).unwrap();
    assert_eq!(
        task.outcome,
        Some(Outcome::Result {
            result: json!({"content": [], "isError": true})
        })
    );
}

#[test]
fn get_failed_task_has_the_error_inline() {
    let result = json!({"taskId": "t", "status": "failed", "ttlMs": 1,
        "error": {"code": -32603.0, "message": "boom", "data": {"why": "x"}}});
    let task = Modern.parse_get(result).unwrap();
    let mut error = RpcError::new(-32603, "boom");
    error.data = Some(json!({"why": "x"}));
    assert_eq!(task.outcome, Some(Outcome::Error { error }));
}

#[test]
fn get_failed_task_with_a_result_keeps_it() {
    let result = json!({"taskId": "t", "status": "failed", "result": {"isError": true}});
    let task = Modern.parse_get(result).unwrap();
    assert_eq!(
        task.outcome,
        Some(Outcome::Result {
            result: json!({"isError": true})
        })
    );
}

/// With both `result` and `error`, `completed` takes the result (the error is not even read) and
/// the other ends take the error; a working task takes neither.
#[test]
fn the_status_decides_between_result_and_error() {
    let bad_error = json!({"message": "no code"});
    for (status, outcome) in [
        ("completed", Ok(Some("result"))),
        ("failed", Err(())),
        ("cancelled", Err(())),
        ("unknown", Err(())),
        ("working", Ok(None)),
    ] {
        let task = json!({"taskId": "t", "status": status, "result": {}, "error": bad_error});
        let got = Modern.parse_get(task).map(|t| match t.outcome {
            Some(Outcome::Result { .. }) => Some("result"),
            Some(Outcome::Error { .. }) => Some("error"),
            None => None,
        });
        assert_eq!(got.map_err(|_| ()), outcome, "{status}");
    }
    let error = json!({"code": 1, "message": "m"});
    for (status, kind) in [
        ("completed", "result"),
        ("failed", "error"),
        ("unknown", "error"),
    ] {
        let task = json!({"taskId": "t", "status": status, "result": {}, "error": error});
        let outcome = Modern.parse_get(task).unwrap().outcome;
        assert_eq!(
            matches!(outcome, Some(Outcome::Error { .. })),
            kind == "error",
            "{status}"
        );
    }
}

#[test]
fn get_input_required_task_lists_every_outstanding_request() {
    let result = json!({"taskId": "t", "status": "input_required", "ttlMs": null,
    "inputRequests": {
        "e1": {"method": "elicitation/create", "params": {"message": "ok?"}},
        "s1": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}},
        "r1": {"method": "roots/list", "params": {}}
    }});
    let task = Modern.parse_get(result).unwrap();
    let keys: Vec<_> = task
        .input_requests
        .iter()
        .map(|r| (r.key.as_str(), r.method.as_str()))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("e1", "elicitation/create"),
            ("s1", "sampling/createMessage"),
            ("r1", "roots/list")
        ],
        "in the server's order"
    );
    assert_eq!(task.input_requests[1].params["maxTokens"], 5);
}

#[test]
fn status_not_result_type_decides_what_is_read() {
    let stale = json!({"taskId": "t", "status": "working", "resultType": "task",
        "inputRequests": {"e1": {"method": "elicitation/create"}}, "result": {"x": 1}});
    let task = Modern.parse_get(stale).unwrap();
    assert!(task.input_requests.is_empty());
    assert_eq!(task.outcome, None);
}

#[test]
fn malformed_gets_are_protocol_errors() {
    for bad in [
        json!({"taskId": "t", "status": "failed", "error": "boom"}),
        json!({"taskId": "t", "status": "failed", "error": {"message": "no code"}}),
        json!({"taskId": "t", "status": "input_required", "inputRequests": "x"}),
        json!({"taskId": "t", "status": "working", "pollIntervalMs": true}),
        json!({"taskId": {}, "status": "working"}),
        json!(3),
    ] {
        assert!(Modern.parse_get(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn input_answer_is_a_tasks_update_request() {
    let f = fx();
    let request = InputRequest {
        key: "e1".into(),
        method: "elicitation/create".into(),
        params: json!({}),
    };
    let answer = Ok(json!({"action": "accept", "content": {"ok": true}}));
    let m = Modern.build_input_answer(&f.s(), Some("t-1"), &request, Some(&Id::Number(4)), answer);
    let Message::Request { id, method, params } = &m else {
        panic!("{m:?}")
    };
    assert_eq!(id, &Id::String("tasks/update:t-1:e1".into()));
    assert_eq!(method, "tasks/update");
    let params = params.as_ref().unwrap();
    assert_eq!(params["taskId"], "t-1");
    assert_eq!(
        params["inputResponses"],
        json!({"e1": {"action": "accept", "content": {"ok": true}}})
    );
    assert_eq!(params["_meta"], expected_meta());
    let mut h = Modern.message_headers(&f.s(), &m);
    h.sort();
    assert_eq!(
        h,
        vec![
            ("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()),
            ("Mcp-Method".to_owned(), "tasks/update".to_owned()),
            ("Mcp-Name".to_owned(), "t-1".to_owned()),
        ]
    );
}

#[test]
fn input_refusals_map_to_the_wire() {
    let f = fx();
    let refuse = |method: &str| {
        let request = InputRequest {
            key: "k".into(),
            method: method.into(),
            params: json!({}),
        };
        let m = Modern.build_input_answer(
            &f.s(),
            Some("t"),
            &request,
            None,
            Err(RpcError::new(-1, "no")),
        );
        match m {
            Message::Request {
                params: Some(p), ..
            } => p["inputResponses"]["k"].clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(refuse("elicitation/create"), json!({"action": "cancel"}));
    assert_eq!(
        refuse("sampling/createMessage"),
        json!({"code": -1, "message": "no"})
    );
}

#[test]
fn message_headers_for_responses_and_notifications() {
    let f = fx();
    let response = Message::Response {
        id: Id::Number(1),
        result: json!({}),
    };
    assert_eq!(
        Modern.message_headers(&f.s(), &response),
        vec![("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned())]
    );
    let note = Message::Notification {
        method: "notifications/cancelled".into(),
        params: None,
    };
    assert_eq!(Modern.message_headers(&f.s(), &note).len(), 2);
}

#[test]
fn both_status_notification_names_are_accepted() {
    let params = json!({"taskId": "t", "status": "completed", "ttlMs": 60000,
        "result": {"content": [{"type": "text", "text": "done"}], "isError": false},
        "_meta": {"io.modelcontextprotocol/subscriptionId": 12}});
    for method in ["notifications/tasks", "notifications/tasks/status"] {
        let Some(TaskNotice::Status(task)) = Modern.parse_notification(method, Some(&params))
        else {
            panic!("{method}")
        };
        assert_eq!(task.status, TaskStatus::Completed);
        assert!(matches!(task.outcome, Some(Outcome::Result { .. })));
    }
    let ack = json!({"notifications": {"taskIds": ["a", 7, "b"]},
        "_meta": {"io.modelcontextprotocol/subscriptionId": 12}});
    assert_eq!(
        Modern.parse_notification("notifications/subscriptions/acknowledged", Some(&ack)),
        Some(TaskNotice::Listening {
            subscription: Some(crate::protocol::jsonrpc::Id::Number(12)),
            task_ids: vec!["a".into(), "b".into()],
        })
    );
    assert_eq!(
        Modern.parse_notification("notifications/subscriptions/acknowledged", Some(&params)),
        Some(TaskNotice::Listening {
            subscription: Some(crate::protocol::jsonrpc::Id::Number(12)),
            task_ids: Vec::new(),
        })
    );
    assert_eq!(
        Modern.parse_notification("notifications/tasks", Some(&json!({"status": "x"}))),
        None
    );
    assert_eq!(Modern.parse_notification("notifications/tasks", None), None);
}

#[test]
fn listen_subscribes_to_task_ids() {
    let f = fx();
    let o = Modern
        .build_listen(&f.s(), &["a".into(), "b".into()])
        .unwrap();
    assert_eq!(o.method, "subscriptions/listen");
    assert!(o.expects_response);
    assert_eq!(o.params["notifications"], json!({"taskIds": ["a", "b"]}));
    assert_eq!(o.params["_meta"], expected_meta());
    assert_eq!(
        headers(&o),
        vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "subscriptions/listen")
        ]
    );
}

#[test]
fn related_task_is_read_from_hybrid_servers_only() {
    let params = json!({"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "h"}}});
    assert_eq!(Modern.related_task(&params).as_deref(), Some("h"));
    assert_eq!(Modern.related_task(&json!({"taskId": "t"})), None);
}

#[test]
fn list_page_in_the_common_shape_is_read() {
    let (tasks, cursor) = Modern
        .parse_list(json!({"tasks": [{"taskId": "a", "status": "working"}]}))
        .unwrap();
    assert_eq!((tasks.len(), cursor), (1, None));
}
