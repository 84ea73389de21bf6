//! The receiver against a scripted 2025-11-25 server: creation, polling, the held `tasks/result`,
//! cancel, ttl expiry, paging, unguessable ids, and hostile request sequences.

use std::collections::HashMap;

use crate::json::{json, Value};
use proptest::prelude::*;

use crate::engine::api::{Config, DialectChoice, Event, InputId, Millis, INPUT_WITHDRAWN};
use crate::engine::Engine;
use crate::protocol::dialect::legacy::{RELATED_TASK, STATUS_NOTIFICATION};
use crate::protocol::jsonrpc::RpcError;
use crate::testkit::script::{accept_initialize, drain, feed, modern_engine};
use crate::testkit::T0;

use super::{EXPIRED_KEPT, MAX_TASKS, PAGE};

/// What the engine sent (bodies) and the input events it raised, drained at one time.
struct Out {
    sent: Vec<Value>,
    inputs: Vec<(InputId, Option<String>, String)>,
}

impl Out {
    fn answer(&self, id: i64) -> Option<&Value> {
        self.sent
            .iter()
            .find(|m| m["id"] == id && m.get("method").is_none())
    }

    fn pushes(&self) -> Vec<&Value> {
        let push = |m: &&Value| m["method"] == STATUS_NOTIFICATION;
        self.sent.iter().filter(push).collect()
    }
}

fn out(e: &mut Engine, now: Millis) -> Out {
    let (sent, events) = drain(e, now);
    let inputs = events
        .into_iter()
        .filter_map(|ev| match ev {
            Event::Input {
                id,
                task_id,
                request,
            } => Some((id, task_id, request.method)),
            _ => None,
        })
        .collect();
    Out {
        sent: sent.into_iter().map(|(_, v)| v).collect(),
        inputs,
    }
}

/// A forced-legacy engine with `caps` declared, its session open: the `initialize` it sent.
fn legacy(seed: u64, caps: Value) -> (Engine, Value) {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        client_capabilities: caps,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, seed, T0);
    let (sent, _) = drain(&mut e, T0);
    let init = sent[0].1.clone();
    accept_initialize(&mut e, T0, &sent, "s1", json!({ "tasks": {} }));
    drain(&mut e, T0);
    (e, init)
}

fn client() -> Engine {
    legacy(1, Config::default().client_capabilities).0
}

/// The server sends request `id` (`method`, `params`) at `now`; what the engine does at once.
fn ask(e: &mut Engine, now: Millis, id: i64, method: &str, params: Value) -> Out {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    feed(e, now, None, body);
    out(e, now)
}

/// A task-augmented elicitation (`ttl` requested): the task id and the host's input id.
fn create(e: &mut Engine, now: Millis, id: i64, ttl: Option<u64>) -> (String, InputId) {
    let task = ttl.map_or(json!({}), |t| json!({ "ttl": t }));
    let params = json!({ "message": "name?", "requestedSchema": { "type": "object",
        "properties": { "name": { "type": "string" } } }, "task": task });
    let o = ask(e, now, id, "elicitation/create", params);
    let created = &o.answer(id).expect("CreateTaskResult")["result"]["task"];
    let task_id = created["taskId"].as_str().expect("taskId").to_owned();
    let input = o.inputs.first().expect("host input");
    assert_eq!(input.1.as_deref(), Some(task_id.as_str()));
    (task_id, input.0)
}

fn tid(task_id: &str) -> Value {
    json!({ "taskId": task_id })
}

fn error_of(o: &Out, id: i64) -> (i64, String) {
    let e = &o.answer(id).expect("an answer")["error"];
    (
        e["code"].as_i64().unwrap_or(0),
        e["message"].as_str().unwrap_or("").to_owned(),
    )
}

#[test]
fn initialize_declares_hosted_tasks_only_for_what_the_host_answers() {
    let (_, init) = legacy(1, json!({ "elicitation": {}, "sampling": {} }));
    assert_eq!(
        init["params"]["capabilities"]["tasks"],
        json!({ "list": {}, "cancel": {}, "requests": {
            "elicitation": { "create": {} }, "sampling": { "createMessage": {} } } })
    );
    let (_, init) = legacy(1, json!({ "elicitation": {} }));
    let requests = &init["params"]["capabilities"]["tasks"]["requests"];
    assert!(requests.get("sampling").is_none() && requests.get("elicitation").is_some());
    let (mut e, init) = legacy(1, json!({}));
    assert!(init["params"]["capabilities"].get("tasks").is_none());
    // Nothing declared: a task-augmented request is not hosted, tasks/get is unknown.
    let o = ask(&mut e, T0, 5, "tasks/get", tid("x"));
    assert_eq!(error_of(&o, 5).0, -32601);
}

#[test]
fn a_task_request_is_answered_at_once_then_completed_by_the_host() {
    let mut e = client();
    let (task_id, input) = create(&mut e, T0, 7, Some(30_000));
    assert_eq!(task_id.len(), 32);
    let o = ask(&mut e, T0 + 10, 8, "tasks/get", tid(&task_id));
    let t = &o.answer(8).expect("task")["result"];
    assert_eq!(t["status"], "working");
    assert_eq!(
        (t["ttl"].as_u64(), t["pollInterval"].as_u64()),
        (Some(30_000), Some(1000))
    );
    assert_eq!(t["createdAt"], "2025-06-15T15:06:40.000Z");
    // tasks/result is held until the host answers.
    let o = ask(&mut e, T0 + 20, 9, "tasks/result", tid(&task_id));
    assert!(o.answer(9).is_none());
    let answer = json!({ "action": "accept", "content": { "name": "Ann" } });
    e.answer_input(T0 + 5_000, input, Ok(answer));
    let o = out(&mut e, T0 + 5_000);
    let r = &o.answer(9).expect("held result")["result"];
    assert_eq!(
        (&r["action"], &r["content"]["name"]),
        (&json!("accept"), &json!("Ann"))
    );
    assert_eq!(r["_meta"][RELATED_TASK]["taskId"], task_id);
    let pushes = o.pushes();
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0]["params"]["status"], "completed");
    assert_eq!(
        pushes[0]["params"]["_meta"][RELATED_TASK]["taskId"],
        task_id
    );
    let o = ask(&mut e, T0 + 6_000, 10, "tasks/get", tid(&task_id));
    let t = &o.answer(10).expect("task")["result"];
    assert_eq!(t["status"], "completed");
    assert_eq!(t["lastUpdatedAt"], "2025-06-15T15:06:45.000Z");
    // The outcome stays retrievable, exactly the same.
    let o = ask(&mut e, T0 + 29_999, 11, "tasks/result", tid(&task_id));
    assert_eq!(o.answer(11).expect("result")["result"], *r);
}

#[test]
fn a_resent_create_gets_the_same_task_and_no_second_input() {
    let mut e = client();
    let (task_id, _) = create(&mut e, T0, 7, None);
    let o = ask(
        &mut e,
        T0 + 1,
        7,
        "elicitation/create",
        json!({ "task": {} }),
    );
    assert_eq!(
        o.answer(7).expect("again")["result"]["task"]["taskId"],
        task_id
    );
    assert!(o.inputs.is_empty());
}

#[test]
fn a_host_error_fails_the_task_and_is_the_result() {
    let mut e = client();
    let params = json!({ "messages": [], "maxTokens": 5, "task": { "ttl": 60_000 } });
    let o = ask(&mut e, T0, 3, "sampling/createMessage", params);
    let task_id = o.answer(3).expect("created")["result"]["task"]["taskId"]
        .as_str()
        .map(str::to_owned)
        .expect("id");
    let input = o.inputs[0].0;
    e.answer_input(T0 + 1, input, Err(RpcError::new(-1, "user refused")));
    let o = ask(&mut e, T0 + 2, 4, "tasks/result", tid(&task_id));
    assert_eq!(error_of(&o, 4), (-1, "user refused".to_owned()));
    let o = ask(&mut e, T0 + 3, 5, "tasks/get", tid(&task_id));
    let t = &o.answer(5).expect("task")["result"];
    assert_eq!(
        (&t["status"], &t["statusMessage"]),
        (&json!("failed"), &json!("user refused"))
    );
}

#[test]
fn cancel_withdraws_the_hosts_input_and_is_final() {
    let mut e = client();
    let (task_id, input) = create(&mut e, T0, 1, None);
    let held = ask(&mut e, T0 + 1, 2, "tasks/result", tid(&task_id));
    assert!(held.answer(2).is_none());
    let o = ask(&mut e, T0 + 2, 3, "tasks/cancel", tid(&task_id));
    assert_eq!(
        o.answer(3).expect("cancelled")["result"]["status"],
        "cancelled"
    );
    assert_eq!(
        o.inputs,
        vec![(input, Some(task_id.clone()), INPUT_WITHDRAWN.to_owned())]
    );
    assert_eq!(error_of(&o, 2).0, -32603);
    assert_eq!(o.pushes()[0]["params"]["status"], "cancelled");
    // The host's late answer changes nothing.
    e.answer_input(
        T0 + 3,
        input,
        Ok(json!({ "action": "accept", "content": {} })),
    );
    let o = out(&mut e, T0 + 3);
    assert!(o.sent.is_empty());
    let o = ask(&mut e, T0 + 4, 4, "tasks/get", tid(&task_id));
    assert_eq!(o.answer(4).expect("task")["result"]["status"], "cancelled");
    let o = ask(&mut e, T0 + 5, 5, "tasks/cancel", tid(&task_id));
    assert_eq!(
        error_of(&o, 5),
        (
            -32602,
            "Cannot cancel task: already in terminal status 'cancelled'".to_owned()
        )
    );
}

#[test]
fn ttl_expiry_forgets_the_task_and_answers_the_specs_error() {
    let mut e = client();
    let (task_id, input) = create(&mut e, T0, 1, Some(1_000));
    ask(&mut e, T0 + 1, 2, "tasks/result", tid(&task_id));
    assert_eq!(e.next_wake(), Some(T0 + 1_000));
    let o = out(&mut e, T0 + 999);
    assert!(o.sent.is_empty() && o.inputs.is_empty());
    let o = out(&mut e, T0 + 1_000);
    let expired = (
        -32602,
        "Failed to retrieve task: Task has expired".to_owned(),
    );
    assert_eq!(error_of(&o, 2), expired);
    assert_eq!(
        o.inputs,
        vec![(input, Some(task_id.clone()), INPUT_WITHDRAWN.to_owned())]
    );
    for (n, method) in [(3, "tasks/get"), (4, "tasks/result"), (5, "tasks/cancel")] {
        let o = ask(&mut e, T0 + 2_000, n, method, tid(&task_id));
        assert_eq!(error_of(&o, n), expired, "{method}");
    }
    let o = ask(&mut e, T0 + 2_000, 6, "tasks/get", tid("0123"));
    assert_eq!(
        error_of(&o, 6),
        (-32602, "Failed to retrieve task: Task not found".to_owned())
    );
    let o = ask(&mut e, T0 + 2_000, 7, "tasks/list", json!({}));
    assert_eq!(o.answer(7).expect("list")["result"]["tasks"], json!([]));
}

#[test]
fn results_stay_retrievable_until_the_ttl() {
    let mut e = client();
    let (task_id, input) = create(&mut e, T0, 1, Some(10_000));
    e.answer_input(T0 + 1_000, input, Ok(json!({ "action": "decline" })));
    out(&mut e, T0 + 1_000);
    let o = ask(&mut e, T0 + 9_999, 2, "tasks/result", tid(&task_id));
    assert_eq!(o.answer(2).expect("result")["result"]["action"], "decline");
    let o = ask(&mut e, T0 + 10_000, 3, "tasks/result", tid(&task_id));
    assert_eq!(error_of(&o, 3).0, -32602);
}

#[test]
fn ttl_is_capped_and_defaulted() {
    let mut e = client();
    let (a, _) = create(&mut e, T0, 1, Some(u64::MAX));
    let (b, _) = create(&mut e, T0, 2, None);
    let o = ask(&mut e, T0, 3, "tasks/list", json!({}));
    let tasks = o.answer(3).expect("list")["result"]["tasks"].clone();
    let ttl = |id: &str| {
        tasks
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["taskId"] == id))
            .map(|t| t["ttl"].clone())
    };
    assert_eq!(ttl(&a), Some(json!(super::MAX_TTL_MS)));
    assert_eq!(ttl(&b), Some(json!(super::DEFAULT_TTL_MS)));
}

#[test]
fn ids_are_128_random_bits_and_neighbours_are_unknown() {
    let mut e = client();
    let mut ids: Vec<String> = (0..200).map(|n| create(&mut e, T0, n, None).0).collect();
    assert!(ids
        .iter()
        .all(|i| i.len() == 32 && i.chars().all(|c| c.is_ascii_hexdigit())));
    let mut other = legacy(2, Config::default().client_capabilities).0;
    let theirs = create(&mut other, T0, 0, None).0;
    assert!(!ids.contains(&theirs));
    // No two ids share a 64-bit half: they are not counters.
    let halves: std::collections::HashSet<&str> =
        ids.iter().flat_map(|i| [&i[..16], &i[16..]]).collect();
    assert_eq!(halves.len(), 400);
    let first = ids[0].clone();
    let last = first
        .chars()
        .last()
        .and_then(|c| c.to_digit(16))
        .unwrap_or(0);
    let neighbour = format!("{}{:x}", &first[..31], (last + 1) % 16);
    let o = ask(&mut e, T0, 999, "tasks/get", tid(&neighbour));
    assert_eq!(error_of(&o, 999).0, -32602);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 200);
}

#[test]
fn list_pages_with_an_opaque_cursor() {
    let mut e = client();
    let made: Vec<String> = (0..120).map(|n| create(&mut e, T0, n, None).0).collect();
    let (mut seen, mut cursor, mut n) = (Vec::new(), None::<String>, 1000);
    loop {
        let params = cursor
            .as_ref()
            .map_or(json!({}), |c| json!({ "cursor": c }));
        let o = ask(&mut e, T0, n, "tasks/list", params);
        let r = o.answer(n).expect("page")["result"].clone();
        let page = r["tasks"].as_array().cloned().unwrap_or_default();
        assert!(page.len() <= PAGE);
        seen.extend(
            page.iter()
                .filter_map(|t| t["taskId"].as_str().map(str::to_owned)),
        );
        n += 1;
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, made);
    for bad in [
        json!({ "cursor": "x" }),
        json!({ "cursor": 5 }),
        json!({ "cursor": "99999" }),
    ] {
        let o = ask(&mut e, T0, 1, "tasks/list", bad);
        assert_eq!(error_of(&o, 1).0, -32602);
    }
}

#[test]
fn too_many_tasks_are_refused_and_expired_ids_are_bounded() {
    let mut e = client();
    for n in 0..MAX_TASKS as i64 {
        create(&mut e, T0, n, Some(1_000));
    }
    let o = ask(&mut e, T0, -1, "elicitation/create", json!({ "task": {} }));
    assert_eq!(error_of(&o, -1).0, -32603);
    assert!(o.inputs.is_empty());
    out(&mut e, T0 + 1_000);
    assert!(e.hosted.expired.len() <= EXPIRED_KEPT);
    assert!(e.hosted.next_expiry().is_none());
}

#[test]
fn requests_without_task_and_other_eras_are_not_hosted() {
    let mut e = client();
    let o = ask(
        &mut e,
        T0,
        1,
        "elicitation/create",
        json!({ "message": "plain" }),
    );
    assert!(o.answer(1).is_none() && o.inputs.len() == 1 && o.inputs[0].1.is_none());
    let mut m = modern_engine(Config::default(), 1);
    let o = ask(
        &mut m,
        T0,
        2,
        "elicitation/create",
        json!({ "task": { "ttl": 5 } }),
    );
    assert!(o.answer(2).is_none() && o.inputs.len() == 1);
    let o = ask(&mut m, T0, 3, "tasks/get", tid("x"));
    assert_eq!(error_of(&o, 3).0, -32601);
}

#[test]
fn a_server_giving_up_on_a_plain_input_withdraws_it() {
    let mut e = client();
    let o = ask(
        &mut e,
        T0,
        41,
        "elicitation/create",
        json!({ "message": "plain" }),
    );
    let input = o.inputs[0].0;
    let cancel = |id: Value| {
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": id, "reason": "timeout" } })
    };
    feed(&mut e, T0 + 1, None, cancel(json!(40)));
    assert!(out(&mut e, T0 + 1).inputs.is_empty());
    feed(&mut e, T0 + 2, None, cancel(json!(41)));
    let o = out(&mut e, T0 + 2);
    assert_eq!(o.inputs, vec![(input, None, INPUT_WITHDRAWN.to_owned())]);
    // The host's answer goes nowhere.
    e.answer_input(T0 + 3, input, Ok(json!({ "action": "decline" })));
    assert!(out(&mut e, T0 + 3).sent.is_empty());
}

#[derive(Debug, Clone)]
enum Op {
    Create(Option<u64>, bool),
    Get(usize),
    Result(usize),
    Cancel(usize),
    List(Option<String>),
    Answer(usize, bool),
    Raw(String, Value),
    Advance(u64),
}

fn op() -> impl Strategy<Value = Op> {
    let garbage = prop_oneof![
        Just(json!(null)),
        Just(json!({ "taskId": 5 })),
        Just(json!({ "taskId": [] })),
        Just(json!([1, 2])),
        Just(json!({ "task": "x" })),
        Just(json!({ "task": { "ttl": -4 } })),
        Just(json!({ "cursor": {} })),
        ".{0,12}".prop_map(|s| json!({ "taskId": s, "cursor": s })),
    ];
    let method = prop_oneof![
        Just("tasks/get"),
        Just("tasks/result"),
        Just("tasks/cancel"),
        Just("tasks/list"),
        Just("elicitation/create"),
        Just("sampling/createMessage"),
    ];
    prop_oneof![
        3 => (prop::option::of(0u64..20_000), any::<bool>()).prop_map(|(t, s)| Op::Create(t, s)),
        3 => (0usize..8).prop_map(Op::Get),
        2 => (0usize..8).prop_map(Op::Result),
        1 => (0usize..8).prop_map(Op::Cancel),
        1 => prop::option::of("[0-9a-z]{0,4}").prop_map(Op::List),
        3 => (0usize..8, any::<bool>()).prop_map(|(i, ok)| Op::Answer(i, ok)),
        2 => (method, garbage).prop_map(|(m, p)| Op::Raw(m.to_owned(), p)),
        3 => (1u64..8_000).prop_map(Op::Advance),
    ]
}

/// A status never goes back: once terminal, every later report says the same.
fn check_monotonic(seen: &mut HashMap<String, String>, task: &Value) -> Result<(), TestCaseError> {
    let (Some(id), Some(status)) = (task["taskId"].as_str(), task["status"].as_str()) else {
        return Ok(());
    };
    if let Some(before) = seen.get(id) {
        prop_assert!(
            before == "working" || before == status,
            "{id}: {before} -> {status}"
        );
    }
    seen.insert(id.to_owned(), status.to_owned());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::engine::tests::cases(64), ..ProptestConfig::default() })]

    #[test]
    fn hostile_sequences_never_panic_and_statuses_never_regress(ops in prop::collection::vec(op(), 1..60)) {
        let mut e = client();
        let (mut now, mut n) = (T0, 0i64);
        let mut tasks: Vec<(String, InputId)> = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        let mut outcomes: HashMap<String, Value> = HashMap::new();
        for op in ops {
            n += 1;
            let pick = |i: usize| tasks.get(i % tasks.len().max(1)).map_or(String::from("nope"), |t| t.0.clone());
            let o = match op {
                Op::Create(ttl, sampling) => {
                    let method = if sampling { "sampling/createMessage" } else { "elicitation/create" };
                    let task = ttl.map_or(json!({}), |t| json!({ "ttl": t }));
                    let o = ask(&mut e, now, n, method, json!({ "task": task }));
                    if let (Some(id), Some(i)) = (o.answer(n).and_then(|a| a["result"]["task"]["taskId"].as_str()), o.inputs.first()) {
                        tasks.push((id.to_owned(), i.0));
                    }
                    o
                }
                Op::Get(i) => ask(&mut e, now, n, "tasks/get", tid(&pick(i))),
                Op::Result(i) => ask(&mut e, now, n, "tasks/result", tid(&pick(i))),
                Op::Cancel(i) => ask(&mut e, now, n, "tasks/cancel", tid(&pick(i))),
                Op::List(c) => ask(&mut e, now, n, "tasks/list", c.map_or(json!({}), |c| json!({ "cursor": c }))),
                Op::Answer(i, ok) => {
                    if let Some(&(_, input)) = tasks.get(i % tasks.len().max(1)) {
                        let a = if ok { Ok(json!({ "action": "accept", "content": {} })) } else { Err(RpcError::new(-5, "no")) };
                        e.answer_input(now, input, a);
                    }
                    out(&mut e, now)
                }
                Op::Raw(method, params) => ask(&mut e, now, n, &method, params),
                Op::Advance(ms) => {
                    now += ms;
                    out(&mut e, now)
                }
            };
            for m in &o.sent {
                let r = &m["result"];
                for t in [r, &r["task"], &m["params"]] {
                    check_monotonic(&mut seen, t)?;
                }
                for t in r["tasks"].as_array().into_iter().flatten() {
                    check_monotonic(&mut seen, t)?;
                }
                // An outcome, once given for a task, is given the same every time.
                if let Some(id) = r["_meta"][RELATED_TASK]["taskId"].as_str() {
                    let before = outcomes.entry(id.to_owned()).or_insert_with(|| r.clone());
                    prop_assert_eq!(&*before, r);
                }
            }
        }
    }
}
