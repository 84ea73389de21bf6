//! A server that refuses every request with 401: connecting gives up after one resend, whatever
//! the dialect choice, so the header provider (asked before every transmission) is asked at most
//! twice before the host hears `Unauthorized`.

use crate::engine::api::{Config, DialectChoice, ErrorKind, Event, Input, Output};
use crate::engine::testkit::T0;
use crate::engine::Engine;

/// Answers every transmission with 401 until the engine reports a failure: how many
/// transmissions were made before, and the kind of the failure.
fn until_refused(dialect: DialectChoice) -> (usize, Option<ErrorKind>) {
    let cfg = Config {
        dialect,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 7, T0);
    let mut sent = 0;
    for _ in 0..50 {
        match e.poll_output(T0) {
            Output::Transmit(t) => {
                sent += 1;
                let refused = Input::Head {
                    key: t.key,
                    status: 401,
                    session_id: None,
                    retry_after_ms: None,
                    www_authenticate: Some(r#"Bearer error="invalid_token""#.into()),
                };
                e.handle_input(T0, refused);
            }
            Output::Event(Event::Warning { error, .. }) => return (sent, Some(error.kind)),
            Output::Wake(_) => break,
            _ => {}
        }
    }
    (sent, None)
}

#[test]
fn an_always_401_server_is_asked_twice_then_unauthorized_in_every_dialect_choice() {
    for d in [
        DialectChoice::Auto,
        DialectChoice::Legacy,
        DialectChoice::Modern,
    ] {
        let (sent, error) = until_refused(d);
        assert_eq!(error, Some(ErrorKind::Unauthorized), "{d:?}");
        assert_eq!(sent, 2, "{d:?}: the request and its one resend");
    }
}
