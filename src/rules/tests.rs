//! Every rule has a doc and a fixture folder `fixtures/rules/<id>/` holding `tools.json` and
//! `fail*` / `pass*` / `suppressed*` traces; each file behaves as its name says, and the
//! findings of every file are snapshotted.
use super::*;
use crate::finding::Tier;
use crate::lint::{Linter, ReportBuilder};
use std::path::Path;

fn folder(id: RuleId) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/rules")
        .join(id.as_str().to_lowercase())
}

#[test]
fn every_rule_has_a_fixture_folder_with_fail_and_pass_cases() {
    for rule in RULES {
        let dir = folder(rule.meta().id);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|_| panic!("missing {}", dir.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with("fail")),
            "{}: no fail case",
            dir.display()
        );
        assert!(
            names.iter().any(|n| n.starts_with("pass")),
            "{}: no pass case",
            dir.display()
        );
    }
}

#[test]
fn rule_fixtures_behave_as_named() {
    insta::glob!("../../fixtures/rules", "*/[fps]*.json*", |path| {
        let dir = path.parent().unwrap();
        let id = RuleId::parse(&dir.file_name().unwrap().to_string_lossy()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let tools = crate::sources::load_file(&dir.join("tools.json"), "tools.json").unwrap();
        let text = std::fs::read(path).unwrap();
        let (_, parsed) = crate::adapters::parse_bytes(&text, &name, None);
        assert!(parsed.issues.is_empty(), "{name}: {:?}", parsed.issues);
        // A folder may carry the expectations its traces are checked against (E1).
        let expect = dir.join("expect.toml");
        let settings = RuleSettings {
            expectations: expect.is_file().then(|| {
                let text = std::fs::read_to_string(&expect).unwrap();
                let file =
                    crate::expect::ExpectFile::from_text_at(&text, "expect.toml", dir).unwrap();
                std::sync::Arc::new(file)
            }),
            ..RuleSettings::default()
        };
        let linter = Linter::new(Some(tools), Selection::default(), settings);
        let mut builder = ReportBuilder::new();
        let input = builder.input(&name);
        for t in &parsed.traces {
            builder.trace(input, linter.lint(t));
        }
        let report = builder.finish(Tier::HardDefect, &[]);
        let of_rule = report.findings.iter().filter(|f| f.rule == id).count();
        let suppressed = report.suppressions.iter().filter(|s| s.rule == id).count();
        match name.chars().next() {
            Some('f') => assert!(of_rule > 0, "{name}: expected a {id} finding"),
            Some('p') => assert_eq!(of_rule, 0, "{name}: expected no {id} finding"),
            _ => assert!(
                of_rule == 0 && suppressed > 0,
                "{name}: expected a {id} suppression and no finding"
            ),
        }
        let mut out = Vec::new();
        let opts = crate::reporters::TextOptions {
            include_candidates: true,
            show_suppressions: true,
            ..Default::default()
        };
        crate::reporters::text::render(&report, opts, &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    });
}
