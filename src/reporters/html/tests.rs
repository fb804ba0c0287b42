use std::collections::BTreeSet;

use super::build::segments;
use super::*;
use crate::reporters::sample;

fn html() -> String {
    let mut out = Vec::new();
    render(&sample::report(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn trace_content_is_escaped() {
    let page = html();
    assert!(!page.contains("<img"), "raw markup from a trace");
    assert!(!page.contains("<script"), "a script element");
    assert!(page.contains("&#60;img src=x onerror=") || page.contains("&lt;img src=x"));
    // Invisible and control characters are shown, not passed through.
    assert!(!page.contains('\u{1b}') && !page.contains('\u{202e}'));
    assert!(page.contains(r"\x1b[31mred\u{202e}rtl"));
}

#[test]
fn self_contained() {
    let page = html();
    for external in ["http://", "https://", "src=\"", "<link", "@import", "url("] {
        assert!(!page.contains(external), "{external} in the page");
    }
    assert!(page.contains("Content-Security-Policy"));
}

#[test]
fn discloses_everything() {
    let page = html();
    for needle in [
        "legacy traces replayed on purpose",
        "the schema has a remote `$ref` (not fetched)",
        "missing.json",
        "no such file or directory",
        "tracelint.toml:12 (R5)",
        "step 5",
        "charge_card {&#34;amount&#34;:1200}",
        r#"<td data-label="rule">R1</td><td data-label="decided" class="num">6</td><td data-label="of" class="num">8</td>"#,
    ] {
        assert!(page.contains(needle), "{needle} missing");
    }
    for tier in ["hard_defect", "hard_event", "candidate"] {
        assert!(
            page.contains(&format!("id=\"show-{tier}\"")),
            "{tier} filter"
        );
    }
}

#[test]
fn backtick_spans_are_code_and_still_escaped() {
    let seg = |text: &str, code| Seg {
        text: text.into(),
        code,
    };
    assert_eq!(
        segments("tool `a<b>` failed"),
        [
            seg("tool ", false),
            seg("a<b>", true),
            seg(" failed", false)
        ]
    );
    // An unpaired backtick is shown as it is, and so are the others then.
    assert_eq!(segments("a ` b `c` d"), [seg("a ` b `c` d", false)]);
    let page = html();
    assert!(
        page.contains("<code>charge_card</code> failed: HTTP 502"),
        "{page}"
    );
    assert!(!page.contains("`charge_card`"));
    // In help and rule summaries too; markup inside a span is text.
    assert!(page.contains("did you mean <code>get_order</code>?"));
    let mut report = sample::report();
    report.findings[0].message = "`<b>x</b>` is wrong".into();
    let mut out = Vec::new();
    render(&report, &mut out).unwrap();
    let page = String::from_utf8(out).unwrap();
    assert!(page.contains("<code>&#60;b&#62;x&#60;/b&#62;</code> is wrong"));
}

/// Every `prefix"…"` value in the page.
fn values<'p>(page: &'p str, prefix: &str) -> Vec<&'p str> {
    page.split(prefix)
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[test]
fn the_timeline_marks_each_finding_on_its_steps_and_links_both_ways() {
    let page = html();
    let ids: BTreeSet<&str> = values(&page, " id=\"").into_iter().collect();
    let links = values(&page, "href=\"#");
    // No link goes nowhere.
    for l in &links {
        assert!(ids.contains(l), "#{l} has no target");
    }
    // The run's steps are listed in order, the finding on step 1 marked there in its tier's
    // colour, the evidence step of the R2a finding marked as evidence, and the finding's
    // evidence links back to the step.
    let steps = values(&page, "<li id=\"");
    assert_eq!(
        steps,
        ["t0-s0", "t0-s1", "t0-s2", "t0-s3", "t0-s5", "t0-s6"]
    );
    assert!(
        page.contains("<li class=\"gap\"><span class=\"idx\"></span>… 1 step(s) not shown …</li>")
    );
    let step1 = &page[page.find("<li id=\"t0-s1\"").unwrap()..];
    let step1 = &step1[..step1.find("</li>").unwrap()];
    assert!(
        step1.contains("class=\"mark hard_defect\" href=\"#f0\">R1</a>"),
        "{step1}"
    );
    assert!(page.contains("class=\"mark evidence\""));
    assert!(links.contains(&"t0-s1") && links.contains(&"t0"));
    // The findings of the other run have no timeline, so no link to one.
    assert!(!links.iter().any(|l| l.starts_with("t1")));
}

#[test]
fn pages_take_extra_tables() {
    let mut page = Page::for_report(&sample::report());
    page.tables.push(Table {
        caption: "validation suite".into(),
        headers: vec!["case".into(), "result".into()],
        rows: vec![vec![
            Cell::text("r1 <planted>"),
            Cell::styled("PASS", "pass"),
        ]],
    });
    let mut out = Vec::new();
    render_page(&page, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("validation suite") && text.contains("r1 &#60;planted&#62;"));
    assert!(text.contains("class=\"pass\""));
}

#[test]
fn a_card_lists_schema_errors_once_not_in_its_message_too() {
    // As R1 writes it: the message is the errors joined by `; `, the details list them.
    let mut report = sample::report();
    let i = report
        .findings
        .iter()
        .position(|f| f.details.len() == 2)
        .unwrap();
    let r1 = &mut report.findings[i];
    r1.message = r1.details.join("; ");
    let details = r1.details.clone();
    let mut out = Vec::new();
    render(&report, &mut out).unwrap();
    let page = String::from_utf8(out).unwrap();
    let start = page.find(&format!("id=\"f{i}\">")).unwrap();
    let card = &page[start..start + page[start..].find("</article>").unwrap()];
    assert!(
        card.contains("<p class=\"msg\">2 errors, listed below</p>"),
        "{card}"
    );
    for d in &details {
        let shown = d
            .replace('&', "&#38;")
            .replace('"', "&#34;")
            .replace('<', "&#60;")
            .replace('>', "&#62;");
        assert_eq!(card.matches(shown.as_str()).count(), 1, "{shown} in {card}");
    }
    // A message that does not repeat its details is left as it is.
    let mut report = sample::report();
    let f = report.findings.iter_mut().find(|f| f.details.len() == 2).unwrap();
    f.message = "the arguments break the schema".into();
    assert_eq!(build::listed_once(f), "the arguments break the schema");
}
