//! Process-wide state that the hot path reads, at the bottom of the crate's layers (operators →
//! checks → kernels → runtime): the detection mask and factors ([`state`]), the per-thread
//! random bits ([`rng`]), the rounding path chosen for this process ([`path`]), the constants
//! of the run-time AVX-512 kernels ([`tables`]) and the out-of-line call that leaves the hot
//! path's registers alone ([`cold`]). Nothing here imports a module above it.

pub(crate) mod cold;
pub(crate) mod path;
pub(crate) mod rng;
pub(crate) mod state;
#[cfg(target_arch = "x86_64")]
pub(crate) mod tables;
