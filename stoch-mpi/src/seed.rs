//! Per-rank random streams.
//!
//! CADNA-MPI seeds every rank alike, so all ranks round alike: a correlation between ranks
//! that the estimate does not assume. Here rank `r` seeds stoch-core's generators with
//! [`rank_seed`]`(seed, r)`, through the public `Config::seed`; stoch-core then derives one
//! stream per thread from that, as in any program. Rank 0 keeps the job's seed, so a one-rank
//! job draws what the same program without MPI draws.

/// The seed of rank `rank`'s generators in a job seeded with `seed`: `seed` itself for rank
/// 0, a SplitMix64 mix of both for the others (distinct for distinct ranks, and unrelated to
/// the per-thread mixing stoch-core applies next).
///
/// ```
/// use stoch_mpi::rank_seed;
/// assert_eq!(rank_seed(42, 0), 42);
/// assert_ne!(rank_seed(42, 1), rank_seed(42, 2));
/// assert_eq!(rank_seed(42, 3), rank_seed(42, 3));
/// ```
#[must_use]
pub fn rank_seed(seed: u64, rank: i32) -> u64 {
    if rank == 0 {
        return seed;
    }
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    // Rank through one mix first, so that (seed, rank) and (seed ^ k, rank ^ k) differ.
    mix(seed ^ mix(0x5354_4F43_484D_5049 ^ rank as u32 as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn rank_seeds_are_distinct() {
        for seed in [0, 1, 42, u64::MAX] {
            let seeds: HashSet<u64> = (0..4096).map(|r| rank_seed(seed, r)).collect();
            assert_eq!(seeds.len(), 4096, "seed {seed}");
        }
        assert_ne!(rank_seed(1, 1), rank_seed(2, 1));
    }
}
