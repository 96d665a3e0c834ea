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

use core::arch::x86_64::__m128;

/// An `f32` value's four lanes as one register, for the kernels' operands (and back, [`a32`],
/// for their portable fallbacks).
#[inline(always)]
fn v32(a: [f32; 4]) -> __m128 {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<[f32; 4], __m128>(a) }
}

/// The inverse of [`v32`].
#[inline(always)]
fn a32(v: __m128) -> [f32; 4] {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<__m128, [f32; 4]>(v) }
}
