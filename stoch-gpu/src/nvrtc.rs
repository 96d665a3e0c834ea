//! NVRTC: finding the library, compiling kernels to PTX and CUBIN, and checking the PTX.
//!
//! Compilation always uses [`NVRTC_FLAGS`]: FMA contraction off (`--fmad=false`, so `a*b+c`
//! is never fused behind the user's back), no flush-to-zero, IEEE division and square root.
//! The device header [`crate::kernels::HEADER`] is passed to NVRTC in memory, so
//! `#include "stochastic.cuh"` works in every source.
//!
//! None of this needs a GPU: NVRTC compiles for any architecture on any machine.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::{c_char, CString};
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use cudarc::nvrtc::{result, sys};

use crate::error::{GpuError, Result};
use crate::kernels::{KernelSource, HEADER, HEADER_NAME};

/// Options passed to every compilation, before the architecture and the defines.
pub const NVRTC_FLAGS: &[&str] = &[
    "--fmad=false",
    "--ftz=false",
    "--prec-div=true",
    "--prec-sqrt=true",
    "--std=c++17",
];

/// Environment variable naming a folder that holds `libnvrtc.so.13` and its
/// `libnvrtc-builtins.so.13.*` (e.g. the `nvidia/cu13/lib` folder of the PyPI wheel).
pub const NVRTC_DIR_VAR: &str = "STOCH_NVRTC_DIR";

/// Load NVRTC from `dir` by full path, so that later lookups by soname find it without
/// `LD_LIBRARY_PATH`. The builtins library is loaded first (NVRTC opens it by bare name).
/// The handles are kept for the life of the process.
///
/// # Errors
///
/// [`GpuError::LibraryLoad`] when a file is missing or fails to load.
pub fn preload_from(dir: &Path) -> Result<()> {
    let builtins = std::fs::read_dir(dir)
        .map_err(|e| GpuError::LibraryLoad {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so") && !n.contains(".alt."))
        })
        .collect::<Vec<PathBuf>>();
    let mut files = builtins;
    files.sort();
    files.push(dir.join("libnvrtc.so.13"));
    for path in files {
        // SAFETY: loading NVIDIA's NVRTC shared libraries runs only their ELF initialisers,
        // which have no preconditions; the handle is leaked so the code stays mapped.
        let lib =
            unsafe { libloading::Library::new(&path) }.map_err(|e| GpuError::LibraryLoad {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
        std::mem::forget(lib);
    }
    Ok(())
}

/// Whether NVRTC can be loaded. Honours [`NVRTC_DIR_VAR`] (preloading from that folder, once)
/// and otherwise the normal library search (`LD_LIBRARY_PATH`, ld.so.cache, or a library
/// loaded earlier with [`preload_from`]). Never panics. A positive answer is kept; a negative
/// one is asked again next time (a later [`preload_from`] can still make NVRTC available).
#[must_use]
pub fn available() -> bool {
    static FOUND: AtomicBool = AtomicBool::new(false);
    static FROM_ENV: OnceLock<()> = OnceLock::new();
    if FOUND.load(Ordering::Acquire) {
        return true;
    }
    FROM_ENV.get_or_init(|| {
        if let Some(dir) = std::env::var_os(NVRTC_DIR_VAR) {
            // A bad folder is reported by `preload_from`; here it only means "not found there".
            let _ = preload_from(Path::new(&dir));
        }
    });
    // SAFETY: only dlopen()s the candidate library names to see whether one exists.
    let found = unsafe { sys::is_culib_present() };
    if found {
        FOUND.store(true, Ordering::Release);
    }
    found
}

/// The loaded NVRTC's version, e.g. `(13, 0)`.
///
/// # Errors
///
/// [`GpuError::NoNvrtc`] when NVRTC cannot be loaded.
pub fn version() -> Result<(i32, i32)> {
    if !available() {
        return Err(GpuError::NoNvrtc);
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above); both pointers are valid for writes.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result()?;
    Ok((major, minor))
}

/// What to compile for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A virtual architecture `compute_XY` (e.g. `Virtual(90)`): PTX only, JIT-compiled by the
    /// driver at load time.
    Virtual(u32),
    /// A real architecture `sm_XY` (e.g. `Real(90)`): PTX and a CUBIN that loads without JIT.
    Real(u32),
}

impl Target {
    fn option(self) -> String {
        match self {
            Target::Virtual(a) => format!("--gpu-architecture=compute_{a}"),
            Target::Real(a) => format!("--gpu-architecture=sm_{a}"),
        }
    }
}

/// The output of one compilation.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The PTX text.
    pub ptx: String,
    /// The CUBIN (an ELF image) for a [`Target::Real`] target.
    pub cubin: Option<Vec<u8>>,
    /// NVRTC's log (warnings; empty when clean).
    pub log: String,
}

fn c_string(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| GpuError::InvalidArgument(format!("{what} contains a NUL byte")))
}

fn chars_to_string(v: &[c_char]) -> String {
    let bytes: Vec<u8> = v
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Destroys an NVRTC program when dropped.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `self.0` was created by nvrtcCreateProgram and is destroyed only here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

/// Compile `source` (file name `name`) for `target` with [`NVRTC_FLAGS`], the in-memory
/// header, and `defines` passed as `-DNAME=VALUE`.
///
/// # Errors
///
/// [`GpuError::NoNvrtc`] without NVRTC; [`GpuError::Compile`] with NVRTC's log when the source
/// does not compile.
pub fn compile(
    name: &str,
    source: &str,
    target: Target,
    defines: &[(&str, &str)],
) -> Result<Compiled> {
    if !available() {
        return Err(GpuError::NoNvrtc);
    }
    let src = c_string(source, "kernel source")?;
    let name_c = c_string(name, "kernel name")?;
    let header_src = c_string(HEADER, "header")?;
    let header_name = c_string(HEADER_NAME, "header name")?;
    let headers = [header_src.as_ptr()];
    let include_names = [header_name.as_ptr()];
    let mut prog = MaybeUninit::uninit();
    // SAFETY: NVRTC is loaded; every pointer is a NUL-terminated string that outlives the
    // program (all are dropped after `Program` at the end of this function); one header.
    unsafe {
        sys::nvrtcCreateProgram(
            prog.as_mut_ptr(),
            src.as_ptr(),
            name_c.as_ptr(),
            1,
            headers.as_ptr(),
            include_names.as_ptr(),
        )
    }
    .result()?;
    // SAFETY: nvrtcCreateProgram succeeded, so `prog` is initialised.
    let prog = Program(unsafe { prog.assume_init() });

    let mut options: Vec<String> = NVRTC_FLAGS.iter().map(|s| s.to_string()).collect();
    options.push(target.option());
    options.extend(defines.iter().map(|(k, v)| format!("-D{k}={v}")));
    // SAFETY: `prog.0` is a live program.
    let status = unsafe { result::compile_program(prog.0, &options) };
    // SAFETY: `prog.0` is a live program.
    let log = unsafe { result::get_program_log(prog.0) }
        .map(|l| chars_to_string(&l))
        .unwrap_or_default();
    if let Err(source) = status {
        return Err(GpuError::Compile {
            kernel: name.to_string(),
            log,
            source,
        });
    }
    // SAFETY: `prog.0` is a live, compiled program.
    let ptx = chars_to_string(&unsafe { result::get_ptx(prog.0) }?);
    let cubin = match target {
        Target::Virtual(_) => None,
        Target::Real(_) => {
            let mut size = 0usize;
            // SAFETY: `prog.0` is a live, compiled program; `size` is valid for writes.
            unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) }.result()?;
            let mut buf = vec![0u8; size];
            // SAFETY: `buf` holds the `size` bytes NVRTC reported.
            unsafe { sys::nvrtcGetCUBIN(prog.0, buf.as_mut_ptr().cast()) }.result()?;
            Some(buf)
        }
    };
    Ok(Compiled { ptx, cubin, log })
}

/// Compile one of the shipped kernels (see [`crate::kernels::KERNELS`]) with
/// [`SHIPPED_DEFINES`](crate::kernels::SHIPPED_DEFINES).
///
/// # Errors
///
/// As [`compile`].
pub fn compile_kernel(kernel: &KernelSource, target: Target) -> Result<Compiled> {
    compile(
        kernel.name,
        kernel.source,
        target,
        crate::kernels::SHIPPED_DEFINES,
    )
}

/// What [`check_kernel`] found in one compilation of a [`KernelSource`].
#[derive(Debug, Clone)]
pub struct KernelCheck {
    /// The compilation.
    pub compiled: Compiled,
    /// The PTX check ([`lint_ptx`]).
    pub lint: PtxLint,
    /// Everything wrong, one line each; empty for a clean kernel.
    pub problems: Vec<String>,
}

/// Compile `kernel` for `target` ([`compile_kernel`]) and check the result: the PTX defines
/// exactly the entry points the table lists; a stochastic kernel's PTX passes [`lint_ptx`]
/// (no violation, at least one directed instruction); a [`Target::Real`] gives a CUBIN (an ELF
/// image). Needs NVRTC only, no GPU: the check for a table of kernels in CI.
///
/// # Errors
///
/// As [`compile`] (a source that does not compile is an error, not a problem).
pub fn check_kernel(kernel: &KernelSource, target: Target) -> Result<KernelCheck> {
    let compiled = compile_kernel(kernel, target)?;
    let lint = lint_ptx(&compiled.ptx);
    let name = kernel.name;
    let mut problems = Vec::new();
    let found: BTreeSet<&str> = lint.entries.iter().map(String::as_str).collect();
    let listed: BTreeSet<&str> = kernel.entries.iter().copied().collect();
    for e in listed.difference(&found) {
        problems.push(format!("{name}: entry `{e}` is listed but not in the PTX"));
    }
    for e in found.difference(&listed) {
        problems.push(format!("{name}: entry `{e}` is in the PTX but not listed"));
    }
    if kernel.stochastic {
        for v in lint.violations.iter().take(20) {
            problems.push(format!(
                "{name}: non-directed `{}` in `{}` at PTX line {}",
                v.instruction, v.function, v.line
            ));
        }
        if lint.violations.len() > 20 {
            problems.push(format!(
                "{name}: {} violations in all",
                lint.violations.len()
            ));
        }
        if lint.directed_total() == 0 {
            problems.push(format!("{name}: no directed instruction in the PTX"));
        }
    }
    if let Target::Real(arch) = target {
        if !compiled
            .cubin
            .as_ref()
            .is_some_and(|c| c.starts_with(b"\x7fELF"))
        {
            problems.push(format!("{name}: no ELF CUBIN for sm_{arch}"));
        }
    }
    Ok(KernelCheck {
        compiled,
        lint,
        problems,
    })
}

/// One floating-point instruction that breaks the directed-rounding rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxViolation {
    /// The PTX function (entry or `.func`) holding it.
    pub function: String,
    /// 1-based line in the PTX text.
    pub line: usize,
    /// The opcode, e.g. `add.rn.f32`.
    pub instruction: String,
}

/// Result of [`lint_ptx`].
#[derive(Debug, Clone, Default)]
pub struct PtxLint {
    /// Directed instructions (`.rp` / `.rm`, no `.ftz` / `.approx`) per opcode.
    pub directed: BTreeMap<String, usize>,
    /// Floating-point instructions inside exempt functions (statistics and library math).
    pub exempt: usize,
    /// Names of the exempt functions found.
    pub exempt_functions: BTreeSet<String>,
    /// Every other floating-point arithmetic instruction.
    pub violations: Vec<PtxViolation>,
    /// Entry points (`.entry`) in the PTX.
    pub entries: Vec<String>,
}

impl PtxLint {
    /// Total number of directed instructions.
    #[must_use]
    pub fn directed_total(&self) -> usize {
        self.directed.values().sum()
    }
}

/// Floating-point arithmetic opcodes the rule covers.
const FP_OPS: &[&str] = &[
    "add", "sub", "mul", "div", "sqrt", "fma", "mad", "rcp", "rsqrt", "ex2", "lg2", "sin", "cos",
    "tanh",
];

/// Whether a PTX type suffix is a floating-point type: scalar (`f16 bf16 f32 f64 tf32`, the
/// 8-bit `e4m3 e5m2` and smaller formats) or packed (`f16x2 bf16x2 f32x2 e4m3x2 ...`).
fn is_fp_type(t: &str) -> bool {
    let scalar = t.split_once('x').map_or(t, |(base, lanes)| {
        if !lanes.is_empty() && lanes.bytes().all(|b| b.is_ascii_digit()) {
            base
        } else {
            t
        }
    });
    matches!(
        scalar,
        "f16"
            | "bf16"
            | "f32"
            | "f64"
            | "tf32"
            | "e4m3"
            | "e5m2"
            | "e2m3"
            | "e3m2"
            | "e2m1"
            | "ue8m0"
    )
}

/// Name prefixes (inside mangled names) of the functions left out of the check: DSA statistics
/// and library math calls, which are not sample arithmetic (see `kernels/stochastic.cuh`).
/// Functions reachable only through calls from them (NVIDIA's internal helpers) are left out too.
pub const EXEMPT_MARKERS: &[&str] = &["stoch_dsa_", "stoch_libm_"];

fn function_header(line: &str) -> Option<(bool, String)> {
    let t = line.trim_start();
    if !t.starts_with('.') {
        return None;
    }
    let mut rest = t;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest
            .strip_prefix(".visible")
            .or_else(|| rest.strip_prefix(".weak"))
        {
            rest = r;
        } else if let Some(r) = rest.strip_prefix(".extern") {
            rest = r;
        } else {
            break;
        }
    }
    let (is_entry, r) = if let Some(r) = rest.strip_prefix(".entry") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix(".func") {
        (false, r)
    } else {
        return None;
    };
    let mut r = r.trim_start();
    if r.starts_with('(') {
        let close = r.find(')')?;
        r = r[close + 1..].trim_start();
    }
    let name: String = r
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    (!name.is_empty()).then_some((is_entry, name))
}

fn identifiers(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|s| !s.is_empty())
}

/// Check that every floating-point arithmetic instruction (`add sub mul div sqrt fma mad rcp
/// rsqrt ex2 lg2 sin cos tanh` on a floating-point type: `.f32`, `.f64`, and the half, packed
/// and narrow forms `.f16 .bf16 .f16x2 .bf16x2 .f32x2 ...`) outside the exempt functions is directed
/// (`.rp` or `.rm`) and carries neither `.ftz` nor `.approx`.
#[must_use]
pub fn lint_ptx(ptx: &str) -> PtxLint {
    // Pass 1: function bodies (line ranges) and the identifiers each one mentions.
    let mut order: Vec<String> = Vec::new();
    let mut refs: HashMap<String, BTreeSet<String>> = HashMap::new();
    let mut current: Option<String> = None;
    let mut entries = Vec::new();
    let mut body_of_line: Vec<Option<String>> = Vec::new();
    for line in ptx.lines() {
        if let Some((is_entry, name)) = function_header(line) {
            if is_entry {
                entries.push(name.clone());
            }
            if !refs.contains_key(&name) {
                order.push(name.clone());
            }
            refs.entry(name.clone()).or_default();
            current = Some(name);
            body_of_line.push(None);
            continue;
        }
        if let Some(f) = &current {
            let set = refs.entry(f.clone()).or_default();
            for id in identifiers(line) {
                set.insert(id.to_string());
            }
        }
        body_of_line.push(current.clone());
    }
    // Exempt: marked functions and everything reachable from them.
    let names: BTreeSet<String> = order.iter().cloned().collect();
    let mut exempt: BTreeSet<String> = names
        .iter()
        .filter(|n| EXEMPT_MARKERS.iter().any(|m| n.contains(m)))
        .cloned()
        .collect();
    let mut stack: Vec<String> = exempt.iter().cloned().collect();
    while let Some(f) = stack.pop() {
        if let Some(ids) = refs.get(&f) {
            for id in ids {
                if names.contains(id) && !entries.contains(id) && exempt.insert(id.clone()) {
                    stack.push(id.clone());
                }
            }
        }
    }
    // Pass 2: instructions.
    let mut lint = PtxLint {
        entries,
        exempt_functions: exempt.clone(),
        ..PtxLint::default()
    };
    for (idx, line) in ptx.lines().enumerate() {
        let Some(func) = &body_of_line[idx] else {
            continue;
        };
        let mut t = line.trim_start();
        if t.starts_with('@') {
            t = t
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r)
                .trim_start();
        }
        let opcode = t
            .split(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap_or("");
        let mut parts = opcode.split('.');
        let base = parts.next().unwrap_or("");
        if !FP_OPS.contains(&base) {
            continue;
        }
        let mods: Vec<&str> = parts.collect();
        if !mods.last().is_some_and(|t| is_fp_type(t)) {
            continue;
        }
        if exempt.contains(func) {
            lint.exempt += 1;
            continue;
        }
        let directed = mods.iter().any(|m| *m == "rp" || *m == "rm");
        let bad_mode = mods.iter().any(|m| *m == "ftz" || *m == "approx");
        if directed && !bad_mode {
            *lint.directed.entry(opcode.to_string()).or_default() += 1;
        } else {
            lint.violations.push(PtxViolation {
                function: func.clone(),
                line: idx + 1,
                instruction: opcode.to_string(),
            });
        }
    }
    lint
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "
.visible .entry k(
\t.param .u64 k_param_0
)
{
\tadd.rp.f32 \t%f1, %f2, %f3;
\t@%p1 mul.rm.f64 \t%fd1, %fd2, %fd3;
\tmul.wide.s32 \t%rd1, %r1, 4;
\tcall.uni (retval0), _Z13stoch_dsa_foof, (param0);
\tfma.rn.f32 \t%f4, %f1, %f2, %f3;
\tdiv.rp.ftz.f32 \t%f5, %f1, %f2;
}
.func  (.param .b32 func_retval0) _Z13stoch_dsa_foof(
\t.param .b32 p
)
{
\tadd.rn.f64 \t%fd1, %fd2, %fd3;
\tcall.uni __internal_helper, ();
}
.func __internal_helper()
{
\tmul.rn.f64 \t%fd1, %fd2, %fd3;
}
";

    #[test]
    fn lint_counts_directed_exempt_and_violations() {
        let l = lint_ptx(SAMPLE);
        assert_eq!(l.entries, vec!["k".to_string()]);
        assert_eq!(l.directed_total(), 2);
        assert_eq!(l.exempt, 2, "{:?}", l.exempt_functions);
        let bad: Vec<&str> = l
            .violations
            .iter()
            .map(|v| v.instruction.as_str())
            .collect();
        assert_eq!(bad, vec!["fma.rn.f32", "div.rp.ftz.f32"]);
    }

    #[test]
    fn lint_checks_packed_and_half_forms() {
        let ptx = "
.visible .entry k()
{
\tadd.rn.f32x2 \t%rd1, %rd2, %rd3;
\tfma.rn.f16x2 \t%r1, %r2, %r3, %r4;
\tmul.rn.bf16 \t%rs1, %rs2, %rs3;
\tadd.rp.f32x2 \t%rd4, %rd2, %rd3;
\tex2.approx.ftz.bf16x2 \t%r5, %r6;
\tadd.s32x2 \t%rd5, %rd2, %rd3;
\tmul.wide.u32 \t%rd6, %r1, 4;
}
";
        let l = lint_ptx(ptx);
        let bad: Vec<&str> = l
            .violations
            .iter()
            .map(|v| v.instruction.as_str())
            .collect();
        assert_eq!(
            bad,
            vec![
                "add.rn.f32x2",
                "fma.rn.f16x2",
                "mul.rn.bf16",
                "ex2.approx.ftz.bf16x2"
            ]
        );
        assert_eq!(l.directed.get("add.rp.f32x2"), Some(&1));
        assert_eq!(l.directed_total(), 1);
        for t in ["f16", "bf16x2", "f32x2", "f64", "e4m3x2", "tf32"] {
            assert!(is_fp_type(t), "{t}");
        }
        for t in ["s32", "u64", "b32", "x2", "f32x", "pred", "s16x2"] {
            assert!(!is_fp_type(t), "{t}");
        }
    }

    #[test]
    fn function_headers() {
        assert_eq!(
            function_header(".visible .entry foo("),
            Some((true, "foo".into()))
        );
        assert_eq!(
            function_header(".func  (.param .b64 func_retval0) _Z3barv("),
            Some((false, "_Z3barv".into()))
        );
        assert_eq!(
            function_header(".weak .func baz()"),
            Some((false, "baz".into()))
        );
        assert_eq!(function_header("\tadd.f32 %f1, %f2, %f3;"), None);
    }
}
