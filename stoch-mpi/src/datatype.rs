//! MPI datatypes for stochastic values: [`Wire<T>`], the MPI-equivalent form of a
//! `Stochastic<T>`.
//!
//! rsmpi's `Equivalence` is a foreign trait and `Stochastic<T>` a foreign type, so the orphan
//! rule rules out implementing one for the other here. [`Wire<T>`] is a `#[repr(transparent)]`
//! wrapper that is `Equivalence`: [`wire`] and [`wire_mut`] view a slice of stochastic values
//! as a slice of `Wire<T>` without copying, so every rsmpi call (point-to-point, broadcast,
//! gather, scatter, all-to-all, their `varcount` and immediate forms) moves them.
//!
//! The MPI datatype is a struct of three `T` at offset 0 and, from offset `3·size_of::<T>()`,
//! the flag byte and the padding as bytes: 16 or 32 bytes without a hole, the size and stride
//! of `Stochastic<T>`. The padding travels too (either form of it is valid padding, see
//! `Stochastic`'s layout): a datatype without holes is copied as memory, where one with a
//! 7-byte hole made MPICH pack and unpack every value (a 1-rank all-reduce of 10^6 `Sf64`
//! took 50 times the plain one's time). The datatype is created and committed once per
//! process, at first use, and reused: MPI compares handles when it calls a reduction
//! operator, and the operators check it (see [`crate::reduce`]).

use std::mem::{size_of, MaybeUninit};
use std::os::raw::c_int;
use std::sync::OnceLock;

use mpi::datatype::{DatatypeRef, Equivalence};
use mpi::ffi;
use mpi::raw::{AsRaw, FromRaw};
use stoch_core::composite::Composite;
use stoch_core::{StochFloat, Stochastic};

mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The sample types with MPI datatypes: `f32` and `f64` (sealed).
pub trait MpiFloat:
    private::Sealed + StochFloat + stoch_core::eft::EftFloat + Equivalence + Send + Sync + 'static
{
    /// The committed datatype of `Stochastic<Self>`, created at first use.
    #[doc(hidden)]
    fn stochastic_type() -> ffi::MPI_Datatype;
    /// The committed datatype of a composite pair of `Stochastic<Self>` (two values).
    #[doc(hidden)]
    fn pair_type() -> ffi::MPI_Datatype;
    /// The exact sum held by `s`, rounded to nearest `Self`.
    #[doc(hidden)]
    fn from_exact_sum(s: &stoch_core::accum::ReproducibleSum) -> Self;
    /// `self` as `f64` (exact).
    #[doc(hidden)]
    fn widen(self) -> f64;
}

/// A datatype handle kept for the whole process (MPI frees datatypes at finalize).
struct Handle(ffi::MPI_Datatype);
// SAFETY: an MPI datatype handle is an opaque value (an integer in MPICH, a pointer to an
// immutable committed object in Open MPI); using it from any thread is allowed by MPI.
unsafe impl Send for Handle {}
// SAFETY: as above; the handle is never mutated after it is stored.
unsafe impl Sync for Handle {}

/// Creates the struct datatype of `Stochastic<T>`: 3 × `T`, then the flag byte and the
/// padding as `u8`, the size and extent of the Rust type.
fn create_stochastic<T: StochFloat + Equivalence>() -> ffi::MPI_Datatype {
    let tail = size_of::<Stochastic<T>>() - 3 * size_of::<T>();
    let blocks: [c_int; 2] = [3, tail as c_int];
    let displacements: [ffi::MPI_Aint; 2] = [0, (3 * size_of::<T>()) as ffi::MPI_Aint];
    let types = [
        T::equivalent_datatype().as_raw(),
        u8::equivalent_datatype().as_raw(),
    ];
    let mut tight = MaybeUninit::<ffi::MPI_Datatype>::uninit();
    let mut resized = MaybeUninit::<ffi::MPI_Datatype>::uninit();
    // SAFETY: the arrays hold two entries each, as the count says; the output pointers are
    // valid. MPI's default error handler aborts on failure, so the outputs are written when
    // the calls return.
    unsafe {
        ffi::MPI_Type_create_struct(
            2,
            blocks.as_ptr(),
            displacements.as_ptr(),
            types.as_ptr(),
            tight.as_mut_ptr(),
        );
        let mut tight = tight.assume_init();
        ffi::MPI_Type_create_resized(
            tight,
            0,
            size_of::<Stochastic<T>>() as ffi::MPI_Aint,
            resized.as_mut_ptr(),
        );
        let mut resized = resized.assume_init();
        ffi::MPI_Type_commit(&mut resized);
        ffi::MPI_Type_free(&mut tight);
        resized
    }
}

/// Two consecutive values of `base` (the composite pair `value, error`).
fn create_pair(base: ffi::MPI_Datatype) -> ffi::MPI_Datatype {
    let mut pair = MaybeUninit::<ffi::MPI_Datatype>::uninit();
    // SAFETY: `base` is a committed datatype; the output pointer is valid.
    unsafe {
        ffi::MPI_Type_contiguous(2, base, pair.as_mut_ptr());
        let mut pair = pair.assume_init();
        ffi::MPI_Type_commit(&mut pair);
        pair
    }
}

/// Frees the datatypes created so far (at the end of the job, before MPI finalizes, so that
/// the MPI library reports no leak). Nothing may use them afterwards.
pub(crate) fn free_all() {
    for cell in [&SF32_PAIR_TYPE, &SF64_PAIR_TYPE, &SF32_TYPE, &SF64_TYPE] {
        if let Some(h) = cell.get() {
            let mut raw = h.0;
            // SAFETY: a committed datatype of ours; the job is ending and the handles are
            // not used after this (every entry point checks that MPI is running).
            unsafe { ffi::MPI_Type_free(&mut raw) };
        }
    }
}

macro_rules! mpi_float {
    ($t:ty, $single:ident, $pair:ident, $result:ident) => {
        static $single: OnceLock<Handle> = OnceLock::new();
        static $pair: OnceLock<Handle> = OnceLock::new();
        impl MpiFloat for $t {
            fn stochastic_type() -> ffi::MPI_Datatype {
                $single.get_or_init(|| Handle(create_stochastic::<$t>())).0
            }
            fn pair_type() -> ffi::MPI_Datatype {
                $pair
                    .get_or_init(|| Handle(create_pair(<$t>::stochastic_type())))
                    .0
            }
            fn from_exact_sum(s: &stoch_core::accum::ReproducibleSum) -> Self {
                s.$result()
            }
            fn widen(self) -> f64 {
                f64::from(self)
            }
        }
    };
}
mpi_float!(f32, SF32_TYPE, SF32_PAIR_TYPE, result_f32);
mpi_float!(f64, SF64_TYPE, SF64_PAIR_TYPE, result_f64);

/// A `Stochastic<T>` as MPI sees it: same bytes (`#[repr(transparent)]`), and an
/// `Equivalence` whose datatype moves the three samples and the flag byte unchanged.
///
/// Build one with `Wire(x)`, view slices with [`wire`] / [`wire_mut`], and take the value
/// back with `.0` or [`unwire`].
///
/// ```no_run
/// use mpi::traits::*;
/// use stoch_core::Sf64;
/// use stoch_mpi::{wire, wire_mut};
///
/// let job = stoch_mpi::init(stoch_core::Config::from_env().unwrap()).unwrap();
/// let world = job.world();
/// let mut xs = vec![Sf64::ZERO; 4];
/// if world.rank() == 0 {
///     xs = vec![Sf64::new(1.0) / 3.0; 4];
/// }
/// world.process_at_rank(0).broadcast_into(wire_mut(&mut xs));
/// assert_eq!(xs[0].digits(), 15);
/// // Rank 0 gathers everyone's first value.
/// let mut all = vec![Sf64::ZERO; world.size() as usize];
/// if world.rank() == 0 {
///     world.process_at_rank(0).gather_into_root(wire(&xs[..1]), wire_mut(&mut all));
/// } else {
///     world.process_at_rank(0).gather_into(wire(&xs[..1]));
/// }
/// ```
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Wire<T: StochFloat>(pub Stochastic<T>);

// SAFETY: `Wire<T>` has the layout of `Stochastic<T>` (repr(transparent)), which is
// repr(C) with three `T` at offset 0, the flag byte at `3·size_of::<T>()` and padding to
// `size_of::<Stochastic<T>>()` (stoch-core documents and tests this layout); the datatype
// describes exactly those bytes, and any bytes a peer sends there were a valid flag byte and
// valid padding of a `Stochastic<T>`.
unsafe impl<T: MpiFloat> Equivalence for Wire<T> {
    type Out = DatatypeRef<'static>;
    fn equivalent_datatype() -> Self::Out {
        // SAFETY: the handle is committed and lives until MPI finalizes; rsmpi's
        // communicators cannot be used after that either.
        unsafe { DatatypeRef::from_raw(T::stochastic_type()) }
    }
}

/// A composite pair of stochastic values (`value + error`) as MPI sees it (two
/// [`Wire<T>`]s, one datatype).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct WirePair<T: StochFloat>(pub Composite<Stochastic<T>>);

// SAFETY: `Composite<S>` is repr(C) with fields `value, error` of type `S`, so the pair is
// two consecutive `Stochastic<T>`, as the contiguous datatype of two stochastic values says.
unsafe impl<T: MpiFloat> Equivalence for WirePair<T> {
    type Out = DatatypeRef<'static>;
    fn equivalent_datatype() -> Self::Out {
        // SAFETY: as for `Wire<T>`.
        unsafe { DatatypeRef::from_raw(T::pair_type()) }
    }
}

impl<T: StochFloat> From<Stochastic<T>> for Wire<T> {
    #[inline]
    fn from(x: Stochastic<T>) -> Self {
        Wire(x)
    }
}

/// Views stochastic values as MPI-equivalent values, without copying.
#[inline]
#[must_use]
pub fn wire<T: StochFloat>(xs: &[Stochastic<T>]) -> &[Wire<T>] {
    // SAFETY: `Wire<T>` is repr(transparent) over `Stochastic<T>`: same size, alignment and
    // validity, so the cast slice covers the same memory with the same length.
    unsafe { std::slice::from_raw_parts(xs.as_ptr().cast(), xs.len()) }
}

/// Views stochastic values as MPI-equivalent values to receive into, without copying.
#[inline]
#[must_use]
pub fn wire_mut<T: StochFloat>(xs: &mut [Stochastic<T>]) -> &mut [Wire<T>] {
    // SAFETY: as in `wire`; the exclusive borrow is carried over.
    unsafe { std::slice::from_raw_parts_mut(xs.as_mut_ptr().cast(), xs.len()) }
}

/// Views MPI-equivalent values as stochastic values, without copying.
#[inline]
#[must_use]
pub fn unwire<T: StochFloat>(xs: &[Wire<T>]) -> &[Stochastic<T>] {
    // SAFETY: as in `wire`, the other way round.
    unsafe { std::slice::from_raw_parts(xs.as_ptr().cast(), xs.len()) }
}

/// The datatype's size and extent in bytes (what MPI transfers per value, and its stride),
/// for layout checks.
#[must_use]
pub fn size_and_extent<T: MpiFloat>() -> (usize, usize) {
    let ty = T::stochastic_type();
    let mut size: c_int = 0;
    let mut lb: ffi::MPI_Aint = 0;
    let mut extent: ffi::MPI_Aint = 0;
    // SAFETY: `ty` is a committed datatype; the outputs are valid pointers.
    unsafe {
        ffi::MPI_Type_size(ty, &mut size);
        ffi::MPI_Type_get_extent(ty, &mut lb, &mut extent);
    }
    (size as usize, extent as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoch_core::{Flags, Sf32, Sf64};

    #[test]
    fn wire_views_keep_the_values() {
        let xs = [
            Sf64::from_parts([1.0, 2.0, 3.0], Flags::from_bits(5)),
            Sf64::new(-0.5),
        ];
        let w = wire(&xs);
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].0.samples(), [1.0, 2.0, 3.0]);
        assert_eq!(w[0].0.flags().bits(), 5);
        assert_eq!(unwire(w)[1].samples(), [-0.5; 3]);
        let mut ys = [Sf32::new(1.0)];
        wire_mut(&mut ys)[0] = Wire(Sf32::new(2.0));
        assert_eq!(ys[0].samples(), [2.0; 3]);
    }

    /// The datatype's offsets assume this layout: samples at 0, the flag byte right after.
    #[test]
    fn layout_is_the_documented_one() {
        fn check<T: MpiFloat>(one: T) {
            let x = Stochastic::<T>::from_parts([one; 3], Flags::from_bits(0x41));
            let bytes: &[u8] = {
                let p = (&x as *const Stochastic<T>).cast::<u8>();
                // SAFETY: reads the value's own bytes; every byte of a Stochastic is
                // initialised (samples, flag byte, written padding).
                unsafe { std::slice::from_raw_parts(p, size_of::<Stochastic<T>>()) }
            };
            assert_eq!(bytes[3 * size_of::<T>()], 0x41);
            assert_eq!(size_of::<Wire<T>>(), size_of::<Stochastic<T>>());
            assert_eq!(size_of::<WirePair<T>>(), 2 * size_of::<Stochastic<T>>());
        }
        check(1.0f32);
        check(1.0f64);
        assert_eq!(size_of::<Sf32>(), 16);
        assert_eq!(size_of::<Sf64>(), 32);
    }
}
