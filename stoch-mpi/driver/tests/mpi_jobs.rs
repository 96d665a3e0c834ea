//! stoch-mpi under real multi-process jobs: `mpiexec -n 1, 2, 4` (oversubscribed on small
//! machines) of `stoch-mpi/checks/main.rs` and the examples. Skipped with one line when MPI
//! is not installed; failed instead under `STOCH_REQUIRE_MPI=1`.

use std::path::PathBuf;
use std::time::Duration;

use stoch_mpi_driver::{build, mpi_or_skip, run, JobOutput, Mpi};

const LIMIT: Duration = Duration::from_secs(180);

fn checks() -> Option<(Mpi, PathBuf)> {
    let mpi = mpi_or_skip()?;
    let bin = build(false)?.join("mpi_checks");
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
        "order-independent sums (plain, stochastic) differ across 1, 2, 4 ranks: {reproducible:?}"
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
fn only_rank_0_prints_unless_every_rank_is_asked() {
    let Some((mpi, bin)) = checks() else { return };
    let quiet = run(&mpi, 2, &bin, &["report"], &[], LIMIT);
    expect_ok(&quiet, "report workload");
    assert_eq!(
        quiet.stderr.matches("over MPI").count(),
        1,
        "{}",
        quiet.stderr
    );
    assert!(
        !quiet.stderr.contains("stoch-mpi: rank"),
        "{}",
        quiet.stderr
    );
    let every = run(
        &mpi,
        2,
        &bin,
        &["report"],
        &[("STOCH_MPI_EVERY_RANK", "1")],
        LIMIT,
    );
    expect_ok(&every, "report workload, every rank");
    for r in 0..2 {
        assert!(
            every.stderr.contains(&format!("stoch-mpi: rank {r} of 2:")),
            "{}",
            every.stderr
        );
    }
    assert_eq!(
        every.stderr.matches("over MPI").count(),
        1,
        "{}",
        every.stderr
    );
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

/// The examples run, small, and show what their documentation says.
#[test]
fn examples_run_and_show_what_they_say() {
    let Some(mpi) = mpi_or_skip() else { return };
    let Some(dir) = build(false) else { return };
    let out_dir = std::env::temp_dir().join(format!("stoch-mpi-gs-{}", std::process::id()));
    let o = out_dir.to_string_lossy().to_string();
    let gs = run(
        &mpi,
        4,
        &dir.join("mpi_global_sum"),
        &["--sizes", "4000,6000", "--out", &o],
        &[],
        LIMIT,
    );
    expect_ok(&gs, "mpi_global_sum");
    // Three data sets, each with its order-independent sum equal over 1, 2 and 4 ranks.
    assert_eq!(
        gs.stdout
            .matches("bit-identical for every rank count: yes")
            .count(),
        3,
        "{}",
        gs.stdout
    );
    assert!(
        gs.stdout.contains("@.0 ("),
        "no computed zero:\n{}",
        gs.stdout
    );
    assert!(out_dir.join("mpi-global-sum.md").exists());
    assert!(std::fs::read_to_string(out_dir.join("mpi-global-sum.svg"))
        .is_ok_and(|s| s.contains("<svg")));
    let _ = std::fs::remove_dir_all(&out_dir);

    let heat = run(&mpi, 2, &dir.join("mpi_heat"), &["--grid", "8"], &[], LIMIT);
    expect_ok(&heat, "mpi_heat");
    // The residual ends as numerical noise, and the stopping test that compared it is in
    // the job's report as an unstable branching taken on both ranks.
    assert!(heat.stdout.contains("@.0"), "{}", heat.stdout);
    let branching = heat
        .stderr
        .lines()
        .find(|l| l.contains("mpi_heat.rs") && l.contains("branching"))
        .unwrap_or_else(|| panic!("no branching site in the report:\n{}", heat.stderr));
    assert!(
        branching.contains("0:") && branching.contains("1:"),
        "{branching}"
    );

    let cost = run(
        &mpi,
        2,
        &dir.join("mpi_allreduce_cost"),
        &["1000", "3"],
        &[],
        LIMIT,
    );
    expect_ok(&cost, "mpi_allreduce_cost");
    assert!(cost.stdout.contains("ratio"), "{}", cost.stdout);
}

/// `#[stochastic]` on an MPI program's `main`: one report for the job, none per process.
#[test]
fn stochastic_main_prints_one_report_for_the_job() {
    let Some(mpi) = mpi_or_skip() else { return };
    let Some(dir) = build(false) else { return };
    for n in [1, 3] {
        let out = run(&mpi, n, &dir.join("mpi_checks_macro"), &[], &[], LIMIT);
        expect_ok(&out, "mpi_checks_macro");
        assert_eq!(
            out.stderr.matches("Discrete Stochastic Arithmetic").count(),
            0,
            "{}",
            out.stderr
        );
        assert_eq!(out.stderr.matches("over MPI").count(), 1, "{}", out.stderr);
        // One cancellation per rank, at the rewritten subtraction.
        assert!(
            out.stderr
                .contains(&format!("macro_main.rs:13:18  cancellation  {n}")),
            "{}",
            out.stderr
        );
    }
}
