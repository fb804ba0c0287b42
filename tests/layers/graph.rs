//! The file graph of a crate read as text (tokens from `tokens.rs`): a reader that follows `mod`
//! declarations from `lib.rs` (skipping what is compiled for tests only), `use` trees and
//! in-code paths per module, a resolver that follows `use` bindings and re-exports to the file
//! defining a name, and Tarjan's strongly connected components over the file → file edges.
//! Over 400 lines because the reader, the resolver and the components are one pass over the
//! same module table; split, each part would need the table's internals.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::tokens::{Tok, Use, ident, skip_group, skip_item, tokenize, use_tree};

type ModPath = Vec<String>;

#[derive(Debug, Default)]
struct Module {
    file: String,
    children: BTreeSet<String>,
    uses: Vec<Use>,
    defined: BTreeSet<String>,
    refs: Vec<Vec<String>>,
}

/// The crate's files and the edges between them, each with the path that made it.
pub struct Graph {
    files: BTreeSet<String>,
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

struct Reader<'a> {
    root: &'a Path,
    modules: BTreeMap<ModPath, Module>,
}

impl Reader<'_> {
    fn read_file(&mut self, module: ModPath, file: &Path) {
        let rel = file
            .strip_prefix(self.root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{rel} ({module:?}): {e}"));
        let toks = tokenize(&text);
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let dir = file.parent().unwrap();
        let child_dir = if ["lib", "main", "mod"].contains(&stem.as_str()) {
            dir.to_path_buf()
        } else {
            dir.join(&stem)
        };
        self.modules.insert(
            module.clone(),
            Module {
                file: rel.clone(),
                ..Module::default()
            },
        );
        let mut stack: Vec<(ModPath, i32)> = vec![(module, 0)];
        let (mut depth, mut i) = (0i32, 0usize);
        let (mut test_only, mut path_attr): (bool, Option<String>) = (false, None);
        let mut decls: Vec<(ModPath, std::path::PathBuf)> = Vec::new();
        while i < toks.len() {
            let cur = stack.last().unwrap().0.clone();
            let prev_is_sep_or_dot = i > 0 && matches!(toks[i - 1], Tok::Sep | Tok::Punct('.'));
            match &toks[i] {
                Tok::Punct('#') => {
                    let open = if toks.get(i + 1) == Some(&Tok::Punct('!')) {
                        i + 2
                    } else {
                        i + 1
                    };
                    let end = skip_group(&toks, open);
                    let attr = &toks[open..end];
                    let words: Vec<&str> = attr.iter().filter_map(|t| ident(Some(t))).collect();
                    if words == ["cfg", "test"] {
                        test_only = true;
                    }
                    if words == ["path"] {
                        path_attr = attr.iter().find_map(|t| match t {
                            Tok::Str(s) => Some(s.clone()),
                            _ => None,
                        });
                    }
                    i = end;
                    continue;
                }
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if stack.len() > 1 && stack.last().unwrap().1 == depth {
                        stack.pop();
                    }
                }
                Tok::Ident(kw)
                    if test_only && !["pub", "crate", "super", "in"].contains(&kw.as_str()) =>
                {
                    // `#[cfg(test)]` on this item: leave it out (tests may use anything)
                    test_only = false;
                    path_attr = None;
                    i = skip_item(&toks, i);
                    continue;
                }
                Tok::Ident(kw)
                    if kw == "internal_modules" && toks.get(i + 1) == Some(&Tok::Punct('!')) =>
                {
                    let end = skip_group(&toks, i + 2);
                    for t in &toks[i + 3..end - 1] {
                        if let Tok::Ident(name) = t {
                            self.modules
                                .get_mut(&cur)
                                .unwrap()
                                .children
                                .insert(name.clone());
                            decls.push((push(&cur, name), module_file(&child_dir, name)));
                        }
                    }
                    i = end;
                    continue;
                }
                Tok::Ident(kw) if kw == "mod" && ident(toks.get(i + 1)).is_some() => {
                    let name = ident(toks.get(i + 1)).unwrap_or_default().to_string();
                    let child = push(&cur, &name);
                    self.modules
                        .get_mut(&cur)
                        .unwrap()
                        .children
                        .insert(name.clone());
                    if toks.get(i + 2) == Some(&Tok::Punct('{')) {
                        self.modules.insert(
                            child.clone(),
                            Module {
                                file: rel.clone(),
                                ..Module::default()
                            },
                        );
                        stack.push((child, depth));
                        depth += 1;
                        i += 3;
                    } else {
                        let at = match path_attr.take() {
                            Some(p) => dir.join(p),
                            None => module_file(&child_dir, &name),
                        };
                        decls.push((child, at));
                        i += 3;
                    }
                    continue;
                }
                Tok::Ident(kw) if kw == "use" => {
                    let public = i > 0
                        && (toks[i - 1] == Tok::Ident("pub".into())
                            || toks[i - 1] == Tok::Punct(')'));
                    let mut end = i;
                    while end < toks.len() && toks[end] != Tok::Punct(';') {
                        end = if toks[end] == Tok::Punct('{') {
                            skip_group(&toks, end)
                        } else {
                            end + 1
                        };
                    }
                    end += 1;
                    let mut uses = Vec::new();
                    use_tree(&toks[i + 1..end - 1], &[], public, &mut uses);
                    self.modules.get_mut(&cur).unwrap().uses.extend(uses);
                    i = end;
                    continue;
                }
                Tok::Ident(kw)
                    if [
                        "fn",
                        "struct",
                        "enum",
                        "trait",
                        "type",
                        "const",
                        "static",
                        "union",
                        "macro_rules",
                    ]
                    .contains(&kw.as_str()) =>
                {
                    let at = if kw == "macro_rules" { i + 2 } else { i + 1 };
                    let top = stack.last().unwrap().1 + i32::from(stack.len() > 1);
                    if let Some(name) = ident(toks.get(at))
                        && depth == top
                    {
                        self.modules
                            .get_mut(&cur)
                            .unwrap()
                            .defined
                            .insert(name.to_string());
                    }
                }
                Tok::Ident(first) if !prev_is_sep_or_dot && toks.get(i + 1) == Some(&Tok::Sep) => {
                    let mut path = vec![first.clone()];
                    let mut k = i + 1;
                    while toks.get(k) == Some(&Tok::Sep) {
                        match ident(toks.get(k + 1)) {
                            Some(s) => path.push(s.to_string()),
                            None => break,
                        }
                        k += 2;
                    }
                    self.modules.get_mut(&cur).unwrap().refs.push(path);
                    i = k;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        for (child, at) in decls {
            self.read_file(child, &at);
        }
    }
}

/// `dir/name.rs` or `dir/name/mod.rs`.
fn module_file(dir: &Path, name: &str) -> std::path::PathBuf {
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        flat
    } else {
        dir.join(name).join("mod.rs")
    }
}

fn push(path: &[String], name: &str) -> ModPath {
    let mut p = path.to_vec();
    p.push(name.to_string());
    p
}

impl Graph {
    /// Read the crate whose `lib.rs` is in `root`.
    pub fn read(root: &Path) -> Graph {
        let mut reader = Reader {
            root,
            modules: BTreeMap::new(),
        };
        reader.read_file(Vec::new(), &root.join("lib.rs"));
        let modules = reader.modules;
        let files: BTreeSet<String> = modules.values().map(|m| m.file.clone()).collect();
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let r = Resolver { modules: &modules };
        for (path, module) in &modules {
            let wanted = module
                .uses
                .iter()
                .filter(|u| !u.public)
                .map(|u| &u.path)
                .chain(module.refs.iter());
            for raw in wanted {
                let Some(abs) = r.absolute(path, raw, 0) else {
                    continue;
                };
                if let Some((file, false)) = r.locate(&abs, 0)
                    && file != module.file
                {
                    edges
                        .entry(module.file.clone())
                        .or_default()
                        .entry(file)
                        .or_insert_with(|| raw.join("::"));
                }
            }
        }
        Graph { files, edges }
    }

    pub fn files(&self) -> impl Iterator<Item = &String> {
        self.files.iter()
    }

    pub fn edges(&self) -> impl Iterator<Item = (&String, &String, &String)> {
        self.edges
            .iter()
            .flat_map(|(from, tos)| tos.iter().map(move |(to, why)| (from, to, why)))
    }

    pub fn edges_from<'a>(&'a self, file: &str) -> impl Iterator<Item = (&'a String, &'a String)> {
        self.edges.get(file).into_iter().flat_map(|m| m.iter())
    }

    /// Every strongly connected component of more than one file, each sorted, in order.
    pub fn circles(&self) -> Vec<Vec<String>> {
        let names: Vec<&String> = self.files.iter().collect();
        let index: BTreeMap<&String, usize> =
            names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let adj: Vec<Vec<usize>> = names
            .iter()
            .map(|n| {
                self.edges_from(n)
                    .filter_map(|(to, _)| index.get(to).copied())
                    .collect()
            })
            .collect();
        let mut t = Tarjan {
            adj: &adj,
            index: vec![None; names.len()],
            low: vec![0; names.len()],
            on: vec![false; names.len()],
            stack: Vec::new(),
            next: 0,
            out: Vec::new(),
        };
        for v in 0..names.len() {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        let mut circles: Vec<Vec<String>> = t
            .out
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut files: Vec<String> = c.into_iter().map(|v| names[v].clone()).collect();
                files.sort();
                files
            })
            .collect();
        circles.sort();
        circles
    }
}

impl Module {
    fn has(&self, name: &String) -> bool {
        self.children.contains(name)
            || self.defined.contains(name)
            || self.uses.iter().any(|u| u.name.as_ref() == Some(name))
    }
}

struct Resolver<'a> {
    modules: &'a BTreeMap<ModPath, Module>,
}

impl Resolver<'_> {
    /// The path from the crate root that `raw`, written in `module`, names; `None` outside the
    /// crate (std, dependencies) or for a name of the module's own file.
    fn absolute(&self, module: &ModPath, raw: &[String], hops: u32) -> Option<Vec<String>> {
        let m = self.modules.get(module)?;
        let (first, rest) = raw.split_first()?;
        match first.as_str() {
            "crate" => Some(rest.to_vec()),
            "self" => Some([module.as_slice(), rest].concat()),
            "super" => {
                let parent = module.split_last()?.1.to_vec();
                if rest.first().map(String::as_str) == Some("super") {
                    self.absolute(&parent, rest, hops)
                } else {
                    Some([parent.as_slice(), rest].concat())
                }
            }
            _ if m.children.contains(first) => Some([module.as_slice(), raw].concat()),
            _ if hops < 16 => {
                let bound = m.uses.iter().find(|u| u.name.as_ref() == Some(first))?;
                let base = self.absolute(module, &bound.path, hops + 1)?;
                Some([base.as_slice(), rest].concat())
            }
            _ => None,
        }
    }

    /// The file defining what the absolute path names, and whether it names a module itself.
    fn locate(&self, abs: &[String], hops: u32) -> Option<(String, bool)> {
        let mut cur: ModPath = Vec::new();
        for (i, seg) in abs.iter().enumerate() {
            let m = self.modules.get(&cur)?;
            if m.children.contains(seg) {
                cur.push(seg.clone());
                continue;
            }
            if hops < 16 && !m.defined.contains(seg) {
                if let Some(u) = m.uses.iter().find(|u| u.name.as_ref() == Some(seg)) {
                    let base = self.absolute(&cur, &u.path, 0)?;
                    return self.locate(&[base.as_slice(), &abs[i + 1..]].concat(), hops + 1);
                }
                for glob in m.uses.iter().filter(|u| u.name.is_none()) {
                    let Some(base) = self.absolute(&cur, &glob.path, 0) else {
                        continue;
                    };
                    if self.modules.get(&base).is_some_and(|g| g.has(seg)) {
                        return self.locate(&[base.as_slice(), &abs[i..]].concat(), hops + 1);
                    }
                }
            }
            return Some((m.file.clone(), false));
        }
        Some((self.modules.get(&cur)?.file.clone(), true))
    }
}

struct Tarjan<'a> {
    adj: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    out: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on[v] = true;
        for &w in &self.adj[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on[w] => self.low[v] = self.low[v].min(iw),
                _ => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.out.push(component);
        }
    }
}
