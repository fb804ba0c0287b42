use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use super::download::download;
use super::*;

#[test]
fn targets_name_a_server_and_a_project() {
    let t = Target::parse("phoenix:http://127.0.0.1:6006").unwrap();
    assert_eq!(
        (t.base.as_str(), t.project.as_str()),
        ("http://127.0.0.1:6006", "default")
    );
    let t = Target::parse("phoenix:https://px.example.com/tools/phoenix/projects/my%20agent/").unwrap();
    assert_eq!(t.base, "https://px.example.com/tools/phoenix");
    assert_eq!(t.project, "my agent");
    assert_eq!(t.project_segment(), "my%20agent");
    assert_eq!(
        t.endpoint("span_annotations"),
        "https://px.example.com/tools/phoenix/v1/span_annotations"
    );
    for bad in [
        "phoenix:localhost:6006",
        "phoenix:ftp://h/",
        "phoenix:http:///projects/x",
        "phoenix:http://user:pw@h:1",
        "phoenix:http://h:1/projects/",
        "phoenix:http://h:1?x=1",
    ] {
        assert!(Target::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn instants_are_dates_times_or_ages() {
    let now = 1_800_000_000 * 1_000_000_000i128;
    assert_eq!(parse_instant("24h", now), Ok(now - 86_400 * 1_000_000_000));
    assert_eq!(parse_instant("90m", now), Ok(now - 5_400 * 1_000_000_000));
    assert_eq!(
        parse_instant("2026-07-01", now),
        parse_instant("2026-07-01T00:00:00Z", now)
    );
    assert_eq!(
        parse_instant("1970-01-01T00:00:01Z", now),
        Ok(1_000_000_000)
    );
    assert!(parse_instant("yesterday", now).is_err());
    assert!(parse_instant("99999999d", now).is_err());
}

#[test]
fn percent_escapes_round_trip() {
    let name = "a b/ü%";
    assert_eq!(percent_decode(&percent_encode(name)), name);
    assert_eq!(percent_decode("50%zz"), "50%zz");
}

/// A loopback server answering each request with the next canned (status, body); the request
/// lines it saw are returned when it is joined.
fn serve(replies: Vec<(u16, String)>) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for (status, body) in replies {
            let Ok((stream, _)) = listener.accept() else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            seen.push(line.trim().to_owned());
            let mut length = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut sink = vec![0; length];
            reader.read_exact(&mut sink).unwrap();
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        seen
    });
    (url, handle)
}

fn span(id: &str) -> serde_json::Value {
    serde_json::json!({"name": "t", "context": {"trace_id": "ab", "span_id": id}, "span_kind": "TOOL",
        "start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T00:00:01Z",
        "status_code": "OK", "attributes": {"tool.name": "t"}})
}

fn page(ids: &[&str], next: Option<&str>) -> (u16, String) {
    let data: Vec<_> = ids.iter().map(|i| span(i)).collect();
    (
        200,
        serde_json::json!({"data": data, "next_cursor": next}).to_string(),
    )
}

#[test]
fn download_follows_cursors_and_keeps_span_ids_by_line() {
    let (url, server) = serve(vec![
        page(&["s1", "s2"], Some("c/1")),
        page(&["s3"], None),
    ]);
    let target = Target::parse(&format!("phoenix:{url}/projects/p q")).unwrap();
    let opts = Options {
        since: Some(0),
        ..Options::default()
    };
    let d = download(&target, &opts).unwrap();
    assert_eq!(d.pages, 2);
    assert_eq!(
        (d.span_at(1), d.span_at(3), d.span_at(4), d.span_at(0)),
        (Some("s1"), Some("s3"), None, None)
    );
    let text = std::fs::read_to_string(d.file.path()).unwrap();
    assert_eq!(text.lines().count(), 3);
    let seen = server.join().unwrap();
    assert_eq!(
        seen,
        [
            "GET /v1/projects/p%20q/spans?limit=500&start_time=1970-01-01T00%3A00%3A00.000000000Z HTTP/1.1",
            "GET /v1/projects/p%20q/spans?limit=500&start_time=1970-01-01T00%3A00%3A00.000000000Z&cursor=c%2F1 HTTP/1.1"
        ]
    );
    let path = d.file.path().to_path_buf();
    drop(d);
    assert!(!path.exists(), "the download is removed when dropped");
}

fn fails(replies: Vec<(u16, String)>, bounds: Bounds) -> String {
    let (url, _server) = serve(replies);
    let target = Target::parse(&format!("phoenix:{url}")).unwrap();
    let opts = Options {
        bounds,
        ..Options::default()
    };
    match download(&target, &opts) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.0.replace(&url, "URL"),
    }
}

#[test]
fn server_errors_and_unbounded_replies_are_said() {
    let b = Bounds::default();
    insta::assert_snapshot!(
        fails(vec![(404, r#"{"detail":"Project with name x not found"}"#.into())], b),
        @"phoenix:URL: 404 Not Found from GET URL/v1/projects/default/spans?limit=…: Project with name x not found"
    );
    insta::assert_snapshot!(
        fails(vec![(401, "no".into())], b),
        @"phoenix:URL: 401 Unauthorized from GET URL/v1/projects/default/spans?limit=…: no; set PHOENIX_API_KEY to a Phoenix API key"
    );
    insta::assert_snapshot!(
        fails(vec![page(&["a"], Some("x")), page(&["b"], Some("x"))], b),
        @"phoenix:URL: the server repeated a page cursor; stopped instead of reading forever"
    );
    insta::assert_snapshot!(
        fails(vec![page(&[], Some("x"))], b),
        @"phoenix:URL: the server sent an empty page with a cursor to another; stopped instead of reading forever"
    );
    insta::assert_snapshot!(
        fails(vec![page(&["a", "b"], None)], Bounds { max_total_bytes: 300, ..b }),
        @"phoenix:URL: the spans are larger than 300 bytes in all; narrow the window with --since/--until"
    );
    insta::assert_snapshot!(
        fails(vec![page(&["a", "b", "c"], None)], Bounds { max_spans: 2, ..b }),
        @"phoenix:URL: more than 2 spans; narrow the window with --since/--until"
    );
    insta::assert_snapshot!(
        fails(vec![page(&["a"], None)], Bounds { max_page_bytes: 64, ..b }),
        @"phoenix:URL: the reply to GET URL/v1/projects/default/spans?limit=… is larger than 64 bytes"
    );
    insta::assert_snapshot!(
        fails(vec![(200, "<html>".into())], b),
        @"phoenix:URL: the reply to GET URL/v1/projects/default/spans?limit=… is not JSON (expected value at line 1 column 1); is this a Phoenix server?"
    );
    insta::assert_snapshot!(
        fails(vec![(200, r#"{"data": [], "next_cursor": null}"#.into())], b),
        @"phoenix:URL: the project `default` holds no span"
    );
    insta::assert_snapshot!(
        fails(vec![(200, format!("{}{}", "[".repeat(200), "]".repeat(200)))], b),
        @"phoenix:URL: the reply to GET URL/v1/projects/default/spans?limit=… is not JSON (recursion limit exceeded at line 1 column 128); is this a Phoenix server?"
    );
    insta::assert_snapshot!(
        fails(vec![(200, r#"{"data": [1]}"#.into())], b),
        @"phoenix:URL: span 1 of the reply is not an object"
    );
    insta::assert_snapshot!(
        fails(vec![page(&["a"], None)], Bounds { max_span_bytes: 10, ..b }),
        @"phoenix:URL: span 1 is larger than 10 bytes (--max-record-size)"
    );
    let (url, server) = serve(vec![]);
    drop(server.join());
    let target = Target::parse(&format!("phoenix:{url}")).unwrap();
    let e = download(&target, &Options::default()).err().unwrap().0;
    assert!(e.contains("cannot reach") && e.contains("is Phoenix running there?"), "{e}");
}

/// The sample report's findings as annotations, every line of input 0 a span (`s1`, `s2`, …)
/// except line 2, which has no span id; plus a second R1 on the first R1's span.
fn sample_annotations(include_candidates: bool) -> (Vec<serde_json::Value>, usize) {
    let mut report = crate::reporters::sample::report();
    let mut again = report.findings[0].clone();
    again.message = "/reason: \"not_shipped\" is not one of [\"damaged\",\"late\"]".into();
    report.findings.insert(1, again);
    let (file, _) = download::TempFile::create().unwrap();
    let d = download::Download {
        file,
        span_ids: (1..=40)
            .map(|l| (l != 2).then(|| format!("s{l}")))
            .collect(),
        pages: 1,
    };
    let (mut all, unplaced) = annotate::annotations(&report, 0, &d, include_candidates);
    for a in &mut all {
        // The version changes with each release; the rest is the wire contract.
        a["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("tracelint_version");
    }
    (all, unplaced)
}

#[test]
fn findings_become_annotations_on_their_spans() {
    let (all, unplaced) = sample_annotations(false);
    insta::assert_json_snapshot!(all);
    assert_eq!(unplaced, 0);
    // Candidates only when asked for; the one on line 2 cites no span with an id.
    let (with, unplaced) = sample_annotations(true);
    assert_eq!((with.len(), unplaced), (all.len(), 1));
    // The identifier is the rule and the finding's place among that rule's on its span: stable
    // across runs, distinct within a span.
    let keys: std::collections::HashSet<(String, String)> = all
        .iter()
        .map(|a| {
            (
                a["span_id"].as_str().unwrap().to_owned(),
                a["identifier"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(keys.len(), all.len());
}
