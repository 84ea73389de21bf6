//! Scripting an engine by hand, with no server: drain its outputs, answer its requests, feed it
//! messages and response heads.

use crate::json::{json, Value};

use crate::engine::api::{CallOptions, ClientError, Event, Input, Millis, Output, SendKey, SubId};
use crate::engine::Engine;

/// Drains an engine's outputs at `now`: the transmissions (key, body as JSON) and the events.
/// A one-way transmission (a notification, a response) is over at once, as on a 202.
pub(crate) fn drain(e: &mut Engine, now: Millis) -> (Vec<(SendKey, Value)>, Vec<Event>) {
    let (mut sent, mut events) = (Vec::new(), Vec::new());
    loop {
        match e.poll_output(now) {
            Output::Wake(_) => return (sent, events),
            Output::Transmit(t) => {
                if t.one_way {
                    e.handle_input(now, head(t.key, 202, None));
                    e.handle_input(now, Input::Ended { key: t.key });
                }
                sent.push((t.key, serde_json::from_str(&t.body).unwrap_or_default()))
            }
            Output::Event(ev) => events.push(ev),
            _ => {}
        }
    }
}

/// A response head on stream `key`: `status`, the session id if any, no `Retry-After`.
pub(crate) fn head(key: SendKey, status: u16, session_id: Option<&str>) -> Input {
    Input::Head {
        key,
        status,
        session_id: session_id.map(str::to_owned),
        retry_after_ms: None,
        www_authenticate: None,
    }
}

/// Answers the `initialize` that `sent[0]` is: a 200 head opening session `session_id`, then a
/// `2025-11-25` result with `capabilities`.
pub(crate) fn accept_initialize(
    e: &mut Engine,
    now: Millis,
    sent: &[(SendKey, Value)],
    session_id: &str,
    capabilities: Value,
) {
    let (key, id) = (sent[0].0, &sent[0].1["id"]);
    e.handle_input(now, head(key, 200, Some(session_id)));
    let result =
        json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": {} });
    answer(e, now, key, id, result);
}

/// Sends a plain `resources/read` at `now` and drains: its subscription and the transmissions.
pub(crate) fn read_resource(e: &mut Engine, now: Millis) -> (SubId, Vec<(SendKey, Value)>) {
    let params = json!({ "uri": "x" });
    let sub = e.request(now, "resources/read", params, CallOptions::default());
    (sub, drain(e, now).0)
}

/// Feeds the JSON-RPC result for request `id` on the stream of `key`.
pub(crate) fn answer(e: &mut Engine, now: Millis, key: SendKey, id: &Value, result: Value) {
    let body = json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string();
    e.handle_input(
        now,
        Input::Message {
            via: Some(key),
            body,
        },
    );
}

/// Feeds any message body on a stream (`None`: a listening stream or WebSocket).
pub(crate) fn feed(e: &mut Engine, now: Millis, via: Option<SendKey>, body: Value) {
    e.handle_input(
        now,
        Input::Message {
            via,
            body: body.to_string(),
        },
    );
}

/// A well-formed modern `server/discover` result; `tasks`: it advertises the tasks extension.
pub(crate) fn discover_result(tasks: bool) -> Value {
    let extensions = if tasks {
        json!({ "io.modelcontextprotocol/tasks": {} })
    } else {
        json!({})
    };
    json!({
        "supportedVersions": ["2026-07-28"],
        "capabilities": { "tools": { "listChanged": true }, "extensions": extensions },
        "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "discovered", "version": "1" } }
    })
}

/// An engine with `cfg` forced to the modern dialect, its `server/discover` answered (with the
/// tasks extension) and its outputs drained: ready to use.
pub(crate) fn modern_engine(cfg: crate::engine::api::Config, seed: u64) -> Engine {
    let cfg = crate::engine::api::Config {
        dialect: crate::engine::api::DialectChoice::Modern,
        ..cfg
    };
    let mut e = Engine::new(cfg, seed, super::T0);
    let (sent, _) = drain(&mut e, super::T0);
    if let Some((key, body)) = sent.first() {
        answer(&mut e, super::T0, *key, &body["id"], discover_result(true));
    }
    drain(&mut e, super::T0);
    e
}

/// Everything an engine output at `now`, in order (one-way transmissions left unanswered).
pub(crate) fn outputs(e: &mut Engine, now: Millis) -> Vec<Output> {
    let mut out = Vec::new();
    loop {
        match e.poll_output(now) {
            Output::Wake(_) => return out,
            o => out.push(o),
        }
    }
}

/// The events among `out`.
pub(crate) fn events_of(out: &[Output]) -> Vec<Event> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(ev) => Some(ev.clone()),
            _ => None,
        })
        .collect()
}

/// The warnings among `events`.
pub(crate) fn warnings(events: &[Event]) -> Vec<&ClientError> {
    events
        .iter()
        .filter_map(|ev| match ev {
            Event::Warning { error, .. } => Some(error),
            _ => None,
        })
        .collect()
}
