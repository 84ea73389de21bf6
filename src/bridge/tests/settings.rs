//! `connect`'s and a call's options, as the JS client hands them over (checked for their types).

use crate::bridge::link::{Seen, TransportKind};
use crate::bridge::settings::*;
use crate::engine::api::{Augment, Config, DialectChoice, Link};
use crate::json::{json, Value};

/// Settings read where the environment shows `seen`.
fn read_seeing(s: Value, seen: Seen) -> Result<Settings, String> {
    read(&s, |_| seen, |_| None)
}

fn read_ok(s: Value) -> Settings {
    read_seeing(s, Seen::Browser(0)).expect("valid settings")
}

#[test]
fn the_transport_follows_the_url_unless_named() {
    let t = |s: Value| read_ok(s).transport;
    assert_eq!(t(json!({ "url": "https://a/mcp" })), TransportKind::Http);
    assert_eq!(t(json!({ "url": "WSS://a/mcp" })), TransportKind::WebSocket);
    assert_eq!(t(json!({ "url": "ws://a/mcp" })), TransportKind::WebSocket);
    let named = json!({ "url": "https://a/mcp", "transport": "websocket" });
    assert_eq!(t(named), TransportKind::WebSocket);
    let http = json!({ "url": "ws://a/mcp", "transport": "http" });
    assert_eq!(t(http), TransportKind::Http);
}

#[test]
fn an_untold_link_is_learnt_by_default_and_http1_opts_out() {
    let url = json!({ "url": "https://a/mcp" });
    let learn = json!({ "url": "https://a/mcp", "link": "learn" });
    for s in [&url, &learn] {
        let c = read_seeing(s.clone(), Seen::Browser(0)).unwrap().config;
        assert_eq!((c.link, c.link_unseen), (Link::Http1, true), "{s:?}");
        let c = read_seeing(s.clone(), Seen::Browser(2)).unwrap().config;
        assert_eq!((c.link, c.link_unseen), (Link::Http2, false), "{s:?}");
        let c = read_seeing(s.clone(), Seen::Browser(1)).unwrap().config;
        assert_eq!((c.link, c.link_unseen), (Link::Http1, false), "{s:?}");
    }
    let c = read_seeing(url.clone(), Seen::Node).unwrap().config;
    assert_eq!((c.link, c.link_unseen), (Link::Node, false));
    let http1 = json!({ "url": "https://a/mcp", "link": "http1" });
    let c = read_seeing(http1, Seen::Browser(0)).unwrap().config;
    assert_eq!((c.link, c.link_unseen), (Link::Http1, false));
    // What the tab's session storage kept stands; anything else is learnt again.
    let stored = |text: &'static str| {
        let c = read(&url, |_| Seen::Browser(0), |_| Some(text.to_owned())).unwrap();
        (c.config.link, c.config.link_unseen)
    };
    assert_eq!(stored("http2"), (Link::Http2, false));
    assert_eq!(stored("http1"), (Link::Http1, false));
    assert_eq!(stored("h2"), (Link::Http1, true));
}

#[test]
fn a_named_link_asks_nothing_of_the_environment() {
    for (name, link) in [
        ("http1", Link::Http1),
        ("http2", Link::Http2),
        ("node", Link::Node),
        ("websocket", Link::WebSocket),
    ] {
        let s = json!({ "url": "https://a/mcp", "link": name });
        let unasked = |_: &str| -> Seen { panic!("{name} needs no look") };
        let c = read(&s, unasked, |_| panic!("{name} needs no memory"))
            .unwrap()
            .config;
        assert_eq!((c.link, c.link_unseen), (link, false), "{name}");
    }
}

#[test]
fn plain_options_reach_the_engines_config() {
    let s = read_ok(json!({
        "url": "https://a/mcp",
        "dialect": "legacy",
        "clientName": "n",
        "clientVersion": "9",
        "requestTimeoutMs": 1500,
        "maxMessageBytes": 4096,
        "resultGcMs": 7,
        "subscribe": false,
        "deleteOnDone": true,
        "capabilities": { "sampling": {} },
        "onInput": true,
    }));
    let c = s.config;
    assert_eq!(c.url, "https://a/mcp");
    assert_eq!(c.dialect, DialectChoice::Legacy);
    assert_eq!(
        (c.client_name.as_str(), c.client_version.as_str()),
        ("n", "9")
    );
    assert_eq!(c.request_timeout_ms, 1500);
    assert_eq!(c.max_message_bytes, 4096);
    assert_eq!(c.result_gc_ms, 7);
    assert!(!c.subscribe);
    assert!(c.delete_on_done);
    assert_eq!(c.client_capabilities, json!({ "sampling": {} }));
    assert!(s.answers_input);
    assert_eq!(s.url, "https://a/mcp");
}

#[test]
fn without_an_input_handler_or_capabilities_the_client_declares_nothing() {
    let quiet = read_ok(json!({ "url": "u" })).config;
    assert_eq!(quiet.client_capabilities, json!({}));
    let answers = read_ok(json!({ "url": "u", "onInput": true })).config;
    assert_eq!(
        answers.client_capabilities,
        Config::default().client_capabilities
    );
}

#[test]
fn the_draft_dialect_needs_the_full_build() {
    let r = read_seeing(json!({ "url": "u", "dialect": "draft" }), Seen::Node);
    if cfg!(feature = "draft") {
        assert_eq!(r.unwrap().config.dialect, DialectChoice::Draft);
    } else {
        let e = r.err().unwrap();
        assert!(
            e.starts_with("dialect \"draft\" (SEP-1686) needs the full build"),
            "{e}"
        );
    }
}

#[test]
fn sharing_options_need_persist() {
    for s in [
        json!({ "url": "u", "identity": "me" }),
        json!({ "url": "u", "persistResults": true }),
    ] {
        let e = read_seeing(s, Seen::Node).err().unwrap();
        assert_eq!(e, "identity and persistResults need persist: true");
    }
    assert_eq!(read_ok(json!({ "url": "u" })).shared, None);
    let s = json!({ "url": "u", "persist": true, "identity": "me", "tabs": false });
    let r = read_seeing(s, Seen::Node);
    if cfg!(feature = "tabs") {
        let shared = r.unwrap().shared;
        let expected = Sharing {
            identity: Some("me".into()),
            persist_results: false,
            coordinate: false,
        };
        assert_eq!(shared, Some(expected));
        let coordinated = read_ok(json!({ "url": "u", "persist": true })).shared;
        assert!(coordinated.is_some_and(|s| s.coordinate), "tabs default on");
    } else {
        assert_eq!(r.err().unwrap(), ["persist", FULL_BUILD].concat());
    }
}

#[test]
fn a_calls_options_default_to_auto_augmenting() {
    let o = call_options(&json!({}));
    assert_eq!(o.augment, Augment::Auto);
    assert_eq!(
        (o.ttl_ms, o.keep_alive_ms, o.delete_on_done),
        (None, None, false)
    );
    let o = call_options(&json!({
        "task": "always", "ttlMs": 60000, "keepAliveMs": 5000.7, "deleteOnDone": true
    }));
    assert_eq!(o.augment, Augment::Always);
    assert_eq!((o.ttl_ms, o.keep_alive_ms), (Some(60_000), Some(5_000)));
    assert!(o.delete_on_done);
    assert_eq!(
        call_options(&json!({ "task": "never" })).augment,
        Augment::Never
    );
}

#[test]
fn members_are_read_by_type() {
    let v = json!({ "name": "x", "aborted": true, "n": 1 });
    assert_eq!(string(&v, "name"), Some("x"));
    assert_eq!(string(&v, "n"), None);
    assert_eq!(flag(&v, "aborted"), Some(true));
    assert_eq!(flag(&v, "name"), None);
    assert_eq!(flag(&v, "missing"), None);
}
