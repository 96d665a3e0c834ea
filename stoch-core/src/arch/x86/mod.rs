//! The x86-64 kernel sets, one module per instruction set.

pub(crate) mod asm512;
// The intrinsics kernels run where the target has AVX2 and FMA; elsewhere only their tests
// (through `avx2::rt`) call them, and the operators run `avx2::asm`.
#[cfg_attr(
    not(all(target_feature = "avx2", target_feature = "fma")),
    allow(dead_code)
)]
pub(crate) mod avx2;
#[cfg(target_feature = "avx512f")]
pub(crate) mod avx512;
