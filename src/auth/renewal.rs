//! What a refused request calls for. A 401 asks for one refresh or new authorization, unless the
//! grant was renewed since the request left, or the grant a new authorization just gave is the
//! one refused (another visit to the authorization server would end the same way: the request's
//! one resend fails and the host hears `Unauthorized`). A 403 `insufficient_scope` asks for a new
//! authorization with the granted scopes plus the challenge's, unless the grant has them already.

use crate::protocol::auth::AuthChallenge;

use super::scopes_cover;

/// What to do about a refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Renewal {
    /// Renewing cannot help, or it happened already.
    Nothing,
    /// Refresh the grant, else authorize again asking for `scope`.
    Reauthorize { scope: Option<String> },
    /// Authorize again for more scope (`scope`: the granted ones plus the challenge's).
    StepUp { scope: Option<String> },
}

/// The grant held when a request is refused.
#[derive(Debug, Clone, Copy, Default)]
pub struct Held<'a> {
    /// Its `Authorization` value (`None`: no grant).
    pub authorization: Option<&'a str>,
    /// The scopes granted.
    pub scope: Option<&'a str>,
    /// It came from a new authorization and no request sent with it was refused yet.
    pub fresh: bool,
}

/// What a request sent with `used` (its `Authorization` value), refused with `status` and
/// `challenge`, calls for while `held` is the grant.
pub fn renewal(status: u16, challenge: &AuthChallenge, used: Option<&str>, held: Held) -> Renewal {
    let step_up = status == 403 && challenge.error.as_deref() == Some("insufficient_scope");
    let holds = held.authorization.is_some();
    if (status != 401 && !step_up) || (holds && held.authorization != used) {
        return Renewal::Nothing;
    }
    let wanted = challenge.scope.as_deref();
    if !step_up {
        return match holds && held.fresh {
            true => Renewal::Nothing,
            false => Renewal::Reauthorize {
                scope: wanted.map(str::to_owned),
            },
        };
    }
    if holds && scopes_cover(held.scope, wanted) {
        return Renewal::Nothing;
    }
    let scope = match (held.scope, wanted) {
        (Some(granted), Some(wanted)) => {
            let mut all = granted.to_owned();
            for s in wanted.split_ascii_whitespace() {
                if !granted.split_ascii_whitespace().any(|g| g == s) {
                    all.push(' ');
                    all.push_str(s);
                }
            }
            Some(all)
        }
        (_, wanted) => wanted.map(str::to_owned),
    };
    Renewal::StepUp { scope }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(error: Option<&str>, scope: Option<&str>) -> AuthChallenge {
        AuthChallenge {
            error: error.map(str::to_owned),
            scope: scope.map(str::to_owned),
            ..AuthChallenge::default()
        }
    }

    const T1: Option<&str> = Some("Bearer t1");

    #[test]
    fn a_401_asks_for_one_renewal_unless_renewed_since_or_just_authorized() {
        let expired = challenge(Some("invalid_token"), Some("read"));
        let reauthorize = Renewal::Reauthorize {
            scope: Some("read".into()),
        };
        let old = Held {
            authorization: T1,
            scope: Some("read"),
            fresh: false,
        };
        let fresh = Held { fresh: true, ..old };
        assert_eq!(renewal(401, &expired, T1, old), reauthorize);
        assert_eq!(renewal(401, &expired, None, Held::default()), reauthorize);
        assert_eq!(
            renewal(401, &expired, T1, fresh),
            Renewal::Nothing,
            "the grant a new authorization just gave was refused: no second visit"
        );
        assert_eq!(
            renewal(401, &expired, Some("Bearer t0"), old),
            Renewal::Nothing,
            "renewed since the request left"
        );
        assert_eq!(
            renewal(401, &expired, Some("Bearer t0"), fresh),
            Renewal::Nothing
        );
        assert_eq!(renewal(403, &expired, T1, old), Renewal::Nothing);
        assert_eq!(
            renewal(500, &expired, None, Held::default()),
            Renewal::Nothing
        );
    }

    #[test]
    fn a_403_insufficient_scope_steps_up_to_the_union_unless_already_granted() {
        let more = challenge(Some("insufficient_scope"), Some("write read"));
        let held = Held {
            authorization: T1,
            scope: Some("read"),
            fresh: true,
        };
        assert_eq!(
            renewal(403, &more, T1, held),
            Renewal::StepUp {
                scope: Some("read write".into())
            }
        );
        let both = Held {
            scope: Some("write read"),
            ..held
        };
        assert_eq!(renewal(403, &more, T1, both), Renewal::Nothing);
        assert_eq!(
            renewal(403, &more, None, Held::default()),
            Renewal::StepUp {
                scope: Some("write read".into())
            }
        );
    }
}
