//! The job: MPI initialisation with per-rank streams, and one report for all ranks.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;

use mpi::environment::Universe;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::{Deserialize, Serialize};
use stoch_core::{Config, GpuCount, Instability, Report, ReportMode};

use crate::{rank_seed, Error};

/// Asks every rank, not only rank 0, to print its own report too (`1`).
pub const EVERY_RANK_VAR: &str = "STOCH_MPI_EVERY_RANK";

/// A running MPI job under Discrete Stochastic Arithmetic; see [`init`].
///
/// Dropping it merges the report of every rank up a tree to rank 0, which prints one report
/// for the job, and then finalizes MPI. A rank that unwinds from a panic while holding it does not
/// enter the gather: it prints its own report and the panic's rank on stderr and aborts the
/// job (`MPI_Abort`, exit status 101), so the other ranks, waiting in a collective or in the
/// gather, are terminated by the MPI launcher instead of hanging. A rank that dies without
/// unwinding (a signal, `panic = "abort"`) is caught by the launcher the same way.
///
/// A rank that drops the job early without a panic (returning an error from `main` while
/// the others wait in a collective) enters the gather alone and waits with them: end such a
/// rank with a panic, or with `job.world().abort(code)` (`mpi::traits::Communicator`).
pub struct Job {
    world: SimpleCommunicator,
    /// A duplicate of the world for the report's messages, apart from the program's.
    report_comm: SimpleCommunicator,
    job_seed: u64,
    mode: ReportMode,
    every_rank: bool,
    done: bool,
    // Dropped last: finalizes MPI after the report's gather.
    _universe: Universe,
}

/// Initialises MPI and stoch-core for this rank and returns the job's guard.
///
/// `config` is applied on every rank with one change: rank `r`'s generators are seeded with
/// [`rank_seed`]`(config seed, r)`, so each rank draws its own random stream and a run with
/// the same seed and rank count repeats exactly. The report mode in `config` (`STOCH_REPORT`
/// when built with `Config::from_env`) applies to the job's report, printed by rank 0; the
/// ranks' own reports are printed only when [`EVERY_RANK_VAR`] is `1` or
/// [`Job::every_rank`] asks.
///
/// ```no_run
/// use mpi::traits::*;
/// let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
/// let world = job.world();
/// println!("rank {} of {}", world.rank(), world.size());
/// // ... compute, exchange, reduce ...
/// drop(job); // rank 0 prints the job's report; MPI finalizes
/// # Ok::<(), stoch_mpi::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::AlreadyInitialized`] when MPI is running already (initialise through this call
/// only).
pub fn init(config: Config) -> Result<Job, Error> {
    let universe = mpi::initialize().ok_or(Error::AlreadyInitialized)?;
    let world = universe.world();
    let report_comm = world.duplicate();
    let job_seed = config.get_seed();
    let mode = config.get_report().clone();
    config
        .seed(rank_seed(job_seed, world.rank()))
        .report(ReportMode::Off)
        .apply();
    Ok(Job {
        world,
        report_comm,
        job_seed,
        mode,
        every_rank: std::env::var(EVERY_RANK_VAR).is_ok_and(|v| v == "1"),
        done: false,
        _universe: universe,
    })
}

impl Job {
    /// The communicator of all ranks (`MPI_COMM_WORLD`).
    #[must_use]
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// This rank.
    #[must_use]
    pub fn rank(&self) -> i32 {
        self.world.rank()
    }

    /// The number of ranks.
    #[must_use]
    pub fn size(&self) -> i32 {
        self.world.size()
    }

    /// The job's seed (rank 0's; rank `r` draws from [`rank_seed`]`(seed, r)`).
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.job_seed
    }

    /// Whether every rank also prints its own report at the end.
    pub fn every_rank(&mut self, on: bool) -> &mut Self {
        self.every_rank = on;
        self
    }

    /// Merges every rank's report up a tree to rank 0 and writes the job's report there as
    /// configured;
    /// returns it on rank 0 (`None` elsewhere). Collective: every rank must call it (dropping
    /// the job calls it once). Later calls return `None` and do nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Report`] when rank 0 cannot decode a rank's report.
    pub fn finish(&mut self) -> Result<Option<JobReport>, Error> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        let local = stoch_core::report();
        if self.every_rank {
            // One write: the ranks share the launcher's stderr, and a report written in pieces
            // interleaves with another rank's.
            let text = format!(
                "stoch-mpi: rank {} of {}:\n{local}\n",
                self.rank(),
                self.size()
            );
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
        let (job, failed) = merge_up_tree(&self.report_comm, self.job_seed, &local);
        if let Some(job) = &job {
            write_report(job, &self.mode);
        }
        failed.map_or(Ok(job), Err)
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let local = stoch_core::report();
            let text = format!(
                "stoch-mpi: rank {} of {} panicked: it does not join the report's gather; its \
                 own report follows, then MPI_Abort ends the whole job.\n{local}\n",
                self.rank(),
                self.size()
            );
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            // MPI_Abort reaches the launcher faster than this rank's stderr: without a pause
            // Hydra tore the job down before it forwarded the lines above (seen with MPICH
            // 4.0, about one run in three).
            std::thread::sleep(std::time::Duration::from_millis(500));
            self.world.abort(101);
        }
        if let Err(e) = self.finish() {
            let _ = writeln!(std::io::stderr().lock(), "stoch-mpi: {e}");
        }
        // This rank has passed its part of the report on: none of our handles is in use.
        crate::reduce::free_all();
        crate::datatype::free_all();
    }
}

/// The tag of the report's messages (on the job's own communicator).
const REPORT_TAG: i32 = 0x5707;

/// Merges the ranks' reports up a binomial tree to rank 0: at step `k`, a rank whose bit `k`
/// is set sends its merged part (JSON) to the rank `2^k` below and is done; the others
/// receive from the rank `2^k` above, if any. Rank 0 receives log2(P) messages and returns
/// the job's report; the others return `None`. A part that cannot be decoded is left out
/// and its error returned (on the rank that met it), after the rank has passed its own part
/// on, so that no rank waits for a message that never comes.
fn merge_up_tree(
    comm: &SimpleCommunicator,
    seed: u64,
    local: &Report,
) -> (Option<JobReport>, Option<Error>) {
    let (rank, size) = (comm.rank(), comm.size());
    let mut part = JobReport::of_rank(seed, rank, local);
    let mut failed = None;
    let mut step = 1;
    while step < size {
        if rank & step != 0 {
            let bytes = serde_json::to_vec(&part).unwrap_or_default();
            comm.process_at_rank(rank - step)
                .send_with_tag(&bytes[..], REPORT_TAG);
            return (None, failed);
        }
        if rank + step < size {
            let (bytes, _) = comm
                .process_at_rank(rank + step)
                .receive_vec_with_tag::<u8>(REPORT_TAG);
            match serde_json::from_slice::<JobReport>(&bytes) {
                Ok(child) => part.absorb(child),
                Err(source) => {
                    failed.get_or_insert(Error::Report {
                        rank: rank + step,
                        source,
                    });
                }
            }
        }
        step <<= 1;
    }
    (Some(part), failed)
}

fn write_report(job: &JobReport, mode: &ReportMode) {
    match mode {
        ReportMode::Off => {}
        ReportMode::Text => {
            let _ = std::io::stderr()
                .lock()
                .write_all(format!("{job}\n").as_bytes());
        }
        ReportMode::Json => {
            let _ = std::io::stderr()
                .lock()
                .write_all(format!("{}\n", job.to_json()).as_bytes());
        }
        ReportMode::JsonFile(path) => {
            if let Err(e) = std::fs::write(path, job.to_json()) {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "stoch-mpi: cannot write the report to {}: {e}; printing it here\n{job}",
                    path.display()
                );
            }
        }
        // `ReportMode` may grow: fall back to text.
        #[allow(unreachable_patterns)]
        _ => {
            let _ = writeln!(std::io::stderr().lock(), "{job}");
        }
    }
}

/// One rank's line of the job report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankLine {
    /// The rank.
    pub rank: i32,
    /// The seed of its generators.
    pub seed: u64,
    /// Its CPU instabilities, all kinds.
    pub total: u64,
    /// Its count per kind (every kind present).
    pub counts: BTreeMap<Instability, u64>,
    /// Its accuracy collapses.
    pub collapse_total: u64,
    /// Its events at sites beyond its site limit.
    pub overflow_events: u64,
}

/// How often one rank hit a site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankCount {
    /// The rank.
    pub rank: i32,
    /// How many times.
    pub count: u64,
}

/// One source location, all ranks together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSite {
    /// The kind.
    pub kind: Instability,
    /// Source file.
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// How many times, all ranks.
    pub count: u64,
    /// The ranks that hit it, in rank order.
    pub ranks: Vec<RankCount>,
}

/// The report of a whole job: every rank's counts and sites, merged on rank 0.
///
/// JSON (`to_json`), all fields always present:
///
/// ```text
/// { "seed": u64, "ranks": usize, "total": u64,
///   "counts": { "division": u64, ... },          // all ranks, every kind
///   "self_validation_failed": bool,
///   "per_rank": [ { "rank": i32, "seed": u64, "total": u64, "counts": {...},
///                   "collapse_total": u64, "overflow_events": u64 } ],
///   "sites": [ { "kind": str, "file": str, "line": u32, "column": u32, "count": u64,
///                "ranks": [ { "rank": i32, "count": u64 } ] } ],   // most frequent first
///   "collapse_total": u64, "overflow_events": u64,
///   "gpu": [ { "kernel": str, "kind": str, "count": u64 } ],
///   "config": { ... } }                           // rank 0's, as in stoch-core's report
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobReport {
    /// The job's seed.
    pub seed: u64,
    /// The number of ranks.
    pub ranks: usize,
    /// CPU instabilities, all ranks and kinds.
    pub total: u64,
    /// Count per kind, all ranks.
    pub counts: BTreeMap<Instability, u64>,
    /// Whether an unstable division, multiplication or power on any rank (or GPU) made the
    /// estimate unreliable.
    pub self_validation_failed: bool,
    /// One line per rank.
    pub per_rank: Vec<RankLine>,
    /// Sites, most frequent first, with the ranks that hit them.
    pub sites: Vec<JobSite>,
    /// Accuracy collapses, all ranks.
    pub collapse_total: u64,
    /// Events beyond the ranks' site limits, all ranks.
    pub overflow_events: u64,
    /// GPU counts per kernel and kind, all ranks.
    pub gpu: Vec<GpuCount>,
    /// Rank 0's configuration (its seed is the job's).
    pub config: Config,
}

impl JobReport {
    /// Merges the reports of ranks `0..reports.len()` (in rank order) of a job seeded with
    /// `seed`.
    #[must_use]
    pub fn merge(seed: u64, reports: &[Report]) -> JobReport {
        let mut parts = reports
            .iter()
            .enumerate()
            .map(|(rank, r)| JobReport::of_rank(seed, rank as i32, r));
        let mut job = parts.next().unwrap_or_else(|| JobReport {
            seed,
            ranks: 0,
            total: 0,
            counts: Instability::ALL.iter().map(|k| (*k, 0)).collect(),
            self_validation_failed: false,
            per_rank: Vec::new(),
            sites: Vec::new(),
            collapse_total: 0,
            overflow_events: 0,
            gpu: Vec::new(),
            config: Config::default().seed(seed),
        });
        for part in parts {
            job.absorb(part);
        }
        job
    }

    /// The report of one rank, `rank`, of a job seeded with `seed`.
    #[must_use]
    pub fn of_rank(seed: u64, rank: i32, r: &Report) -> JobReport {
        let counts: BTreeMap<Instability, u64> =
            Instability::ALL.iter().map(|k| (*k, r.count(*k))).collect();
        let mut sites: Vec<JobSite> = r
            .sites()
            .iter()
            .map(|s| JobSite {
                kind: s.kind,
                file: s.file.clone(),
                line: s.line,
                column: s.column,
                count: s.count,
                ranks: vec![RankCount {
                    rank,
                    count: s.count,
                }],
            })
            .collect();
        sort_sites(&mut sites);
        JobReport {
            seed,
            ranks: 1,
            total: counts.values().sum(),
            per_rank: vec![RankLine {
                rank,
                seed: r.config().get_seed(),
                total: r.total(),
                counts: counts.clone(),
                collapse_total: r.collapse_total(),
                overflow_events: r.overflow_events(),
            }],
            counts,
            self_validation_failed: r.self_validation_failed(),
            sites,
            collapse_total: r.collapse_total(),
            overflow_events: r.overflow_events(),
            gpu: r.gpu().to_vec(),
            config: r.config().clone().seed(seed),
        }
    }

    /// Adds the ranks of `other` (a disjoint set of ranks of the same job): counts add, sites
    /// unite, lines and rank lists stay in rank order. Associative and commutative (the
    /// configuration kept is that of the lowest rank), so partial reports can be merged up a
    /// tree in any shape.
    pub fn absorb(&mut self, other: JobReport) {
        let keep_other_config = match (other.per_rank.first(), self.per_rank.first()) {
            (Some(o), Some(m)) => o.rank < m.rank,
            (Some(_), None) => true,
            _ => false,
        };
        self.ranks += other.ranks;
        self.total += other.total;
        for (k, n) in other.counts {
            *self.counts.entry(k).or_default() += n;
        }
        self.self_validation_failed |= other.self_validation_failed;
        self.per_rank.extend(other.per_rank);
        self.per_rank.sort_by_key(|l| l.rank);
        let mut sites: BTreeMap<(String, u32, u32, Instability), JobSite> = BTreeMap::new();
        for s in std::mem::take(&mut self.sites)
            .into_iter()
            .chain(other.sites)
        {
            match sites.entry((s.file.clone(), s.line, s.column, s.kind)) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(s);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    let e = o.get_mut();
                    e.count += s.count;
                    e.ranks.extend(s.ranks);
                    e.ranks.sort_by_key(|r| r.rank);
                }
            }
        }
        self.sites = sites.into_values().collect();
        sort_sites(&mut self.sites);
        self.collapse_total += other.collapse_total;
        self.overflow_events += other.overflow_events;
        let mut gpu: BTreeMap<(String, Instability), u64> = BTreeMap::new();
        for g in std::mem::take(&mut self.gpu).into_iter().chain(other.gpu) {
            *gpu.entry((g.kernel, g.kind)).or_default() += g.count;
        }
        self.gpu = gpu
            .into_iter()
            .map(|((kernel, kind), count)| GpuCount {
                kernel,
                kind,
                count,
            })
            .collect();
        if keep_other_config {
            self.config = other.config;
        }
    }

    /// Instabilities of `kind`, all ranks.
    #[must_use]
    pub fn count(&self, kind: Instability) -> u64 {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    /// The report as JSON (see the schema on [`JobReport`]).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Sites shown by `Display`.
    const SHOWN_SITES: usize = 20;
}

/// Most frequent first, then by place: the same order whatever the rank count.
fn sort_sites(sites: &mut [JobSite]) {
    sites.sort_by(|a, b| {
        b.count.cmp(&a.count).then_with(|| {
            (&a.file, a.line, a.column, a.kind).cmp(&(&b.file, b.line, b.column, b.kind))
        })
    });
}

fn kinds_line(counts: &BTreeMap<Instability, u64>) -> String {
    let parts: Vec<String> = counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{} {n}", k.name()))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

impl fmt::Display for JobReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = "-".repeat(72);
        writeln!(f, "{rule}")?;
        writeln!(
            f,
            "stoch {} over MPI: {} rank{}, job seed {:#x} (one random stream per rank), \
             confidence {}%",
            env!("CARGO_PKG_VERSION"),
            self.ranks,
            if self.ranks == 1 { "" } else { "s" },
            self.seed,
            format!("{:.6}", self.config.get_confidence() * 100.0)
                .trim_end_matches('0')
                .trim_end_matches('.'),
        )?;
        if self.total == 0 {
            writeln!(f, "No instability detected on any rank.")?;
        } else {
            writeln!(
                f,
                "{} numerical instabilit{} detected, all ranks:",
                self.total,
                if self.total == 1 { "y" } else { "ies" }
            )?;
            for k in Instability::ALL {
                let n = self.count(k);
                if n > 0 {
                    writeln!(f, "  {:>10}  {}", n, k.description())?;
                }
            }
        }
        if self.self_validation_failed {
            writeln!(
                f,
                "CRITICAL: self-validation failed (unstable division, multiplication or power):\n\
                 the estimated digits may be wrong; fix these first."
            )?;
        }
        writeln!(f, "Per rank:")?;
        for r in &self.per_rank {
            writeln!(
                f,
                "  rank {:>4}  {:>8}  ({})",
                r.rank,
                r.total,
                kinds_line(&r.counts)
            )?;
        }
        if !self.sites.is_empty() {
            writeln!(f, "Sites (most frequent first; rank:count):")?;
            for s in self.sites.iter().take(Self::SHOWN_SITES) {
                let ranks: Vec<String> = s
                    .ranks
                    .iter()
                    .map(|r| format!("{}:{}", r.rank, r.count))
                    .collect();
                writeln!(
                    f,
                    "  {}:{}:{}  {}  {}  [{}]",
                    s.file,
                    s.line,
                    s.column,
                    s.kind,
                    s.count,
                    ranks.join(" ")
                )?;
            }
            if self.sites.len() > Self::SHOWN_SITES {
                writeln!(
                    f,
                    "  ... {} more sites (see the JSON report)",
                    self.sites.len() - Self::SHOWN_SITES
                )?;
            }
        }
        if self.overflow_events > 0 {
            writeln!(
                f,
                "  {} further events beyond the ranks' site limits (STOCH_MAX_SITES)",
                self.overflow_events
            )?;
        }
        if self.collapse_total > 0 {
            writeln!(
                f,
                "{} accuracy collapses (a significant value became a computed zero), all ranks",
                self.collapse_total
            )?;
        }
        if !self.gpu.is_empty() {
            writeln!(f, "GPU (elements flagged per kernel, all ranks):")?;
            for g in &self.gpu {
                writeln!(f, "  {}  {}  {}", g.kernel, g.kind, g.count)?;
            }
        }
        write!(f, "{rule}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoch_core::Sf64;

    /// Reports are built by running stoch-core (their fields are private), then round-tripped
    /// through JSON as the gather does.
    fn rank_report(cancellations: usize, divisions: usize) -> Report {
        // The counters are process-wide: one test at a time records and reads them.
        static COUNTERS: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = COUNTERS.lock().unwrap_or_else(|e| e.into_inner());
        stoch_core::reset();
        for _ in 0..cancellations {
            let a = Sf64::new(1.0) + Sf64::new(1e-13);
            let _ = a - Sf64::new(1.0); // one site, line A
        }
        let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
        for _ in 0..divisions {
            let _ = Sf64::new(1.0) / noise; // line B
        }
        let r = stoch_core::report();
        stoch_core::reset();
        serde_json::from_slice(&serde_json::to_vec(&r).unwrap()).unwrap()
    }

    /// The tree's shape does not matter: a binomial tree of parts gives the flat merge.
    #[test]
    fn absorbing_in_any_tree_gives_the_flat_merge() {
        let reports = [
            rank_report(2, 0),
            rank_report(3, 1),
            rank_report(0, 0),
            rank_report(1, 2),
            rank_report(4, 0),
        ];
        let flat = JobReport::merge(9, &reports);
        let part = |r: usize| JobReport::of_rank(9, r as i32, &reports[r]);
        // As on 5 ranks: 0 <- 1, 2 <- 3, then 0 <- 2, then 0 <- 4.
        let (mut a, mut b) = (part(0), part(2));
        a.absorb(part(1));
        b.absorb(part(3));
        a.absorb(b);
        a.absorb(part(4));
        assert_eq!(a, flat);
        // Highest ranks first: the same, rank 0's configuration kept.
        let mut c = part(4);
        for r in (0..4).rev() {
            c.absorb(part(r));
        }
        assert_eq!(c, flat);
        assert_eq!(flat.count(Instability::Cancellation), 10);
        assert_eq!(
            flat.per_rank.iter().map(|l| l.rank).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
    }

    #[test]
    fn merge_adds_counts_and_keeps_ranks_per_site() {
        let reports = [rank_report(2, 0), rank_report(3, 1), rank_report(0, 0)];
        assert_eq!(reports[1].count(Instability::Cancellation), 3);
        let job = JobReport::merge(7, &reports);
        assert_eq!(job.ranks, 3);
        assert_eq!(job.count(Instability::Cancellation), 5);
        assert_eq!(job.count(Instability::Division), 1);
        assert_eq!(job.total, 6);
        assert!(job.self_validation_failed);
        assert_eq!(job.per_rank[1].total, 4);
        assert_eq!(job.per_rank[2].total, 0);
        let cancel = &job.sites[0];
        assert_eq!(cancel.kind, Instability::Cancellation);
        assert_eq!(cancel.count, 5);
        assert_eq!(
            cancel.ranks,
            vec![
                RankCount { rank: 0, count: 2 },
                RankCount { rank: 1, count: 3 }
            ]
        );
        let text = job.to_string();
        assert!(text.contains("3 ranks"), "{text}");
        assert!(text.contains("[0:2 1:3]"), "{text}");
        assert!(text.contains("CRITICAL"), "{text}");
        let back: JobReport = serde_json::from_str(&job.to_json()).unwrap();
        assert_eq!(back, job);
    }
}
