//! The records tab coordination stores: merging, the ledger, listings, the memory backend.

use crate::bridge::records::*;
use crate::bridge::scope::Scope;
use crate::protocol::model::TaskStatus;

fn scope() -> Scope {
    Scope::new("https://a/mcp", Some("me"))
}

fn record(task_id: &str, created_at: u64, status: Option<TaskStatus>) -> TaskRecord {
    TaskRecord {
        status,
        ..TaskRecord::new(&scope(), task_id, created_at)
    }
}

#[test]
fn a_fresh_view_keeps_the_stored_ledger_and_answers() {
    let mut old = record("t", 5, Some(TaskStatus::Working));
    old.fired = true;
    old.fired_at = Some(9);
    old.answered_inputs.insert("k1".into());
    let mut new = record("t", 7, Some(TaskStatus::InputRequired));
    new.answered_inputs.insert("k2".into());
    let merged = new.merged_over(Some(old));
    assert_eq!(merged.created_at, 5, "the first sighting");
    assert!(merged.fired);
    assert_eq!(merged.fired_at, Some(9));
    let keys: Vec<&str> = merged.answered_inputs.iter().map(String::as_str).collect();
    assert_eq!(keys, ["k1", "k2"]);
    assert_eq!(merged.status, Some(TaskStatus::InputRequired));
}

#[test]
fn a_stored_end_is_never_replaced_by_an_older_status() {
    let old = record("t", 1, Some(TaskStatus::Completed));
    let merged = record("t", 1, Some(TaskStatus::Working)).merged_over(Some(old.clone()));
    assert_eq!(merged.status, Some(TaskStatus::Completed));
    let failed = record("t", 1, Some(TaskStatus::Failed)).merged_over(Some(old));
    assert_eq!(
        failed.status,
        Some(TaskStatus::Failed),
        "one end over another"
    );
    let first = record("t", 1, None).merged_over(None);
    assert_eq!(first, record("t", 1, None));
}

#[test]
fn only_the_first_claim_wins_the_ledger() {
    let mut r = record("t", 1, None);
    assert!(r.claim(50, 1));
    assert_eq!((r.fired, r.fired_at), (true, Some(50)));
    assert!(!r.claim(60, 2));
    assert_eq!(r.fired_at, Some(50), "the first firing stays");
}

/// A store whose write landed but whose answer was lost runs the edit again on what it wrote:
/// the claim is still the writer's (else nobody fires), never another ledger's.
#[test]
fn a_retried_claim_reading_back_its_own_write_still_wins() {
    let mut landed = record("t", 1, None);
    assert!(landed.claim(50, 7));
    let mut reread = TaskRecord::read(&landed.text()).unwrap();
    assert!(reread.claim(51, 7), "its own write, read back");
    assert_eq!((reread.fired_at, reread.fired_by), (Some(50), Some(7)));
    assert!(!reread.claim(52, 8), "another ledger loses");
    let merged = record("t", 1, None).merged_over(Some(reread));
    assert_eq!(
        (merged.fired, merged.fired_by),
        (true, Some(7)),
        "a leader's merge keeps who fired"
    );
}

#[test]
fn an_edit_reads_the_stored_text_and_writes_its_result() {
    let mut claim: RecordEdit = Box::new(|old| {
        let mut r = old.unwrap_or_else(|| record("t", 3, None));
        r.claim(4, 1);
        Some(r)
    });
    let text = edit_text(None, &mut claim).unwrap();
    let stored = TaskRecord::read(&text).unwrap();
    assert_eq!((stored.fired_at, stored.created_at), (Some(4), 3));
    // An unreadable record reads as none; `None` deletes.
    let mut delete: RecordEdit = Box::new(|old| {
        assert_eq!(old, None);
        None
    });
    assert_eq!(edit_text(Some("{not json".into()), &mut delete), None);
}

#[test]
fn a_listing_holds_the_scopes_readable_records_oldest_first() {
    let other = Scope::new("https://a/mcp", None);
    let texts = [
        record("b", 2, None).text(),
        record("c", 1, None).text(),
        "{\"url\":1}".to_owned(),
        TaskRecord::new(&other, "z", 0).text(),
        record("a", 2, None).text(),
    ];
    let ids: Vec<String> = listing(&texts, &scope())
        .into_iter()
        .map(|r| r.task_id)
        .collect();
    assert_eq!(ids, ["c", "a", "b"]);
}

#[test]
fn session_records_read_back_what_they_wrote() {
    let rec = SessionRecord {
        session: crate::engine::snapshot::SessionSnapshot {
            dialect: crate::protocol::model::Dialect::Modern,
            protocol_version: "2026-07-28".into(),
            session_id: None,
            capabilities: crate::json::json!({}),
            server_info: crate::json::json!({ "name": "s" }),
        },
        saved_at: 12,
    };
    assert_eq!(SessionRecord::read(&rec.text()), Some(rec));
}

#[test]
fn memory_records_insert_replace_scan_and_delete() {
    let mut m = MemoryRecords::default();
    let put = |v: &'static str| move |_: Option<String>| Some(v.to_owned());
    assert_eq!(m.update("task|1", &mut put("a")), Some("a".into()));
    assert_eq!(m.update("task|2", &mut put("b")), Some("b".into()));
    assert_eq!(m.update("session", &mut put("s")), Some("s".into()));
    let mut old = None;
    let mut append = |o: Option<String>| {
        old.clone_from(&o);
        o.map(|o| o + "+")
    };
    assert_eq!(m.update("task|1", &mut append), Some("a+".into()));
    assert_eq!(old.as_deref(), Some("a"));
    assert_eq!(m.scan("task|"), ["a+", "b"]);
    assert_eq!(m.get("session").as_deref(), Some("s"));
    assert_eq!(m.update("task|1", &mut |_| None), None);
    assert_eq!(m.scan("task|"), ["b"]);
    assert_eq!(m.get("task|1"), None);
    assert_eq!(m.update("none", &mut |_| None), None);
    assert_eq!(m.scan(""), ["b", "s"]);
}
