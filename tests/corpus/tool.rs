//! Fetch, annotate, build, run and compare (see the crate docs of this test).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use proc_macro2::LineColumn;
use syn::spanned::Spanned;
use syn::Item;

/// One piece of the corpus: a published crate (or the part of it a driver calls), pinned.
pub struct Piece {
    /// Our name for it (module of the drivers, name of the copy).
    pub name: &'static str,
    /// The crate on crates.io and its exact version.
    pub krate: &'static str,
    pub version: &'static str,
    /// The files the driver exercises (the record of the origin; the whole `src/` is copied).
    pub files: &'static str,
    /// What it is, in a few words (style, algorithm).
    pub what: &'static str,
    /// Edits beyond the attributes: (file, text, replacement, why it is the user's to make).
    pub edits: &'static [(&'static str, &'static str, &'static str, &'static str)],
    /// The body of our driver: plain `f64` code that calls the crate as `m::...` and prints.
    pub driver: &'static str,
}

/// Whether a failure to reach crates.io fails the test (`.ci/run`) or only explains itself.
fn required() -> bool {
    std::env::var("STOCH_REQUIRE_CORPUS").is_ok_and(|v| v == "1")
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

pub fn run_corpus(pieces: &[Piece]) {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus");
    let _ = std::fs::remove_dir_all(root.join("stoch/copies"));
    std::fs::create_dir_all(&root).unwrap();
    write_workspace(&root, &repo, pieces);

    // 1. The published crates, fetched by cargo; their sources from the registry.
    let meta = cargo()
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(root.join("plain/Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    if !meta.status.success() {
        let err = String::from_utf8_lossy(&meta.stderr);
        assert!(
            !required(),
            "STOCH_REQUIRE_CORPUS=1 but the corpus crates could not be fetched:\n{err}"
        );
        eprintln!("corpus not run: the crates could not be fetched (offline?):\n{err}");
        return;
    }
    let meta: serde_json::Value = serde_json::from_slice(&meta.stdout).unwrap();
    let mut sources = BTreeMap::new();
    let mut editions = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let key = (
            p["name"].as_str().unwrap().to_string(),
            p["version"].as_str().unwrap().to_string(),
        );
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
        editions.insert(key.clone(), p["edition"].as_str().unwrap().to_string());
        sources.insert(key, manifest.parent().unwrap().to_path_buf());
    }

    // 2. The copies, with the attribute on every item.
    let mut edits_left = 0;
    for piece in pieces {
        let key = (piece.krate.to_string(), piece.version.to_string());
        let src = sources
            .get(&key)
            .unwrap_or_else(|| panic!("{} {} not in the metadata", piece.krate, piece.version));
        let dest = root.join("stoch/copies").join(piece.name);
        copy_dir(src, &dest);
        let attributed = copy_annotated(&src.join("src"), &dest.join("src"), piece);
        edits_left += piece.edits.len();
        if editions[&key] == "2015" {
            // The 2015 edition names a dependency only after `extern crate` at the crate root:
            // a user of that edition writes it for every dependency, ours included.
            let lib = dest.join("src/lib.rs");
            let text = std::fs::read_to_string(&lib).unwrap();
            let file = syn::parse_file(&text).unwrap();
            let at = file
                .attrs
                .last()
                .map_or(0, |a| offset(&text, a.span().end()));
            let (head, tail) = text.split_at(at);
            std::fs::write(&lib, format!("{head}\nextern crate stoch_core;\n{tail}")).unwrap();
            edits_left += 1;
        }
        let manifest = format!(
            "[package]\nname = \"corpus-{}\"\nversion = \"0.0.0\"\nedition = \"{}\"\n\
             publish = false\n\n[lib]\npath = \"src/lib.rs\"\ndoctest = false\ntest = false\n\n\
             [dependencies.stoch-core]\npath = {:?}\n\n{}\n",
            piece.name,
            editions[&key],
            repo.join("stoch-core"),
            dependencies_and_features(&src.join("Cargo.toml"))
        );
        std::fs::write(dest.join("Cargo.toml"), manifest).unwrap();
        eprintln!(
            "{}: {} {} ({}; {}): {} attributes, {} edits",
            piece.name,
            piece.krate,
            piece.version,
            piece.files,
            piece.what,
            attributed,
            piece.edits.len()
        );
    }

    // 3. Both programs, built and run.
    let plain = build_and_run(&root, "plain");
    let stoch = build_and_run(&root, "stoch");

    // 4. Line by line.
    let (plain_lines, stoch_lines): (Vec<&str>, Vec<&str>) =
        (plain.lines().collect(), stoch.lines().collect());
    let mut failures = String::new();
    if plain_lines.len() != stoch_lines.len() {
        let _ = writeln!(
            failures,
            "{} lines from the plain program, {} from the stochastic one",
            plain_lines.len(),
            stoch_lines.len()
        );
    }
    let (mut numbers, mut noise) = (0, 0);
    for (p, s) in plain_lines.iter().zip(&stoch_lines) {
        match compare_line(p, s) {
            Ok((n, z)) => {
                numbers += n;
                noise += z;
            }
            Err(why) => {
                let _ = writeln!(failures, "plain: {p}\nstoch: {s}\n  {why}");
            }
        }
    }
    eprintln!(
        "corpus: {} pieces, {} lines, {numbers} numbers compared ({noise} printed as @.0), \
         {edits_left} edits beyond the attributes",
        pieces.len(),
        plain_lines.len()
    );
    assert!(
        failures.is_empty(),
        "the stochastic build disagrees with the plain one:\n{failures}"
    );
}

/// The `[dependencies..]`, `[target..dependencies..]` and `[features]` tables of the crate's
/// own (published, normalized) manifest: the copy builds against what the original does.
fn dependencies_and_features(manifest: &Path) -> String {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut keep = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with('[') {
            let header = line.trim_matches(|c| c == '[' || c == ']');
            keep = header == "features"
                || header == "dependencies"
                || header.starts_with("dependencies.")
                || header.starts_with("target.")
                    && (header.contains(".dependencies") && !header.contains("dev-dependencies"));
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The generated workspace: `plain` (the published crates, as a dependency) and `stoch` (the
/// annotated copies). Our drivers are the same text in both.
fn write_workspace(root: &Path, repo: &Path, pieces: &[Piece]) {
    for prog in ["plain", "stoch"] {
        let dir = root.join(prog);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let mut manifest = format!(
            "[package]\nname = \"{prog}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\nrust-version = \"{}\"\n\n[workspace]\nresolver = \"3\"\n{}\n\
             [profile.dev]\nopt-level = 1\ndebug = false\n\n[dependencies]\n",
            env!("CARGO_PKG_RUST_VERSION"),
            if prog == "stoch" {
                "members = [\"copies/*\"]"
            } else {
                ""
            }
        );
        let mut main = String::from(
            "//! Generated by tests/corpus: the drivers of the corpus pieces.\n\
             #![allow(unused_imports, unused_mut, unused_variables, clippy::all)]\n",
        );
        for p in pieces {
            let dep = format!("m_{}", p.name);
            if prog == "plain" {
                let _ = writeln!(
                    manifest,
                    "{dep} = {{ package = \"{}\", version = \"={}\" }}",
                    p.krate, p.version
                );
            } else {
                let _ = writeln!(
                    manifest,
                    "{dep} = {{ package = \"corpus-{}\", path = \"copies/{}\" }}",
                    p.name, p.name
                );
            }
            let attr = if prog == "stoch" {
                "#[::stoch_core::stochastic]\n"
            } else {
                ""
            };
            let _ = write!(
                main,
                "mod {name} {{\n    use {dep} as m;\n    {attr}    pub fn run() {{\n{body}\n    }}\n}}\n",
                name = p.name,
                body = p.driver
            );
        }
        if prog == "stoch" {
            let _ = writeln!(
                manifest,
                "stoch-core = {{ path = {:?} }}",
                repo.join("stoch-core")
            );
            main.push_str("#[::stoch_core::stochastic]\n");
        }
        main.push_str("fn main() {\n");
        for p in pieces {
            let _ = writeln!(
                main,
                "    println!(\"== {}\");\n    {}::run();",
                p.name, p.name
            );
        }
        main.push_str("}\n");
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        std::fs::write(dir.join("src/main.rs"), main).unwrap();
    }
}

fn build_and_run(root: &Path, prog: &str) -> String {
    let out = cargo()
        .current_dir(root.join(prog))
        .args(["run", "--quiet"])
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the {prog} program failed to build or run:\n{stderr}\n--- stdout:\n{stdout}"
    );
    // The stochastic program's instability report.
    eprintln!("--- {prog} stderr:\n{stderr}");
    stdout
}

/// Copies `src` to `dest` with the attribute put on every item of every `.rs` file, then
/// applies the piece's listed edits. Returns the number of attributes added.
fn copy_annotated(src: &Path, dest: &Path, piece: &Piece) -> usize {
    let mut count = 0;
    for entry in walk(src) {
        let rel = entry.strip_prefix(src).unwrap();
        let target = dest.join(rel);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        if entry.extension().is_some_and(|e| e == "rs") {
            let mut text = std::fs::read_to_string(&entry).unwrap();
            let (annotated, n) = annotate(&text).unwrap_or_else(|e| {
                panic!("{}: {} does not parse: {e}", piece.name, rel.display())
            });
            text = annotated;
            count += n;
            let rel_name = format!("src/{}", rel.display());
            for (file, from, to, _why) in piece.edits {
                if *file == rel_name {
                    assert_eq!(
                        text.matches(from).count(),
                        1,
                        "{}: edit `{from}` must match once in {file}",
                        piece.name
                    );
                    text = text.replacen(from, to, 1);
                }
            }
            std::fs::write(&target, text).unwrap();
        } else {
            std::fs::copy(&entry, &target).unwrap();
        }
    }
    count
}

/// The published package as it is (README, build inputs), before the annotated sources.
fn copy_dir(src: &Path, dest: &Path) {
    for entry in walk(src) {
        let target = dest.join(entry.strip_prefix(src).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
    // Ours replaces theirs.
    let _ = std::fs::remove_file(dest.join("Cargo.toml"));
    let _ = std::fs::remove_file(dest.join("Cargo.lock"));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The text with `#[::stoch_core::stochastic]` inserted before every item that takes it.
pub fn annotate(text: &str) -> syn::Result<(String, usize)> {
    let file = syn::parse_file(text)?;
    let mut at: Vec<usize> = file
        .items
        .iter()
        .filter(|item| match item {
            Item::Fn(_)
            | Item::Impl(_)
            | Item::Struct(_)
            | Item::Enum(_)
            | Item::Union(_)
            | Item::Trait(_)
            | Item::Type(_)
            | Item::Const(_)
            | Item::Static(_) => true,
            Item::Mod(m) => m.content.is_some(),
            Item::Macro(m) => m.mac.path.is_ident("macro_rules"),
            _ => false,
        })
        .map(|item| offset(text, item.span().start()))
        .collect();
    at.sort_unstable();
    let mut out = String::with_capacity(text.len() + 40 * at.len());
    let mut last = 0;
    for &i in &at {
        out.push_str(&text[last..i]);
        out.push_str("#[::stoch_core::stochastic] ");
        last = i;
    }
    out.push_str(&text[last..]);
    Ok((out, at.len()))
}

/// Byte offset of a line (1-based) and column (0-based, in characters).
fn offset(text: &str, lc: LineColumn) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(lc.line - 1)
        .map(str::len)
        .sum();
    line_start
        + text[line_start..]
            .char_indices()
            .nth(lc.column)
            .map_or(text.len() - line_start, |(i, _)| i)
}

/// Splits a line into words and numbers: a number is what `f64` parses (with `@.0`).
fn tokens(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || "()[]{},;:=|".contains(c))
        .filter(|t| !t.is_empty())
        .collect()
}

/// `Ok((numbers compared, of them printed @.0))` when the stochastic line says what the plain
/// one says: the same words, and each number within ten units of the last digit it prints.
pub fn compare_line(plain: &str, stoch: &str) -> Result<(usize, usize), String> {
    let (p, s) = (tokens(plain), tokens(stoch));
    if p.len() != s.len() {
        return Err(format!("{} words against {}", p.len(), s.len()));
    }
    let (mut numbers, mut noise) = (0, 0);
    for (a, b) in p.iter().zip(&s) {
        let Ok(x) = a.parse::<f64>() else {
            if a != b {
                return Err(format!("`{a}` against `{b}`"));
            }
            continue;
        };
        if !x.is_finite() {
            if a != b {
                return Err(format!("`{a}` against `{b}`"));
            }
            continue;
        }
        numbers += 1;
        if *b == "@.0" {
            noise += 1;
            continue;
        }
        let y: f64 = b
            .parse()
            .map_err(|_| format!("`{b}` is not a number (plain: `{a}`)"))?;
        if x == y {
            continue;
        }
        // One unit of the last printed significant digit of `b`.
        let mantissa = b.split(['e', 'E']).next().unwrap();
        let digits = mantissa
            .chars()
            .filter(char::is_ascii_digit)
            .collect::<String>();
        let significant = digits.trim_start_matches('0').len().max(1) as i32;
        let unit = 10f64.powi(y.abs().log10().floor() as i32 - significant + 1);
        // The last exact digit is right at 95% confidence only, and the plain result has its
        // own rounding error of the same order: the two agree to all but the last digit.
        if (x - y).abs() > 10.0 * unit * (1.0 + 1e-9) {
            return Err(format!(
                "{b} (exact digits) against {a}: off by {:.3e}, more than ten units {unit:.1e} \
                 of the last exact digit",
                (x - y).abs()
            ));
        }
    }
    Ok((numbers, noise))
}
