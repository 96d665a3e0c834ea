//! stoch-mpi under real multi-process jobs: `mpiexec -n 1, 2, 4` (oversubscribed on small
//! machines) of `stoch-mpi/checks/main.rs` and the examples. Skipped with one line when MPI
//! is not installed; failed instead under `STOCH_REQUIRE_MPI=1`.

use std::path::PathBuf;
use std::time::Duration;

use stoch_mpi_driver::{build, mpi_or_skip, run, JobOutput, Mpi};

const LIMIT: Duration = Duration::from_secs(180);

fn checks() -> Option<(Mpi, PathBuf)> {
    let mpi = mpi_or_skip()?;
    let bin = build(false).join("mpi_checks");
    Some((mpi, bin))
}

fn expect_ok(out: &JobOutput, what: &str) {
    assert!(
        out.success(),
        "{what}: status {:?} after {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        out.elapsed,
        out.stdout,
        out.stderr
    );
}

#[test]
fn datatypes_round_trip_bit_for_bit() {
    let Some((mpi, bin)) = checks() else { return };
    for n in [1, 2, 4] {
        let out = run(&mpi, n, &bin, &["datatypes"], &[], LIMIT);
        expect_ok(&out, &format!("datatypes, {n} ranks"));
        let want: Vec<String> = (0..n).map(|r| format!("rank {r}: datatypes ok")).collect();
        assert_eq!(out.lines("rank "), want, "{}", out.stderr);
    }
}

#[test]
fn reductions_are_faithful_or_flags_and_sum_reproducibly() {
    let Some((mpi, bin)) = checks() else { return };
    let mut reproducible = Vec::new();
    for n in [1, 2, 4] {
        let out = run(&mpi, n, &bin, &["reduce"], &[], LIMIT);
        expect_ok(&out, &format!("reductions, {n} ranks"));
        for r in 0..n {
            assert!(
                out.stdout.contains(&format!("rank {r}: reductions ok")),
                "{}",
                out.stdout
            );
        }
        reproducible.push(out.lines("rank 0: reproducible"));
        if n > 1 {
            // The cancellation met inside the global sum is in the job's report, at the
            // operator's site.
            assert!(
                out.stderr.contains("reduce.rs") && out.stderr.contains("cancellation"),
                "{}",
                out.stderr
            );
        }
    }
    assert_eq!(reproducible[0].len(), 1);
    assert!(
        reproducible.iter().all(|r| *r == reproducible[0]),
        "order-independent sum differs across 1, 2, 4 ranks: {reproducible:?}"
    );
}

fn json_report(mpi: &Mpi, bin: &std::path::Path, n: u32) -> serde_json::Value {
    let path =
        std::env::temp_dir().join(format!("stoch-mpi-report-{}-{n}.json", std::process::id()));
    let mode = format!("json:{}", path.display());
    let out = run(mpi, n, bin, &["report"], &[("STOCH_REPORT", &mode)], LIMIT);
    expect_ok(&out, &format!("report workload, {n} ranks"));
    let text = std::fs::read_to_string(&path).expect("rank 0 wrote the JSON report");
    let _ = std::fs::remove_file(&path);
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn merged_report_counts_are_the_same_for_1_2_4_ranks() {
    let Some((mpi, bin)) = checks() else { return };
    for n in [1u32, 2, 4] {
        let r = json_report(&mpi, &bin, n);
        // 48 units, one cancellation, one division, one branching each, split over n ranks.
        assert_eq!(r["ranks"], n, "{r}");
        assert_eq!(r["total"], 144, "{n} ranks: {r}");
        for kind in ["cancellation", "division", "branching"] {
            assert_eq!(r["counts"][kind], 48, "{n} ranks, {kind}: {r}");
        }
        for kind in ["multiplication", "power", "intrinsic", "math_function"] {
            assert_eq!(r["counts"][kind], 0, "{n} ranks, {kind}");
        }
        assert_eq!(r["self_validation_failed"], true);
        let per_rank = r["per_rank"].as_array().expect("per_rank");
        assert_eq!(per_rank.len(), n as usize);
        for line in per_rank {
            assert_eq!(line["total"], 144 / u64::from(n), "{line}");
        }
        // Distinct streams: every rank's seed differs, rank 0 keeps the job's.
        let seeds: std::collections::BTreeSet<u64> = per_rank
            .iter()
            .map(|l| l["seed"].as_u64().unwrap())
            .collect();
        assert_eq!(seeds.len(), n as usize);
        assert_eq!(per_rank[0]["seed"], r["seed"]);
        let sites = r["sites"].as_array().expect("sites");
        assert_eq!(sites.len(), 3, "{r}");
        for s in sites {
            assert_eq!(s["count"], 48);
            assert!(s["file"].as_str().unwrap().ends_with("checks/main.rs"));
            let ranks = s["ranks"].as_array().unwrap();
            assert_eq!(ranks.len(), n as usize);
            assert!(ranks.iter().all(|rc| rc["count"] == 48 / u64::from(n)));
        }
    }
}

#[test]
fn same_seed_and_rank_count_repeat_exactly() {
    let Some((mpi, bin)) = checks() else { return };
    for n in [2, 4] {
        let a = run(
            &mpi,
            n,
            &bin,
            &["repeat"],
            &[("STOCH_SEED", "12345")],
            LIMIT,
        );
        let b = run(
            &mpi,
            n,
            &bin,
            &["repeat"],
            &[("STOCH_SEED", "12345")],
            LIMIT,
        );
        let c = run(
            &mpi,
            n,
            &bin,
            &["repeat"],
            &[("STOCH_SEED", "54321")],
            LIMIT,
        );
        for o in [&a, &b, &c] {
            expect_ok(o, "repeat");
        }
        let (la, lb, lc) = (a.lines("rank 0:"), b.lines("rank 0:"), c.lines("rank 0:"));
        assert_eq!(la.len(), n as usize + 1, "{}", a.stdout);
        assert_eq!(la, lb, "same seed and rank count, different results");
        assert_ne!(la, lc, "another seed gave the same results");
        // Each rank its own stream: the same local work rounds differently on each rank
        // (CADNA-MPI's identical seeding would print n equal lines).
        let locals: std::collections::BTreeSet<String> = la
            .iter()
            .filter(|l| l.contains("local sum"))
            .map(|l| l.split(": ").last().unwrap_or_default().to_string())
            .collect();
        assert_eq!(locals.len(), n as usize, "{la:?}");
    }
}

#[test]
fn a_panicking_rank_ends_the_job_instead_of_hanging() {
    let Some((mpi, bin)) = checks() else { return };
    for n in [2, 4] {
        let out = run(&mpi, n, &bin, &["panic"], &[], Duration::from_secs(60));
        assert!(
            out.status.is_some(),
            "{n} ranks: the job hung in the report gather (killed after {:?})",
            out.elapsed
        );
        assert!(
            !out.success(),
            "{n} ranks: a rank panicked, the job must fail"
        );
        assert!(
            out.stderr
                .contains(&format!("stoch-mpi: rank {} of {n} panicked", n - 1)),
            "{n} ranks, status {:?}:\n{}",
            out.status,
            out.stderr
        );
        assert!(out.stderr.contains("fails on purpose"), "{}", out.stderr);
    }
}

#[test]
fn fallible_calls_answer_errors() {
    let Some((mpi, bin)) = checks() else { return };
    for n in [1, 2] {
        let out = run(&mpi, n, &bin, &["errors"], &[], LIMIT);
        expect_ok(&out, "errors");
        assert_eq!(out.lines("rank ").len(), n as usize, "{}", out.stdout);
    }
}
