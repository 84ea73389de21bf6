//! What this server was seen to lack or do differently, remembered for the engine's life: nothing
//! is asked in a loop, nothing waits for what never comes. The engine keeps one [`Quirks`] (in
//! its session); every such finding is a [`Quirk`] in it.

/// A task method the server may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskMethod {
    Listen,
    Get,
    List,
    Cancel,
}

impl TaskMethod {
    pub(super) fn name(self) -> &'static str {
        match self {
            TaskMethod::Listen => "subscriptions/listen",
            TaskMethod::Get => "tasks/get",
            TaskMethod::List => "tasks/list",
            TaskMethod::Cancel => "tasks/cancel",
        }
    }
}

/// One thing a server was seen to lack or do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quirk {
    /// It answered "method not found" to a task method (see `absent.rs`).
    Lacks(TaskMethod),
    /// It has no `tools/list`: calls go on without the tools' word.
    NoToolsList,
    /// It answers, or closes, a running task's `tasks/result` at once: it does not hold it
    /// (see `results.rs`).
    NoHeldResult,
    /// Its held `tasks/result` brings a task's end later than its pushes (see `race.rs`).
    HeldResultLags,
    /// Its held `tasks/result` brought a task's end before a fresh request could.
    HeldResultPrompt,
    /// It answers a request with HTTP 202 and no response, sending the response on another
    /// stream (see `accepted.rs`).
    AcceptsRequests,
}

impl Quirk {
    fn bit(self) -> u16 {
        let n = match self {
            Quirk::Lacks(m) => m as u8,
            Quirk::NoToolsList => 4,
            Quirk::NoHeldResult => 5,
            Quirk::HeldResultLags => 6,
            Quirk::HeldResultPrompt => 7,
            Quirk::AcceptsRequests => 8,
        };
        1 << n
    }
}

/// The quirks seen so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Quirks(u16);

impl Quirks {
    pub(crate) fn has(self, q: Quirk) -> bool {
        self.0 & q.bit() != 0
    }

    pub(crate) fn insert(&mut self, q: Quirk) {
        self.0 |= q.bit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_quirk_is_remembered_apart() {
        let all = [
            Quirk::Lacks(TaskMethod::Listen),
            Quirk::Lacks(TaskMethod::Get),
            Quirk::Lacks(TaskMethod::List),
            Quirk::Lacks(TaskMethod::Cancel),
            Quirk::NoToolsList,
            Quirk::NoHeldResult,
            Quirk::HeldResultLags,
            Quirk::HeldResultPrompt,
            Quirk::AcceptsRequests,
        ];
        for (i, q) in all.iter().enumerate() {
            let mut seen = Quirks::default();
            seen.insert(*q);
            for (j, other) in all.iter().enumerate() {
                assert_eq!(seen.has(*other), i == j, "{q:?} vs {other:?}");
            }
        }
    }
}
