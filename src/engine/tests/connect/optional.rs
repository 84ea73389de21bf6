//! A build without the optional parts (`--no-default-features`, the core build): without
//! `receiver` the client declares no task capability and treats a task-augmented request as a
//! plain one (`tasks/*` are unknown methods); without `draft` a forced draft is refused at connect
//! and `Auto` never picks the draft.

#[cfg(not(feature = "receiver"))]
mod without_receiver {
    use crate::json::{json, Value};

    use crate::engine::api::{Config, DialectChoice, Event, Millis};
    use crate::engine::Engine;
    use crate::protocol::dialect::legacy::RELATED_TASK;
    use crate::testkit::script::{accept_initialize, drain, feed};
    use crate::testkit::T0;

    /// The answer (result or error) to the server's request `id` among `sent`.
    fn answer_to(sent: &[Value], id: i64) -> Option<&Value> {
        sent.iter()
            .find(|m| m["id"] == id && m.get("method").is_none())
    }

    /// A forced-legacy engine declaring `caps`, its session open: the `initialize` it sent.
    fn legacy(caps: Value) -> (Engine, Value) {
        let cfg = Config {
            dialect: DialectChoice::Legacy,
            client_capabilities: caps,
            ..Config::default()
        };
        let mut e = Engine::new(cfg, 1, T0);
        let (sent, _) = drain(&mut e, T0);
        let init = sent[0].1.clone();
        accept_initialize(&mut e, T0, &sent, "s1", json!({ "tasks": {} }));
        drain(&mut e, T0);
        (e, init)
    }

    /// The server sends request `id` at `now`: the bodies sent and the events raised at once.
    fn ask(
        e: &mut Engine,
        now: Millis,
        id: i64,
        method: &str,
        params: Value,
    ) -> (Vec<Value>, Vec<Event>) {
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        feed(e, now, None, body);
        let (sent, events) = drain(e, now);
        (sent.into_iter().map(|(_, v)| v).collect(), events)
    }

    #[test]
    fn initialize_declares_no_task_capability() {
        for caps in [
            json!({ "elicitation": {}, "sampling": {} }),
            // One the host declared itself is dropped too: this build cannot run it.
            json!({ "elicitation": {}, "sampling": {}, "tasks": { "list": {},
                "requests": { "elicitation": { "create": {} } } } }),
        ] {
            let (_, init) = legacy(caps);
            assert_eq!(init["method"], "initialize");
            assert_eq!(
                init["params"]["capabilities"],
                json!({ "elicitation": {}, "sampling": {} })
            );
        }
    }

    #[test]
    fn a_task_augmented_request_is_processed_as_a_plain_one() {
        let (mut e, _) = legacy(json!({ "elicitation": {}, "sampling": {} }));
        let params = json!({ "message": "name?", "requestedSchema": { "type": "object",
            "properties": { "name": { "type": "string" } } }, "task": { "ttl": 60_000 } });
        let (sent, events) = ask(&mut e, T0, 7, "elicitation/create", params);
        assert!(
            answer_to(&sent, 7).is_none(),
            "no CreateTaskResult: {sent:?}"
        );
        let inputs: Vec<_> = events
            .iter()
            .filter_map(|ev| match ev {
                Event::Input {
                    id,
                    task_id,
                    request,
                } => Some((*id, task_id.clone(), request.method.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(inputs.len(), 1, "{events:?}");
        let (input, task_id, method) = inputs[0].clone();
        assert_eq!((task_id, method.as_str()), (None, "elicitation/create"));
        let accept = json!({ "action": "accept", "content": { "name": "Ann" } });
        e.answer_input(T0 + 100, input, Ok(accept.clone()));
        let sent: Vec<Value> = drain(&mut e, T0 + 100)
            .0
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        let reply = answer_to(&sent, 7).expect("the request's own answer");
        assert_eq!(
            reply["result"], accept,
            "the plain result: no task, no related-task _meta"
        );
        assert!(reply["result"]["_meta"].get(RELATED_TASK).is_none());
    }

    #[test]
    fn task_requests_from_the_server_are_unknown_methods() {
        let (mut e, _) = legacy(json!({ "elicitation": {}, "sampling": {} }));
        let requests = [
            ("tasks/get", json!({ "taskId": "x" })),
            ("tasks/result", json!({ "taskId": "x" })),
            ("tasks/list", json!({})),
            ("tasks/cancel", json!({ "taskId": "x" })),
        ];
        for (n, (method, params)) in (10..).zip(requests) {
            let (sent, events) = ask(&mut e, T0, n, method, params);
            let reply = answer_to(&sent, n).unwrap_or_else(|| panic!("{method}: no answer"));
            assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
            assert!(
                reply["error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(method)),
                "{reply}"
            );
            assert!(
                events.iter().all(|ev| !matches!(ev, Event::Input { .. })),
                "{events:?}"
            );
        }
    }
}

#[cfg(not(feature = "draft"))]
mod without_draft {
    use crate::json::json;

    use crate::engine::api::{
        CallOptions, ClientError, Config, DialectChoice, End, ErrorKind, Event, Input,
    };
    use crate::engine::Engine;
    use crate::protocol::model::Dialect;
    use crate::testkit::script::{answer, drain, head};
    use crate::testkit::T0;

    fn warnings(events: &[Event]) -> Vec<&ClientError> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Warning { error, .. } => Some(error),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_forced_draft_is_refused_at_connect() {
        let cfg = Config {
            dialect: DialectChoice::Draft,
            ..Config::default()
        };
        let mut e = Engine::new(cfg, 1, T0);
        let call = e.call_tool(T0, "job", json!({}), CallOptions::default());
        let (sent, events) = drain(&mut e, T0);
        assert!(sent.is_empty(), "nothing sent: {sent:?}");
        let w = warnings(&events);
        assert_eq!(w.len(), 1, "{events:?}");
        assert_eq!(w[0].kind, ErrorKind::Unsupported);
        assert!(w[0].message.contains("draft"), "{}", w[0].message);
        let failed = events.iter().find_map(|ev| match ev {
            Event::Done { sub, end, .. } if *sub == call => Some(end.clone()),
            _ => None,
        });
        assert!(
            matches!(&failed, Some(End::Failed { error }) if error.kind == ErrorKind::Unsupported),
            "{failed:?}"
        );
        assert!(drain(&mut e, T0 + 600_000).0.is_empty(), "not retried");
        assert_eq!(e.dialect(), None);
    }

    #[test]
    fn auto_never_picks_the_draft() {
        // Draft-style capabilities (boolean members, `delete`) in a pre-2025-11-25 version, and
        // a silent pre-2025-11-25 server: both stay legacy, with nothing said about the draft.
        for caps in [
            json!({ "tasks": { "requests": { "tools": { "call": true } }, "delete": true } }),
            json!({ "tools": {} }),
        ] {
            let mut e = Engine::new(Config::default(), 3, T0);
            let (sent, _) = drain(&mut e, T0);
            assert_eq!(sent[0].1["method"], "server/discover");
            e.handle_input(T0, head(sent[0].0, 400, None));
            e.handle_input(T0, Input::Ended { key: sent[0].0 });
            let (sent, _) = drain(&mut e, T0);
            assert_eq!(sent[0].1["method"], "initialize");
            let (key, id) = (sent[0].0, sent[0].1["id"].clone());
            e.handle_input(T0, head(key, 200, Some("s1")));
            let result =
                json!({ "protocolVersion": "2025-06-18", "capabilities": caps, "serverInfo": {} });
            answer(&mut e, T0, key, &id, result);
            let (_, events) = drain(&mut e, T0);
            assert_eq!(e.dialect(), Some(Dialect::Legacy), "{caps}");
            assert!(warnings(&events).is_empty(), "{events:?}");
            assert!(events
                .iter()
                .any(|ev| matches!(ev, Event::Connected { .. })));
        }
    }
}
