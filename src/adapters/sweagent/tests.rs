//! SWE-agent adapter tests: the real files in `fixtures/real/swe-agent/` snapshotted, with exact counts
//! (counted from the files by an independent script) and every step's cited line checked.

use crate::adapters::testing::{check_real_counts, summary};
use crate::adapters::{InputFormat, parse_bytes};

#[test]
fn real_files_snapshot() {
    insta::glob!("../../../fixtures/real/swe-agent", "*.traj", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let (format, p) = parse_bytes(text.as_bytes(), "t.json", None);
        assert_eq!(format, Some(InputFormat::SweAgent), "{}", path.display());
        insta::assert_json_snapshot!(summary(&p));
    });
}

#[test]
fn counts_and_locations_hold_exactly() {
    // (file, calls, results, successes)
    check_real_counts(
        "swe-agent",
        InputFormat::SweAgent,
        &[
            ("marshmallow-1867-function-calling.traj", 11, 11, 0),
            ("test-repo-i1.traj", 5, 4, 0),
        ],
    );
}
