//! The errors of stoch-mpi's fallible calls.

/// What went wrong, and what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// [`crate::init`] found MPI initialized already.
    #[error(
        "MPI is already initialized: call stoch_mpi::init instead of mpi::initialize (the Job it \
         returns owns MPI, gathers the report and then finalizes), and take the communicator \
         from Job::world"
    )]
    AlreadyInitialized,
    /// A call needs MPI, and MPI is not running (not yet initialized, or finalized).
    #[error(
        "MPI is not initialized (or already finalized): call stoch_mpi::init first and keep the \
         Job it returns alive while ranks communicate"
    )]
    NotInitialized,
    /// A reduction operator was handed a datatype other than the one it was made for.
    #[error(
        "the stochastic `{op}` operator was called with a datatype other than Stochastic<{expected}>'s: \
         reduce through stoch_mpi's functions, which pass the datatype created once per process"
    )]
    TypeMismatch {
        /// The operator.
        op: &'static str,
        /// The sample type it reduces.
        expected: &'static str,
    },
    /// Two buffers that must have the same length do not.
    #[error("`{what}` has {got} values where {expected} are needed: pass buffers of equal length")]
    LengthMismatch {
        /// The buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length needed.
        expected: usize,
    },
    /// A root rank outside the communicator.
    #[error("root rank {root} is not in the communicator (ranks 0 to {}): pass a rank below its size", .size - 1)]
    BadRoot {
        /// The rank asked for.
        root: i32,
        /// The communicator's size.
        size: i32,
    },
    /// A reduction operator panicked (a `Config::panic_on` kind, for example) inside MPI.
    #[error("the stochastic `{op}` operator panicked inside MPI: {message}")]
    OperatorPanicked {
        /// The operator.
        op: &'static str,
        /// The panic's message.
        message: String,
    },
    /// A rank's report could not be decoded on the root.
    #[error(
        "the report of rank {rank} could not be read ({source}): do all ranks run the same build?"
    )]
    Report {
        /// The rank.
        rank: i32,
        /// The decoding error.
        #[source]
        source: serde_json::Error,
    },
    /// A `STOCH_*` variable has a bad value.
    #[error(transparent)]
    Config(#[from] stoch_core::ConfigError),
}
