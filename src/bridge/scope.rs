//! Which server and which user a stored record belongs to, and the names of a scope's records.
//!
//! Every key starts with the scope's key, so one server's or one identity's records are never
//! read for another.

/// What every name this package gives a `localStorage` item starts with, so other data in the
/// origin's storage is never touched.
pub const PREFIX: &str = "mcp-task-client/";

/// Which server and which user a record belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub url: String,
    pub identity: Option<String>,
    /// `["url", identity]` as JSON: prefix-free, so no scope's keys are a prefix of another's.
    pub key: String,
}

impl Scope {
    pub fn new(url: &str, identity: Option<&str>) -> Scope {
        let key = crate::json::text(&crate::json::Value::from(vec![Some(url), identity]));
        Scope {
            url: url.to_owned(),
            identity: identity.map(str::to_owned),
            key,
        }
    }

    /// What the keys of the scope's task records start with.
    pub fn task_prefix(&self) -> String {
        ["task|", &self.key, "|"].concat()
    }

    /// The key of `task_id`'s record.
    pub fn task_key(&self, task_id: &str) -> String {
        [&self.task_prefix(), task_id].concat()
    }

    /// The key of the session the scope's tabs share.
    pub fn session_key(&self) -> String {
        ["session|", &self.key].concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_scope_key_is_a_prefix_of_another_scopes() {
        let plain = Scope::new("https://a/mcp", None);
        let user = Scope::new("https://a/mcp", Some("u"));
        let longer = Scope::new("https://a/mcp2", None);
        assert_eq!(plain.key, r#"["https://a/mcp",null]"#);
        for (a, b) in [(&plain, &user), (&plain, &longer), (&user, &longer)] {
            assert!(!b.task_prefix().starts_with(&a.task_prefix()));
            assert!(!a.task_prefix().starts_with(&b.task_prefix()));
            assert_ne!(a.session_key(), b.session_key());
        }
    }

    #[test]
    fn a_task_key_is_under_its_scopes_prefix() {
        let s = Scope::new("https://a/mcp", Some("u"));
        let key = s.task_key("t|1");
        assert_eq!(key, r#"task|["https://a/mcp","u"]|t|1"#);
        assert!(key.starts_with(&s.task_prefix()));
    }
}
