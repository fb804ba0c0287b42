//! How R2a–R5 scale with trace length (SPEC §9: every rule near-linear). Not a test: it
//! generates one realistic trace of 500, 5,000 and 50,000 steps (deterministically), times each
//! rule alone (the fastest of several interleaved runs, each started with cold caches: the
//! machine is shared, and interference only ever adds time) and prints the times and the growth exponent from 5,000
//! to 50,000 steps (1.0 = linear; the contract is ≤ 1.1).
//!
//!     cargo bench --bench rules

#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tracelint::finding::RuleId;
use tracelint::model::{
    Args, CallOrigin, InputRef, Location, Message, ResultStatus, Role, StepKind, StepMeta,
    ToolCall, ToolRegistry, ToolResult, Trace,
};
use tracelint::rules::{RunCx, Selection, TraceCx, run};

const SIZES: [usize; 3] = [500, 5_000, 50_000];
/// Sizes when run by `cargo test --all-targets` (no `--bench` argument): a smoke run only.
const SMOKE_SIZES: [usize; 3] = [50, 100, 200];
/// Timing rounds (`BENCH_ROUNDS` overrides); the fastest run of each rule at each size is kept.
const ROUNDS: usize = 20;
const RULES: [RuleId; 5] = [RuleId::R2a, RuleId::R2b, RuleId::R3, RuleId::R4, RuleId::R5];

/// The corpus generator's xorshift and words (`examples/gen_corpus/rng.rs`), so every run lints
/// the same trace.
#[path = "../examples/gen_corpus/rng.rs"]
mod rng;
use rng::Rng;

/// The order desk's words: the first 24 of the generator's.
const WORDS: &[&str] = rng::WORDS.split_at(24).0;

/// One agent run: a user request, then call/result pairs over a handful of tools, with ids
/// carried from results into later arguments, some made up, some failures, and some repeats.
fn trace(steps: usize, note_words: u64) -> (Trace, ToolRegistry) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut t = Trace::new(
        "bench",
        InputRef {
            path: "bench.json".into(),
            format: "native".into(),
        },
    );
    let at = Location::default;
    t.push(
        StepKind::Message(Message {
            role: Role::User,
            content: "Please sort out the open orders of customer cus_4410 and refund order 4521."
                .into(),
        }),
        at(),
        StepMeta::default(),
    );
    let tools = [
        "get_order",
        "search_orders",
        "get_shipping_status",
        "refund_order",
        "bash",
    ];
    let mut known_ids: Vec<String> = vec!["4521".into()];
    let mut call = 0usize;
    let mut last: Option<(String, Value, Value)> = None;
    while t.steps().len() + 2 <= steps {
        call += 1;
        let id = format!("c{call}");
        // A fifth of the calls repeat the previous call (loops, redundant calls).
        let (name, args, content) = match (&last, rng.below(5)) {
            (Some(prev), 0) => prev.clone(),
            _ => {
                let name = tools[rng.below(tools.len() as u64) as usize].to_string();
                let order = if rng.below(10) == 0 {
                    format!("{}", 10_000 + rng.below(90_000)) // made up
                } else {
                    known_ids[rng.below(known_ids.len() as u64) as usize].clone()
                };
                let args = match name.as_str() {
                    "bash" => json!({"command": format!("grep -rn {order} logs/")}),
                    "search_orders" => json!({"query": format!("customer:cus_4410 order:{order}")}),
                    _ => json!({"order_id": order, "request_id": format!("req-{call}")}),
                };
                let new_id = format!("{}", 100_000 + rng.below(900_000));
                known_ids.push(new_id.clone());
                let mut text = String::new();
                // Most results are short; one in five is long, like a file read or a log.
                let words = if rng.below(5) == 0 {
                    10 * note_words + rng.below(10 * note_words)
                } else {
                    note_words + rng.below(note_words + 8)
                };
                for _ in 0..words {
                    text.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
                    text.push(' ');
                }
                let content = json!({
                    "order_id": new_id,
                    "status": WORDS[rng.below(4) as usize],
                    "total": format!("{}.{:02}", rng.below(5000), rng.below(100)),
                    "note": text,
                });
                (name, args, content)
            }
        };
        t.push(
            StepKind::ToolCall(ToolCall {
                call_id: Some(id.clone()),
                name: name.clone(),
                args: Args::Known(args.clone()),
                raw_args: None,
                origin: CallOrigin::Model,
            }),
            at(),
            StepMeta::default(),
        );
        let status = if rng.below(25) == 0 {
            ResultStatus::Error
        } else {
            ResultStatus::Ok
        };
        t.push(
            StepKind::ToolResult(ToolResult::new(Some(id), content.clone(), status)),
            at(),
            StepMeta::default(),
        );
        last = Some((name, args, content));
    }
    let registry = tracelint::sources::file::parse_tools_value(
        &json!({"tools": {
            "get_order": {"schema": {"type": "object", "properties": {"order_id": {"type": "string", "x-value-origin": "provided"}}},
                          "metadata": {"side_effecting": false}},
            "search_orders": {"metadata": {"side_effecting": false, "paginated": true}},
            "get_shipping_status": {"metadata": {"side_effecting": false}},
            "refund_order": {"metadata": {"side_effecting": true}},
        }}),
        "bench-tools.json",
    )
    .expect("bench tools");
    (t, registry)
}

/// Bytes written between timed runs to push the previous run's data out of the caches (twice
/// this machine's last-level cache is plenty): each run then starts cold, as one pass over a
/// trace does, instead of the small sizes finding their whole working set still cached from the
/// run before.
const EVICT_BYTES: usize = 64 << 20;

fn evict(buffer: &mut [u8], round: u8) {
    for chunk in buffer.chunks_mut(64) {
        chunk[0] = chunk[0].wrapping_add(round);
    }
    std::hint::black_box(&buffer);
}

/// One timed run of one rule (wall clock).
fn time_once(rule: RuleId, cx: &TraceCx<'_>) -> Duration {
    let selection = Selection::new(&[rule], &[]);
    let start = Instant::now();
    let outcome = run(cx, &selection);
    let elapsed = start.elapsed();
    std::hint::black_box(outcome);
    elapsed
}

/// A baseline that does no rule work: visit every step and touch its content, to show what
/// merely walking a trace of this size costs on this machine (cache and memory effects).
fn walk(trace: &Trace) -> Duration {
    let start = Instant::now();
    let mut n = 0usize;
    for s in trace.steps() {
        n += match &s.kind {
            StepKind::ToolResult(r) => r.content.to_string().len(),
            StepKind::ToolCall(c) => c.name.len(),
            StepKind::Message(m) => m.content.len(),
        };
    }
    std::hint::black_box(n);
    start.elapsed()
}

fn main() {
    // Words in a short result's free-text note (default 12: ~100–250 bytes; a long one, one
    // result in five, has ten times as many: ~1–2 KB).
    let note_words: u64 = std::env::var("BENCH_NOTE_WORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    // BENCH_RULES=R3,R4 times only those (for profiling).
    let only = std::env::var("BENCH_RULES").ok();
    let run_cx = RunCx::default();
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not, and gets a smoke run.
    let full = std::env::args().any(|a| a == "--bench");
    let sizes = if full { SIZES } else { SMOKE_SIZES };
    let traces: Vec<(Trace, ToolRegistry)> = sizes.iter().map(|s| trace(*s, note_words)).collect();
    let cxs: Vec<TraceCx<'_>> = traces
        .iter()
        .map(|(t, r)| TraceCx::new(t, r, &run_cx))
        .collect();
    // Rounds over every size and rule, keeping each one's fastest time: interference from other
    // work on a shared machine only ever adds time, and interleaving spreads it over all sizes.
    let mut best = vec![vec![Duration::MAX; RULES.len() + 1]; sizes.len()];
    let mut scratch = vec![0u8; if full { EVICT_BYTES } else { 1 << 16 }];
    let rounds = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { ROUNDS } else { 1 });
    for round in 0..rounds {
        for (i, cx) in cxs.iter().enumerate() {
            if round >= 3 && sizes[i] < 50_000 && round % 2 == 1 {
                continue;
            }
            for (j, rule) in RULES.iter().enumerate() {
                if only.as_ref().is_some_and(|o| !o.contains(rule.as_str())) {
                    continue;
                }
                evict(&mut scratch, round as u8);
                best[i][j] = best[i][j].min(time_once(*rule, cx));
            }
            evict(&mut scratch, round as u8);
            best[i][RULES.len()] = best[i][RULES.len()].min(walk(cx.trace));
        }
    }
    let rows: Vec<(usize, usize, Vec<Duration>)> = traces
        .iter()
        .zip(best)
        .map(|((t, _), times)| (t.steps().len(), t.call_count(), times))
        .collect();
    print!("{:>8} {:>8}", "steps", "calls");
    for r in RULES {
        print!(" {:>10}", r.as_str());
    }
    println!(" {:>10}", "walk");
    for (steps, calls, times) in &rows {
        print!("{steps:>8} {calls:>8}");
        for t in times {
            print!(" {:>8.2}ms", t.as_secs_f64() * 1e3);
        }
        println!();
    }
    let (mid, big) = (&rows[1], &rows[2]);
    let ratio = (big.0 as f64).ln() - (mid.0 as f64).ln();
    if !full {
        println!("(a smoke run: `cargo bench --bench rules` measures 500, 5,000 and 50,000 steps)");
        return;
    }
    print!("exponent 5,000 → 50,000 steps:");
    for (i, r) in RULES.iter().enumerate() {
        let e = (big.2[i].as_secs_f64().ln() - mid.2[i].as_secs_f64().ln()) / ratio;
        print!(
            " {} {e:.2}{}",
            r.as_str(),
            if e <= 1.1 { "" } else { " (over 1.1!)" }
        );
    }
    println!();
}
