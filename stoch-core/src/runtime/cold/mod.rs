//! Out-of-line slow paths that leave the hot path's registers alone.
//!
//! Every operation ends with a pre-test that is almost always false and, when it is true, a
//! call to a slow function (digits, the report's tables, the user's hook). Under the C calling
//! convention such a call clobbers every vector register, so the compiler keeps the values that
//! are live across it in memory, even on the path that does not call (docs/performance.md has
//! the cost).
//!
//! On x86-64 System V targets, [`run`] reaches the slow function through a small assembly
//! trampoline that saves and restores every caller-saved register (general purpose, and the
//! vector and mask registers the processor has, whatever the build's target) around an
//! ordinary call, so to the compiler the call site
//! clobbers nothing but the flags. The slow function runs under `catch_unwind`: a panic inside
//! it (`STOCH_PANIC_ON`, a panicking hook) is carried across the trampoline and resumed after
//! it, with its original payload. Elsewhere, [`run`] is a plain call.

use core::mem::MaybeUninit;
#[cfg(all(target_arch = "x86_64", not(windows)))]
use core::sync::atomic::{AtomicU8, Ordering};

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
    // flags (not declared preserved), as the processor defines them (`rdx`: what it knows of
    // them), keeps the stack aligned, and stays below the red zone;
    // `entry` is an `extern "C" fn(*mut Call<A, O>)` given its own `Call`.
    unsafe {
        core::arch::asm!(
            "lea rsp, [rsp - 128]",
            "call {t}",
            "lea rsp, [rsp + 128]",
            t = sym trampoline,
            in("rdi") call,
            in("rsi") entry,
            in("rdx") VECTOR_STATE.load(Ordering::Relaxed) as usize,
            // The run-time AVX-512 kernels (`rt512`) keep `zmm16`-`zmm31` in use: declared
            // changed here, the compiler saves what it keeps there (a caller compiled with
            // AVX-512), and the trampoline need not save them at every slow call.
            out("zmm16") _,
            out("zmm17") _,
            out("zmm18") _,
            out("zmm19") _,
            out("zmm20") _,
            out("zmm21") _,
            out("zmm22") _,
            out("zmm23") _,
            out("zmm24") _,
            out("zmm25") _,
            out("zmm26") _,
            out("zmm27") _,
            out("zmm28") _,
            out("zmm29") _,
            out("zmm30") _,
            out("zmm31") _,
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

/// How the trampoline saves the vector state: by what the processor and the operating system
/// enable, not by the build's target. A caller compiled with
/// `#[target_feature(enable = "avx512f")]` keeps values in the upper halves of the vector
/// registers and in the mask registers even when this crate was built for baseline x86-64, and
/// a slow function may run library code, such as an AVX-512 `memcpy`, that changes them.
/// `zmm16`-`zmm31` are not saved: [`invoke`] declares them changed, and the compiler saves what
/// it keeps there.
///
/// `0`: not yet known (the trampoline finds out with `cpuid` and `xgetbv` and stores the
/// answer); [`SSE`], [`XSAVE`], [`XSAVEC`], [`INUSE`], [`INUSE512`] or [`INUSE512BW`].
#[cfg(all(target_arch = "x86_64", not(windows)))]
static VECTOR_STATE: AtomicU8 = AtomicU8::new(0);

/// No AVX state (no `xsave`, or AVX not enabled): `movaps` of `xmm0`-`xmm15`.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const SSE: u8 = 1;
/// `xsave`/`xrstor` of the SSE, AVX and AVX-512 state components the OS enables.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const XSAVE: u8 = 2;
/// `xsavec`/`xrstor`: the same, compacted, skipping components in their initial state.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const XSAVEC: u8 = 3;
/// Plain moves of what is in use (`xgetbv` with `ecx = 1`), AVX: `xmm0`-`xmm15`, or `ymm0`-`ymm15`
/// where their upper halves are in use.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const INUSE: u8 = 4;
/// The same with AVX-512: `zmm0`-`zmm15` where their upper halves are in use, and `k0`-`k7`
/// (16-bit moves) where in use, zeroed after the call where not.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const INUSE512: u8 = 5;
/// The same with AVX-512BW (64-bit mask registers).
#[cfg(all(target_arch = "x86_64", not(windows)))]
const INUSE512BW: u8 = 6;

/// The `xsave` state components saved: SSE (`xmm`, `mxcsr`), AVX (upper halves of `ymm`),
/// AVX-512 opmask, upper halves of `zmm0`-`zmm15` (not `zmm16`-`zmm31`, see [`VECTOR_STATE`]).
/// An `xsave` saves those of them the OS enables.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const COMPONENTS: u32 = 0b0110_0110;

/// Bytes reserved for the `xsave` area: the standard format's end of the last component saved,
/// on every processor known (Intel: 2688, AMD Zen 4: 2432; the compacted format needs at most
/// 2432 plus alignment). A test checks it against `cpuid`.
#[cfg(all(target_arch = "x86_64", not(windows)))]
const AREA: usize = 2752;

/// The trampoline. Called with `rdi` the `Call`, `rsi` the function to call with it and `dl`
/// the [`VECTOR_STATE`] (`0` makes it detect the state and store it there). It saves every
/// general-purpose register the C convention lets a callee change and the vector state, calls
/// `rsi` with `rdi`, and restores them. The frame is aligned to 64 bytes: general-purpose
/// registers at 0, `rbx` (while `cpuid` runs) at 72, the state at 80, the in-use bits at 84,
/// the save area at 128 (`xsave` area, or `zmm0`-`zmm15` at 64-byte steps and `k0`-`k7` at
/// 2176).
///
/// The upper halves of the vector registers must come back out of use when they were: with
/// them in use, every legacy-SSE instruction of a baseline build pays for merging them. Where the processor says which
/// state components are in use (`xgetbv` with `ecx = 1`, [`INUSE`] and up), the trampoline
/// reads that first, saves only those registers with plain moves, and after the call zeroes
/// what was unused (an unused component is all zeros), with `vzeroupper` for the upper halves,
/// which also puts them out of use. That is cheaper than `xsavec`/`xrstor` ([`XSAVEC`], kept
/// for processors without that `xgetbv`): `xrstor` returns unused components to their initial
/// state too, but it is slow. `zmm16`-`zmm31` are left to the compiler, which the run-time
/// AVX-512 kernels keep in use: 16 stores and 16 loads of 64 bytes fewer per slow call. Figures
/// in docs/performance.md.
///
/// Once the state is saved, `vzeroupper` puts the upper halves of `zmm0`-`zmm15` out of use
/// before the call, whatever the caller had there (the restore puts back what was in use): the
/// slow function may call legacy-SSE code (the C library's `log10`, for the digits; the
/// standard library's own code), which compilers assume runs with them out of use, and which
/// pays for every instruction on an Intel processor where they are in use (docs/performance.md).
#[cfg(all(target_arch = "x86_64", not(windows)))]
#[unsafe(naked)]
unsafe extern "C" fn trampoline() {
    core::arch::naked_asm!(
        ".cfi_startproc",
        // Every caller steps over its red zone before the call (`lea rsp, [rsp - 128]`, see
        // `invoke`), which the caller's own unwind rules do not know of: the canonical frame
        // address given here is the caller's stack pointer before that step, 128 bytes above
        // the usual one, so that unwinders (backtraces, debuggers) walk on into the caller.
        ".cfi_def_cfa_offset 136",
        ".cfi_offset rip, -136",
        "push rbp",
        ".cfi_adjust_cfa_offset 8",
        ".cfi_rel_offset rbp, 0",
        "mov rbp, rsp",
        ".cfi_def_cfa_register rbp",
        "and rsp, -64",
        "sub rsp, {frame}",
        "mov [rsp + 0], rax",
        "mov [rsp + 8], rcx",
        "mov [rsp + 16], rdx",
        "mov [rsp + 24], rsi",
        "mov [rsp + 32], rdi",
        "mov [rsp + 40], r8",
        "mov [rsp + 48], r9",
        "mov [rsp + 56], r10",
        "mov [rsp + 64], r11",
        // The state: given, or detected now.
        "test dl, dl",
        "jnz 2f",
        "mov [rsp + 72], rbx",
        "mov r8d, {sse}",
        "mov eax, 1",
        "cpuid",
        "bt ecx, 27", // OSXSAVE
        "jnc 3f",
        "xor ecx, ecx",
        "xgetbv",
        "mov r9d, eax", // XCR0: the state components the OS enables
        "and eax, 6",   // SSE and AVX state enabled
        "cmp eax, 6",
        "jne 3f",
        "mov r8d, {xsave}",
        "xor eax, eax",
        "cpuid",
        "cmp eax, 13",
        "jb 3f",
        "mov eax, 13",
        "mov ecx, 1",
        "cpuid",
        "bt eax, 1", // XSAVEC
        "jnc 8f",
        "mov r8d, {xsavec}",
        "8:",
        "bt eax, 2", // XGETBV with ECX = 1 (which components are in use)
        "jnc 3f",
        "mov r8d, {inuse}",
        "and r9d, 0xe0", // AVX-512 state enabled
        "cmp r9d, 0xe0",
        "jne 3f",
        "mov r8d, {inuse512}",
        "mov eax, 7",
        "xor ecx, ecx",
        "cpuid",
        "bt ebx, 30", // AVX512BW: 64-bit mask registers
        "jnc 3f",
        "mov r8d, {inuse512bw}",
        "3:",
        "mov rbx, [rsp + 72]",
        "mov byte ptr [rip + {state}], r8b",
        "mov edx, r8d",
        "2:",
        "mov [rsp + 80], dl",
        // Save.
        "cmp dl, {sse}",
        "jne 4f",
        "movaps [rsp + 128], xmm0",
        "movaps [rsp + 144], xmm1",
        "movaps [rsp + 160], xmm2",
        "movaps [rsp + 176], xmm3",
        "movaps [rsp + 192], xmm4",
        "movaps [rsp + 208], xmm5",
        "movaps [rsp + 224], xmm6",
        "movaps [rsp + 240], xmm7",
        "movaps [rsp + 256], xmm8",
        "movaps [rsp + 272], xmm9",
        "movaps [rsp + 288], xmm10",
        "movaps [rsp + 304], xmm11",
        "movaps [rsp + 320], xmm12",
        "movaps [rsp + 336], xmm13",
        "movaps [rsp + 352], xmm14",
        "movaps [rsp + 368], xmm15",
        "jmp 6f",
        "4:",
        "cmp dl, {inuse}",
        "jb 5f",
        // What is in use: plain moves of those registers only.
        "mov ecx, 1",
        "xgetbv",
        "mov [rsp + 84], eax",
        "test al, 0x40", // upper halves of zmm0-zmm15
        "jnz 21f",
        "test al, 0x04", // upper halves of ymm0-ymm15
        "jnz 22f",
        "vmovaps [rsp + 128], xmm0",
        "vmovaps [rsp + 192], xmm1",
        "vmovaps [rsp + 256], xmm2",
        "vmovaps [rsp + 320], xmm3",
        "vmovaps [rsp + 384], xmm4",
        "vmovaps [rsp + 448], xmm5",
        "vmovaps [rsp + 512], xmm6",
        "vmovaps [rsp + 576], xmm7",
        "vmovaps [rsp + 640], xmm8",
        "vmovaps [rsp + 704], xmm9",
        "vmovaps [rsp + 768], xmm10",
        "vmovaps [rsp + 832], xmm11",
        "vmovaps [rsp + 896], xmm12",
        "vmovaps [rsp + 960], xmm13",
        "vmovaps [rsp + 1024], xmm14",
        "vmovaps [rsp + 1088], xmm15",
        "jmp 23f",
        "21:",
        "vmovaps [rsp + 128], zmm0",
        "vmovaps [rsp + 192], zmm1",
        "vmovaps [rsp + 256], zmm2",
        "vmovaps [rsp + 320], zmm3",
        "vmovaps [rsp + 384], zmm4",
        "vmovaps [rsp + 448], zmm5",
        "vmovaps [rsp + 512], zmm6",
        "vmovaps [rsp + 576], zmm7",
        "vmovaps [rsp + 640], zmm8",
        "vmovaps [rsp + 704], zmm9",
        "vmovaps [rsp + 768], zmm10",
        "vmovaps [rsp + 832], zmm11",
        "vmovaps [rsp + 896], zmm12",
        "vmovaps [rsp + 960], zmm13",
        "vmovaps [rsp + 1024], zmm14",
        "vmovaps [rsp + 1088], zmm15",
        "jmp 23f",
        "22:",
        "vmovaps [rsp + 128], ymm0",
        "vmovaps [rsp + 192], ymm1",
        "vmovaps [rsp + 256], ymm2",
        "vmovaps [rsp + 320], ymm3",
        "vmovaps [rsp + 384], ymm4",
        "vmovaps [rsp + 448], ymm5",
        "vmovaps [rsp + 512], ymm6",
        "vmovaps [rsp + 576], ymm7",
        "vmovaps [rsp + 640], ymm8",
        "vmovaps [rsp + 704], ymm9",
        "vmovaps [rsp + 768], ymm10",
        "vmovaps [rsp + 832], ymm11",
        "vmovaps [rsp + 896], ymm12",
        "vmovaps [rsp + 960], ymm13",
        "vmovaps [rsp + 1024], ymm14",
        "vmovaps [rsp + 1088], ymm15",
        "23:",
        "cmp byte ptr [rsp + 80], {inuse512}",
        "jb 6f",
        "test al, 0x20", // k0-k7
        "jz 6f",
        "cmp byte ptr [rsp + 80], {inuse512bw}",
        "jb 25f",
        "kmovq [rsp + 2176], k0",
        "kmovq [rsp + 2184], k1",
        "kmovq [rsp + 2192], k2",
        "kmovq [rsp + 2200], k3",
        "kmovq [rsp + 2208], k4",
        "kmovq [rsp + 2216], k5",
        "kmovq [rsp + 2224], k6",
        "kmovq [rsp + 2232], k7",
        "jmp 6f",
        "25:",
        "kmovw [rsp + 2176], k0",
        "kmovw [rsp + 2184], k1",
        "kmovw [rsp + 2192], k2",
        "kmovw [rsp + 2200], k3",
        "kmovw [rsp + 2208], k4",
        "kmovw [rsp + 2216], k5",
        "kmovw [rsp + 2224], k6",
        "kmovw [rsp + 2232], k7",
        "jmp 6f",
        "5:",
        // The header must be zero where `xsave` does not write it (`xrstor` checks).
        "xor eax, eax",
        "mov [rsp + 640], rax",
        "mov [rsp + 648], rax",
        "mov [rsp + 656], rax",
        "mov [rsp + 664], rax",
        "mov [rsp + 672], rax",
        "mov [rsp + 680], rax",
        "mov [rsp + 688], rax",
        "mov [rsp + 696], rax",
        "mov eax, {components}",
        "xor edx, edx",
        "cmp byte ptr [rsp + 80], {xsavec}",
        "je 7f",
        "xsave64 [rsp + 128]",
        "jmp 6f",
        "7:",
        "xsavec64 [rsp + 128]",
        "6:",
        // The slow function starts with the upper halves out of use, as the C convention
        // has it at every call (see the doc above).
        "cmp byte ptr [rsp + 80], {xsave}",
        "jb 27f",
        "vzeroupper",
        "27:",
        "mov rdi, [rsp + 32]",
        "mov rsi, [rsp + 24]",
        "call rsi",
        // Restore.
        "cmp byte ptr [rsp + 80], {sse}",
        "jne 4f",
        "movaps xmm0, [rsp + 128]",
        "movaps xmm1, [rsp + 144]",
        "movaps xmm2, [rsp + 160]",
        "movaps xmm3, [rsp + 176]",
        "movaps xmm4, [rsp + 192]",
        "movaps xmm5, [rsp + 208]",
        "movaps xmm6, [rsp + 224]",
        "movaps xmm7, [rsp + 240]",
        "movaps xmm8, [rsp + 256]",
        "movaps xmm9, [rsp + 272]",
        "movaps xmm10, [rsp + 288]",
        "movaps xmm11, [rsp + 304]",
        "movaps xmm12, [rsp + 320]",
        "movaps xmm13, [rsp + 336]",
        "movaps xmm14, [rsp + 352]",
        "movaps xmm15, [rsp + 368]",
        "jmp 6f",
        "4:",
        "cmp byte ptr [rsp + 80], {inuse}",
        "jb 5f",
        // Registers that were in their initial state (zero) are zeroed: the call may have
        // used them.
        "mov eax, [rsp + 84]",
        "cmp byte ptr [rsp + 80], {inuse512}",
        "jb 26f",
        "test al, 0x20",
        "jz 29f",
        "cmp byte ptr [rsp + 80], {inuse512bw}",
        "jb 30f",
        "kmovq k0, [rsp + 2176]",
        "kmovq k1, [rsp + 2184]",
        "kmovq k2, [rsp + 2192]",
        "kmovq k3, [rsp + 2200]",
        "kmovq k4, [rsp + 2208]",
        "kmovq k5, [rsp + 2216]",
        "kmovq k6, [rsp + 2224]",
        "kmovq k7, [rsp + 2232]",
        "jmp 26f",
        "30:",
        "kmovw k0, [rsp + 2176]",
        "kmovw k1, [rsp + 2184]",
        "kmovw k2, [rsp + 2192]",
        "kmovw k3, [rsp + 2200]",
        "kmovw k4, [rsp + 2208]",
        "kmovw k5, [rsp + 2216]",
        "kmovw k6, [rsp + 2224]",
        "kmovw k7, [rsp + 2232]",
        "jmp 26f",
        "29:",
        "kxorw k0, k0, k0",
        "kxorw k1, k1, k1",
        "kxorw k2, k2, k2",
        "kxorw k3, k3, k3",
        "kxorw k4, k4, k4",
        "kxorw k5, k5, k5",
        "kxorw k6, k6, k6",
        "kxorw k7, k7, k7",
        "26:",
        "test al, 0x40",
        "jnz 31f",
        // Upper halves of zmm0-zmm15 not in use before: `vzeroupper` puts them out of use
        // again whatever the call did, then 128- or 256-bit loads restore the rest.
        "vzeroupper",
        "test al, 0x04",
        "jnz 32f",
        "vmovaps xmm0, [rsp + 128]",
        "vmovaps xmm1, [rsp + 192]",
        "vmovaps xmm2, [rsp + 256]",
        "vmovaps xmm3, [rsp + 320]",
        "vmovaps xmm4, [rsp + 384]",
        "vmovaps xmm5, [rsp + 448]",
        "vmovaps xmm6, [rsp + 512]",
        "vmovaps xmm7, [rsp + 576]",
        "vmovaps xmm8, [rsp + 640]",
        "vmovaps xmm9, [rsp + 704]",
        "vmovaps xmm10, [rsp + 768]",
        "vmovaps xmm11, [rsp + 832]",
        "vmovaps xmm12, [rsp + 896]",
        "vmovaps xmm13, [rsp + 960]",
        "vmovaps xmm14, [rsp + 1024]",
        "vmovaps xmm15, [rsp + 1088]",
        "jmp 6f",
        "32:",
        "vmovaps ymm0, [rsp + 128]",
        "vmovaps ymm1, [rsp + 192]",
        "vmovaps ymm2, [rsp + 256]",
        "vmovaps ymm3, [rsp + 320]",
        "vmovaps ymm4, [rsp + 384]",
        "vmovaps ymm5, [rsp + 448]",
        "vmovaps ymm6, [rsp + 512]",
        "vmovaps ymm7, [rsp + 576]",
        "vmovaps ymm8, [rsp + 640]",
        "vmovaps ymm9, [rsp + 704]",
        "vmovaps ymm10, [rsp + 768]",
        "vmovaps ymm11, [rsp + 832]",
        "vmovaps ymm12, [rsp + 896]",
        "vmovaps ymm13, [rsp + 960]",
        "vmovaps ymm14, [rsp + 1024]",
        "vmovaps ymm15, [rsp + 1088]",
        "jmp 6f",
        "31:",
        "vmovaps zmm0, [rsp + 128]",
        "vmovaps zmm1, [rsp + 192]",
        "vmovaps zmm2, [rsp + 256]",
        "vmovaps zmm3, [rsp + 320]",
        "vmovaps zmm4, [rsp + 384]",
        "vmovaps zmm5, [rsp + 448]",
        "vmovaps zmm6, [rsp + 512]",
        "vmovaps zmm7, [rsp + 576]",
        "vmovaps zmm8, [rsp + 640]",
        "vmovaps zmm9, [rsp + 704]",
        "vmovaps zmm10, [rsp + 768]",
        "vmovaps zmm11, [rsp + 832]",
        "vmovaps zmm12, [rsp + 896]",
        "vmovaps zmm13, [rsp + 960]",
        "vmovaps zmm14, [rsp + 1024]",
        "vmovaps zmm15, [rsp + 1088]",
        "jmp 6f",
        "5:",
        "mov eax, {components}",
        "xor edx, edx",
        "xrstor64 [rsp + 128]",
        "6:",
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
        ".cfi_endproc",
        state = sym VECTOR_STATE,
        frame = const 128 + AREA,
        components = const COMPONENTS,
        sse = const SSE,
        xsave = const XSAVE,
        xsavec = const XSAVEC,
        inuse = const INUSE,
        inuse512 = const INUSE512,
        inuse512bw = const INUSE512BW,
    );
}

#[cfg(all(test, target_arch = "x86_64", not(windows)))]
mod tests;
