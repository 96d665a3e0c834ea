//! The four lanes of a value (x, y, z, flags) as the hot path holds them: one vector register
//! where the target has AVX2 and FMA, an array elsewhere; the layout is the same (`#[repr(C)]`,
//! shared with the CUDA header), aligned to the value's size so that no value straddles two
//! cache lines (where one did, its loads and stores were split and a store's value could not be
//! forwarded to the next load: docs/performance.md).

/// The lanes of a value in one vector register (x86-64 with AVX2 and FMA, AVX-512 included).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
mod vlanes {
    use core::arch::x86_64::{__m128, __m256d};

    /// Four `f64` lanes in a vector register (aligned to its 32 bytes).
    #[derive(Clone, Copy)]
    #[repr(C)]
    pub struct L64(pub(crate) __m256d);
    /// Four `f32` lanes in a vector register (aligned to its 16 bytes).
    #[derive(Clone, Copy)]
    #[repr(C)]
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
/// The lanes of an `f64` value, aligned to their 32 bytes.
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
)))]
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub struct L64(pub(crate) [f64; 4]);
/// The lanes of an `f32` value, aligned to their 16 bytes.
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
)))]
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct L32(pub(crate) [f32; 4]);

/// `$to` and `$from`, array `[$t; 4]` to lanes `$l` and back, in constant context: a
/// reinterpretation of the register `$v` where the lanes are one, the array itself elsewhere.
macro_rules! conversions {
    ($to:ident, $from:ident, $neg:ident, $t:ty, $l:ident, $v:ty, $xor:ident) => {
        /// Array to lanes, in constant context.
        #[inline(always)]
        pub const fn $to(a: [$t; 4]) -> $l {
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            ))]
            {
                // SAFETY: the array and the register are the same bytes of plain data.
                $l(unsafe { core::mem::transmute::<[$t; 4], $v>(a) })
            }
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )))]
            {
                $l(a)
            }
        }

        /// Lanes to array, in constant context.
        #[inline(always)]
        pub const fn $from(v: $l) -> [$t; 4] {
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            ))]
            {
                let m = v.0;
                // SAFETY: as above.
                unsafe { core::mem::transmute::<$v, [$t; 4]>(m) }
            }
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )))]
            {
                v.0
            }
        }

        /// The samples' signs flipped, the flags lane's bits as they are: one exclusive OR
        /// with a constant where the lanes are one register (rebuilt from the samples and the
        /// flag byte, the negation took a dozen instructions before each difference).
        #[inline(always)]
        pub fn $neg(v: $l) -> $l {
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            ))]
            {
                let signs = $to([-0.0, -0.0, -0.0, 0.0]).0;
                // SAFETY: AVX is enabled for this target (cfg above).
                $l(unsafe { core::arch::x86_64::$xor(v.0, signs) })
            }
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )))]
            {
                $l([-v.0[0], -v.0[1], -v.0[2], v.0[3]])
            }
        }
    };
}

conversions!(
    lanes64,
    unlanes64,
    neg64,
    f64,
    L64,
    core::arch::x86_64::__m256d,
    _mm256_xor_pd
);
conversions!(
    lanes32,
    unlanes32,
    neg32,
    f32,
    L32,
    core::arch::x86_64::__m128,
    _mm_xor_ps
);

/// `v` through an empty assembly block that holds it in vector registers: the same bits, which
/// the compiler can no longer trace to `v`'s lanes. The operations' general path (`ops`) works
/// lane by lane beside the run-time AVX2 kernels in the user's loop; where it read the loop's
/// own values, the compiler held a running sum's lanes apart, to be joined again before every
/// kernel (docs/performance.md). Only where lanes are arrays on x86-64.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
#[inline(always)]
pub(crate) fn opaque64(v: L64) -> L64 {
    use core::arch::x86_64::__m128;
    // SAFETY: 32 bytes of plain data, in order.
    let [mut lo, mut hi] = unsafe { core::mem::transmute::<[f64; 4], [__m128; 2]>(v.0) };
    // SAFETY: an empty template that only names the registers.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} */",
            inout(xmm_reg) lo,
            inout(xmm_reg) hi,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    // SAFETY: as above.
    L64(unsafe { core::mem::transmute::<[__m128; 2], [f64; 4]>([lo, hi]) })
}

/// The same for `f32` lanes, one register.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
#[inline(always)]
pub(crate) fn opaque32(v: L32) -> L32 {
    use core::arch::x86_64::__m128;
    // SAFETY: 16 bytes of plain data, in order.
    let mut x = unsafe { core::mem::transmute::<[f32; 4], __m128>(v.0) };
    // SAFETY: an empty template that only names the register.
    unsafe {
        core::arch::asm!(
            "/* {0} */",
            inout(xmm_reg) x,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    // SAFETY: as above.
    L32(unsafe { core::mem::transmute::<__m128, [f32; 4]>(x) })
}
