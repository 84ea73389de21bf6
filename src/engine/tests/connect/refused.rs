//! A server that refuses every request with 401. With a header provider (asked before every
//! transmission) connecting gives up after one resend, whatever the dialect choice, so the
//! provider is asked at most twice before the host hears `Unauthorized`; the same when the resend
//! is never sent because authorizing it failed (the `oauth` build). Without one, nothing could
//! change the credentials: the first refusal ends connecting (a refused probe is not followed by
//! an `initialize`).

use crate::engine::api::{Config, DialectChoice, ErrorKind, Event, Input, Output, SendKey};
use crate::engine::Engine;
use crate::testkit::T0;

const CHOICES: [DialectChoice; 3] = [
    DialectChoice::Auto,
    DialectChoice::Legacy,
    DialectChoice::Modern,
];

fn refused(key: SendKey) -> Input {
    Input::Head {
        key,
        status: 401,
        session_id: None,
        retry_after_ms: None,
        www_authenticate: Some(r#"Bearer error="invalid_token""#.into()),
    }
}

/// The resend could not be authorized: it fails before it is sent.
#[cfg(feature = "oauth")]
fn unauthorizable(key: SendKey) -> Input {
    use crate::engine::api::TransportError;
    let error = TransportError {
        unauthorized: true,
        ..TransportError::network("authorization failed: the user refused")
    };
    Input::Failed { key, error }
}

/// Answers the first transmission with 401 and every later one with `then` until the engine
/// reports a failure: how many transmissions were made, and the failure.
fn until_refused(
    dialect: DialectChoice,
    renews_credentials: bool,
    then: fn(SendKey) -> Input,
) -> (usize, Option<ErrorKind>) {
    let cfg = Config {
        dialect,
        renews_credentials,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 7, T0);
    let mut sent = 0;
    for _ in 0..50 {
        match e.poll_output(T0) {
            Output::Transmit(t) => {
                sent += 1;
                let answer = if sent == 1 {
                    refused(t.key)
                } else {
                    then(t.key)
                };
                e.handle_input(T0, answer);
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
    for d in CHOICES {
        let (sent, error) = until_refused(d, true, refused);
        assert_eq!(error, Some(ErrorKind::Unauthorized), "{d:?}");
        assert_eq!(sent, 2, "{d:?}: the request and its one resend");
    }
}

#[test]
fn without_a_header_provider_the_first_401_ends_connecting_in_every_dialect_choice() {
    for d in CHOICES {
        let (sent, error) = until_refused(d, false, refused);
        assert_eq!(error, Some(ErrorKind::Unauthorized), "{d:?}");
        assert_eq!(sent, 1, "{d:?}: the same credentials are not sent again");
    }
}

#[cfg(feature = "oauth")]
#[test]
fn a_resend_whose_authorization_failed_ends_connecting_as_unauthorized() {
    for d in CHOICES {
        let (sent, error) = until_refused(d, true, unauthorizable);
        assert_eq!(error, Some(ErrorKind::Unauthorized), "{d:?}");
        assert_eq!(sent, 2, "{d:?}: no other handshake is tried");
    }
}
