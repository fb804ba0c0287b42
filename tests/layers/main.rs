//! The house without circles: reads every `src/**/*.rs` as text, resolves each `use crate::…`,
//! `use super::…`, `use self::…`, relative `use child::…` and in-code path (`crate::x::Y`,
//! `super::f`, `child::g`) to the file that defines what it names, and checks that (a) no two
//! files depend on each other, directly or round a loop (no strongly connected component of more
//! than one file), and (b) no file imports one of a higher layer (`LAYERS` below).
//!
//! How the edges are counted. A `mod child;` declaration is not an edge, and neither is a `pub
//! use` re-export: a name re-exported by a `mod.rs` is followed to the file that defines it, so a
//! parent that only declares and re-exports its children is no circle. A parent that *uses* a
//! child (calls it, names its types) while the child uses an item defined in the parent's own
//! file is a circle: the shared item belongs in a file of its own. Code compiled only for tests
//! (`#[cfg(test)]` modules and items, the files they declare) is left out: tests are leaves that
//! nothing imports, and may use any layer. Comments and string literals are ignored. A failure
//! lists every circle and every upward import with the files involved.
//!
//! A file's layer is that of the longest prefix in `LAYERS` that names it; a file may import
//! files of its own layer (without circles) and of the layers its entry lists.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod graph;
mod tokens;

use graph::Graph;

/// Each layer: its name, the `src/` files and folders it holds, and the layers it may import
/// (besides itself). From the bottom up:
///
/// - `base`: the exit-code contract, "did you mean" and SHA-256, which import nothing of the
///   crate;
/// - `model`: the canonical trace and registry, findings, compiled schemas and record quality;
/// - `io`: INPUT arguments to files, and opening them;
/// - `adapters`: input formats → the model, above the model only;
/// - `sources`: tools files, MCP servers, built-in catalogues → a registry; above the adapters
///   only because `tools lint` also reads the tools a trace embeds;
/// - `expect`: expectations files and their verdicts (they read reference traces and the
///   `failure_when` language of tools files);
/// - `analysis`: what the rules share, with the per-trace context;
/// - `rules`: one file per rule;
/// - `reporters`: a finished report to text, JSON, SARIF, HTML, GitHub; above the model only,
///   never rules, adapters or sources;
/// - `config`: `tracelint.toml` and baselines;
/// - `lint`: one trace through the selected rules, and the report builder;
/// - `pipeline`: inputs → adapters → rules in parallel → an ordered report;
/// - `features`: the subcommands' own machinery (`init`, `infer`, `doctor`, the MCP proxy, the
///   scorecard, the demo, the agent hooks, the Phoenix download and annotations);
/// - `api`: the library API, the command line and the binary.
const LAYERS: &[(&str, &[&str], &[&str])] = &[
    ("base", &["digest.rs", "exit.rs", "suggest.rs"], &[]),
    (
        "model",
        &["model/", "finding.rs", "record.rs", "chain.rs"],
        &["base"],
    ),
    ("io", &["inputs.rs"], &["model", "base"]),
    ("adapters", &["adapters/"], &["io", "model", "base"]),
    (
        "sources",
        &["sources/"],
        &["adapters", "io", "model", "base"],
    ),
    (
        "expect",
        &["expect/"],
        &["adapters", "sources", "io", "model", "base"],
    ),
    ("analysis", &["analysis/"], &["expect", "model", "base"]),
    (
        "rules",
        &["rules/"],
        &["analysis", "expect", "model", "base"],
    ),
    ("reporters", &["reporters/"], &["model", "base"]),
    (
        "config",
        &["config.rs", "baseline/"],
        &[
            "reporters",
            "rules",
            "expect",
            "sources",
            "adapters",
            "io",
            "model",
            "base",
        ],
    ),
    (
        "lint",
        &["lint/"],
        &[
            "config",
            "reporters",
            "rules",
            "analysis",
            "expect",
            "sources",
            "adapters",
            "io",
            "model",
            "base",
        ],
    ),
    (
        "pipeline",
        &["pipeline/"],
        &[
            "lint",
            "config",
            "reporters",
            "rules",
            "analysis",
            "expect",
            "sources",
            "adapters",
            "io",
            "model",
            "base",
        ],
    ),
    (
        "features",
        &[
            "infer.rs",
            "init.rs",
            "doctor/",
            "proxy/",
            "scorecard/",
            "demo/",
            "hook/",
            "phoenix/",
        ],
        &[
            "pipeline",
            "lint",
            "config",
            "reporters",
            "rules",
            "analysis",
            "expect",
            "sources",
            "adapters",
            "io",
            "model",
            "base",
        ],
    ),
    (
        "api",
        &[
            "api/",
            "cli/",
            "commands/",
            "lib.rs",
            "main.rs",
            "fuzzing.rs",
        ],
        &[
            "features",
            "pipeline",
            "lint",
            "config",
            "reporters",
            "rules",
            "analysis",
            "expect",
            "sources",
            "adapters",
            "io",
            "model",
            "base",
        ],
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn layer_of(file: &str) -> Option<&'static str> {
    LAYERS
        .iter()
        .flat_map(|(name, prefixes, _)| prefixes.iter().map(move |p| (*name, *p)))
        .filter(|(_, p)| file == *p || (p.ends_with('/') && file.starts_with(p)))
        .max_by_key(|(_, p)| p.len())
        .map(|(name, _)| name)
}

fn may_import(from: &str, to: &str) -> bool {
    from == to
        || LAYERS
            .iter()
            .any(|(name, _, allowed)| *name == from && allowed.contains(&to))
}

#[test]
fn every_source_file_has_a_layer() {
    let graph = Graph::read(&src());
    let missing: Vec<&String> = graph.files().filter(|f| layer_of(f).is_none()).collect();
    assert!(
        missing.is_empty(),
        "files in no layer of tests/layers/main.rs: {missing:?}"
    );
}

#[test]
fn no_import_circles() {
    let graph = Graph::read(&src());
    let circles = graph.circles();
    let mut text = String::new();
    for circle in &circles {
        text.push_str(&format!("circle of {} files:\n", circle.len()));
        for file in circle {
            let inside: Vec<String> = graph
                .edges_from(file)
                .filter(|(to, _)| circle.contains(to))
                .map(|(to, why)| format!("{to} ({why})"))
                .collect();
            text.push_str(&format!("  {file} -> {}\n", inside.join(", ")));
        }
    }
    assert!(circles.is_empty(), "{text}");
}

#[test]
fn no_import_of_a_higher_layer() {
    let graph = Graph::read(&src());
    let mut upward: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for (from, to, why) in graph.edges() {
        let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) else {
            continue;
        };
        if !may_import(a, b) {
            upward
                .entry((a, b))
                .or_default()
                .push(format!("{from} -> {to} ({why})"));
        }
    }
    let text: String = upward
        .iter()
        .map(|((a, b), lines)| format!("{a} imports {b}:\n  {}\n", lines.join("\n  ")))
        .collect();
    assert!(upward.is_empty(), "{text}");
}

#[test]
fn the_check_sees_a_planted_circle() {
    // Two files that use each other, and a parent whose children use what it defines while it
    // calls them: both are circles; a parent that only re-exports its child is not.
    let dir = std::env::temp_dir().join(format!("tracelint-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("p")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod p;\nmod q;\n");
    write("a.rs", "use crate::b::B;\npub(crate) struct A;\n");
    write("b.rs", "pub(crate) struct B;\nfn f() { crate::a::A; }\n");
    write(
        "p/mod.rs",
        "mod c;\npub(crate) struct Shared;\nfn g() { c::run(); }\n",
    );
    write("p/c.rs", "use super::Shared;\npub(crate) fn run() {}\n");
    std::fs::create_dir_all(dir.join("q")).unwrap();
    write("q/mod.rs", "mod d;\npub(crate) use d::D;\n");
    write(
        "q/d.rs",
        "pub(crate) struct D;\n#[cfg(test)]\nmod tests { use crate::q::D; }\n",
    );
    let circles = Graph::read(&dir).circles();
    std::fs::remove_dir_all(&dir).unwrap();
    let names: Vec<Vec<&str>> = circles
        .iter()
        .map(|c| c.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        names,
        vec![vec!["a.rs", "b.rs"], vec!["p/c.rs", "p/mod.rs"]]
    );
}

#[test]
fn the_contributing_map_names_files_that_exist() {
    // Every concrete `src/…` or `tests/…` path in CONTRIBUTING.md (placeholders such as
    // `rN_name.rs` or `<format>` aside) is a file or folder of the repository.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("CONTRIBUTING.md")).unwrap();
    let mut missing = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path = quoted.split_whitespace().next().unwrap_or_default();
        let concrete = !path.contains(['<', '…', '*'])
            && !path.contains("rN_")
            && !path.contains("TN.")
            && !path.contains("RN.");
        if (path.starts_with("src/") || path.starts_with("tests/"))
            && concrete
            && !root.join(path).exists()
        {
            missing.push(path.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md names paths that do not exist: {missing:?}"
    );
}
