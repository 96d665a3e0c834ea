//! Stochastic reductions across ranks: sum, product, min and max as MPI user operations, the
//! composite pair, and the order-independent sum.
//!
//! The operators run inside MPI (on whichever rank MPI's reduction tree combines two partial
//! results) and use stoch-core's operators: every sample is rounded at random, flags are
//! ORed, and the instabilities they meet are counted on the rank that meets them, at the
//! operator's line in this file (MPI calls the operator, so the caller's location cannot reach
//! it): a cancellation in a global sum appears in the merged report as a cancellation at
//! `stoch-mpi/src/reduce.rs`, with the ranks that combined it.
//!
//! Each operator is created once per process (at first use) and reused, and checks that MPI
//! hands it the datatype it was made for.

use std::cell::RefCell;
use std::os::raw::{c_int, c_void};
use std::sync::OnceLock;

use mpi::collective::{CommunicatorCollectives, Root, SystemOperation, UnsafeUserOperation};
use mpi::datatype::PartitionMut;
use mpi::ffi;
use mpi::topology::Communicator;
use mpi::Count;
use stoch_core::accum::ReproducibleSum;
use stoch_core::composite::Composite;
use stoch_core::{Flags, Stochastic};

use crate::datatype::{wire, wire_mut, MpiFloat, WirePair};
use crate::Error;

/// A reduction over stochastic values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `a + b`, randomly rounded; records cancellations.
    Sum,
    /// `a * b`, randomly rounded; records unstable multiplications.
    Product,
    /// The smaller by the stochastic relation (see `Stochastic::min`); records branching when
    /// the two are indistinguishable.
    Min,
    /// The larger by the stochastic relation (see `Stochastic::max`).
    Max,
}

impl Op {
    /// Its name in tables and errors (`"sum"`, `"product"`, `"min"`, `"max"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Product => "product",
            Op::Min => "min",
            Op::Max => "max",
        }
    }
}

thread_local! {
    /// An error met inside an operator on this thread, read back by the call that ran it
    /// (operators cannot return one through MPI).
    static OP_ERROR: RefCell<Option<Error>> = const { RefCell::new(None) };
}

fn take_op_error() -> Result<(), Error> {
    match OP_ERROR.with(|e| e.borrow_mut().take()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn type_name<T: MpiFloat>() -> &'static str {
    if std::mem::size_of::<T>() == 4 {
        "f32"
    } else {
        "f64"
    }
}

/// The combining step of one operator: `inout[i] = f(in[i], inout[i])` over `len` values.
///
/// # Safety
///
/// MPI's contract for user functions: `invec` and `inoutvec` point to `*len` values of the
/// datatype `*datatype`. The values are read as `Stochastic<T>` only once the datatype is
/// checked to be the one created for `Stochastic<T>` (or the pair type, for `PAIR`).
unsafe fn combine<T: MpiFloat, E: Copy, const PAIR: bool>(
    op: &'static str,
    invec: *mut c_void,
    inoutvec: *mut c_void,
    len: *mut c_int,
    datatype: *mut ffi::MPI_Datatype,
    f: impl Fn(E, E) -> E,
) {
    // SAFETY: MPI passes valid pointers to the count and the datatype.
    let (n, dt) = unsafe { (*len as usize, *datatype) };
    let expected = if PAIR {
        T::pair_type()
    } else {
        T::stochastic_type()
    };
    if dt != expected {
        OP_ERROR.with(|e| {
            *e.borrow_mut() = Some(Error::TypeMismatch {
                op,
                expected: type_name::<T>(),
            })
        });
        return;
    }
    if n == 0 {
        return;
    }
    // A panic must not cross into MPI: it is caught and handed to the caller as an error.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the datatype is ours, whose extent is `size_of::<E>()` (checked by the
        // layout tests), so each buffer holds `n` values of `E` laid out as Rust lays them
        // out; MPI does not let the two overlap.
        unsafe { apply_unaligned(invec as *const E, inoutvec as *mut E, n, &f) }
    }));
    if let Err(p) = run {
        let message = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        OP_ERROR.with(|e| *e.borrow_mut() = Some(Error::OperatorPanicked { op, message }));
    }
}

/// `inout[i] = f(in[i], inout[i])` for `i < n`, each value read and written unaligned: MPI's
/// own buffers (a reduction's temporaries) need not have `E`'s alignment, a stochastic value's
/// being its size.
///
/// # Safety
///
/// `a` and `b` point to `n` values of `E` each (at any alignment), in buffers that do not
/// overlap.
unsafe fn apply_unaligned<E: Copy>(a: *const E, b: *mut E, n: usize, f: &impl Fn(E, E) -> E) {
    for i in 0..n {
        // SAFETY: `i < n` values of each buffer (the caller's contract).
        unsafe {
            let y = b.add(i);
            y.write_unaligned(f(a.add(i).read_unaligned(), y.read_unaligned()));
        }
    }
}

/// The union of both operands' flags on `r`.
fn with_both_flags<T: MpiFloat>(
    r: Stochastic<T>,
    x: Stochastic<T>,
    y: Stochastic<T>,
) -> Stochastic<T> {
    let bits = r.flags().bits() | x.flags().bits() | y.flags().bits();
    Stochastic::from_parts(r.samples(), Flags::from_bits(bits))
}

unsafe extern "C" fn sum_op<T: MpiFloat>(
    a: *mut c_void,
    b: *mut c_void,
    n: *mut c_int,
    d: *mut ffi::MPI_Datatype,
) {
    // SAFETY: forwarded from MPI (see `combine`).
    unsafe { combine::<T, Stochastic<T>, false>("sum", a, b, n, d, |x, y| x + y) }
}

unsafe extern "C" fn product_op<T: MpiFloat>(
    a: *mut c_void,
    b: *mut c_void,
    n: *mut c_int,
    d: *mut ffi::MPI_Datatype,
) {
    // SAFETY: forwarded from MPI (see `combine`).
    unsafe { combine::<T, Stochastic<T>, false>("product", a, b, n, d, |x, y| x * y) }
}

unsafe extern "C" fn min_op<T: MpiFloat>(
    a: *mut c_void,
    b: *mut c_void,
    n: *mut c_int,
    d: *mut ffi::MPI_Datatype,
) {
    // SAFETY: forwarded from MPI (see `combine`).
    unsafe {
        combine::<T, Stochastic<T>, false>("min", a, b, n, d, |x, y| {
            with_both_flags(x.min(y), x, y)
        })
    }
}

unsafe extern "C" fn max_op<T: MpiFloat>(
    a: *mut c_void,
    b: *mut c_void,
    n: *mut c_int,
    d: *mut ffi::MPI_Datatype,
) {
    // SAFETY: forwarded from MPI (see `combine`).
    unsafe {
        combine::<T, Stochastic<T>, false>("max", a, b, n, d, |x, y| {
            with_both_flags(x.max(y), x, y)
        })
    }
}

unsafe extern "C" fn composite_op<T: MpiFloat>(
    a: *mut c_void,
    b: *mut c_void,
    n: *mut c_int,
    d: *mut ffi::MPI_Datatype,
) {
    // SAFETY: forwarded from MPI (see `combine`); the pair type's extent is that of
    // `Composite<Stochastic<T>>`.
    unsafe {
        combine::<T, Composite<Stochastic<T>>, true>("composite sum", a, b, n, d, |x, y| x.add(y))
    }
}

/// An operator handle kept for the whole process (MPI frees operators at finalize).
struct OpHandle(UnsafeUserOperation);
// SAFETY: an MPI operator handle is an opaque value, usable from any thread; it is never
// mutated after creation.
unsafe impl Send for OpHandle {}
// SAFETY: as above.
unsafe impl Sync for OpHandle {}

/// The five operators of one sample type, created at first use.
struct Ops {
    sum: OpHandle,
    product: OpHandle,
    min: OpHandle,
    max: OpHandle,
    composite: OpHandle,
}

static OPS_F32: OnceLock<Ops> = OnceLock::new();
static OPS_F64: OnceLock<Ops> = OnceLock::new();

fn ops<T: MpiFloat>() -> &'static Ops {
    let cell = if std::mem::size_of::<T>() == 4 {
        &OPS_F32
    } else {
        &OPS_F64
    };
    cell.get_or_init(|| {
        // SAFETY: each function checks the datatype before it reads the buffers, and catches
        // panics; all five are commutative (random rounding is symmetric in its operands).
        unsafe {
            Ops {
                sum: OpHandle(UnsafeUserOperation::commutative(sum_op::<T>)),
                product: OpHandle(UnsafeUserOperation::commutative(product_op::<T>)),
                min: OpHandle(UnsafeUserOperation::commutative(min_op::<T>)),
                max: OpHandle(UnsafeUserOperation::commutative(max_op::<T>)),
                composite: OpHandle(UnsafeUserOperation::commutative(composite_op::<T>)),
            }
        }
    })
}

/// Frees the operators created so far (at the end of the job, before MPI finalizes, so that
/// the MPI library reports no leak). Nothing may use them afterwards.
pub(crate) fn free_all() {
    use mpi::raw::AsRaw;
    for ops in [OPS_F32.get(), OPS_F64.get()].into_iter().flatten() {
        for h in [&ops.sum, &ops.product, &ops.min, &ops.max, &ops.composite] {
            let mut raw = h.0.as_raw();
            // SAFETY: an operator of ours; the job is ending and the handles are not used
            // after this (every entry point checks that MPI is running). The
            // `UnsafeUserOperation`s live in statics, which are never dropped, so this is
            // the only free.
            unsafe { ffi::MPI_Op_free(&mut raw) };
        }
    }
}

fn op_of<T: MpiFloat>(op: Op) -> &'static UnsafeUserOperation {
    let o = ops::<T>();
    &match op {
        Op::Sum => &o.sum,
        Op::Product => &o.product,
        Op::Min => &o.min,
        Op::Max => &o.max,
    }
    .0
}

/// Calls the `Sum` operator of `Stochastic<T>` on `x` and `y` as MPI would, declaring their
/// datatype as `declared`, and returns what the operator reported. For the checks of the
/// operator's datatype test: not a public API.
#[doc(hidden)]
pub fn __sum_op_with_datatype<T: MpiFloat>(
    x: Stochastic<T>,
    y: &mut Stochastic<T>,
    mut declared: ffi::MPI_Datatype,
) -> Result<(), Error> {
    let mut a = x;
    let mut n: c_int = 1;
    // SAFETY: one value in each buffer, as `n` says; the operator reads them only if
    // `declared` is the datatype of `Stochastic<T>`.
    unsafe {
        sum_op::<T>(
            (&mut a as *mut Stochastic<T>).cast(),
            (y as *mut Stochastic<T>).cast(),
            &mut n,
            &mut declared,
        );
    }
    take_op_error()
}

/// Fails unless MPI is running.
pub(crate) fn ensure_running() -> Result<(), Error> {
    if mpi::environment::is_initialized() && !mpi::environment::is_finalized() {
        Ok(())
    } else {
        Err(Error::NotInitialized)
    }
}

fn check_root<C: Communicator>(comm: &C, root: i32) -> Result<(), Error> {
    if (0..comm.size()).contains(&root) {
        Ok(())
    } else {
        Err(Error::BadRoot {
            root,
            size: comm.size(),
        })
    }
}

/// Values per rank from which [`all_reduce_slice`] reduce-scatters and all-gathers instead of
/// reducing to rank 0 and broadcasting.
const LONG_BLOCK: usize = 1024;

/// Reduces `xs` element by element over all ranks into `out` on every rank: the same bits
/// on every rank (each value reduced on one rank, then sent to the others), so that ranks
/// that branch on the result take the same branch.
///
/// # Errors
///
/// [`Error::NotInitialized`], [`Error::LengthMismatch`] when `out` and `xs` differ in length,
/// or an error met inside the operator.
pub fn all_reduce_slice<C: Communicator, T: MpiFloat>(
    comm: &C,
    xs: &[Stochastic<T>],
    out: &mut [Stochastic<T>],
    op: Op,
) -> Result<(), Error> {
    ensure_running()?;
    if xs.len() != out.len() {
        return Err(Error::LengthMismatch {
            what: "out",
            got: out.len(),
            expected: xs.len(),
        });
    }
    // Each value is reduced on one rank and its bits sent to the others: MPI's all-reduce
    // algorithms (recursive doubling for short messages) have every rank apply the operator
    // itself, and each rank rounds with its own random stream, so the ranks' copies of the
    // result differed in their samples, and ranks could branch apart on them.
    let size = comm.size() as usize;
    let block = xs.len() / size;
    let mut failed = Ok(());
    let head = if size > 1 && block >= LONG_BLOCK {
        // Long: reduce-scatter (rank j reduces block j) and all-gather, as MPI's own
        // bandwidth-optimal all-reduce does, each block reduced once.
        let head = block * size;
        let mut mine = vec![Stochastic::<T>::ZERO; block];
        comm.reduce_scatter_block_into(wire(&xs[..head]), wire_mut(&mut mine), op_of::<T>(op));
        failed = take_op_error();
        comm.all_gather_into(wire(&mine), wire_mut(&mut out[..head]));
        head
    } else {
        0
    };
    if head < xs.len() {
        // Short (or the tail): reduced on rank 0, then broadcast.
        let root = comm.process_at_rank(0);
        if comm.rank() == 0 {
            root.reduce_into_root(
                wire(&xs[head..]),
                wire_mut(&mut out[head..]),
                op_of::<T>(op),
            );
        } else {
            root.reduce_into(wire(&xs[head..]), op_of::<T>(op));
        }
        failed = failed.and(take_op_error());
        root.broadcast_into(wire_mut(&mut out[head..]));
    }
    failed
}

/// Reduces one value over all ranks; every rank gets the result.
///
/// ```no_run
/// use stoch_core::Sf64;
/// use stoch_mpi::{all_reduce, Op};
/// let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
/// let mine = Sf64::new(1.0) / (job.rank() as f64 + 3.0);
/// let total = all_reduce(job.world(), mine, Op::Sum)?;
/// println!("{total}"); // only its exact digits
/// # Ok::<(), stoch_mpi::Error>(())
/// ```
///
/// # Errors
///
/// As [`all_reduce_slice`].
pub fn all_reduce<C: Communicator, T: MpiFloat>(
    comm: &C,
    x: Stochastic<T>,
    op: Op,
) -> Result<Stochastic<T>, Error> {
    let mut out = [x];
    all_reduce_slice(comm, &[x], &mut out, op)?;
    Ok(out[0])
}

/// Reduces `xs` element by element over all ranks to `root`: `Some(result)` there, `None`
/// elsewhere.
///
/// # Errors
///
/// [`Error::NotInitialized`], [`Error::BadRoot`], or an error met inside the operator.
pub fn reduce_slice<C: Communicator, T: MpiFloat>(
    comm: &C,
    root: i32,
    xs: &[Stochastic<T>],
    op: Op,
) -> Result<Option<Vec<Stochastic<T>>>, Error> {
    ensure_running()?;
    check_root(comm, root)?;
    let process = comm.process_at_rank(root);
    if comm.rank() == root {
        let mut out = xs.to_vec();
        process.reduce_into_root(wire(xs), wire_mut(&mut out), op_of::<T>(op));
        take_op_error()?;
        Ok(Some(out))
    } else {
        process.reduce_into(wire(xs), op_of::<T>(op));
        take_op_error()?;
        Ok(None)
    }
}

/// Reduces one value over all ranks to `root`: `Some(result)` there, `None` elsewhere.
///
/// # Errors
///
/// As [`reduce_slice`].
pub fn reduce<C: Communicator, T: MpiFloat>(
    comm: &C,
    root: i32,
    x: Stochastic<T>,
    op: Op,
) -> Result<Option<Stochastic<T>>, Error> {
    Ok(reduce_slice(comm, root, &[x], op)?.map(|v| v[0]))
}

/// Adds the ranks' composite pairs (seed 000's Figure 3 addition, every operation randomly
/// rounded) with an MPI user operation; every rank gets the same bits of the total pair.
///
/// # Errors
///
/// [`Error::NotInitialized`], or an error met inside the operator.
pub fn all_reduce_composite<C: Communicator, T: MpiFloat>(
    comm: &C,
    x: Composite<Stochastic<T>>,
) -> Result<Composite<Stochastic<T>>, Error> {
    ensure_running()?;
    let send = [WirePair(x)];
    let mut out = [WirePair(x)];
    // Reduced on rank 0 and broadcast, for the same bits on every rank (see
    // `all_reduce_slice`).
    let root = comm.process_at_rank(0);
    if comm.rank() == 0 {
        root.reduce_into_root(&send[..], &mut out[..], &ops::<T>().composite.0);
    } else {
        root.reduce_into(&send[..], &ops::<T>().composite.0);
    }
    let failed = take_op_error();
    root.broadcast_into(&mut out[..]);
    failed?;
    Ok(out[0].0)
}

/// Adds the ranks' plain composite pairs (`Composite<f32>`/`Composite<f64>`): every rank
/// gathers all pairs and adds them in rank order, so all ranks hold the same total.
///
/// # Errors
///
/// [`Error::NotInitialized`].
pub fn all_reduce_composite_plain<C: Communicator, T: MpiFloat>(
    comm: &C,
    x: Composite<T>,
) -> Result<Composite<T>, Error> {
    ensure_running()?;
    let mut all = vec![<T as stoch_core::eft::EftFloat>::zero(); 2 * comm.size() as usize];
    comm.all_gather_into(&[x.value, x.error][..], &mut all[..]);
    Ok(all
        .chunks_exact(2)
        .map(|p| Composite::new(p[0], p[1]))
        .reduce(Composite::add)
        .unwrap_or(x))
}

/// The exact value of `s` as a few `f64`s whose exact sum it is (an expansion: each term the
/// remainder's correctly rounded value, at most ~40 for the 2098-bit range), or the special
/// value (NaN, ±∞) alone. A partial sum beyond `f64`'s range is carried as `±∞`.
fn expansion(s: &ReproducibleSum) -> Vec<f64> {
    let mut rest = s.clone();
    let mut terms = Vec::new();
    for _ in 0..64 {
        let r = rest.result_f64();
        if r == 0.0 {
            break;
        }
        terms.push(r);
        if !r.is_finite() {
            break;
        }
        rest.add_f64(-r);
    }
    terms
}

/// Gathers every rank's `terms` on every rank, in rank order.
fn all_gather_terms<C: Communicator>(comm: &C, terms: &[f64]) -> Vec<f64> {
    let size = comm.size() as usize;
    let mut counts = vec![0 as Count; size];
    comm.all_gather_into(&(terms.len() as Count), &mut counts[..]);
    let displs: Vec<Count> = counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect();
    let total: Count = counts.iter().sum();
    let mut all = vec![0.0f64; total as usize];
    {
        let mut part = PartitionMut::new(&mut all[..], counts, &displs[..]);
        comm.all_gather_varcount_into(terms, &mut part);
    }
    all
}

/// Merges the ranks' order-independent sums exactly: every rank gets the accumulator of all
/// the terms of all ranks, and its result is bit-identical for every split of the terms over
/// any number of ranks.
///
/// ```no_run
/// use stoch_core::accum::ReproducibleSum;
/// let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
/// let mut mine = ReproducibleSum::new();
/// mine.add_f64(0.1);
/// let total = stoch_mpi::all_reduce_reproducible(job.world(), &mine)?;
/// println!("{:e}", total.result_f64()); // the same bits for 1, 2, 4 ... ranks
/// # Ok::<(), stoch_mpi::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::NotInitialized`].
pub fn all_reduce_reproducible<C: Communicator>(
    comm: &C,
    s: &ReproducibleSum,
) -> Result<ReproducibleSum, Error> {
    ensure_running()?;
    let mut total = ReproducibleSum::new();
    for x in all_gather_terms(comm, &expansion(s)) {
        total.add_f64(x);
    }
    Ok(total)
}

/// The order-independent sum of stochastic values: one exact accumulator per sample and the
/// union of the terms' flags.
///
/// Each sample of [`result`](StochReproducibleSum::result) is its exact sum rounded to
/// nearest once (an error of at most half an ulp, below what the digits can show), not at
/// random: so the result is bit-identical for any order and split of the terms, over any
/// number of ranks ([`all_reduce_stoch_reproducible`]). The spread of the samples is that of
/// the terms' samples: the digits say what the inputs' round-off left of the sum.
#[derive(Clone, Debug, Default)]
pub struct StochReproducibleSum<T> {
    sums: [ReproducibleSum; 3],
    flags: u8,
    _t: std::marker::PhantomData<T>,
}

impl<T: MpiFloat> StochReproducibleSum<T> {
    /// The empty sum.
    #[must_use]
    pub fn new() -> Self {
        Self {
            sums: [
                ReproducibleSum::new(),
                ReproducibleSum::new(),
                ReproducibleSum::new(),
            ],
            flags: 0,
            _t: std::marker::PhantomData,
        }
    }

    /// Adds one term exactly, sample by sample.
    pub fn add(&mut self, x: Stochastic<T>) {
        for (s, v) in self.sums.iter_mut().zip(x.samples()) {
            s.add_f64(v.widen());
        }
        self.flags |= x.flags().bits();
    }

    /// Each sample's exact sum, rounded to nearest, with the union of the terms' flags.
    #[must_use]
    pub fn result(&self) -> Stochastic<T> {
        let s = [0, 1, 2].map(|i| T::from_exact_sum(&self.sums[i]));
        Stochastic::from_parts(s, Flags::from_bits(self.flags))
    }
}

/// Merges the ranks' [`StochReproducibleSum`]s exactly (see [`all_reduce_reproducible`]);
/// every rank gets the total.
///
/// # Errors
///
/// [`Error::NotInitialized`].
pub fn all_reduce_stoch_reproducible<C: Communicator, T: MpiFloat>(
    comm: &C,
    s: &StochReproducibleSum<T>,
) -> Result<StochReproducibleSum<T>, Error> {
    let mut total = StochReproducibleSum::new();
    for i in 0..3 {
        total.sums[i] = all_reduce_reproducible(comm, &s.sums[i])?;
    }
    let mut flags = 0u8;
    comm.all_reduce_into(&s.flags, &mut flags, SystemOperation::bitwise_or());
    total.flags = flags;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combining_reads_and_writes_buffers_at_any_alignment() {
        // Two values in each buffer, 8 bytes past a 32-byte boundary, as a temporary of MPI's
        // may be: a read through a reference of the value's 32-byte alignment would be wrong.
        #[repr(C, align(32))]
        struct Buf([u8; 104]);
        type Sf64 = Stochastic<f64>;
        let (x, y) = (
            Sf64::from_parts([1.0, 2.0, 3.0], Flags::from_bits(1)),
            Sf64::new(0.5),
        );
        let (mut a, mut b) = (Buf([0; 104]), Buf([0; 104]));
        let (pa, pb) = (
            a.0.as_mut_ptr().wrapping_add(8),
            b.0.as_mut_ptr().wrapping_add(8),
        );
        // SAFETY: four values at offsets 8 and 40 of two 104-byte buffers.
        unsafe {
            for k in 0..2 {
                pa.cast::<Sf64>().add(k).write_unaligned(x);
                pb.cast::<Sf64>().add(k).write_unaligned(y);
            }
            apply_unaligned(pa.cast::<Sf64>(), pb.cast::<Sf64>(), 2, &|u, v| u * v);
            for k in 0..2 {
                let r = pb.cast::<Sf64>().add(k).read_unaligned();
                assert_eq!(r.samples(), [0.5, 1.0, 1.5]);
                assert_eq!(r.flags().bits(), 1);
            }
        }
    }

    #[test]
    fn without_mpi_calls_say_so() {
        let e = ensure_running().unwrap_err();
        assert!(matches!(e, Error::NotInitialized));
        assert!(e.to_string().contains("stoch_mpi::init"), "{e}");
    }

    #[test]
    fn expansions_are_exact() {
        let mut s = ReproducibleSum::new();
        for x in [1.0e300, 3.0, 1.0e-300, 0.1, -7.5e-310] {
            s.add_f64(x);
        }
        let terms = expansion(&s);
        assert!(terms.len() >= 3, "{terms:?}");
        let mut back = ReproducibleSum::new();
        for t in &terms {
            back.add_f64(*t);
        }
        // Same exact value: subtracting one from the other leaves an exact zero.
        for t in expansion(&s) {
            back.add_f64(-t);
        }
        assert_eq!(back.result_f64(), 0.0);
        assert_eq!(expansion(&ReproducibleSum::new()), Vec::<f64>::new());
        let mut inf = ReproducibleSum::new();
        inf.add_f64(f64::INFINITY);
        inf.add_f64(1.0);
        assert_eq!(expansion(&inf), vec![f64::INFINITY]);
    }

    #[test]
    fn stochastic_reproducible_sum_keeps_samples_and_flags() {
        let mut s = StochReproducibleSum::<f64>::new();
        s.add(Stochastic::from_parts(
            [1.0, 1.0 + 1e-15, 1.0],
            Flags::from_bits(1),
        ));
        s.add(Stochastic::new(1e-300));
        let r = s.result();
        assert_eq!(r.samples(), [1.0, 1.0 + 1e-15, 1.0]);
        assert_eq!(r.flags().bits(), 1);
        let mut f = StochReproducibleSum::<f32>::new();
        f.add(Stochastic::new(1.0f32));
        f.add(Stochastic::new(f32::EPSILON / 4.0));
        f.add(Stochastic::new(f32::EPSILON / 4.0));
        f.add(Stochastic::new(f32::EPSILON / 4.0));
        // 1 + 3/4 ulp, rounded once to nearest from the exact sum.
        assert_eq!(f.result().samples(), [1.0 + f32::EPSILON; 3]);
    }
}
