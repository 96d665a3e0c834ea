//! Out-of-line slow paths that leave the hot path's registers alone.
//!
//! Every operation ends with a pre-test that is almost always false and, when it is true, a
//! call to a slow function (digits, the report's tables, the user's hook). Under the C calling
//! convention such a call clobbers every vector register, so the compiler keeps the values that
//! are live across it in memory, even on the path that does not call. The `overhead` example's
//! 3-D wave stencil (64³, 100 steps, `f32`, checks compiled in but switched off) took 3.15 s
//! with plain calls and takes 0.98 s through the trampoline (plain `f32`: 0.08 s).
//!
//! On x86-64 System V targets, [`run`] reaches the slow function through a small assembly
//! trampoline that saves and restores every caller-saved register (general purpose, vector
//! and, with AVX-512, mask registers) around an ordinary call, so to the compiler the call site
//! clobbers nothing but the flags. The slow function runs under `catch_unwind`: a panic inside
//! it (`STOCH_PANIC_ON`, a panicking hook) is carried across the trampoline and resumed after
//! it, with its original payload. Elsewhere, [`run`] is a plain call.

use core::mem::MaybeUninit;

/// The arguments of a slow call, its function, its result and whether it panicked; it lives
/// in the caller's frame, and the trampoline passes its address.
#[repr(C)]
struct Call<A, O> {
    args: A,
    f: fn(&A) -> O,
    out: MaybeUninit<O>,
    panicked: bool,
}

thread_local! {
    /// The payload of a panic caught in a slow function, until [`run`] resumes it.
    static PAYLOAD: core::cell::Cell<Option<Box<dyn core::any::Any + Send>>> =
        const { core::cell::Cell::new(None) };
}

/// Runs the slow function of a [`Call`] with the C calling convention, catching a panic.
extern "C" fn entry<A, O>(call: *mut Call<A, O>) {
    // SAFETY: `run` passes the address of a live `Call` that nothing else uses meanwhile.
    let call = unsafe { &mut *call };
    let f = call.f;
    let args = &call.args;
    match std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| f(args))) {
        Ok(o) => {
            call.out.write(o);
            call.panicked = false;
        }
        Err(payload) => {
            PAYLOAD.with(|p| p.set(Some(payload)));
            call.panicked = true;
        }
    }
}

/// Resumes the panic [`entry`] caught.
#[cold]
#[inline(never)]
fn resume() -> ! {
    match PAYLOAD.with(|p| p.take()) {
        Some(payload) => std::panic::resume_unwind(payload),
        None => unreachable!("a slow path panicked without a payload"),
    }
}

/// `f(&args)`, out of line, without clobbering the caller's registers where the trampoline
/// exists (x86-64 System V); a panic in `f` propagates to the caller as usual.
#[inline(always)]
pub(crate) fn run<A, O>(args: A, f: fn(&A) -> O) -> O {
    let mut call = Call {
        args,
        f,
        out: MaybeUninit::uninit(),
        panicked: false,
    };
    let entry: extern "C" fn(*mut Call<A, O>) = entry::<A, O>;
    invoke(entry as usize, (&mut call as *mut Call<A, O>).cast());
    if call.panicked {
        resume();
    }
    // SAFETY: `entry` wrote `out` when it did not panic.
    unsafe { call.out.assume_init() }
}

#[cfg(all(target_arch = "x86_64", not(windows)))]
#[inline(always)]
fn invoke(entry: usize, call: *mut u8) {
    // SAFETY: the trampoline saves and restores every register the call could change but the
    // flags (not declared preserved), keeps the stack aligned, and stays below the red zone;
    // `entry` is an `extern "C" fn(*mut Call<A, O>)` given its own `Call`.
    unsafe {
        core::arch::asm!(
            "lea rsp, [rsp - 128]",
            "call {t}",
            "lea rsp, [rsp + 128]",
            t = sym trampoline,
            in("rdi") call,
            in("rsi") entry,
        );
    }
}

#[cfg(not(all(target_arch = "x86_64", not(windows))))]
#[inline(always)]
fn invoke(entry: usize, call: *mut u8) {
    // SAFETY: `entry` is the address of an `extern "C" fn(*mut Call<A, O>)` and `call` its
    // `Call` (see `run`).
    let f: extern "C" fn(*mut u8) =
        unsafe { core::mem::transmute::<usize, extern "C" fn(*mut u8)>(entry) };
    f(call);
}

/// Defines the trampoline: saves every general-purpose register the C convention lets a callee
/// change and the vector (and mask) registers that `$save` lists, calls `rsi` with `rdi`, and
/// restores them (`$restore`). The frame is aligned to 64 bytes: general-purpose registers at
/// 0, mask registers at 128, vector registers at 192.
macro_rules! trampoline {
    ([$($cfg:tt)*], [$($save:expr),* $(,)?], [$($restore:expr),* $(,)?]) => {
        /// The trampoline (see `trampoline!`).
        #[cfg(all(target_arch = "x86_64", not(windows), $($cfg)*))]
        #[unsafe(naked)]
        unsafe extern "C" fn trampoline() {
            core::arch::naked_asm!(
                ".cfi_startproc",
                "push rbp",
                ".cfi_adjust_cfa_offset 8",
                ".cfi_rel_offset rbp, 0",
                "mov rbp, rsp",
                ".cfi_def_cfa_register rbp",
                "and rsp, -64",
                "sub rsp, 2240",
                "mov [rsp + 0], rax",
                "mov [rsp + 8], rcx",
                "mov [rsp + 16], rdx",
                "mov [rsp + 24], rsi",
                "mov [rsp + 32], rdi",
                "mov [rsp + 40], r8",
                "mov [rsp + 48], r9",
                "mov [rsp + 56], r10",
                "mov [rsp + 64], r11",
                $($save,)*
                "call rsi",
                $($restore,)*
                "mov rax, [rsp + 0]",
                "mov rcx, [rsp + 8]",
                "mov rdx, [rsp + 16]",
                "mov rsi, [rsp + 24]",
                "mov rdi, [rsp + 32]",
                "mov r8, [rsp + 40]",
                "mov r9, [rsp + 48]",
                "mov r10, [rsp + 56]",
                "mov r11, [rsp + 64]",
                "mov rsp, rbp",
                ".cfi_def_cfa_register rsp",
                "pop rbp",
                ".cfi_adjust_cfa_offset -8",
                ".cfi_restore rbp",
                "ret",
                ".cfi_endproc"
            );
        }
    };
}

/// The AVX-512 save and restore lists; `$kmov` moves a mask register: `kmovq` with AVX-512BW,
/// `kmovw` (16-bit masks, the widest there are) without.
macro_rules! trampoline_avx512 {
    ($kmov:literal, $($cfg:tt)*) => {
        trampoline!(
            [$($cfg)*],
            [
                concat!($kmov, " [rsp + 128], k0"),
                concat!($kmov, " [rsp + 136], k1"),
                concat!($kmov, " [rsp + 144], k2"),
                concat!($kmov, " [rsp + 152], k3"),
                concat!($kmov, " [rsp + 160], k4"),
                concat!($kmov, " [rsp + 168], k5"),
                concat!($kmov, " [rsp + 176], k6"),
                concat!($kmov, " [rsp + 184], k7"),
                "vmovaps [rsp + 192], zmm0",
                "vmovaps [rsp + 256], zmm1",
                "vmovaps [rsp + 320], zmm2",
                "vmovaps [rsp + 384], zmm3",
                "vmovaps [rsp + 448], zmm4",
                "vmovaps [rsp + 512], zmm5",
                "vmovaps [rsp + 576], zmm6",
                "vmovaps [rsp + 640], zmm7",
                "vmovaps [rsp + 704], zmm8",
                "vmovaps [rsp + 768], zmm9",
                "vmovaps [rsp + 832], zmm10",
                "vmovaps [rsp + 896], zmm11",
                "vmovaps [rsp + 960], zmm12",
                "vmovaps [rsp + 1024], zmm13",
                "vmovaps [rsp + 1088], zmm14",
                "vmovaps [rsp + 1152], zmm15",
                "vmovaps [rsp + 1216], zmm16",
                "vmovaps [rsp + 1280], zmm17",
                "vmovaps [rsp + 1344], zmm18",
                "vmovaps [rsp + 1408], zmm19",
                "vmovaps [rsp + 1472], zmm20",
                "vmovaps [rsp + 1536], zmm21",
                "vmovaps [rsp + 1600], zmm22",
                "vmovaps [rsp + 1664], zmm23",
                "vmovaps [rsp + 1728], zmm24",
                "vmovaps [rsp + 1792], zmm25",
                "vmovaps [rsp + 1856], zmm26",
                "vmovaps [rsp + 1920], zmm27",
                "vmovaps [rsp + 1984], zmm28",
                "vmovaps [rsp + 2048], zmm29",
                "vmovaps [rsp + 2112], zmm30",
                "vmovaps [rsp + 2176], zmm31",
            ],
            [
                "vmovaps zmm0, [rsp + 192]",
                "vmovaps zmm1, [rsp + 256]",
                "vmovaps zmm2, [rsp + 320]",
                "vmovaps zmm3, [rsp + 384]",
                "vmovaps zmm4, [rsp + 448]",
                "vmovaps zmm5, [rsp + 512]",
                "vmovaps zmm6, [rsp + 576]",
                "vmovaps zmm7, [rsp + 640]",
                "vmovaps zmm8, [rsp + 704]",
                "vmovaps zmm9, [rsp + 768]",
                "vmovaps zmm10, [rsp + 832]",
                "vmovaps zmm11, [rsp + 896]",
                "vmovaps zmm12, [rsp + 960]",
                "vmovaps zmm13, [rsp + 1024]",
                "vmovaps zmm14, [rsp + 1088]",
                "vmovaps zmm15, [rsp + 1152]",
                "vmovaps zmm16, [rsp + 1216]",
                "vmovaps zmm17, [rsp + 1280]",
                "vmovaps zmm18, [rsp + 1344]",
                "vmovaps zmm19, [rsp + 1408]",
                "vmovaps zmm20, [rsp + 1472]",
                "vmovaps zmm21, [rsp + 1536]",
                "vmovaps zmm22, [rsp + 1600]",
                "vmovaps zmm23, [rsp + 1664]",
                "vmovaps zmm24, [rsp + 1728]",
                "vmovaps zmm25, [rsp + 1792]",
                "vmovaps zmm26, [rsp + 1856]",
                "vmovaps zmm27, [rsp + 1920]",
                "vmovaps zmm28, [rsp + 1984]",
                "vmovaps zmm29, [rsp + 2048]",
                "vmovaps zmm30, [rsp + 2112]",
                "vmovaps zmm31, [rsp + 2176]",
                concat!($kmov, " k0, [rsp + 128]"),
                concat!($kmov, " k1, [rsp + 136]"),
                concat!($kmov, " k2, [rsp + 144]"),
                concat!($kmov, " k3, [rsp + 152]"),
                concat!($kmov, " k4, [rsp + 160]"),
                concat!($kmov, " k5, [rsp + 168]"),
                concat!($kmov, " k6, [rsp + 176]"),
                concat!($kmov, " k7, [rsp + 184]"),
            ]
        );
    };
}

trampoline_avx512!(
    "kmovq",
    target_feature = "avx512f",
    target_feature = "avx512bw"
);
trampoline_avx512!(
    "kmovw",
    target_feature = "avx512f",
    not(target_feature = "avx512bw")
);

// AVX without AVX-512: `ymm0`-`ymm15`.
trampoline!(
    [target_feature = "avx", not(target_feature = "avx512f")],
    [
        "vmovaps [rsp + 192], ymm0",
        "vmovaps [rsp + 224], ymm1",
        "vmovaps [rsp + 256], ymm2",
        "vmovaps [rsp + 288], ymm3",
        "vmovaps [rsp + 320], ymm4",
        "vmovaps [rsp + 352], ymm5",
        "vmovaps [rsp + 384], ymm6",
        "vmovaps [rsp + 416], ymm7",
        "vmovaps [rsp + 448], ymm8",
        "vmovaps [rsp + 480], ymm9",
        "vmovaps [rsp + 512], ymm10",
        "vmovaps [rsp + 544], ymm11",
        "vmovaps [rsp + 576], ymm12",
        "vmovaps [rsp + 608], ymm13",
        "vmovaps [rsp + 640], ymm14",
        "vmovaps [rsp + 672], ymm15",
    ],
    [
        "vmovaps ymm0, [rsp + 192]",
        "vmovaps ymm1, [rsp + 224]",
        "vmovaps ymm2, [rsp + 256]",
        "vmovaps ymm3, [rsp + 288]",
        "vmovaps ymm4, [rsp + 320]",
        "vmovaps ymm5, [rsp + 352]",
        "vmovaps ymm6, [rsp + 384]",
        "vmovaps ymm7, [rsp + 416]",
        "vmovaps ymm8, [rsp + 448]",
        "vmovaps ymm9, [rsp + 480]",
        "vmovaps ymm10, [rsp + 512]",
        "vmovaps ymm11, [rsp + 544]",
        "vmovaps ymm12, [rsp + 576]",
        "vmovaps ymm13, [rsp + 608]",
        "vmovaps ymm14, [rsp + 640]",
        "vmovaps ymm15, [rsp + 672]",
    ]
);

// SSE only: `xmm0`-`xmm15`.
trampoline!(
    [not(target_feature = "avx")],
    [
        "movaps [rsp + 192], xmm0",
        "movaps [rsp + 208], xmm1",
        "movaps [rsp + 224], xmm2",
        "movaps [rsp + 240], xmm3",
        "movaps [rsp + 256], xmm4",
        "movaps [rsp + 272], xmm5",
        "movaps [rsp + 288], xmm6",
        "movaps [rsp + 304], xmm7",
        "movaps [rsp + 320], xmm8",
        "movaps [rsp + 336], xmm9",
        "movaps [rsp + 352], xmm10",
        "movaps [rsp + 368], xmm11",
        "movaps [rsp + 384], xmm12",
        "movaps [rsp + 400], xmm13",
        "movaps [rsp + 416], xmm14",
        "movaps [rsp + 432], xmm15",
    ],
    [
        "movaps xmm0, [rsp + 192]",
        "movaps xmm1, [rsp + 208]",
        "movaps xmm2, [rsp + 224]",
        "movaps xmm3, [rsp + 240]",
        "movaps xmm4, [rsp + 256]",
        "movaps xmm5, [rsp + 272]",
        "movaps xmm6, [rsp + 288]",
        "movaps xmm7, [rsp + 304]",
        "movaps xmm8, [rsp + 320]",
        "movaps xmm9, [rsp + 336]",
        "movaps xmm10, [rsp + 352]",
        "movaps xmm11, [rsp + 368]",
        "movaps xmm12, [rsp + 384]",
        "movaps xmm13, [rsp + 400]",
        "movaps xmm14, [rsp + 416]",
        "movaps xmm15, [rsp + 432]",
    ]
);

#[cfg(all(test, target_arch = "x86_64", not(windows)))]
mod tests {
    //! The trampoline against its contract: every register a C call may change holds, after
    //! it, what it held before, although the function called overwrites them all.
    use super::*;
    use core::arch::asm;

    /// Overwrites every caller-saved register (the assembly writes zeros; the compiler is
    /// told by `clobber_abi` that it does).
    extern "C" fn clobber(_: *mut u8) {
        // SAFETY: writes registers only, all declared clobbered.
        unsafe {
            clobber_all();
        }
    }

    /// The AVX-512 half of the test: `$kmov` and `$gpr` move a mask register (`kmovq` with a
    /// 64-bit register under AVX-512BW, `kmovw` with a 32-bit one without), `$bits` its width.
    macro_rules! avx512_variant {
        ($kmov:literal, $gpr:literal, $bits:literal, $($cfg:tt)*) => {
            #[cfg(all($($cfg)*))]
        const VECTORS: usize = 32;
            #[cfg(all($($cfg)*))]
        const WIDTH: usize = 64;
            #[cfg(all($($cfg)*))]
        const MASKS: usize = 8;
            #[cfg(all($($cfg)*))]
        const MASK_BITS: u32 = $bits;

            #[cfg(all($($cfg)*))]
        unsafe fn clobber_all() {
            // SAFETY: (the caller's) registers only.
            unsafe {
                asm!(
                    "xor eax, eax",
                    "xor ecx, ecx",
                    "xor edx, edx",
                    "xor esi, esi",
                    "xor edi, edi",
                    "xor r8d, r8d",
                    "xor r9d, r9d",
                    "xor r10d, r10d",
                    "xor r11d, r11d",
                    "vpxord zmm0, zmm0, zmm0",
                    "vpxord zmm1, zmm1, zmm1",
                    "vpxord zmm2, zmm2, zmm2",
                    "vpxord zmm3, zmm3, zmm3",
                    "vpxord zmm4, zmm4, zmm4",
                    "vpxord zmm5, zmm5, zmm5",
                    "vpxord zmm6, zmm6, zmm6",
                    "vpxord zmm7, zmm7, zmm7",
                    "vpxord zmm8, zmm8, zmm8",
                    "vpxord zmm9, zmm9, zmm9",
                    "vpxord zmm10, zmm10, zmm10",
                    "vpxord zmm11, zmm11, zmm11",
                    "vpxord zmm12, zmm12, zmm12",
                    "vpxord zmm13, zmm13, zmm13",
                    "vpxord zmm14, zmm14, zmm14",
                    "vpxord zmm15, zmm15, zmm15",
                    "vpxord zmm16, zmm16, zmm16",
                    "vpxord zmm17, zmm17, zmm17",
                    "vpxord zmm18, zmm18, zmm18",
                    "vpxord zmm19, zmm19, zmm19",
                    "vpxord zmm20, zmm20, zmm20",
                    "vpxord zmm21, zmm21, zmm21",
                    "vpxord zmm22, zmm22, zmm22",
                    "vpxord zmm23, zmm23, zmm23",
                    "vpxord zmm24, zmm24, zmm24",
                    "vpxord zmm25, zmm25, zmm25",
                    "vpxord zmm26, zmm26, zmm26",
                    "vpxord zmm27, zmm27, zmm27",
                    "vpxord zmm28, zmm28, zmm28",
                    "vpxord zmm29, zmm29, zmm29",
                    "vpxord zmm30, zmm30, zmm30",
                    "vpxord zmm31, zmm31, zmm31",
                    "kxorw k0, k0, k0",
                    "kxorw k1, k1, k1",
                    "kxorw k2, k2, k2",
                    "kxorw k3, k3, k3",
                    "kxorw k4, k4, k4",
                    "kxorw k5, k5, k5",
                    "kxorw k6, k6, k6",
                    "kxorw k7, k7, k7",
                    clobber_abi("C"),
                );
            }
        }

        /// Loads `pattern` into every vector register, known values into the general-purpose
        /// (and mask) registers, calls [`clobber`] through the trampoline, and stores the
        /// registers into `out`.
            #[cfg(all($($cfg)*))]
        fn call_and_dump(pattern: &[u8], out: &mut [u8]) {
            // SAFETY: reads `pattern` and writes `out` (both large enough, checked by the caller)
            // through r12/r13, which the trampoline's callee preserves; every other register it
            // touches is declared clobbered.
            unsafe {
                asm!(
                "vmovups zmm0, [r12 + 0]",
                "vmovups zmm1, [r12 + 64]",
                "vmovups zmm2, [r12 + 128]",
                "vmovups zmm3, [r12 + 192]",
                "vmovups zmm4, [r12 + 256]",
                "vmovups zmm5, [r12 + 320]",
                "vmovups zmm6, [r12 + 384]",
                "vmovups zmm7, [r12 + 448]",
                "vmovups zmm8, [r12 + 512]",
                "vmovups zmm9, [r12 + 576]",
                "vmovups zmm10, [r12 + 640]",
                "vmovups zmm11, [r12 + 704]",
                "vmovups zmm12, [r12 + 768]",
                "vmovups zmm13, [r12 + 832]",
                "vmovups zmm14, [r12 + 896]",
                "vmovups zmm15, [r12 + 960]",
                "vmovups zmm16, [r12 + 1024]",
                "vmovups zmm17, [r12 + 1088]",
                "vmovups zmm18, [r12 + 1152]",
                "vmovups zmm19, [r12 + 1216]",
                "vmovups zmm20, [r12 + 1280]",
                "vmovups zmm21, [r12 + 1344]",
                "vmovups zmm22, [r12 + 1408]",
                "vmovups zmm23, [r12 + 1472]",
                "vmovups zmm24, [r12 + 1536]",
                "vmovups zmm25, [r12 + 1600]",
                "vmovups zmm26, [r12 + 1664]",
                "vmovups zmm27, [r12 + 1728]",
                "vmovups zmm28, [r12 + 1792]",
                "vmovups zmm29, [r12 + 1856]",
                "vmovups zmm30, [r12 + 1920]",
                "vmovups zmm31, [r12 + 1984]",
                "mov rax, 72340172838076673",
                concat!($kmov, " k0, ", $gpr),
                "mov rax, 144680345676153346",
                concat!($kmov, " k1, ", $gpr),
                "mov rax, 217020518514230019",
                concat!($kmov, " k2, ", $gpr),
                "mov rax, 289360691352306692",
                concat!($kmov, " k3, ", $gpr),
                "mov rax, 361700864190383365",
                concat!($kmov, " k4, ", $gpr),
                "mov rax, 434041037028460038",
                concat!($kmov, " k5, ", $gpr),
                "mov rax, 506381209866536711",
                concat!($kmov, " k6, ", $gpr),
                "mov rax, 578721382704613384",
                concat!($kmov, " k7, ", $gpr),
                "mov rax, 1229782938247303441",
                "mov rcx, 2459565876494606882",
                "mov rdx, 3689348814741910323",
                "mov r8, 4919131752989213764",
                "mov r9, 6148914691236517205",
                "mov r10, 7378697629483820646",
                "mov r11, 8608480567731124087",
                "lea rsp, [rsp - 128]",
                "call {t}",
                "lea rsp, [rsp + 128]",
                "vmovups [r13 + 0], zmm0",
                "vmovups [r13 + 64], zmm1",
                "vmovups [r13 + 128], zmm2",
                "vmovups [r13 + 192], zmm3",
                "vmovups [r13 + 256], zmm4",
                "vmovups [r13 + 320], zmm5",
                "vmovups [r13 + 384], zmm6",
                "vmovups [r13 + 448], zmm7",
                "vmovups [r13 + 512], zmm8",
                "vmovups [r13 + 576], zmm9",
                "vmovups [r13 + 640], zmm10",
                "vmovups [r13 + 704], zmm11",
                "vmovups [r13 + 768], zmm12",
                "vmovups [r13 + 832], zmm13",
                "vmovups [r13 + 896], zmm14",
                "vmovups [r13 + 960], zmm15",
                "vmovups [r13 + 1024], zmm16",
                "vmovups [r13 + 1088], zmm17",
                "vmovups [r13 + 1152], zmm18",
                "vmovups [r13 + 1216], zmm19",
                "vmovups [r13 + 1280], zmm20",
                "vmovups [r13 + 1344], zmm21",
                "vmovups [r13 + 1408], zmm22",
                "vmovups [r13 + 1472], zmm23",
                "vmovups [r13 + 1536], zmm24",
                "vmovups [r13 + 1600], zmm25",
                "vmovups [r13 + 1664], zmm26",
                "vmovups [r13 + 1728], zmm27",
                "vmovups [r13 + 1792], zmm28",
                "vmovups [r13 + 1856], zmm29",
                "vmovups [r13 + 1920], zmm30",
                "vmovups [r13 + 1984], zmm31",
                "mov [r13 + 2048], rax",
                "mov [r13 + 2056], rcx",
                "mov [r13 + 2064], rdx",
                "mov [r13 + 2072], r8",
                "mov [r13 + 2080], r9",
                "mov [r13 + 2088], r10",
                "mov [r13 + 2096], r11",
                "mov [r13 + 2104], rdi",
                "mov [r13 + 2112], rsi",
                concat!($kmov, " ", $gpr, ", k0"),
                "mov [r13 + 2120], rax",
                concat!($kmov, " ", $gpr, ", k1"),
                "mov [r13 + 2128], rax",
                concat!($kmov, " ", $gpr, ", k2"),
                "mov [r13 + 2136], rax",
                concat!($kmov, " ", $gpr, ", k3"),
                "mov [r13 + 2144], rax",
                concat!($kmov, " ", $gpr, ", k4"),
                "mov [r13 + 2152], rax",
                concat!($kmov, " ", $gpr, ", k5"),
                "mov [r13 + 2160], rax",
                concat!($kmov, " ", $gpr, ", k6"),
                "mov [r13 + 2168], rax",
                concat!($kmov, " ", $gpr, ", k7"),
                "mov [r13 + 2176], rax",
                    t = sym trampoline,
                    in("r12") pattern.as_ptr(),
                    in("r13") out.as_mut_ptr(),
                    in("rdi") 0usize,
                    in("rsi") clobber as extern "C" fn(*mut u8) as usize,
                    clobber_abi("C"),
                );
            }
        }
        };
    }

    avx512_variant!(
        "kmovq",
        "rax",
        64,
        target_feature = "avx512f",
        target_feature = "avx512bw"
    );
    avx512_variant!(
        "kmovw",
        "eax",
        16,
        target_feature = "avx512f",
        not(target_feature = "avx512bw")
    );

    #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
    const VECTORS: usize = 16;
    #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
    const WIDTH: usize = 32;
    #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
    const MASKS: usize = 0;
    #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
    const MASK_BITS: u32 = 64;

    #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
    unsafe fn clobber_all() {
        // SAFETY: (the caller's) registers only.
        unsafe {
            asm!(
                "xor eax, eax",
                "xor ecx, ecx",
                "xor edx, edx",
                "xor esi, esi",
                "xor edi, edi",
                "xor r8d, r8d",
                "xor r9d, r9d",
                "xor r10d, r10d",
                "xor r11d, r11d",
                "vpxor ymm0, ymm0, ymm0",
                "vpxor ymm1, ymm1, ymm1",
                "vpxor ymm2, ymm2, ymm2",
                "vpxor ymm3, ymm3, ymm3",
                "vpxor ymm4, ymm4, ymm4",
                "vpxor ymm5, ymm5, ymm5",
                "vpxor ymm6, ymm6, ymm6",
                "vpxor ymm7, ymm7, ymm7",
                "vpxor ymm8, ymm8, ymm8",
                "vpxor ymm9, ymm9, ymm9",
                "vpxor ymm10, ymm10, ymm10",
                "vpxor ymm11, ymm11, ymm11",
                "vpxor ymm12, ymm12, ymm12",
                "vpxor ymm13, ymm13, ymm13",
                "vpxor ymm14, ymm14, ymm14",
                "vpxor ymm15, ymm15, ymm15",
                clobber_abi("C"),
            );
        }
    }

    /// Loads `pattern` into every vector register, known values into the general-purpose
    /// (and mask) registers, calls [`clobber`] through the trampoline, and stores the
    /// registers into `out`.
    #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
    fn call_and_dump(pattern: &[u8], out: &mut [u8]) {
        // SAFETY: reads `pattern` and writes `out` (both large enough, checked by the caller)
        // through r12/r13, which the trampoline's callee preserves; every other register it
        // touches is declared clobbered.
        unsafe {
            asm!(
            "vmovups ymm0, [r12 + 0]",
            "vmovups ymm1, [r12 + 32]",
            "vmovups ymm2, [r12 + 64]",
            "vmovups ymm3, [r12 + 96]",
            "vmovups ymm4, [r12 + 128]",
            "vmovups ymm5, [r12 + 160]",
            "vmovups ymm6, [r12 + 192]",
            "vmovups ymm7, [r12 + 224]",
            "vmovups ymm8, [r12 + 256]",
            "vmovups ymm9, [r12 + 288]",
            "vmovups ymm10, [r12 + 320]",
            "vmovups ymm11, [r12 + 352]",
            "vmovups ymm12, [r12 + 384]",
            "vmovups ymm13, [r12 + 416]",
            "vmovups ymm14, [r12 + 448]",
            "vmovups ymm15, [r12 + 480]",
            "mov rax, 1229782938247303441",
            "mov rcx, 2459565876494606882",
            "mov rdx, 3689348814741910323",
            "mov r8, 4919131752989213764",
            "mov r9, 6148914691236517205",
            "mov r10, 7378697629483820646",
            "mov r11, 8608480567731124087",
            "lea rsp, [rsp - 128]",
            "call {t}",
            "lea rsp, [rsp + 128]",
            "vmovups [r13 + 0], ymm0",
            "vmovups [r13 + 32], ymm1",
            "vmovups [r13 + 64], ymm2",
            "vmovups [r13 + 96], ymm3",
            "vmovups [r13 + 128], ymm4",
            "vmovups [r13 + 160], ymm5",
            "vmovups [r13 + 192], ymm6",
            "vmovups [r13 + 224], ymm7",
            "vmovups [r13 + 256], ymm8",
            "vmovups [r13 + 288], ymm9",
            "vmovups [r13 + 320], ymm10",
            "vmovups [r13 + 352], ymm11",
            "vmovups [r13 + 384], ymm12",
            "vmovups [r13 + 416], ymm13",
            "vmovups [r13 + 448], ymm14",
            "vmovups [r13 + 480], ymm15",
            "mov [r13 + 512], rax",
            "mov [r13 + 520], rcx",
            "mov [r13 + 528], rdx",
            "mov [r13 + 536], r8",
            "mov [r13 + 544], r9",
            "mov [r13 + 552], r10",
            "mov [r13 + 560], r11",
            "mov [r13 + 568], rdi",
            "mov [r13 + 576], rsi",
                t = sym trampoline,
                in("r12") pattern.as_ptr(),
                in("r13") out.as_mut_ptr(),
                in("rdi") 0usize,
                in("rsi") clobber as extern "C" fn(*mut u8) as usize,
                clobber_abi("C"),
            );
        }
    }

    #[cfg(not(target_feature = "avx"))]
    const VECTORS: usize = 16;
    #[cfg(not(target_feature = "avx"))]
    const WIDTH: usize = 16;
    #[cfg(not(target_feature = "avx"))]
    const MASKS: usize = 0;
    #[cfg(not(target_feature = "avx"))]
    const MASK_BITS: u32 = 64;

    #[cfg(not(target_feature = "avx"))]
    unsafe fn clobber_all() {
        // SAFETY: (the caller's) registers only.
        unsafe {
            asm!(
                "xor eax, eax",
                "xor ecx, ecx",
                "xor edx, edx",
                "xor esi, esi",
                "xor edi, edi",
                "xor r8d, r8d",
                "xor r9d, r9d",
                "xor r10d, r10d",
                "xor r11d, r11d",
                "pxor xmm0, xmm0",
                "pxor xmm1, xmm1",
                "pxor xmm2, xmm2",
                "pxor xmm3, xmm3",
                "pxor xmm4, xmm4",
                "pxor xmm5, xmm5",
                "pxor xmm6, xmm6",
                "pxor xmm7, xmm7",
                "pxor xmm8, xmm8",
                "pxor xmm9, xmm9",
                "pxor xmm10, xmm10",
                "pxor xmm11, xmm11",
                "pxor xmm12, xmm12",
                "pxor xmm13, xmm13",
                "pxor xmm14, xmm14",
                "pxor xmm15, xmm15",
                clobber_abi("C"),
            );
        }
    }

    /// Loads `pattern` into every vector register, known values into the general-purpose
    /// (and mask) registers, calls [`clobber`] through the trampoline, and stores the
    /// registers into `out`.
    #[cfg(not(target_feature = "avx"))]
    fn call_and_dump(pattern: &[u8], out: &mut [u8]) {
        // SAFETY: reads `pattern` and writes `out` (both large enough, checked by the caller)
        // through r12/r13, which the trampoline's callee preserves; every other register it
        // touches is declared clobbered.
        unsafe {
            asm!(
            "movups xmm0, [r12 + 0]",
            "movups xmm1, [r12 + 16]",
            "movups xmm2, [r12 + 32]",
            "movups xmm3, [r12 + 48]",
            "movups xmm4, [r12 + 64]",
            "movups xmm5, [r12 + 80]",
            "movups xmm6, [r12 + 96]",
            "movups xmm7, [r12 + 112]",
            "movups xmm8, [r12 + 128]",
            "movups xmm9, [r12 + 144]",
            "movups xmm10, [r12 + 160]",
            "movups xmm11, [r12 + 176]",
            "movups xmm12, [r12 + 192]",
            "movups xmm13, [r12 + 208]",
            "movups xmm14, [r12 + 224]",
            "movups xmm15, [r12 + 240]",
            "mov rax, 1229782938247303441",
            "mov rcx, 2459565876494606882",
            "mov rdx, 3689348814741910323",
            "mov r8, 4919131752989213764",
            "mov r9, 6148914691236517205",
            "mov r10, 7378697629483820646",
            "mov r11, 8608480567731124087",
            "lea rsp, [rsp - 128]",
            "call {t}",
            "lea rsp, [rsp + 128]",
            "movups [r13 + 0], xmm0",
            "movups [r13 + 16], xmm1",
            "movups [r13 + 32], xmm2",
            "movups [r13 + 48], xmm3",
            "movups [r13 + 64], xmm4",
            "movups [r13 + 80], xmm5",
            "movups [r13 + 96], xmm6",
            "movups [r13 + 112], xmm7",
            "movups [r13 + 128], xmm8",
            "movups [r13 + 144], xmm9",
            "movups [r13 + 160], xmm10",
            "movups [r13 + 176], xmm11",
            "movups [r13 + 192], xmm12",
            "movups [r13 + 208], xmm13",
            "movups [r13 + 224], xmm14",
            "movups [r13 + 240], xmm15",
            "mov [r13 + 256], rax",
            "mov [r13 + 264], rcx",
            "mov [r13 + 272], rdx",
            "mov [r13 + 280], r8",
            "mov [r13 + 288], r9",
            "mov [r13 + 296], r10",
            "mov [r13 + 304], r11",
            "mov [r13 + 312], rdi",
            "mov [r13 + 320], rsi",
                t = sym trampoline,
                in("r12") pattern.as_ptr(),
                in("r13") out.as_mut_ptr(),
                in("rdi") 0usize,
                in("rsi") clobber as extern "C" fn(*mut u8) as usize,
                clobber_abi("C"),
            );
        }
    }

    #[test]
    fn trampoline_preserves_every_caller_saved_register() {
        let vec_bytes = VECTORS * WIDTH;
        let pattern: Vec<u8> = (0..vec_bytes).map(|i| (i * 7 + 3) as u8 | 1).collect();
        let mut out = vec![0u8; vec_bytes + 9 * 8 + MASKS * 8];
        assert!(pattern.len() == vec_bytes && out.len() >= vec_bytes + 72 + MASKS * 8);
        call_and_dump(&pattern, &mut out);
        for v in 0..VECTORS {
            let r = v * WIDTH..(v + 1) * WIDTH;
            assert_eq!(
                out[r.clone()],
                pattern[r],
                "vector register {v} was not preserved"
            );
        }
        let word = |i: usize| {
            let at = vec_bytes + 8 * i;
            u64::from_le_bytes(out[at..at + 8].try_into().unwrap())
        };
        let names = ["rax", "rcx", "rdx", "r8", "r9", "r10", "r11"];
        for (j, name) in names.iter().enumerate() {
            let want = (0x1111_1111_1111_1111u64 * (j as u64 + 1)) & 0x7fff_ffff_ffff_ffff;
            assert_eq!(word(j), want, "{name} was not preserved");
        }
        assert_eq!(word(7), 0, "rdi was not preserved");
        assert_eq!(
            word(8),
            clobber as extern "C" fn(*mut u8) as usize as u64,
            "rsi"
        );
        for k in 0..MASKS {
            let full = 0x0101_0101_0101_0101u64 * (k as u64 + 1);
            let want = if MASK_BITS == 16 { full & 0xffff } else { full };
            assert_eq!(
                word(9 + k) & if MASK_BITS == 16 { 0xffff } else { u64::MAX },
                want,
                "k{k} was not preserved"
            );
        }
    }

    #[test]
    fn run_returns_the_result_and_carries_a_panic() {
        assert_eq!(run((20u64, 22u64), |c| c.0 + c.1), 42);
        let caught = std::panic::catch_unwind(|| run(7u8, |c| -> u8 { panic!("slow path {c}") }));
        let payload = caught.expect_err("the panic must cross the trampoline");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some("slow path 7")
        );
        // The thread's slot is empty again, and the next call works.
        assert_eq!(run((), |_| 5u32), 5);
    }
}
