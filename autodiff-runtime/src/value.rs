//! Values by traits: takes any value generated code handles (floats, `Dual`, arrays, `Vec`s,
//! slices, tuples, references, integers and other derivative-free leaves, nalgebra matrices and
//! `#[derive(Differentiable)]` structs), gives a zero tangent shaped like it, in-place
//! accumulation of tangents and adjoints (they add, never overwrite) and scaling, through three
//! traits and the `#[inline(always)]` free functions emitters call.
//!
//! # Decision for the macro: the bound on generic companions
//!
//! **The macro adds `T: ::autodiff_runtime::__private::Scalar` to every type parameter `T` it
//! treats as a float (bounded by `Float` in the primal) in the generics of the generated `_jvp`,
//! `_vjp` and `_grad`.** The `<F>Grad<T>` struct needs no new bound. For that, and for emitters to
//! call this module, `__private` should re-export `value::{self, Scalar, Differentiable, Tangent,
//! Scale, zero_tangent, accumulate, set_zero, scaled, add_scaled}` (not `scale`: `__private` has
//! its own `scale(g, p) -> T`, which is what [`scaled`] is on scalars).
//!
//! **A user who calls a generated companion from their own generic code writes `T: Scalar`**
//! (`autodiff_runtime::Scalar`, which implies `num_traits::Float`) instead of, or next to,
//! `T: Float`, plus whatever other bounds the primal has (`FromPrimitive`, `Sum`, ...):
//!
//! ```
//! use autodiff_runtime::value::{accumulate, zero_tangent};
//! use autodiff_runtime::Scalar;
//!
//! // What a generic companion's body may do with `T` and `&[T]` once `T: Scalar`.
//! fn adjoint_of_sum<T: Scalar>(v: &[T], seed: T, dv: &mut [T]) {
//!     let mut g: Vec<T> = zero_tangent(v); // `<[T] as Differentiable>::Tangent` is `Vec<T>`
//!     for gi in g.iter_mut() {
//!         accumulate(gi, &seed);
//!     }
//!     accumulate(dv, &g);
//! }
//! let mut dv = [1.0_f32, 2.0];
//! adjoint_of_sum(&[5.0, 6.0], 0.5, &mut dv);
//! assert_eq!(dv, [1.5, 2.5]);
//! ```
//!
//! `Scalar = Float + Differentiable<Tangent = Self> + Tangent + Scale<Self> + Flat<Self>` (`Flat`:
//! read as one scalar, for `<f>_jacobian`, see [`crate::jacobian`]), implemented by a
//! blanket impl for every type with those four (so for `f32`, `f64` and `Dual<T>` at any nesting
//! depth, and for any user float type that implements the three value traits). Reasons:
//!
//! - **No blanket `impl<T: Float> Differentiable for T`.** It is rejected by coherence (E0119,
//!   "conflicting implementations of trait `Differentiable` for type `[_; _]`": *upstream crates
//!   may add a new impl of trait `num_traits::Float` for type `[_; _]`*, and the same for `Vec<_>`,
//!   `usize`, tuples). Rust may not assume a foreign trait is *not* implemented for a foreign type,
//!   so a blanket over `Float` overlaps every container and leaf impl here, and would also block
//!   the nalgebra impls of issue 11. Floats are therefore implemented one by one (`f32`, `f64`,
//!   `Dual<T>`), and generic code cannot get `T: Differentiable` from `T: Float`: it has to say it.
//!   Without the bound, the error says what to write (`Scalar` and `Differentiable` carry
//!   `#[diagnostic::on_unimplemented]` messages naming `autodiff_runtime::Scalar`).
//! - **One bound that names everything emitters need.** In generic code rustc only knows what the
//!   where-clause says. With `T: Scalar` it knows `T::Tangent == T` (the supertrait binding is
//!   used for normalisation), so `<[T; N]>::Tangent` is `[T; N]`, `<&[T]>::Tangent` is `Vec<T>`,
//!   the adjoint buffer of `v: &[T]` is `&mut [T]`, and `scale(&mut g, t)` with `t: T` works on
//!   every tangent built from `T`. The macro writes one path; if emitters later need more of a
//!   scalar, it is added to `Scalar`'s supertraits here and the macro does not change.
//! - **An alias with a blanket impl, not a list of impls.** A type is a `Scalar` exactly when it
//!   has the four traits; nothing is sealed and nothing has to be kept in sync.
//!
//! # The traits, and where they differ from the first sketch
//!
//! - [`Differentiable`] (a primal value): `type Tangent` and `zero_tangent(&self)`. Primal and
//!   tangent types differ (`[T]` has tangent `Vec<T::Tangent>`, `usize` has `()`, `&[f64; 3]` has
//!   `[f64; 3]`, a derived `Particle` has `ParticleTangent`), so this is its own trait.
//!   `Tangent` is also required to be `Clone`, so emitters can copy a seed or an adjoint.
//! - [`Tangent`] (a tangent or adjoint, also unsized `[T]` so that `&mut [f64]` adjoint buffers are
//!   accumulated in place): `accumulate(&mut self, &Self)` (`self += other`, elementwise, panics
//!   on a length mismatch) and `set_zero(&mut self)`. `set_zero` was added because the reverse of
//!   `v = e` zeroes `v`'s adjoint, and doing it in place keeps a `Vec` adjoint's allocation.
//! - [`Scale<S>`] (a tangent that can be multiplied by the scalar `S`): `scale(&mut self, s)` and
//!   `add_scaled(&mut self, &Self, s)` (`self += s * other`, the reverse-mode update
//!   `x̄ += ∂y/∂x · ȳ` without a temporary, which for a `Vec` adjoint would allocate).
//!   The scalar is a **trait parameter**, not an associated `type Scalar` on `Tangent`, because
//!   `()`, the tangent of integers, has no scalar of its own: with an associated type the tangent
//!   `((), f64)` of `(usize, f64)` could not name one. Instead `()` is `Scale<S>` for every `S`,
//!   and containers and tuples are `Scale<S>` when their elements are. `f32` is only `Scale<f32>`
//!   and `f64` only `Scale<f64>`, so an `f32` tangent is never scaled by an `f64` (no silent round
//!   trip through `f64`: it does not compile); `Dual<T>` is `Scale<Dual<T>>`, which is what nested
//!   use (`T = Dual<f64>` in a generic function) needs.
//!
//! Scaling follows the crate's **strong zero** (see [`Dual`]): `s * g` is zero when either factor
//! is exactly zero, even if the other is infinite or NaN, as in `__private::scale`, because emitters
//! use it for seed times partial derivative. `accumulate` is a plain `+`.
//!
//! Lengths never broadcast: an empty `Vec` is not a zero of every length. Every tangent a caller
//! adds must come from `zero_tangent` of a value of the same shape (or be written by generated code
//! of that shape), and a mismatch panics with both lengths.
//!
//! # Extending it
//!
//! - **Derived structs (issue 10): `#[derive(Differentiable)]`** (re-exported at the crate
//!   root; the derive macro and this trait share the name `Differentiable` in different
//!   namespaces, as serde's `Serialize` does). On `struct Particle { pos: [f64; 3], m: f64, id:
//!   usize }` (named, tuple or unit; generic over lifetimes, types and consts, where-clauses
//!   kept) it generates exactly what `tests/value.rs` writes by hand:
//!   - `struct ParticleTangent { pos: <[f64; 3] as Differentiable>::Tangent, m: ..., id: ... }`,
//!     with the struct's visibility and its fields' names, positions and visibilities, and doc
//!     comments. Field types are projections, so the derive needs no knowledge of types (`id`
//!     gets `()`). A field marked **`#[differentiable(skip)]`** is a constant: its tangent is
//!     `()`, whatever its type, which is the escape hatch for fields with no `Differentiable`
//!     impl (`Rc<..>`, `Option<f64>`, `PhantomData<U>`, closures). Any other field whose type is
//!     not `Differentiable` is a compile error at that field's type.
//!   - `impl Differentiable for Particle` (`zero_tangent` field by field), `impl Tangent for
//!     ParticleTangent` and `impl<S: Copy> Scale<S> for ParticleTangent where <each field's
//!     tangent>: Scale<S>`, all calling the field impls in function-call form
//!     (`Tangent::accumulate(&mut self.f, &other.f)`: the method-call form on a `()` field trips
//!     `clippy::unit_arg` in the user's crate). `accumulate` and `add_scaled` are
//!     `#[track_caller]`, so a length mismatch in a `Vec` field is reported at the caller.
//!     Scaling inherits the strong zero from the fields.
//!   - `Clone`, `Debug` and `PartialEq` for the tangent, written out, not derived: a derived
//!     `Clone` on `StateTangent<T>` would ask `T: Clone` where only `T::Tangent` is cloned.
//!     `Debug` and `PartialEq` are bounded by the tangents of the field types that mention a
//!     parameter; the tangents of the other fields must have them (every runtime tangent does;
//!     a hand-written `Differentiable` whose tangent lacks them is an error at that field).
//!   - Generic structs: the impls and the tangent struct get `F: Differentiable` for each field
//!     type `F` that mentions a parameter (`Vec<T>: Differentiable`, not `T: Differentiable` on
//!     every parameter, so a parameter used only under a type with its own impl gets what that
//!     impl needs), merged with the struct's own bounds. A parameter that only skipped fields
//!     mention is not a parameter of the tangent (`Quantity<U>` with a skipped `PhantomData<U>`
//!     has tangent `QuantityTangent`). From generic code, `T: Scalar` is all a caller needs to
//!     zero, accumulate and scale a `State<T>`'s tangent.
//!   - Nested and recursive structs compose through the projections: a field of a derived type
//!     has that type's tangent, and arrays, `Vec`s, slices, tuples and references of derived
//!     structs go through the container impls below, which are generic over any
//!     `T: Differentiable` (nothing had to change here). A field whose type spells the struct's
//!     own name (`kids: Vec<Self>`) gets no where-clause of its own, which would need the impl
//!     being defined. Mutually recursive structs (`A { b: Vec<B> }`, `B { a: Vec<A> }`) get
//!     everything but a usable `Scale` when they are not generic (rustc overflows proving
//!     `ATangent: Scale<f64>`, which needs itself), and overflow on their bounds when generic.
//!   - The expansion names only `::autodiff_runtime::...` and `::core::...`, is warning-free
//!     under `#![deny(warnings)]` and clippy, and user names do not capture it (its method
//!     parameters are `Span::mixed_site()` and `__ad_`-prefixed; its `Scale` parameter is renamed
//!     if the input spells `S`). The name `<Name>Tangent` must be free in the module.
//! - **nalgebra (issue 11).** Both the traits and `Matrix` are foreign to a user crate, so the
//!   impls live here (nalgebra 0.33 is a dependency of this crate), generic over the
//!   storage so that owned matrices of any shape (`DMatrix`, `DVector`, `RowDVector`, `SMatrix`,
//!   `Matrix3`, `Vector3`, ...) and views share them: `impl<T: Scalar + nalgebra::Scalar, R: Dim,
//!   C: Dim, St: RawStorage<T, R, C>> Differentiable for Matrix<T, R, C, St>` with `Tangent =
//!   OMatrix<T, R, C>` (zeros of `self.shape_generic()`), and `Tangent` (`+=` after a shape check,
//!   panicking with both shapes) and `Scale<S>` (elementwise, strong zero) for `Matrix<T, R, C,
//!   St: StorageMut>`. `Matrix` is not an array, `Vec`, tuple or reference, so these overlap
//!   nothing here (no coherence problem). `jacobian::Flat` reads them in storage order,
//!   column-major. The operations on them that differentiated code calls are in `na/`, on
//!   their flat storage.
//!
//! # Cost
//!
//! For scalars the functions inline to the arithmetic itself (checked in release assembly):
//! [`accumulate`] on `f64` is one `addsd`, [`zero_tangent`] a `xorps`, [`scale`] one `mulsd` plus
//! the strong-zero NaN test (taken only when the product is NaN), as `__private::scale`.
//! Arrays compile to straight-line code or a vectorised loop; `Vec`s and slices check the
//! length once and loop. Only `zero_tangent` of a `Vec` or slice allocates (its result).

use crate::dual::{term, Dual};
use num_traits::Float;

// ---------------------------------------------------------------------------------------------
// The traits

/// A primal value the generated code handles: it knows the type of its tangents (and adjoints)
/// and makes a zero one shaped like itself.
///
/// ```
/// use autodiff_runtime::value::zero_tangent;
///
/// let v = vec![[1.0_f64, 2.0, 3.0]; 2];
/// assert_eq!(zero_tangent(&v), vec![[0.0; 3]; 2]);
/// let mixed = (3_usize, 2.5_f32);
/// assert_eq!(zero_tangent(&mixed), ((), 0.0_f32));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value `#[differentiate]` knows how to differentiate",
    label = "no tangent type for `{Self}`",
    note = "if `{Self}` is a generic float type parameter, bound it by `autodiff_runtime::Scalar` (which implies `num_traits::Float`)",
    note = "otherwise implement `autodiff_runtime::Differentiable` for it (structs: `#[derive(Differentiable)]`)",
    note = "a field of a `#[derive(Differentiable)]` struct that carries no derivative (an `Rc`, an `Option`, a closure) is marked `#[differentiable(skip)]`"
)]
pub trait Differentiable {
    /// The tangent (and adjoint) type: `f64` for `f64`, `[T::Tangent; N]` for `[T; N]`,
    /// `Vec<T::Tangent>` for `Vec<T>` and `[T]`, `()` for integers, component-wise for tuples,
    /// `T::Tangent` for `&T` and `&mut T`.
    type Tangent: Tangent + Clone;

    /// A zero tangent shaped like `self` (same length for `Vec`s and slices, at every level).
    fn zero_tangent(&self) -> Self::Tangent;

    /// The zero tangents of a slice's elements, in one `Vec`: what `[T]` and `Vec<T>` give as
    /// their zero tangent. Each element may have a shape of its own (a `Vec` of `Vec`s), so by
    /// default every element is asked; floats override it with `vec![0.0; n]`, which allocates
    /// zeroed memory at once (for an adjoint buffer of 10,000 elements the difference shows).
    #[inline]
    fn zero_tangents(items: &[Self]) -> Vec<Self::Tangent>
    where
        Self: Sized,
    {
        items.iter().map(Self::zero_tangent).collect()
    }
}

/// A tangent or adjoint: it can be accumulated into (`+=`) and set to zero, in place.
///
/// Implemented for the `Tangent` type of every [`Differentiable`], and also for the unsized `[T]`
/// and for `&mut T`, so adjoint buffers behind `&mut [f64]` accumulate in place.
pub trait Tangent {
    /// `self += other`, elementwise at every level.
    ///
    /// # Panics
    ///
    /// If a `Vec` or slice in `other` has a different length from the one in `self`.
    fn accumulate(&mut self, other: &Self);

    /// Sets every element to zero, keeping the shape (and a `Vec`'s allocation).
    fn set_zero(&mut self);

    /// Whether every scalar of this tangent is exactly zero, at every level (a `Dual`'s value
    /// and tangent both), as far as the type can tell: `false` when it cannot (the default, for
    /// a user's float type). Generated reverse sweeps skip the `_vjp` of a callee for a seed
    /// known to be zero (the strong zero across calls); answering `false` only costs that call.
    #[doc(hidden)]
    #[inline(always)]
    fn is_exact_zero(&self) -> bool {
        false
    }
}

/// A tangent that can be multiplied by the scalar `S`, with the strong zero (see the module docs).
///
/// `f32` is `Scale<f32>` only, `f64` is `Scale<f64>` only, `Dual<T>` is `Scale<Dual<T>>`, `()` is
/// `Scale<S>` for every `S`, containers and tuples are `Scale<S>` when their elements are. An
/// `f32` tangent cannot be scaled by an `f64`:
///
/// ```compile_fail
/// use autodiff_runtime::value::scale;
/// let mut g = [1.0_f32, 2.0];
/// scale(&mut g, 2.0_f64); // error: expected `f32`, found `f64`
/// ```
pub trait Scale<S>: Tangent {
    /// `self = s * self`, elementwise.
    fn scale(&mut self, s: S);

    /// `self += s * other`, elementwise.
    ///
    /// # Panics
    ///
    /// If a `Vec` or slice in `other` has a different length from the one in `self`.
    fn add_scaled(&mut self, other: &Self, s: S);

    /// `self * s` by the plain product of the type, without the strong zero: what the reverse
    /// sweep multiplies an adjoint by a partial with where neither can be infinite or NaN while
    /// the function's values are finite (`__private::scale`). `Dual` overrides it (where a
    /// tangent overflows while its value does not, this can give NaN where the strong product
    /// gives zero, as the float product does where a partial overflows).
    #[doc(hidden)]
    #[inline(always)]
    fn plain_product(self, s: S) -> Self
    where
        Self: Sized + core::ops::Mul<S, Output = Self>,
    {
        self * s
    }
}

/// A float type generic companions can be instantiated with: `f32`, `f64`, `Dual<T>` (nested to any
/// depth) and any user float with the value traits. The bound the macro adds to generic companions
/// and the one users write when calling them from generic code (see the module docs).
///
/// ```
/// use autodiff_runtime::{value, Dual, Scalar};
///
/// fn double_into<T: Scalar>(acc: &mut [T], g: &[T]) {
///     value::add_scaled(acc, g, T::one() + T::one());
/// }
/// let mut acc = [1.0_f64, 1.0];
/// double_into(&mut acc, &[1.0, 2.0]);
/// assert_eq!(acc, [3.0, 5.0]);
/// let mut acc = [Dual::new(0.0_f32, 1.0)];
/// double_into(&mut acc, &[Dual::new(1.0, 1.0)]);
/// assert_eq!((acc[0].re, acc[0].eps), (2.0, 3.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float type generated derivatives can use",
    label = "`{Self}` is not an `autodiff_runtime::Scalar`",
    note = "in generic code, bound the float type parameter by `autodiff_runtime::Scalar` instead of (or next to) `num_traits::Float`"
)]
pub trait Scalar:
    Float + Differentiable<Tangent = Self> + Tangent + Scale<Self> + crate::jacobian::Flat<Self>
{
}

impl<T> Scalar for T where
    T: Float + Differentiable<Tangent = T> + Tangent + Scale<T> + crate::jacobian::Flat<T>
{
}

// ---------------------------------------------------------------------------------------------
// The functions emitters call

/// A zero tangent (or adjoint) shaped like `v`.
#[inline(always)]
#[must_use]
pub fn zero_tangent<T: Differentiable + ?Sized>(v: &T) -> T::Tangent {
    v.zero_tangent()
}

/// `*acc += *g`: adds a tangent or adjoint into another, in place.
///
/// Pass a `&mut [f64]` adjoint buffer as it is (`accumulate(dv, &g)`, with `g` a `Vec`, array
/// or slice of the same length), not a reference to it.
///
/// # Panics
///
/// On a length mismatch of any `Vec` or slice in the two.
#[inline(always)]
#[track_caller]
pub fn accumulate<T: Tangent + ?Sized>(acc: &mut T, g: &T) {
    acc.accumulate(g)
}

/// Sets a tangent or adjoint to zero in place, keeping its shape.
#[inline(always)]
pub fn set_zero<T: Tangent + ?Sized>(acc: &mut T) {
    acc.set_zero()
}

/// `*g = s * *g`, in place (strong zero).
#[inline(always)]
pub fn scale<S, T: Scale<S> + ?Sized>(g: &mut T, s: S) {
    g.scale(s)
}

/// `s * g`, by value (strong zero).
#[inline(always)]
#[must_use]
pub fn scaled<S, T: Scale<S>>(mut g: T, s: S) -> T {
    g.scale(s);
    g
}

/// `*acc += s * *g`, in place, without a temporary (strong zero).
///
/// # Panics
///
/// On a length mismatch of any `Vec` or slice in the two.
#[inline(always)]
#[track_caller]
pub fn add_scaled<S, T: Scale<S> + ?Sized>(acc: &mut T, g: &T, s: S) {
    acc.add_scaled(g, s)
}

// ---------------------------------------------------------------------------------------------
// Floats: their own tangents

macro_rules! float_impls {
    ($($t:ty),*) => {
        $(
            impl Differentiable for $t {
                type Tangent = $t;
                #[inline(always)]
                fn zero_tangent(&self) -> $t {
                    0.0
                }
                #[inline]
                fn zero_tangents(items: &[$t]) -> Vec<$t> {
                    vec![0.0; items.len()]
                }
            }

            impl Tangent for $t {
                #[inline(always)]
                fn accumulate(&mut self, other: &$t) {
                    *self += *other;
                }
                #[inline(always)]
                fn set_zero(&mut self) {
                    *self = 0.0;
                }
                #[inline(always)]
                fn is_exact_zero(&self) -> bool {
                    *self == 0.0
                }
            }

            impl Scale<$t> for $t {
                #[inline(always)]
                fn scale(&mut self, s: $t) {
                    *self = term(*self, s);
                }
                #[inline(always)]
                fn add_scaled(&mut self, other: &$t, s: $t) {
                    *self += term(*other, s);
                }
            }
        )*
    };
}

float_impls!(f32, f64);

/// A dual number is a float in nested use (`T = Dual<f64>` in a generic function): its tangent
/// is a `Dual` too, added and scaled with `Dual` arithmetic.
impl<T: Float + Tangent> Differentiable for Dual<T> {
    type Tangent = Dual<T>;
    #[inline(always)]
    fn zero_tangent(&self) -> Dual<T> {
        Dual::new(T::zero(), T::zero())
    }
}

/// (`T: Tangent` so that [`Tangent::is_exact_zero`] can ask the components: a `Dual`'s `==`
/// compares values only.)
impl<T: Float + Tangent> Tangent for Dual<T> {
    #[inline(always)]
    fn accumulate(&mut self, other: &Dual<T>) {
        *self += *other;
    }
    #[inline(always)]
    fn set_zero(&mut self) {
        *self = Dual::new(T::zero(), T::zero());
    }
    #[inline(always)]
    fn is_exact_zero(&self) -> bool {
        self.re.is_exact_zero() && self.eps.is_exact_zero()
    }
}

impl<T: Float + Tangent> Scale<Dual<T>> for Dual<T> {
    #[inline(always)]
    fn scale(&mut self, s: Dual<T>) {
        *self = term(*self, s);
    }
    #[inline(always)]
    fn add_scaled(&mut self, other: &Dual<T>, s: Dual<T>) {
        *self += term(*other, s);
    }
    /// The tangent of a plain product (`Dual`'s `*` without the strong zero's tests).
    #[inline(always)]
    fn plain_product(self, s: Dual<T>) -> Dual<T> {
        Dual::new(self.re * s.re, self.eps * s.re + s.eps * self.re)
    }
}

// ---------------------------------------------------------------------------------------------
// Leaves without a derivative: tangent `()`

impl Tangent for () {
    #[inline(always)]
    fn accumulate(&mut self, _other: &()) {}
    #[inline(always)]
    fn set_zero(&mut self) {}
    #[inline(always)]
    fn is_exact_zero(&self) -> bool {
        true
    }
}

impl<S> Scale<S> for () {
    #[inline(always)]
    fn scale(&mut self, _s: S) {}
    #[inline(always)]
    fn add_scaled(&mut self, _other: &(), _s: S) {}
}

macro_rules! inactive_impls {
    ($($t:ty),*) => {
        $(
            impl Differentiable for $t {
                type Tangent = ();
                #[inline(always)]
                fn zero_tangent(&self) {}
            }
        )*
    };
}

inactive_impls!(
    (),
    bool,
    char,
    str,
    String,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize
);

// ---------------------------------------------------------------------------------------------
// Sequences

/// Panics unless two sequences added elementwise have one length.
#[inline(always)]
#[track_caller]
fn check_len(acc: usize, other: usize) {
    if acc != other {
        length_mismatch(acc, other);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn length_mismatch(acc: usize, other: usize) -> ! {
    panic!(
        "autodiff: cannot add a tangent of length {other} into one of length {acc} \
         (tangents and adjoints must be shaped like their values; make them with `zero_tangent`)"
    )
}

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    type Tangent = [T::Tangent; N];
    #[inline(always)]
    fn zero_tangent(&self) -> [T::Tangent; N] {
        core::array::from_fn(|i| self[i].zero_tangent())
    }
}

impl<T: Tangent, const N: usize> Tangent for [T; N] {
    #[inline(always)]
    fn accumulate(&mut self, other: &[T; N]) {
        for (a, b) in self.iter_mut().zip(other) {
            a.accumulate(b);
        }
    }
    #[inline(always)]
    fn set_zero(&mut self) {
        self.as_mut_slice().set_zero();
    }
    #[inline(always)]
    fn is_exact_zero(&self) -> bool {
        self[..].is_exact_zero()
    }
}

impl<S: Copy, T: Scale<S>, const N: usize> Scale<S> for [T; N] {
    #[inline(always)]
    fn scale(&mut self, s: S) {
        self.as_mut_slice().scale(s);
    }
    #[inline(always)]
    fn add_scaled(&mut self, other: &[T; N], s: S) {
        for (a, b) in self.iter_mut().zip(other) {
            a.add_scaled(b, s);
        }
    }
}

/// A slice's tangent is owned: a `Vec` of its elements' tangents.
impl<T: Differentiable> Differentiable for [T] {
    type Tangent = Vec<T::Tangent>;
    #[inline]
    fn zero_tangent(&self) -> Vec<T::Tangent> {
        T::zero_tangents(self)
    }
}

impl<T: Tangent> Tangent for [T] {
    #[inline]
    #[track_caller]
    fn accumulate(&mut self, other: &[T]) {
        check_len(self.len(), other.len());
        for (a, b) in self.iter_mut().zip(other) {
            a.accumulate(b);
        }
    }
    #[inline]
    fn set_zero(&mut self) {
        for a in self {
            a.set_zero();
        }
    }
    #[inline]
    fn is_exact_zero(&self) -> bool {
        self.iter().all(T::is_exact_zero)
    }
}

impl<S: Copy, T: Scale<S>> Scale<S> for [T] {
    #[inline]
    fn scale(&mut self, s: S) {
        for a in self {
            a.scale(s);
        }
    }
    #[inline]
    #[track_caller]
    fn add_scaled(&mut self, other: &[T], s: S) {
        check_len(self.len(), other.len());
        for (a, b) in self.iter_mut().zip(other) {
            a.add_scaled(b, s);
        }
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    type Tangent = Vec<T::Tangent>;
    #[inline]
    fn zero_tangent(&self) -> Vec<T::Tangent> {
        self.as_slice().zero_tangent()
    }
}

impl<T: Tangent> Tangent for Vec<T> {
    #[inline]
    #[track_caller]
    fn accumulate(&mut self, other: &Vec<T>) {
        self.as_mut_slice().accumulate(other.as_slice());
    }
    #[inline]
    fn set_zero(&mut self) {
        self.as_mut_slice().set_zero();
    }
    #[inline]
    fn is_exact_zero(&self) -> bool {
        self.as_slice().is_exact_zero()
    }
}

impl<S: Copy, T: Scale<S>> Scale<S> for Vec<T> {
    #[inline]
    fn scale(&mut self, s: S) {
        self.as_mut_slice().scale(s);
    }
    #[inline]
    #[track_caller]
    fn add_scaled(&mut self, other: &Vec<T>, s: S) {
        self.as_mut_slice().add_scaled(other.as_slice(), s);
    }
}

// ---------------------------------------------------------------------------------------------
// References: delegate

impl<T: Differentiable + ?Sized> Differentiable for &T {
    type Tangent = T::Tangent;
    #[inline(always)]
    fn zero_tangent(&self) -> T::Tangent {
        (**self).zero_tangent()
    }
}

impl<T: Differentiable + ?Sized> Differentiable for &mut T {
    type Tangent = T::Tangent;
    #[inline(always)]
    fn zero_tangent(&self) -> T::Tangent {
        (**self).zero_tangent()
    }
}

/// An adjoint buffer held by `&mut` (for example in a tuple of buffers) accumulates into what it
/// points to.
impl<T: Tangent + ?Sized> Tangent for &mut T {
    #[inline(always)]
    #[track_caller]
    fn accumulate(&mut self, other: &Self) {
        (**self).accumulate(&**other);
    }
    #[inline(always)]
    fn set_zero(&mut self) {
        (**self).set_zero();
    }
    #[inline(always)]
    fn is_exact_zero(&self) -> bool {
        (**self).is_exact_zero()
    }
}

impl<S, T: Scale<S> + ?Sized> Scale<S> for &mut T {
    #[inline(always)]
    fn scale(&mut self, s: S) {
        (**self).scale(s);
    }
    #[inline(always)]
    #[track_caller]
    fn add_scaled(&mut self, other: &Self, s: S) {
        (**self).add_scaled(&**other, s);
    }
}

// ---------------------------------------------------------------------------------------------
// Tuples: component-wise, arity 1 to 4 (arity 0 is `()` above)

macro_rules! tuple_impls {
    ($(($($T:ident $i:tt),+))+) => {
        $(
            impl<$($T: Differentiable),+> Differentiable for ($($T,)+) {
                type Tangent = ($($T::Tangent,)+);
                #[inline(always)]
                fn zero_tangent(&self) -> Self::Tangent {
                    ($(self.$i.zero_tangent(),)+)
                }
            }

            impl<$($T: Tangent),+> Tangent for ($($T,)+) {
                #[inline(always)]
                #[track_caller]
                fn accumulate(&mut self, other: &Self) {
                    $(self.$i.accumulate(&other.$i);)+
                }
                #[inline(always)]
                fn set_zero(&mut self) {
                    $(self.$i.set_zero();)+
                }
                #[inline(always)]
                fn is_exact_zero(&self) -> bool {
                    true $(&& self.$i.is_exact_zero())+
                }
            }

            impl<S: Copy, $($T: Scale<S>),+> Scale<S> for ($($T,)+) {
                #[inline(always)]
                fn scale(&mut self, s: S) {
                    $(self.$i.scale(s);)+
                }
                #[inline(always)]
                #[track_caller]
                fn add_scaled(&mut self, other: &Self, s: S) {
                    $(self.$i.add_scaled(&other.$i, s);)+
                }
            }
        )+
    };
}

tuple_impls! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

// nalgebra matrices and vectors: `value/na.rs`.
mod na;
