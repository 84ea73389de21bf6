//! A libFuzzer-free fuzz run for machines without cargo-fuzz: mutates the seed corpora in
//! `fuzz/corpus/<target>/` with a fixed-seed generator and runs the same checks as the fuzz
//! targets. Usage:
//! `cargo run --release --features fuzzing --example fuzz_smoke -- [runs per target] [seed]`.

// A test harness: it indexes only into its own corpus and mutations.
#![allow(clippy::indexing_slicing)]

use std::path::Path;
use std::process::ExitCode;

use mcp_task_client::protocol::fuzz_entry;
use mcp_task_client::protocol::model::Dialect;

type Check = fn(&[u8]) -> Result<(), String>;

const TARGETS: [(&str, Check); 5] = [
    ("sse", fuzz_entry::sse),
    ("jsonrpc", fuzz_entry::jsonrpc),
    ("modern", |d| fuzz_entry::dialect(Dialect::Modern, d)),
    ("legacy", |d| fuzz_entry::dialect(Dialect::Legacy, d)),
    ("draft", |d| fuzz_entry::dialect(Dialect::Draft, d)),
];

/// Byte strings worth splicing in: JSON and SSE syntax, status words, odd numbers.
const TOKENS: &[&[u8]] = &[
    b"\n",
    b"\r",
    b"\r\n",
    b"data: ",
    b"id: ",
    b"retry: ",
    b":",
    b"\xEF\xBB\xBF",
    b"\0",
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"null",
    b"true",
    b"-1",
    b"1e400",
    b"0.5",
    b"\"working\"",
    b"\"failed\"",
    b"\"input_required\"",
    b"\"unknown\"",
    b"\"task\"",
    b"\"taskId\"",
    b"\"status\"",
    b"\"_meta\"",
    b"\xF0\x9F",
    b"\xFF",
];

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    for _ in 0..=rng.below(4) {
        let at = rng.below(input.len() + 1);
        match rng.below(6) {
            0 if at < input.len() => input[at] ^= 1 << rng.below(8),
            1 if at < input.len() => {
                input.remove(at);
            }
            2 => input.insert(at, rng.next() as u8),
            3 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                input.splice(at..at, token.iter().copied());
            }
            4 => input.truncate(at),
            _ => {
                let end = (at + rng.below(16)).min(input.len());
                let copy = input[at..end].to_vec();
                input.splice(at..at, copy);
            }
        }
    }
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path()).ok())
        .collect();
    seeds.push(Vec::new());
    seeds
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0x5EED);
    let mut failed = false;
    for (name, check) in TARGETS {
        let mut rng = Rng(seed | 1);
        let corpus = seeds(name);
        let mut input = Vec::new();
        for run in 0..runs {
            if run % 64 == 0 {
                input.clone_from(&corpus[rng.below(corpus.len())]);
            }
            mutate(&mut rng, &mut input);
            if let Err(broken) = check(&input) {
                eprintln!("{name}: run {run} broke an invariant: {broken}\ninput: {input:?}");
                failed = true;
                break;
            }
        }
        println!("{name}: {runs} runs from {} seeds", corpus.len());
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
