//! mini-swe-agent adapter tests: the real files in `fixtures/real/mini-swe-agent/` snapshotted, with exact counts
//! (counted from the files by an independent script) and every step's cited line checked.

use std::path::Path;

use crate::adapters::testing::{Counts, counts, misplaced_steps, summary};
use crate::adapters::{InputFormat, parse_bytes};

#[test]
fn real_files_snapshot() {
    insta::glob!("../../../fixtures/real/mini-swe-agent", "*.json", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let (format, p) = parse_bytes(text.as_bytes(), "t.json", None);
        assert_eq!(format, Some(InputFormat::MiniSwe), "{}", path.display());
        insta::assert_json_snapshot!(summary(&p));
    });
}

#[test]
fn counts_and_locations_hold_exactly() {
    // (file, calls, results, successes)
    let table = [
        ("legacy-github_issue.traj.json", 10, 10, 7),
        ("legacy-local.traj.json", 2, 2, 1),
        ("toolcall-deterministic.traj.json", 3, 3, 1),
    ];
    for (name, calls, results, ok) in table {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real/mini-swe-agent")
            .join(name);
        let text = std::fs::read_to_string(path).unwrap();
        let (format, p) = parse_bytes(text.as_bytes(), name, None);
        assert_eq!(format, Some(InputFormat::MiniSwe), "{name}");
        assert!(p.issues.is_empty(), "{name}: {:?}", p.issues);
        let c = p
            .traces
            .iter()
            .map(counts)
            .fold(Counts::default(), |a, b| a + b);
        let fine = p
            .traces
            .iter()
            .flat_map(|t| &t.steps)
            .filter(|s| {
                s.as_result()
                    .is_some_and(|r| r.status == crate::model::ResultStatus::Ok)
            })
            .count();
        assert_eq!((c.calls, c.results, fine), (calls, results, ok), "{name}");
        let bad = misplaced_steps(&text, &p.traces);
        assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
    }
}
