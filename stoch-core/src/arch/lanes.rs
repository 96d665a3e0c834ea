//! The four lanes of a value (x, y, z, flags) as the hot path holds them: one vector register
//! where the target has AVX2 and FMA, an array elsewhere; the layout is the same (`#[repr(C)]`,
//! shared with the CUDA header).

/// The lanes of a value in one vector register (x86-64 with AVX2 and FMA, AVX-512 included).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
mod vlanes {
    use core::arch::x86_64::{__m128, __m256d};

    /// Four `f64` lanes in a vector register, with the alignment of `f64` (so that the
    /// value keeps the layout of the device type).
    #[derive(Clone, Copy)]
    #[repr(C, packed(8))]
    pub struct L64(pub(crate) __m256d);
    /// Four `f32` lanes in a vector register, with the alignment of `f32`.
    #[derive(Clone, Copy)]
    #[repr(C, packed(4))]
    pub struct L32(pub(crate) __m128);

    // SAFETY: plain data.
    unsafe impl Send for L64 {}
    // SAFETY: plain data.
    unsafe impl Sync for L64 {}
    // SAFETY: plain data.
    unsafe impl Send for L32 {}
    // SAFETY: plain data.
    unsafe impl Sync for L32 {}
}

/// The lanes of an `f64` value.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
pub use vlanes::{L32, L64};
/// The lanes of an `f64` value.
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
)))]
pub type L64 = [f64; 4];
/// The lanes of an `f32` value.
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
)))]
pub type L32 = [f32; 4];

/// Array to lanes, in constant context.
#[inline(always)]
pub const fn lanes64(a: [f64; 4]) -> L64 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        // SAFETY: [f64; 4] and __m256d are 32 bytes of plain data.
        L64(unsafe { core::mem::transmute::<[f64; 4], core::arch::x86_64::__m256d>(a) })
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        a
    }
}

/// Lanes to array, in constant context.
#[inline(always)]
pub const fn unlanes64(v: L64) -> [f64; 4] {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        let m = v.0;
        // SAFETY: as above.
        unsafe { core::mem::transmute::<core::arch::x86_64::__m256d, [f64; 4]>(m) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        v
    }
}

/// Array to lanes, in constant context.
#[inline(always)]
pub const fn lanes32(a: [f32; 4]) -> L32 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        // SAFETY: [f32; 4] and __m128 are 16 bytes of plain data.
        L32(unsafe { core::mem::transmute::<[f32; 4], core::arch::x86_64::__m128>(a) })
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        a
    }
}

/// Lanes to array, in constant context.
#[inline(always)]
pub const fn unlanes32(v: L32) -> [f32; 4] {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        let m = v.0;
        // SAFETY: as above.
        unsafe { core::mem::transmute::<core::arch::x86_64::__m128, [f32; 4]>(m) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        v
    }
}
