//! The x86-64 kernel sets, one module per instruction set.

pub(crate) mod asm512;
pub(crate) mod avx2;
#[cfg(target_feature = "avx512f")]
pub(crate) mod avx512;
