//! mini-swe-agent adapter tests: the real files in `fixtures/real/mini-swe-agent/` snapshotted, with exact counts
//! (counted from the files by an independent script) and every step's cited line checked.

use crate::adapters::testing::{check_real_counts, summary};
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
    check_real_counts(
        "mini-swe-agent",
        InputFormat::MiniSwe,
        &[
            ("legacy-github_issue.traj.json", 10, 10, 7),
            ("legacy-local.traj.json", 2, 2, 1),
            ("toolcall-deterministic.traj.json", 3, 3, 1),
        ],
    );
}
