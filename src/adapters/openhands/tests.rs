//! OpenHands adapter tests: the real files in `fixtures/real/openhands/` snapshotted, with exact counts
//! (counted from the files by an independent script) and every step's cited line checked.

use crate::adapters::testing::{check_real_counts, summary};
use crate::adapters::{InputFormat, parse_bytes};

#[test]
fn real_files_snapshot() {
    insta::glob!("../../../fixtures/real/openhands", "*.json", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let (format, p) = parse_bytes(text.as_bytes(), "t.json", None);
        assert_eq!(format, Some(InputFormat::OpenHands), "{}", path.display());
        insta::assert_json_snapshot!(summary(&p));
    });
}

#[test]
fn counts_and_locations_hold_exactly() {
    // (file, calls, results, successes)
    check_real_counts(
        "openhands",
        InputFormat::OpenHands,
        &[
            ("basic.json", 2, 1, 0),
            ("basic_interactions.json", 1, 0, 0),
            ("wrong_initial_state.json", 4, 3, 1),
        ],
    );
}
