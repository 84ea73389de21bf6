//! A task's life as a caller sees it: poll cadence, input requests, phases, what settles a
//! task, one verdict per task.

mod cadence;
mod inputs;
mod phases;
mod settle;
mod verdicts;
