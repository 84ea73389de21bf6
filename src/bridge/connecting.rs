//! When `connect` settles: it resolves once the session is ready *and* the link (a driver, or a
//! tab of a shared scope) started, in either order; it fails at most once, before that; a link
//! that starts after `connect` failed closes again.

/// `connect`'s progress.
#[derive(Debug, Default, Clone, Copy)]
pub struct Connecting {
    linked: bool,
    connected: bool,
    settled: bool,
}

/// What the link starting leads to.
#[derive(Debug, PartialEq, Eq)]
pub enum Linked {
    /// `connect` already failed: close the link again.
    Close,
    /// The session was ready first: `connect` resolves now.
    Ready,
    /// Wait for the session.
    Wait,
}

impl Connecting {
    /// `connect` settles now, unless it already did.
    #[inline]
    fn settle(&mut self) -> bool {
        !std::mem::replace(&mut self.settled, true)
    }

    /// The link started.
    #[inline]
    pub fn linked(&mut self) -> Linked {
        self.linked = true;
        if self.settled {
            Linked::Close
        } else if self.connected {
            self.settle();
            Linked::Ready
        } else {
            Linked::Wait
        }
    }

    /// The session is ready: whether `connect` resolves now (the link started already).
    #[inline]
    pub fn connected(&mut self) -> bool {
        self.connected = true;
        self.linked && self.settle()
    }

    /// Something went wrong before the session was ready: whether `connect` fails now (it did
    /// not settle yet).
    #[inline]
    pub fn failed(&mut self) -> bool {
        self.settle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_resolves_once_both_the_link_and_the_session_are_there() {
        let mut c = Connecting::default();
        assert_eq!(c.linked(), Linked::Wait);
        assert!(c.connected());
        assert!(!c.failed(), "settled already");
        assert!(!c.connected(), "a second session resolves nothing");

        let mut c = Connecting::default();
        assert!(!c.connected(), "no link yet");
        assert_eq!(c.linked(), Linked::Ready);
        assert!(!c.failed());
    }

    #[test]
    fn connect_fails_once_and_a_late_link_closes_again() {
        let mut c = Connecting::default();
        assert!(c.failed());
        assert!(!c.failed());
        assert_eq!(c.linked(), Linked::Close);
        assert!(!c.connected());
    }

    #[test]
    fn a_failure_after_connect_resolved_fails_nothing() {
        let mut c = Connecting::default();
        c.linked();
        assert!(c.connected());
        assert!(!c.failed());
    }
}
