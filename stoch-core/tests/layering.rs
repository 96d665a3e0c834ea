//! The import graph of stoch-core's top-level modules, and its circles.
//!
//! The architecture runs one way: operators -> checks -> rounding kernels -> process-wide state.
//! This test reads `src/`, takes an edge `a -> b` wherever module `a` names `crate::b` (or
//! `super::b` from a top-level file or a folder's `mod.rs`, `super::super::b` from a file one
//! folder down: a folder is one module) outside its unit tests, and finds the strongly connected
//! components. A circle may shrink but never grow: every module caught in one must be in
//! [`KNOWN_CIRCLE`], which lists what remains to untangle. Run `cargo test -p stoch-core --test
//! layering -- --nocapture` to print the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules that still import each other in a circle: none. Adding one fails.
const KNOWN_CIRCLE: &[&str] = &[];

/// The hot path's layers, each with every module it may import: the kernels (`arch`) read
/// process-wide state (`runtime`) only, and the state imports nothing above it.
const LAYERS: &[(&str, &[&str])] = &[("arch", &["runtime", "eft"]), ("runtime", &["instability"])];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The top-level module of a file under `src/` (`ops.rs` and `ops/x.rs` both give `ops`).
fn top_module(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_string())
}

/// How many `super::` lead from the module of a file under `src/` to the crate's root: 1 for
/// `ops.rs` and `ops/mod.rs`, 2 for `ops/add.rs` and `ops/add/mod.rs`.
fn depth(rel: &Path) -> usize {
    let n = rel.components().count();
    if rel.file_name().is_some_and(|f| f == "mod.rs") {
        n - 1
    } else {
        n
    }
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Source text without comments (line and block), so that docs naming a module add no edge.
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The first path segments after `prefix::`: `crate::a::x` gives `a`, `crate::{a, b::c}` gives
/// `a` and `b`.
fn segments_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    let pat = format!("{prefix}::");
    let mut rest = text;
    while let Some(pos) = rest.find(&pat) {
        let boundary = rest[..pos]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        rest = &rest[pos + pat.len()..];
        if !boundary {
            continue;
        }
        let after = rest.trim_start();
        if let Some(group) = after.strip_prefix('{') {
            // Names at depth 0 of the group, each right after `{` or `,`.
            let (mut depth, mut expect) = (0usize, true);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expect = true,
                    c if c.is_whitespace() => {}
                    _ if expect && depth == 0 => {
                        found.push(ident(&group[i..]));
                        expect = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.push(ident(after));
        }
    }
    found
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| top_module(f.strip_prefix(&src).ok()?))
        .collect();
    // Items re-exported at the root (`pub use number::{Sf64, ..}`) name their module.
    let lib = strip_comments(&std::fs::read_to_string(src.join("lib.rs")).expect("read lib.rs"));
    let mut reexports = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        if modules.contains(module) {
            for name in names.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if !name.is_empty() {
                    reexports.insert(name.to_string(), module.to_string());
                }
            }
        }
    }
    let mut g = Graph::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src/");
        let Some(from) = top_module(rel) else {
            continue;
        };
        // Unit tests may use any module: a file of tests, or a file's `mod tests` at its end,
        // adds no edge.
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = strip_comments(&std::fs::read_to_string(file).expect("read source"));
        let text = match text.find("#[cfg(test)]\nmod tests {") {
            Some(end) => &text[..end],
            None => &text[..],
        };
        let mut targets = segments_after(text, "crate");
        targets.extend(segments_after(text, &vec!["super"; depth(rel)].join("::")));
        let entry = g.entry(from.clone()).or_default();
        for to in targets {
            let to = reexports.get(&to).cloned().unwrap_or(to);
            if to != from && modules.contains(&to) {
                entry.insert(to);
            }
        }
    }
    g
}

/// Strongly connected components with more than one module (Tarjan).
fn circles(g: &Graph) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        if let Some(next) = s.g.get(v) {
            for w in next {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_module_joins_an_import_circle() {
    let g = graph();
    for (from, to) in &g {
        println!(
            "{from} -> {}",
            to.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let known: BTreeSet<String> = KNOWN_CIRCLE.iter().map(|s| s.to_string()).collect();
    for c in circles(&g) {
        println!(
            "circle: {}",
            c.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        let new: Vec<_> = c.difference(&known).collect();
        assert!(
            new.is_empty(),
            "modules {new:?} joined an import circle ({c:?}): import only modules below yours \
             (operators -> checks -> rounding kernels -> process-wide state)"
        );
    }
}

#[test]
fn the_hot_path_imports_only_downward() {
    let g = graph();
    for (module, allowed) in LAYERS {
        let imports = g.get(*module).cloned().unwrap_or_default();
        let up: Vec<_> = imports
            .iter()
            .filter(|m| !allowed.contains(&m.as_str()))
            .collect();
        assert!(
            up.is_empty(),
            "{module} imports {up:?}, above it: it may import {allowed:?} only"
        );
    }
}

#[test]
fn the_scanner_finds_edges_and_circles() {
    assert_eq!(segments_after("use crate::a::b;", "crate"), ["a"]);
    assert_eq!(
        segments_after("use crate::{x, y::{z, w}, v};", "crate"),
        ["x", "y", "v"]
    );
    assert!(segments_after("foocrate::a", "crate").is_empty());
    // A folder is one module: `super::` of its `mod.rs`, and `super::super::` of its other
    // files, name the crate's top-level modules.
    assert_eq!(
        top_module(Path::new("report/text.rs")).as_deref(),
        Some("report")
    );
    assert_eq!(
        top_module(Path::new("report/mod.rs")).as_deref(),
        Some("report")
    );
    assert_eq!(depth(Path::new("report.rs")), 1);
    assert_eq!(depth(Path::new("report/mod.rs")), 1);
    assert_eq!(depth(Path::new("report/text.rs")), 2);
    assert_eq!(depth(Path::new("report/text/mod.rs")), 2);
    assert_eq!(
        segments_after("use super::super::config; use super::fast;", "super::super"),
        ["config"]
    );
    assert_eq!(
        strip_comments("a // crate::b\nc /* crate::d */ e"),
        "a \nc  e"
    );
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    g.entry("d".into()).or_default().insert("a".into());
    let c = circles(&g);
    assert_eq!(c.len(), 1);
    assert_eq!(
        c[0].iter().map(String::as_str).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
}
