//! The `#[stochastic]` attribute of the `stoch` workspace: put it on code written for `f32`/`f64`
//! and that code computes with [`stoch_core::Stochastic`] numbers instead (Discrete Stochastic
//! Arithmetic, as CADNA does for C and Fortran).
//!
//! Use it through `stoch_core::stochastic` (the `macros` feature of `stoch-core`, on by default);
//! the expansion refers to `::stoch_core` by absolute path, so that crate must be a dependency.
//!
//! [`stoch_core::Stochastic`]: https://docs.rs/stoch-core

mod args;
mod error;
mod expand;
mod rewrite;
mod tokens;

use proc_macro::TokenStream;

/// Rewrites `f32`/`f64` code to stochastic arithmetic.
///
/// # Where it goes
///
/// On a free `fn`, an `impl` block (inherent or trait), an inline `mod` (everything inside), a
/// `trait`, a `struct`/`enum`/`union` (field types), a `type` alias, a `const`/`static`, and
/// `fn main`:
///
/// ```
/// # use stoch_macros::stochastic; // users write `use stoch_core::stochastic;`
/// #[stochastic]
/// fn rump(a: f64, b: f64) -> f64 {
///     333.75 * b.powi(6) + a * a * (11.0 * a * a * b * b - b.powi(6) - 121.0 * b.powi(4) - 2.0)
///         + 5.5 * b.powi(8)
///         + a / (2.0 * b)
/// }
///
/// #[stochastic(report = false)]
/// fn main() {
///     let r = rump(77617.0, 33096.0);
///     println!("{r}"); // only the exact significant digits: none here, `@.0`
///     assert!(r.digits() <= 1);
/// } // without `report = false`, the instability report is printed here (also on panic or `Err`)
/// ```
///
/// # What is rewritten
///
/// - **Types.** `f32`/`f64` become `::stoch_core::Stochastic<f32>`/`<f64>` wherever a type
///   appears: signatures, `let` and closure annotations, `const`/`static` items, generic
///   arguments (`Vec<f64>`, `Option<f32>`, `HashMap<K, f64>`), arrays, slices, references,
///   tuples, `fn` pointer and `dyn Fn` types, turbofish (`parse::<f64>()`, `sum::<f64>()`),
///   `Self` types of impls, struct fields, nested fns and items. Array lengths and const generic
///   arguments are integer constants and are left alone.
/// - **Float literals** (everywhere but in patterns; `0f64` and `10_000f32` are float literals
///   too):
///   - a suffixed literal has its type: `1.5f32` becomes
///     `<Stochastic<f32> as From<f32>>::from(1.5f32)`;
///   - an unsuffixed literal `0.5` becomes `<Stochastic<_> as From<_>>::from(0.5)`. The macro
///     cannot see types, so it does not guess one: the two `_` are found by the compiler's own
///     inference, from the same context that would have typed the plain literal (`x * 0.5` with
///     `x: Stochastic<f32>` gives `Stochastic<f32>`), with the same fallback to `f64` when nothing
///     constrains it. `stoch-core` has exactly the `From` impls that make this unambiguous
///     (`f32 → Sf32`, `f64 → Sf64`, `f32 → Sf64`).
/// - **Casts.** `n as f64` and `x as f32` become `::stoch_core::__private::cast::<Stochastic<_>,
///   _>(n)`, which converts integers, plain floats and stochastic values. `x as usize` (and the
///   other integer targets) goes through the same function, which accepts plain integers too,
///   unless the operand obviously is not a float: a literal, an enum variant or other
///   `Path::NAME`, a cast to an integer, a comparison or logical expression, `.len()`, `.count()`
///   and similar. (`kind as usize` on an `enum` value or `p as usize` on a raw pointer, named by
///   a variable, does not compile after the rewrite: move it into a fn marked
///   `#[stochastic(skip)]`, or write a `match`.)
///   A cast to a `type Real = f64;` alias declared inside the item counts as a float cast.
/// - **Paths.** `f64::sqrt(x)`, `f64::max(a, b)` and every lower-case `f64::name` become
///   `Stochastic::<f64>::name`; `f64::EPSILON`, `MAX`, `MIN`, `MIN_POSITIVE`, `INFINITY`,
///   `NEG_INFINITY`, `NAN` become the `Stochastic::<f64>` constants; `std::f64::consts::PI` (or
///   `core::`) becomes an exact stochastic constant; `f64::from` becomes the cast above.
///   Integer constants such as `f64::DIGITS` or `f64::MANTISSA_DIGITS` are left alone. A std
///   constant named without its type (`PI` after `use std::f64::consts::PI;`, `consts::PI`
///   after `use std::f64::consts;`, where the `use` may be outside the item) becomes
///   `__private::promote(PI)`: exact and stochastic whether `PI` is std's or the user's own.
/// - **Compound assignment** on a place other than a local variable (`v[1] += v[0]`,
///   `a[k][j] -= a[r][j] * m`) evaluates the right side into a temporary first, as `op=` does
///   for `f64` (the trait call would borrow the place before evaluating the right side).
/// - **Constants.** A `const`/`static` of float type (and arrays, slices, tuples, references
///   of floats) keeps a plain constant initializer, wrapped by a `const fn`:
///   `const DT: f64 = 1.0 / 64.0;` becomes `const DT: Stochastic<f64> =
///   ::stoch_core::__private::const_f64(1.0 / 64.0);`. Another float constant of the same item
///   named inside the initializer is read back as a plain value. A constant of a struct type
///   (`const ORIGIN: Point = Point { x: 0.0, y: 0.0 };`, or `Point(0.0, 0.0)`) has its float
///   fields wrapped the same way when the struct is declared in the same item (the field types
///   are known) or is the self type of the impl being rewritten (the float-valued fields then
///   take the only float type the item names, `f64` if it names both or none). A constant of
///   another item named in an initializer (`const FPMIN: f64 = f64::MIN_POSITIVE / EPS;`,
///   `[Self::C[1], 0.0]`) is read as a plain value by `__private::const_plain`, whether that
///   constant is plain or was rewritten by its own attribute; a constant of an alias type
///   declared elsewhere (`const PI: R = ...;`) is wrapped like an `f64` one.
/// - **`const fn`** that only moves and builds values (`const fn new(x: f64) -> Self { P(x) }`)
///   is rewritten and stays `const`, its literals built by `const fn`s; one that computes
///   becomes a plain fn (stochastic arithmetic does not run in const evaluation), so that a
///   call in a constant initializer is reported by rustc at that call.
/// - **`macro_rules!`** (annotated, or inside an annotated item): each transcriber that parses
///   as items, statements or an expression once `$name` stands for an identifier and each
///   repetition `$(..)*` for a macro call is rewritten (a repetition's body on its own); one
///   that does not parse so is left as written. A type passed in as an argument
///   (`impls!(f64)` expanding `x as $t`) is not seen.
/// - **Macros.** The arguments of every macro invocation whose arguments parse as
///   comma-separated expressions (or `elem; len`) are rewritten: `vec!`, `println!`, `format!`,
///   `assert_eq!`, ndarray's `array!`, the crate's own. Left as written, because their arguments
///   are patterns, tokens or compile-time text: `matches!` (and `assert_matches!`), `concat!`,
///   `stringify!`, `include*!`, `env!`/`option_env!`, `cfg!`, `line!`/`column!`/`file!`/
///   `module_path!`, `compile_error!`, `asm!`, `quote!`/`parse_quote!`, `thread_local!`,
///   `lazy_static!`, and `stoch_core::plain!`.
/// - **`stoch_core::plain!(expr)`** keeps `expr` exactly as written, for what must stay plain:
///   the arguments of another crate's generic API (`rng.gen_range(plain!(-2.0..2.0))`), a plain
///   `fn(f64) -> f64` of another crate, a foreign vector type with a scalar on the left.
/// - **Bare trait objects** of older editions (`&Fn(f64) -> f64`) are read as `dyn`.
/// - **`fn main`**: the body starts with `let guard =
///   ::stoch_core::__private::main_prologue(report);`, which reads the configuration from the
///   environment (a bad value is reported at once) and prints the instability report once when
///   `main` ends, returns `Err` or panics.
///
/// Integer code, method calls (they resolve to `Stochastic`'s methods of the same names),
/// `println!("{}", x)` formatting (exact digits only) are left to the types.
///
/// # Boundaries
///
/// Code outside the annotated item still sees plain floats: a caller that is not annotated
/// passes `Sf64::new(1.5)` (or `1.5.into()`) to a rewritten fn, and rewritten code hands plain
/// values to other crates (plotting, I/O, FFI) with `x.to_f64()`/`x.mean()`. Keep such calls
/// in a nested item marked `#[stochastic(skip)]`, or outside the annotated item. A
/// `use std::f64::consts::PI;` outside the item keeps `PI` a plain `f64`, which mixes with
/// stochastic values (`Stochastic<T> op T` and `T op Stochastic<T>` exist).
///
/// # Options
///
/// - `#[stochastic(report = false)]` on `fn main`: no report at the end.
/// - `#[stochastic(plain = name)]` on a fn or an inline mod: also emits the item exactly as
///   written (nested `#[stochastic..]` markers removed), renamed `name`, so that one source
///   gives both the IEEE and the stochastic result:
///   ```
///   # use stoch_macros::stochastic;
///   #[stochastic(plain = muller_ieee)]
///   fn muller(n: usize) -> f64 {
///       let (mut a, mut b) = (5.5, 61.0 / 11.0);
///       for _ in 0..n {
///           (a, b) = (b, 111.0 - (1130.0 - 3000.0 / a) / b);
///       }
///       b
///   }
///   let (ieee, dsa) = (muller_ieee(30), muller(30));
///   println!("IEEE {ieee}, stochastic {dsa} ({} exact digits)", dsa.digits());
///   ```
///   A plain fn that calls other rewritten fns would get stochastic results back: put the
///   family of functions in a mod and copy the mod.
/// - `#[stochastic(track_caller)]`: every small fn of the item (a body of one statement or
///   expression: one-line helpers, operator impls of the user's vector types, trait methods)
///   is marked `#[track_caller]`, so that an instability inside it is reported at the line that
///   called it (the algorithm's line) instead of the helper's. Larger fns keep their own sites.
/// - `#[stochastic(skip)]` or `#[stochastic_skip]` on an item nested inside a rewritten item
///   (fn, impl, mod, method, const, struct, ...) or on a `let` statement: left exactly as
///   written.
///
/// A `#[macro_export] macro_rules!` stays outside the annotated items: rustc does not let a
/// crate name a macro that another macro (here, the attribute) produced with
/// `#[macro_export]` by path (`use crate::name;`, `$crate::name!`), so the attribute answers
/// one on (or inside) its item with an error on `#[macro_export]`. Leave such a macro
/// unannotated outside the annotated items: where it is called inside annotated code its
/// arguments are rewritten and its own float literals mix with stochastic values; put
/// `#[stoch_core::stochastic]` on the items its transcriber expands to (fns, impls).
///
/// A struct whose fields are `f64` and that is declared outside the annotated items, given a
/// rewritten value (`Point { x: v }`), gives rustc's "expected `f64`, found `Stochastic<f64>`"
/// at the value, not at the struct: put `#[stochastic]` on the struct's declaration too (or
/// one on the module that holds both). The macro cannot make rustc point at the declaration:
/// it only sees the tokens of its own item, so it has no span of a declaration elsewhere, and
/// it cannot attach a note to rustc's type error (proc-macro diagnostics are unstable).
/// `#[diagnostic::on_unimplemented]` only rewords a failed trait bound at the use site, and
/// turning field initializers into trait bounds would break the coercions and closure
/// inference they get from the field's type (`&Vec<T>` to `&[T]`, `Box<dyn Fn ..>`). For
/// a fn or a trait declared elsewhere rustc itself already points at the declaration ("function
/// defined here", "type in trait"); a `const` declared elsewhere stays a plain `f64`, which
/// mixes in arithmetic and comparisons (write `K.into()` where a stochastic value is wanted).
///
/// # Errors
///
/// A spanned compile error for: `extern` fns and blocks (foreign ABIs take plain floats), `mod m;`
/// declarations (the macro cannot see their file), `use`/`extern crate`/macro invocation items,
/// `#[macro_export] macro_rules!` (on `#[macro_export]`),
/// unknown or duplicate arguments, `report` on anything but `main`, constant initializers it
/// cannot rewrite, and items it cannot parse. A construct nested in the item is left as
/// written and the rest of the item is rewritten, so that the error is the only one; an error
/// on the item itself leaves the item as written.
#[proc_macro_attribute]
pub fn stochastic(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::stochastic(args.into(), input.into()).into()
}
