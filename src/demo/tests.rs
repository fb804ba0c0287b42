use super::*;
use crate::rules::RULES;

#[test]
fn every_file_of_the_folder_is_embedded_and_used() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    on_disk.sort();
    let embedded: Vec<&str> = FILES.iter().map(|(n, _)| *n).collect();
    assert_eq!(on_disk, embedded, "regenerate `FILES` in src/demo/mod.rs");
    for (name, text) in FILES {
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), *text);
    }
    let suite = suite().unwrap();
    for (name, _) in FILES {
        let used = *name == "cases.json"
            || *name == suite.tools
            || suite
                .cases
                .iter()
                .any(|c| c.file == *name || c.tools == *name);
        assert!(used, "{name} is in fixtures/demo but no case uses it");
    }
}

#[test]
fn every_case_behaves_as_expected() {
    let (outcomes, report) = run().unwrap();
    let failing: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.pass())
        .map(|o| {
            format!(
                "{}: expected {} exit {}, got {} exit {}",
                o.case.name,
                show(&o.case.expect),
                o.case.exit,
                show(&o.got),
                o.exit
            )
        })
        .collect();
    assert!(failing.is_empty(), "{failing:#?}");
    assert_eq!(report.inputs.len(), outcomes.len());
}

#[test]
fn the_registry_and_the_suite_agree() {
    // Adding a rule without a planted case fails here.
    let suite = suite().unwrap();
    // E1 checks the expectations a run is given and the suite gives none: its planted, met
    // and undecidable cases are fixtures/rules/e1 (every kind in four input formats). R14's
    // planted flows (a private file posted after a web fetch, in four input formats) are
    // fixtures/rules/r14: the demo agent reads no private files.
    for rule in RULES.iter().filter(|r| {
        !matches!(
            r.meta().id,
            crate::finding::RuleId::E1 | crate::finding::RuleId::R14
        )
    })
    {
        let id = rule.meta().id;
        assert!(
            suite
                .cases
                .iter()
                .any(|c| c.kind == Kind::Planted && c.expect.keys().any(|(r, _)| *r == id)),
            "no planted demo case for {id}: add one to fixtures/demo/cases.json"
        );
    }
    assert!(suite.cases.iter().any(|c| c.kind == Kind::Clean));
    for c in suite.cases.iter().filter(|c| c.kind != Kind::Planted) {
        assert_eq!(
            c.exit, 0,
            "{}: a clean or legitimate case must not fail CI",
            c.name
        );
        assert!(
            c.expect.keys().all(|(_, t)| *t != Tier::HardDefect),
            "{}",
            c.name
        );
        if c.kind == Kind::Clean {
            assert!(
                c.expect.is_empty(),
                "{}: a clean control must be silent",
                c.name
            );
        }
    }
    // The seed's three legitimate-but-suspicious cases are there (SPEC §8).
    for name in [
        "legit-retry-after-503",
        "legit-reformatted-number",
        "legit-idempotency-key",
    ] {
        assert!(
            suite
                .cases
                .iter()
                .any(|c| c.name == name && c.kind == Kind::Legitimate),
            "{name}"
        );
    }
    // Every contract rule has a planted, a clean and a legitimate case in each of the
    // native, OpenAI and OTel inputs.
    for rule in ["r8", "r9", "r10", "r11", "r12", "r13"] {
        for kind in ["planted", "clean", "legit"] {
            for suffix in ["", ".openai", ".otel"] {
                let file = format!("contract-{rule}-{kind}{suffix}.json");
                assert!(suite.cases.iter().any(|c| c.file == file), "{file}");
            }
        }
    }
}
