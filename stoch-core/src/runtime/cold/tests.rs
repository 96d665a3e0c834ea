//! The trampoline against its contract: every register a C call may change holds, after
//! it, what it held before, although the function called overwrites them all, and the
//! upper halves of the vector registers are left unused when they were. Every way of saving
//! the processor supports is tested (on this project's AVX-512 machine all six, the last
//! ones on all 32 `zmm` and the 8 mask registers), whatever the build's target: the state
//! follows the processor, not the build.
use super::*;
use core::arch::asm;
use core::arch::x86_64::__cpuid_count;

/// The registers a processor has beyond the general-purpose ones.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Regs {
    /// `xmm0`-`xmm15`.
    Xmm,
    /// `ymm0`-`ymm15`.
    Ymm,
    /// `zmm0`-`zmm31`, `k0`-`k7` with 16-bit masks.
    Zmm16,
    /// `zmm0`-`zmm31`, `k0`-`k7` with 64-bit masks.
    Zmm64,
}

/// What this processor has (as the OS enables it).
fn regs() -> Regs {
    if std::is_x86_feature_detected!("avx512bw") {
        Regs::Zmm64
    } else if std::is_x86_feature_detected!("avx512f") {
        Regs::Zmm16
    } else if std::is_x86_feature_detected!("avx") {
        Regs::Ymm
    } else {
        Regs::Xmm
    }
}

/// `cpuid` leaf 13 sub-leaf 1, `eax`: bit 1 `xsavec`, bit 2 `xgetbv` with `ecx = 1`.
fn xsave_features() -> u32 {
    // Leaf 13 is only read where `xsave` exists.
    if std::is_x86_feature_detected!("xsave") {
        __cpuid_count(13, 1).eax
    } else {
        0
    }
}

/// The state the trampoline's detection must find.
fn expected_state() -> u8 {
    match (regs(), xsave_features()) {
        (Regs::Xmm, _) => SSE,
        (Regs::Zmm64, f) if f & 4 != 0 => INUSE512BW,
        (Regs::Zmm16, f) if f & 4 != 0 => INUSE512,
        (Regs::Ymm, f) if f & 4 != 0 => INUSE,
        (_, f) if f & 2 != 0 => XSAVEC,
        _ => XSAVE,
    }
}

/// Every way of saving this processor supports, with the registers each one covers.
fn methods() -> Vec<(Regs, u8)> {
    let mut m = vec![(Regs::Xmm, SSE)];
    if regs() != Regs::Xmm {
        m.push((regs(), XSAVE));
        if xsave_features() & 2 != 0 {
            m.push((regs(), XSAVEC));
        }
        if xsave_features() & 4 != 0 {
            // The AVX method knows nothing of AVX-512 registers: only `ymm` are checked.
            m.push((Regs::Ymm, INUSE));
            match regs() {
                Regs::Zmm64 => m.extend([(Regs::Zmm16, INUSE512), (Regs::Zmm64, INUSE512BW)]),
                Regs::Zmm16 => m.push((Regs::Zmm16, INUSE512)),
                _ => {}
            }
        }
    }
    m
}

/// Overwrites every caller-saved register the processor has (all ones).
extern "C" fn clobber(_: *mut u8) {
    // SAFETY: writes registers only, all declared clobbered (those the build does not know
    // of hold none of its values); each block runs only where its registers exist.
    unsafe {
        match regs() {
            Regs::Zmm16 | Regs::Zmm64 => asm!(
                "mov rax, -1",
                "mov rcx, -1",
                "mov rdx, -1",
                "mov rsi, -1",
                "mov rdi, -1",
                "mov r8, -1",
                "mov r9, -1",
                "mov r10, -1",
                "mov r11, -1",
                "vpternlogd zmm0, zmm0, zmm0, 0xff",
                "vpternlogd zmm1, zmm1, zmm1, 0xff",
                "vpternlogd zmm2, zmm2, zmm2, 0xff",
                "vpternlogd zmm3, zmm3, zmm3, 0xff",
                "vpternlogd zmm4, zmm4, zmm4, 0xff",
                "vpternlogd zmm5, zmm5, zmm5, 0xff",
                "vpternlogd zmm6, zmm6, zmm6, 0xff",
                "vpternlogd zmm7, zmm7, zmm7, 0xff",
                "vpternlogd zmm8, zmm8, zmm8, 0xff",
                "vpternlogd zmm9, zmm9, zmm9, 0xff",
                "vpternlogd zmm10, zmm10, zmm10, 0xff",
                "vpternlogd zmm11, zmm11, zmm11, 0xff",
                "vpternlogd zmm12, zmm12, zmm12, 0xff",
                "vpternlogd zmm13, zmm13, zmm13, 0xff",
                "vpternlogd zmm14, zmm14, zmm14, 0xff",
                "vpternlogd zmm15, zmm15, zmm15, 0xff",
                "vpternlogd zmm16, zmm16, zmm16, 0xff",
                "vpternlogd zmm17, zmm17, zmm17, 0xff",
                "vpternlogd zmm18, zmm18, zmm18, 0xff",
                "vpternlogd zmm19, zmm19, zmm19, 0xff",
                "vpternlogd zmm20, zmm20, zmm20, 0xff",
                "vpternlogd zmm21, zmm21, zmm21, 0xff",
                "vpternlogd zmm22, zmm22, zmm22, 0xff",
                "vpternlogd zmm23, zmm23, zmm23, 0xff",
                "vpternlogd zmm24, zmm24, zmm24, 0xff",
                "vpternlogd zmm25, zmm25, zmm25, 0xff",
                "vpternlogd zmm26, zmm26, zmm26, 0xff",
                "vpternlogd zmm27, zmm27, zmm27, 0xff",
                "vpternlogd zmm28, zmm28, zmm28, 0xff",
                "vpternlogd zmm29, zmm29, zmm29, 0xff",
                "vpternlogd zmm30, zmm30, zmm30, 0xff",
                "vpternlogd zmm31, zmm31, zmm31, 0xff",
                "kxnorw k0, k0, k0",
                "kxnorw k1, k1, k1",
                "kxnorw k2, k2, k2",
                "kxnorw k3, k3, k3",
                "kxnorw k4, k4, k4",
                "kxnorw k5, k5, k5",
                "kxnorw k6, k6, k6",
                "kxnorw k7, k7, k7",
                clobber_abi("C"),
            ),
            Regs::Ymm => asm!(
                "mov rax, -1",
                "mov rcx, -1",
                "mov rdx, -1",
                "mov rsi, -1",
                "mov rdi, -1",
                "mov r8, -1",
                "mov r9, -1",
                "mov r10, -1",
                "mov r11, -1",
                "vcmpps ymm0, ymm0, ymm0, 15",
                "vcmpps ymm1, ymm1, ymm1, 15",
                "vcmpps ymm2, ymm2, ymm2, 15",
                "vcmpps ymm3, ymm3, ymm3, 15",
                "vcmpps ymm4, ymm4, ymm4, 15",
                "vcmpps ymm5, ymm5, ymm5, 15",
                "vcmpps ymm6, ymm6, ymm6, 15",
                "vcmpps ymm7, ymm7, ymm7, 15",
                "vcmpps ymm8, ymm8, ymm8, 15",
                "vcmpps ymm9, ymm9, ymm9, 15",
                "vcmpps ymm10, ymm10, ymm10, 15",
                "vcmpps ymm11, ymm11, ymm11, 15",
                "vcmpps ymm12, ymm12, ymm12, 15",
                "vcmpps ymm13, ymm13, ymm13, 15",
                "vcmpps ymm14, ymm14, ymm14, 15",
                "vcmpps ymm15, ymm15, ymm15, 15",
                clobber_abi("C"),
            ),
            Regs::Xmm => asm!(
                "mov rax, -1",
                "mov rcx, -1",
                "mov rdx, -1",
                "mov rsi, -1",
                "mov rdi, -1",
                "mov r8, -1",
                "mov r9, -1",
                "mov r10, -1",
                "mov r11, -1",
                "pcmpeqd xmm0, xmm0",
                "pcmpeqd xmm1, xmm1",
                "pcmpeqd xmm2, xmm2",
                "pcmpeqd xmm3, xmm3",
                "pcmpeqd xmm4, xmm4",
                "pcmpeqd xmm5, xmm5",
                "pcmpeqd xmm6, xmm6",
                "pcmpeqd xmm7, xmm7",
                "pcmpeqd xmm8, xmm8",
                "pcmpeqd xmm9, xmm9",
                "pcmpeqd xmm10, xmm10",
                "pcmpeqd xmm11, xmm11",
                "pcmpeqd xmm12, xmm12",
                "pcmpeqd xmm13, xmm13",
                "pcmpeqd xmm14, xmm14",
                "pcmpeqd xmm15, xmm15",
                clobber_abi("C"),
            ),
        }
    }
}

/// The assembly that reads which state components are in use (`xgetbv` with `ecx = 1`)
/// into `rax` (clobbers `rcx` and `rdx`).
macro_rules! read_in_use {
    () => {
        "mov ecx, 1\nxgetbv\nshl rdx, 32\nor rax, rdx"
    };
}

/// The assembly that moves registers `$reg` numbered `$i` between them and memory at
/// `[$base + $i·$width]`, one instruction `$insn` each: `load` into them, `store` from them.
macro_rules! moves {
    (load $insn:literal, $reg:literal, $base:literal, $width:literal; $($i:literal)*) => {
        concat!($($insn, " ", $reg, $i, ", [", $base, " + ", $i, " * ", $width, "]\n",)*)
    };
    (store $insn:literal, $reg:literal, $base:literal, $width:literal; $($i:literal)*) => {
        concat!($($insn, " [", $base, " + ", $i, " * ", $width, "], ", $reg, $i, "\n",)*)
    };
}

/// The assembly that loads `xmm0`-`xmm15` from `r12`, 16 bytes apart.
macro_rules! load_xmm_from_r12 {
    () => {
        moves!(load "movups", "xmm", "r12", 16; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
}

/// The assembly that stores `zmm0`-`zmm31` at `r13`, 64 bytes apart.
macro_rules! store_zmm_at_r13 {
    () => {
        moves!(store "vmovups", "zmm", "r13", 64;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
            16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        )
    };
}

/// [`call_and_dump`]'s assembly: `$load` fills the vector (and mask) registers from `r12`,
/// known values go into the general-purpose ones, the trampoline calls [`clobber`], `$save`
/// stores the vector registers at `r13`, the general-purpose ones follow at `r13 + 2048`, and
/// `$after` stores the mask registers (through `rax`, stored by then).
macro_rules! dump {
        ([$($load:expr),* $(,)?], [$($save:expr),* $(,)?], [$($after:expr),* $(,)?],
         $pattern:expr, $out:expr, $f:expr, $state:expr) => {
            asm!(
                $($load,)*
                "mov rax, 0x1111111111111111",
                "mov rcx, 0x2222222222222222",
                "mov r8, 0x4444444444444444",
                "mov r9, 0x5555555555555555",
                "mov r10, 0x6666666666666666",
                "mov r11, 0x7777777777777777",
                "lea rsp, [rsp - 128]",
                "call {t}",
                "lea rsp, [rsp + 128]",
                $($save,)*
                "mov [r13 + 2048], rax",
                "mov [r13 + 2056], rcx",
                "mov [r13 + 2064], rdx",
                "mov [r13 + 2072], r8",
                "mov [r13 + 2080], r9",
                "mov [r13 + 2088], r10",
                "mov [r13 + 2096], r11",
                "mov [r13 + 2104], rdi",
                "mov [r13 + 2112], rsi",
                $($after,)*
                t = sym trampoline,
                in("r12") $pattern.as_ptr(),
                in("r13") $out.as_mut_ptr(),
                in("rdi") 0usize,
                in("rsi") $f,
                in("rdx") $state as usize,
                clobber_abi("C"),
            )
        };
    }

/// The assembly that moves mask registers `k$k` through `rax` with `$kmov` and `$gpr` (see
/// [`dump_zmm!`]): `load` gives `k$k` the bytes `$k + 1`, `store` writes it at
/// `r13 + 2120 + 8·$k`.
macro_rules! masks {
    (load $kmov:expr, $gpr:expr; $($k:literal)*) => {
        concat!($(
            "mov rax, 0x0101010101010101 * (", $k, " + 1)\n",
            $kmov, " k", $k, ", ", $gpr, "\n",
        )*)
    };
    (store $kmov:expr, $gpr:expr; $($k:literal)*) => {
        concat!($(
            $kmov, " ", $gpr, ", k", $k, "\n",
            "mov [r13 + 2120 + 8 * ", $k, "], rax\n",
        )*)
    };
}

/// [`dump!`] on `zmm0`-`zmm31` and `k0`-`k7`: `$kmov` and `$gpr` move a mask register
/// (`kmovq` with a 64-bit register under AVX-512BW, `kmovw` with a 32-bit one without).
macro_rules! dump_zmm {
    ($kmov:literal, $gpr:literal, $pattern:expr, $out:expr, $f:expr, $state:expr) => {
        dump!(
            [
                moves!(load "vmovups", "zmm", "r12", 64;
                    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
                    16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
                ),
                masks!(load $kmov, $gpr; 0 1 2 3 4 5 6 7),
            ],
            [store_zmm_at_r13!(),],
            [
                masks!(store $kmov, $gpr; 0 1 2 3 4 5 6 7),
            ],
            $pattern,
            $out,
            $f,
            $state
        )
    };
}

/// Loads `pattern` into the vector registers of `regs` and known values into the
/// general-purpose (and mask) registers, calls [`clobber`] through the trampoline told
/// `state`, and stores the registers into `out`: vectors from 0, then at 2048 rax, rcx, rdx,
/// r8-r11, rdi, rsi, then k0-k7. Returns the number of vector registers and their width in
/// bytes.
fn call_and_dump(regs: Regs, state: u8, pattern: &[u8], out: &mut [u8]) -> (usize, usize) {
    assert!(pattern.len() >= 32 * 64 && out.len() >= 2048 + 17 * 8);
    assert!(
        regs as u8 <= self::regs() as u8,
        "{regs:?} on this processor"
    );
    let f = clobber as extern "C" fn(*mut u8) as usize;
    // SAFETY: reads `pattern` and writes `out` (both large enough, checked above) through
    // r12/r13, which the trampoline's callee preserves; every other register it touches is
    // declared clobbered (or, for those the build does not know of, holds none of its
    // values); `regs` exist on this processor (checked above).
    unsafe {
        match regs {
            Regs::Zmm64 => dump_zmm!("kmovq", "rax", pattern, out, f, state),
            Regs::Zmm16 => dump_zmm!("kmovw", "eax", pattern, out, f, state),
            Regs::Ymm => dump!(
                [moves!(load "vmovups", "ymm", "r12", 32; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15),],
                [moves!(store "vmovups", "ymm", "r13", 32;
                    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
                ),],
                [],
                pattern,
                out,
                f,
                state
            ),
            Regs::Xmm => dump!(
                [load_xmm_from_r12!(),],
                [moves!(store "movups", "xmm", "r13", 16; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15),],
                [],
                pattern,
                out,
                f,
                state
            ),
        }
    }
    // zmm16-zmm31 are the caller's to save (`invoke` declares them changed).
    match regs {
        Regs::Zmm16 | Regs::Zmm64 => (16, 64),
        Regs::Ymm => (16, 32),
        Regs::Xmm => (16, 16),
    }
}

/// Checks one way of saving on one register set: vectors, general-purpose registers and
/// (AVX-512) masks.
fn check(regs: Regs, state: u8) {
    let pattern: Vec<u8> = (0..32 * 64).map(|i| (i * 7 + 3) as u8 | 1).collect();
    let mut out = vec![0u8; 2048 + 17 * 8];
    let (vectors, width) = call_and_dump(regs, state, &pattern, &mut out);
    for v in 0..vectors {
        let r = v * width..(v + 1) * width;
        assert_eq!(
            out[r.clone()],
            pattern[r],
            "state {state}, {regs:?}: vector register {v} was not preserved"
        );
    }
    let base = 2048;
    let word = |i: usize| {
        let at = base + 8 * i;
        u64::from_le_bytes(out[at..at + 8].try_into().unwrap())
    };
    let names = ["rax", "rcx", "rdx", "r8", "r9", "r10", "r11"];
    for (j, name) in names.iter().enumerate() {
        let want = if *name == "rdx" {
            u64::from(state)
        } else {
            (0x1111_1111_1111_1111u64 * (j as u64 + 1)) & 0x7fff_ffff_ffff_ffff
        };
        assert_eq!(word(j), want, "state {state}: {name} was not preserved");
    }
    assert_eq!(word(7), 0, "state {state}: rdi was not preserved");
    assert_eq!(
        word(8),
        clobber as extern "C" fn(*mut u8) as usize as u64,
        "state {state}: rsi was not preserved"
    );
    if matches!(regs, Regs::Zmm16 | Regs::Zmm64) {
        let bits = if regs == Regs::Zmm64 {
            u64::MAX
        } else {
            0xffff
        };
        for k in 0..8 {
            let want = (0x0101_0101_0101_0101u64 * (k as u64 + 1)) & bits;
            assert_eq!(
                word(9 + k) & bits,
                want,
                "state {state}: k{k} was not preserved"
            );
        }
    }
}

#[test]
fn trampoline_preserves_every_caller_saved_register() {
    // Saving `xmm` alone is correct only without AVX state, but it must keep those.
    for (regs, state) in methods() {
        check(regs, state);
    }
}

#[test]
fn trampoline_detects_the_processor_state() {
    // State 0 makes the trampoline detect and store the state; the call itself must then
    // preserve every register.
    let pattern: Vec<u8> = (0..32 * 64).map(|i| (i * 5 + 1) as u8 | 1).collect();
    let mut out = vec![0u8; 2048 + 17 * 8];
    let (n, w) = call_and_dump(regs(), 0, &pattern, &mut out);
    assert_eq!(VECTOR_STATE.load(Ordering::Relaxed), expected_state());
    assert_eq!(out[..n * w], pattern[..n * w], "registers after detection");
}

#[test]
fn the_xsave_area_is_large_enough() {
    if regs() == Regs::Xmm {
        println!("skipped: no AVX state on this processor");
        return;
    }
    // Leaf 13 exists where `xsave` does (checked by `regs`).
    let (standard_end, compacted) = (2..8)
        .filter(|c| COMPONENTS >> c & 1 != 0)
        .map(|c| __cpuid_count(13, c))
        .fold((576, 576), |(end, comp), r| {
            ((r.eax + r.ebx).max(end), comp + r.eax.next_multiple_of(64))
        });
    assert!(
        standard_end as usize <= AREA && compacted as usize <= AREA,
        "xsave needs {standard_end} bytes (compacted {compacted}), AREA is {AREA}"
    );
}

#[test]
fn upper_halves_left_unused_stay_unused() {
    // `xgetbv` with `ecx = 1` reads which state components are in use; `vzeroupper` puts
    // the upper halves of `ymm0`-`ymm15`/`zmm0`-`zmm15` (components 2 and 6) out of use.
    if regs() == Regs::Xmm || xsave_features() & 4 == 0 {
        println!("skipped: this processor cannot report which state is in use");
        return;
    }
    let f = clobber as extern "C" fn(*mut u8) as usize;
    let (before, after): (u64, u64);
    // SAFETY: `vzeroupper` changes only upper halves, which this function (and its
    // build) holds nothing in across the block; the rest as in `call_and_dump`.
    unsafe {
        asm!(
            "vzeroupper",
            read_in_use!(),
            "mov r12, rax",
            "lea rsp, [rsp - 128]",
            "mov rdx, r13",
            "xor edi, edi",
            "call {t}",
            "lea rsp, [rsp + 128]",
            read_in_use!(),
            t = sym trampoline,
            in("r13") u64::from(expected_state()),
            in("rsi") f,
            out("r12") before,
            out("rax") after,
            clobber_abi("C"),
        );
    }
    if before & 0b100_0100 != 0 {
        println!("skipped: `vzeroupper` did not mark the upper halves unused ({before:#x})");
        return;
    }
    assert_eq!(
        after & 0b100_0100,
        0,
        "the trampoline left upper halves in use: {before:#x} before, {after:#x} after"
    );
}

/// Stores in `*out` (a `u64`) which state components are in use as it starts.
extern "C" fn record_in_use(out: *mut u8) {
    let in_use: u64;
    // SAFETY: `xgetbv` with `ecx = 1` reads a register and changes nothing else; the
    // callers check that the processor supports it.
    unsafe {
        asm!(read_in_use!(), out("rax") in_use, out("rcx") _, out("rdx") _);
        out.cast::<u64>().write_unaligned(in_use);
    }
}

#[test]
fn the_slow_function_starts_with_the_upper_halves_unused() {
    // The caller has upper halves in use (a 256-bit register written); every method that
    // saves them must put them out of use before the call, so that legacy-SSE code in the
    // slow function (the C library's) runs at full speed, and restore them after.
    if regs() == Regs::Xmm || xsave_features() & 4 == 0 {
        println!("skipped: this processor cannot report which state is in use");
        return;
    }
    // A processor may report a component in use that is in its initial state.
    let cleared: u64;
    // SAFETY: `vzeroupper` changes only upper halves, of registers declared changed
    // (`clobber_abi`); `xgetbv` reads a register.
    unsafe {
        asm!(
            "vzeroupper",
            read_in_use!(),
            out("rax") cleared,
            clobber_abi("C"),
        );
    }
    if cleared & 0b100_0100 != 0 {
        println!("skipped: `vzeroupper` did not mark the upper halves unused ({cleared:#x})");
        return;
    }
    let f = record_in_use as extern "C" fn(*mut u8) as usize;
    for (_, state) in methods().into_iter().filter(|(_, s)| *s != SSE) {
        let mut seen = 0u64;
        let (before, after): (u64, u64);
        // SAFETY: as in `upper_halves_left_unused_stay_unused`; `ymm0` is declared changed
        // and `seen` outlives the call.
        unsafe {
            asm!(
                "vpcmpeqd ymm0, ymm0, ymm0",
                read_in_use!(),
                "mov r12, rax",
                "lea rsp, [rsp - 128]",
                "mov rdx, r13",
                "mov rdi, r14",
                "call {t}",
                "lea rsp, [rsp + 128]",
                read_in_use!(),
                t = sym trampoline,
                in("r13") u64::from(state),
                in("r14") &mut seen as *mut u64,
                in("rsi") f,
                out("r12") before,
                out("rax") after,
                clobber_abi("C"),
            );
        }
        assert_ne!(
            before & 0b100,
            0,
            "ymm0 written but not in use: {before:#x}"
        );
        assert_eq!(
            seen & 0b100_0100,
            0,
            "state {state}: the slow function started with upper halves in use ({seen:#x})"
        );
        assert_ne!(
            after & 0b100,
            0,
            "state {state}: ymm0's upper half not restored"
        );
    }
}

/// An `xsave` area whose header says every component is in its initial state.
#[repr(C, align(64))]
struct InitArea([u8; 4096]);

#[test]
fn registers_unused_before_the_call_are_unused_and_zero_after() {
    // The plain-move methods save only what is in use and zero the rest after the call,
    // which here overwrites every register: the upper halves of zmm0-zmm15 and the mask
    // registers must come back zero, and the upper halves out of use.
    if !crate::runtime::path::processor_runs(
        crate::runtime::path::Path::Avx512,
        "registers_unused_before_the_call_are_unused_and_zero_after",
    ) {
        return;
    }
    if !matches!(regs(), Regs::Zmm16 | Regs::Zmm64) || xsave_features() & 4 == 0 {
        println!("skipped: needs `xgetbv` with `ecx = 1`");
        return;
    }
    let area = Box::new(InitArea([0; 4096]));
    let pattern: Vec<u8> = (0..256).map(|i| (i * 11 + 5) as u8 | 1).collect();
    let mut out = vec![0u8; 2048 + 8 * 8];
    let f = clobber as extern "C" fn(*mut u8) as usize;
    let (before, after): (u64, u64);
    // SAFETY: `vzeroupper` and the `xrstor` of the initial state change only registers
    // this function holds nothing in (upper halves, zmm16-zmm31, k0-k7: the build targets
    // baseline x86-64 or declares them clobbered through `clobber_abi`); `area` is a
    // 64-byte-aligned area with a zero header; the rest as in `call_and_dump`.
    unsafe {
        asm!(
            "vzeroupper",
            "xor edx, edx",
            "mov eax, 0xe0",
            "xrstor64 [r14]",
            read_in_use!(),
            "mov r14, rax",
            load_xmm_from_r12!(),
            "mov rdx, r15",
            "xor edi, edi",
            "lea rsp, [rsp - 128]",
            "call {t}",
            "lea rsp, [rsp + 128]",
            read_in_use!(),
            "mov r15, rax",
            store_zmm_at_r13!(),
            "kmovw eax, k0",
            "mov [r13 + 2048], rax",
            "kmovw eax, k1",
            "mov [r13 + 2056], rax",
            "kmovw eax, k2",
            "mov [r13 + 2064], rax",
            "kmovw eax, k3",
            "mov [r13 + 2072], rax",
            "kmovw eax, k4",
            "mov [r13 + 2080], rax",
            "kmovw eax, k5",
            "mov [r13 + 2088], rax",
            "kmovw eax, k6",
            "mov [r13 + 2096], rax",
            "kmovw eax, k7",
            "mov [r13 + 2104], rax",
            t = sym trampoline,
            in("r12") pattern.as_ptr(),
            in("r13") out.as_mut_ptr(),
            inout("r14") area.0.as_ptr() => before,
            inout("r15") u64::from(expected_state()) => after,
            in("rsi") f,
            clobber_abi("C"),
        );
    }
    if before & 0b1110_0100 != 0 {
        println!("skipped: the initial state did not show as unused ({before:#x})");
        return;
    }
    // zmm16-zmm31 are the caller's to save (`invoke` declares them changed): `clobber`
    // leaves them as it wrote them.
    for r in 0..16 {
        for b in 0..64 {
            let want = if b < 16 { pattern[16 * r + b] } else { 0 };
            assert_eq!(
                out[64 * r + b],
                want,
                "zmm{r} byte {b}: {} ({before:#x} before)",
                if want == 0 {
                    "not zero"
                } else {
                    "not preserved"
                }
            );
        }
    }
    for k in 0..8 {
        assert_eq!(out[2048 + 8 * k], 0, "k{k} not zero");
        assert_eq!(out[2048 + 8 * k + 1], 0, "k{k} not zero");
    }
    assert_eq!(
        after & 0b100_0100,
        0,
        "upper halves left in use: {before:#x} before, {after:#x} after"
    );
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

/// A caller whose unwind rules count from its stack pointer, as a compiled caller's often
/// do: it steps over its red zone and calls the trampoline as [`invoke`] does, passing on
/// `rdi` (the `Call`) and `rsi` (the function).
///
/// # Safety
///
/// As for [`invoke`]: `call` is a live `Call` and `entry` its `entry` function.
#[unsafe(naked)]
unsafe extern "C" fn rsp_based_caller(call: *mut u8, entry: usize) {
    core::arch::naked_asm!(
        ".cfi_startproc",
        "push rbx",
        ".cfi_adjust_cfa_offset 8",
        ".cfi_rel_offset rbx, 0",
        "movzx edx, byte ptr [rip + {state}]",
        "lea rsp, [rsp - 128]",
        "call {t}",
        "lea rsp, [rsp + 128]",
        "pop rbx",
        ".cfi_adjust_cfa_offset -8",
        ".cfi_restore rbx",
        "ret",
        ".cfi_endproc",
        state = sym VECTOR_STATE,
        t = sym trampoline,
    );
}

/// A backtrace taken in a slow function called through [`rsp_based_caller`].
#[inline(never)]
fn backtrace_through_an_rsp_based_caller() -> String {
    let mut call = Call {
        args: (),
        f: |_: &()| std::backtrace::Backtrace::force_capture().to_string(),
        out: MaybeUninit::uninit(),
        panicked: false,
    };
    let entry: extern "C" fn(*mut Call<(), String>) = entry::<(), String>;
    // SAFETY: as in `run`: the trampoline gets a live `Call` and its `entry`.
    unsafe { rsp_based_caller((&mut call as *mut Call<(), String>).cast(), entry as usize) };
    assert!(!call.panicked);
    // SAFETY: `entry` wrote `out`, since it did not panic.
    unsafe { call.out.assume_init() }
}

/// Unwinders (backtraces, debuggers, the panic machinery's backtrace) walk from a slow
/// function through the trampoline into its caller and on: the trampoline's unwind rules
/// give the caller's stack pointer as it was before the step over the red zone. Without
/// that, the walk reads a return address 128 bytes off and ends in garbage or a crash.
#[test]
fn unwinders_walk_through_the_trampoline_into_its_caller() {
    let bt = backtrace_through_an_rsp_based_caller();
    // The caller, its caller, and the root of the thread (the test itself may be inlined
    // into the harness in a release build, and its frame then has no name of its own).
    for frame in ["rsp_based_caller", "backtrace_through_an_rsp_based_caller"] {
        assert!(bt.contains(frame), "no `{frame}` in:\n{bt}");
    }
    assert!(
        bt.contains("thread_start") || bt.contains("main"),
        "the walk did not reach the thread's first frame:\n{bt}"
    );
}
