//! The reproducibility suite as a program: `examples/repro_suite.rs` run end to end, at small
//! sizes, into a temporary `--out` directory; the key facts are read back from its
//! `report.md` and its SVG charts.
//!
//! The example binary is built (or found up to date) with the cargo that runs these tests, in
//! the same target directory, profile and features, so these tests never skip.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The `repro_suite` example, built (or found up to date) by `tests/common` once per run.
fn suite_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| common::example("repro_suite"))
}

/// A fresh temporary output directory for one test.
fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stoch-repro-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs the suite with `args` and `--out dir`; returns stdout and the report.
fn run_suite(args: &[&str], dir: &Path) -> (String, String) {
    let out = Command::new(suite_bin())
        .args(args)
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    let report = std::fs::read_to_string(dir.join("report.md"))
        .unwrap_or_else(|e| panic!("{args:?}: no report.md in {}: {e}", dir.display()));
    (stdout, report)
}

/// The cells of the markdown table rows of `text` whose first cells are `prefix`.
fn rows<'a>(text: &'a str, prefix: &[&str]) -> Vec<Vec<&'a str>> {
    text.lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect::<Vec<_>>()
        })
        .filter(|c| c.len() >= prefix.len() && c.iter().zip(prefix).all(|(a, b)| a == b))
        .collect()
}

/// The texts of an SVG chart (`<text ...>content</text>`, trimmed).
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

fn num(cell: &str) -> f64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("not a number: `{cell}`"))
}

/// `do-undo` end to end: the drift table (float drifts, double does not), the DSA digits of
/// the stochastic types (fewer left in Sf32 than in Sf64), the timing table and one drift
/// chart per trial and operation.
#[test]
fn do_undo_end_to_end() {
    let dir = out_dir("do-undo");
    let (stdout, report) = run_suite(
        &[
            "do-undo",
            "--iterations",
            "20000",
            "--repeats",
            "1",
            "--seed",
            "2010",
        ],
        &dir,
    );
    assert!(stdout.contains("| trial | operation | type |"), "{stdout}");
    assert!(
        report.contains("## Drift") && report.contains("## Timing"),
        "{report}"
    );
    for t in ["1", "2", "3"] {
        for (op, file) in [("x=(x*y)/y", "muldiv"), ("x=(x/y)*y", "divmul")] {
            let at = format!("trial {t}, {op}");
            // | trial | operation | type | final x | relative drift | drift/iteration | digits |
            let get = |kind: &str| {
                let r = rows(&report, &[t, op, kind]);
                assert!(!r.is_empty(), "{at}: no {kind} row in\n{report}");
                r[0].clone()
            };
            let drift = |kind: &str| num(get(kind)[4]).abs();
            let (float, double) = (drift("float"), drift("double"));
            eprintln!("{at}: float drift {float:e}, double drift {double:e}");
            assert!(float > 1e-8, "{at}: float drift {float:e}");
            assert!(
                double < float * 1e-4,
                "{at}: double {double:e} vs float {float:e}"
            );
            assert_eq!(get("float")[6], "-", "{at}: plain float has no DSA digits");
            let digits = |kind: &str| -> u32 {
                get(kind)[6]
                    .parse()
                    .unwrap_or_else(|_| panic!("{at}: {kind} shows no digits"))
            };
            let (s32, s64) = (digits("Sf32"), digits("Sf64"));
            assert!(s32 < 7 && s64 > s32, "{at}: Sf32 {s32}, Sf64 {s64} digits");
            // The timing table: one row per type, float's ratio to itself is 1.00.
            let timing = rows(&report, &[t, op, "float"]);
            assert!(
                timing.iter().any(|r| r.len() == 6 && r[5] == "1.00"),
                "{at}"
            );
            let name = format!("do-undo-trial{t}-{file}.svg");
            assert!(report.contains(&format!("![{name}]({name})")), "{at}");
            let svg = std::fs::read_to_string(dir.join(&name)).unwrap();
            let texts = svg_texts(&svg);
            for kind in ["float", "double", "Sf32", "Sf64"] {
                assert!(texts.iter().any(|x| x == kind), "{name}: no {kind} legend");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `forces` end to end: Narumi's offset (eq. 11) is exactly 0 while naive float's is not, the
/// DSA section gives digits per accumulation, and the chart marks every exact zero of the
/// table with a "0" above its stub.
#[test]
fn forces_end_to_end() {
    let dir = out_dir("forces");
    let (stdout, report) = run_suite(&["forces", "--n", "64", "--seed", "2008"], &dir);
    assert!(
        stdout.contains("| method | average error (eq. 10) |"),
        "{stdout}"
    );
    // | method | error (eq. 10) | accumulation error | offset (eq. 11) | interactions/s | digits |
    let get = |m: &str| {
        let r = rows(&report, &[m]);
        assert_eq!(r.len(), 1, "{m}: {report}");
        r[0].clone()
    };
    let (a, f, g) = (get("A single"), get("F Narumi"), get("G double"));
    eprintln!("offset: A {} F {} G {}", a[3], f[3], g[3]);
    assert_eq!(num(f[3]), 0.0, "Narumi's offset");
    assert_eq!(num(get("F' Narumi, rounding to nearest")[3]), 0.0);
    assert!(num(a[3]) > 0.0, "naive float's offset is {}", a[3]);
    assert!(num(a[1]) > 0.0 && num(g[1]) == 0.0, "G is the reference");
    let digits = num(get("Sf32 (DSA)")[5]);
    assert!(digits > 1.0 && digits < 7.0, "Sf32 digits {digits}");
    // The DSA section: | accumulation | mean digits |.
    let dsa: Vec<_> = ["naive", "kahan", "float2 (composite)"]
        .iter()
        .map(|m| {
            let r: Vec<_> = rows(&report, &[m])
                .into_iter()
                .filter(|r| r.len() == 2)
                .collect();
            assert_eq!(r.len(), 1, "DSA row {m}: {report}");
            num(r[0][1])
        })
        .collect();
    assert!(dsa.iter().all(|d| (0.0..=7.0).contains(d)), "{dsa:?}");
    assert!(dsa[1] > dsa[0] && dsa[2] > dsa[0], "DSA digits {dsa:?}");
    // The chart: one group per method, one "0" per exact zero among the three plotted columns.
    assert!(report.contains("![forces.svg](forces.svg)"));
    let svg = std::fs::read_to_string(dir.join("forces.svg")).unwrap();
    let texts = svg_texts(&svg);
    for group in ["A", "F", "G"] {
        assert!(texts.iter().any(|t| t == group), "no {group} group");
    }
    let zero_cells = rows(&report, &[])
        .iter()
        .filter(|r| r.len() == 6 && r[0] != "method" && !r[0].starts_with("---"))
        .flat_map(|r| r[1..4].to_vec())
        .filter(|c| c.parse::<f64>() == Ok(0.0))
        .count();
    let marks = texts.iter().filter(|t| *t == "0").count();
    assert!(zero_cells >= 3, "{report}");
    assert_eq!(
        marks, zero_cells,
        "zero marks in forces.svg vs zeros in the table"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// README's picture is what README's command writes: the image path is
/// `<--out>/global-sum-<size>-range<range>.svg` of the command shown, and the report is beside
/// it.
#[test]
fn readme_picture_is_what_its_command_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("### The papers' reproducibility suite")
        .nth(1)
        .expect("README: no suite section");
    let section = section.split("\n## ").next().unwrap();
    let image = section
        .lines()
        .find_map(|l| l.strip_prefix("![")?.split_once("](")?.1.strip_suffix(')'))
        .expect("README: no picture in the suite section");
    let command = section
        .lines()
        .find(|l| l.contains("repro_suite -- global-sum") && !l.contains("--gpu"))
        .expect("README: no global-sum command");
    let words: Vec<&str> = command.split_whitespace().collect();
    let opt = |name: &str| {
        let i = words.iter().position(|w| *w == name);
        i.map(|i| words[i + 1])
            .unwrap_or_else(|| panic!("README command has no {name}: {command}"))
    };
    let (size, range, out) = (opt("--sizes"), opt("--ranges"), opt("--out"));
    let expected = format!("{out}/global-sum-{size}-range{range}.svg");
    assert_eq!(image, expected, "README picture vs its command");
    assert!(root.join(image).exists(), "{image} is not committed");
    let report = std::fs::read_to_string(root.join(out).join("report.md")).unwrap();
    assert!(
        report.contains(&format!("![global-sum-{size}-range{range}.svg]")),
        "the committed report does not show the picture"
    );
    assert!(
        report.contains(&format!("#### {size} elements, 1 thread,")),
        "the committed report is not of {size} values"
    );
}
