//! The only path generated code names: takes values of the user's float types, gives the helpers
//! emitters call (zeros shaped like a value, re-exports of the rule table and `Dual`).
//! Not a public API: it may change in any release together with the macro.

pub use crate::checkpoint;
pub use crate::dual::Dual;
pub use crate::dualn::DualN;
pub use crate::fast::{strong_path, strong_run, whole_ok, Fast, TangentNan};
pub use crate::kernels::Real;
pub use crate::lanes::{zero_lanes, LaneScalar};
pub use crate::na;
pub use crate::ragged;
pub use crate::rules;
pub use crate::second_order::{constant, constant_array, lift, lift_const, real_f64, unlift};
pub use crate::stop::stop_gradient;
pub use crate::value::{
    self, accumulate, add_scaled, scaled, set_zero, zero_tangent, Differentiable, Scalar, Scale,
    Tangent,
};
pub use num_traits::{Float, FromPrimitive};

/// Zero of a float type, inferred from use.
#[inline(always)]
pub fn zero<T: Float>() -> T {
    T::zero()
}

/// A zero shaped like the tangent `g` (a struct's tangent, whose type has no tangent of its
/// own): the adjoint of a struct held whole restarts from it when its value is overwritten.
#[inline(always)]
pub fn zero_like_tangent<T: Tangent + Clone>(g: &T) -> T {
    let mut z = g.clone();
    z.set_zero();
    z
}

/// The seed of a struct output held whole (`let a = step(s, dt); a`): the caller's (`_vjp`) or,
/// where the caller drops the value (`_vjp_dropped`: no seed), a zero shaped like the value.
#[inline(always)]
pub fn struct_seed<S: Differentiable>(seed: Option<S::Tangent>, value: &S) -> S::Tangent {
    match seed {
        Some(s) => s,
        None => zero_tangent(value),
    }
}

/// Zero of the same type as `_x`.
#[inline(always)]
pub fn zero_like<T: Float>(_x: &T) -> T {
    T::zero()
}

/// Zero of the type of a float field of `S`'s tangent, named by a projection
/// (`zero_field::<State, _>(|t| &t.x)`, `|t| &t.pos[0]` for an array's element): the zero seed of
/// a struct output's field where nothing else says its type.
#[inline(always)]
pub fn zero_field<S: Differentiable + ?Sized, T: Float>(
    _field: impl FnOnce(&S::Tangent) -> &T,
) -> T {
    T::zero()
}

/// A copy of an array (also reached through references by deref coercion).
#[inline(always)]
pub fn copy_array<T: Copy, const N: usize>(a: &[T; N]) -> [T; N] {
    *a
}

/// Zero of the element type of `_v` (a sum over `_v` whose type is written nowhere).
#[inline(always)]
pub fn zero_elem<T: Float>(_v: &[T]) -> T {
    T::zero()
}

/// One of the element type of `_v` (a product over `_v` whose type is written nowhere).
#[inline(always)]
pub fn one_elem<T: Float>(_v: &[T]) -> T {
    T::one()
}

/// One of a float type, inferred from use (the seed of `_grad`).
#[inline(always)]
pub fn one<T: Float>() -> T {
    T::one()
}

/// Pops a value saved by the forward sweep.
#[inline(always)]
pub fn pop<T>(tape: &mut Vec<T>) -> T {
    match tape.pop() {
        Some(v) => v,
        None => panic!("#[differentiate]: reverse sweep read past its saved values (a bug in the macro, please report it)"),
    }
}

/// Takes a value saved by the forward sweep in a slot (a save site inside branches but outside
/// every loop, set at most once per call).
#[inline(always)]
pub fn unslot<T>(slot: Option<T>) -> T {
    match slot {
        Some(v) => v,
        None => panic!("#[differentiate]: reverse sweep read a value that was never saved (a bug in the macro, please report it)"),
    }
}

/// The adjoint of a `Vec` output: the seed, padded with zeros to the output's length `n`.
#[inline]
pub fn seed_vec<T: Float>(seed: &[T], n: usize) -> Vec<T> {
    let mut v = seed.to_vec();
    if v.len() < n {
        v.resize(n, T::zero());
    }
    v
}

/// The length check of `copy_from_slice` (the macro turns the call into an index loop).
#[inline]
#[track_caller]
pub fn check_same_len(dst: usize, src: usize) {
    assert_eq!(
        dst, src,
        "source slice length ({src}) does not match destination slice length ({dst})"
    );
}

/// `acc[i] += g[i]` for every element.
#[inline]
pub fn acc_slice<T: Float>(acc: &mut [T], g: &[T]) {
    for (a, &b) in acc.iter_mut().zip(g) {
        *a = *a + b;
    }
}

/// Sum of the elements (adjoint of a broadcast such as `vec![x; n]`).
#[inline]
pub fn sum<T: Float>(g: &[T]) -> T {
    g.iter().fold(T::zero(), |a, &b| a + b)
}

/// The adjoint `g` of a cast converted back to the type of the cast's operand.
#[inline(always)]
pub fn cast_like<S: Float, D: Float>(g: D, _like: &S) -> S {
    match S::from(g) {
        Some(v) => v,
        None => S::nan(),
    }
}

/// `a + g`, with both operands of one float type (keeps type inference simple in generated code).
#[inline(always)]
pub fn acc<T: Float>(a: T, g: T) -> T {
    a + g
}

/// `g * p`: an adjoint times a partial derivative, in functions where neither can be infinite or
/// NaN while the function's values are finite (no `#[singular]` primitive, no call).
#[inline(always)]
pub fn scale<T: Scalar>(g: T, p: T) -> T {
    g.plain_product(p)
}

/// `g * p` with the *strong zero* of forward mode: zero when either factor is zero, even if the
/// other is infinite or NaN (so an identically zero intermediate under `sqrt` contributes
/// nothing instead of NaN). Used by functions where some factor can be infinite or NaN.
#[inline(always)]
pub fn scale_strong<T: Float>(g: T, p: T) -> T {
    crate::dual::term(g, p)
}

/// Whether a callee's `_vjp` may be skipped for this seed: every scalar of it exactly zero, as
/// far as its type can tell ([`crate::value::Tangent`]). A zero seed contributes nothing to
/// any adjoint (the strong zero), though the callee's own plain products would turn it into
/// NaN at a pole the caller cut off (`f(x).max(c)` with `f(x) = x.ln()`, at `x == 0`).
#[inline(always)]
pub fn zero_seed<T: crate::value::Tangent + ?Sized>(g: &T) -> bool {
    g.is_exact_zero()
}

// ------------------------------------------------------------------- nested arrays
//
// A nested array (`[[T; C]; R]`, `&[[T; C]]`, `Vec<[T; C]>`) is flattened row-major inside the
// generated companions: the public companions convert at the boundary, and a row passed to a
// function taking `&[T; C]` is borrowed back as an array.

/// Row `s` (of length `N`) as an array: `&p[i * N..i * N + N]` given to a function taking
/// `&[T; N]` (or, coerced, `&[T]`).
#[inline(always)]
pub fn row<T, const N: usize>(s: &[T]) -> &[T; N] {
    match s.try_into() {
        Ok(r) => r,
        Err(_) => panic!("#[differentiate]: a row of {} items where {} were expected (a bug in the macro, please report it)", s.len(), N),
    }
}

/// [`row`], writable.
#[inline(always)]
pub fn row_mut<T, const N: usize>(s: &mut [T]) -> &mut [T; N] {
    let n = s.len();
    match s.try_into() {
        Ok(r) => r,
        Err(_) => panic!("#[differentiate]: a row of {n} items where {N} were expected (a bug in the macro, please report it)"),
    }
}

/// `[[T; C]; R]` as `[T; RC]`, row-major (`RC == R * C`, checked).
#[inline(always)]
pub fn flatten<T: Copy, const C: usize, const R: usize, const RC: usize>(
    a: [[T; C]; R],
) -> [T; RC] {
    assert_eq!(
        R * C,
        RC,
        "#[differentiate]: flattened length (a bug in the macro, please report it)"
    );
    core::array::from_fn(|k| a[k / C][k % C])
}

/// `[T; RC]` as `[[T; C]; R]`, row-major (`RC == R * C`, checked).
#[inline(always)]
pub fn unflatten<T: Copy, const C: usize, const R: usize, const RC: usize>(
    a: [T; RC],
) -> [[T; C]; R] {
    assert_eq!(
        R * C,
        RC,
        "#[differentiate]: flattened length (a bug in the macro, please report it)"
    );
    core::array::from_fn(|i| core::array::from_fn(|j| a[i * C + j]))
}

/// A flat `Vec` as rows of `C` (its length a multiple of `C`, checked).
#[inline]
pub fn unflatten_vec<T: Copy, const C: usize>(v: Vec<T>) -> Vec<[T; C]> {
    let (rows, rest) = v.as_chunks::<C>();
    assert!(rest.is_empty(), "#[differentiate]: a flat Vec of {} items is not rows of {C} (a bug in the macro, please report it)", v.len());
    rows.to_vec()
}

/// A flat slice as rows of `C` (a nested array named in a pass-through macro, `assert!`).
#[inline(always)]
pub fn rows<T, const C: usize>(s: &[T]) -> &[[T; C]] {
    s.as_chunks::<C>().0
}

/// [`rows`], writable.
#[inline(always)]
pub fn rows_mut<T, const C: usize>(s: &mut [T]) -> &mut [[T; C]] {
    s.as_chunks_mut::<C>().0
}

// ---------------------------------------------------------------------------------------------
// Struct arguments: the macro reads what each field of a struct argument is from how the body
// uses it, and the generated code checks that reading here, at the field's tokens.

/// A field `#[differentiate]` read as a float.
#[diagnostic::on_unimplemented(
    message = "`#[differentiate]` read this field as a float, but it is `{Self}`",
    label = "read as a float because of how the function uses it",
    note = "an integer field is recognised where it is used as an index, a range bound, next to an integer, or cast with `as`; otherwise bind it with its type first: `let n: usize = s.n;`"
)]
pub trait FloatField {}
impl<T: Float> FloatField for T {}

/// A field `#[differentiate]` read as a sequence of floats.
#[diagnostic::on_unimplemented(
    message = "`#[differentiate]` read this field as a sequence of floats (an array, `Vec` or slice of f32/f64), but it is `{Self}`",
    label = "read as a sequence of floats because it is indexed or iterated",
    note = "fields holding arrays of arrays, `Vec`s of structs or other containers cannot be indexed in a differentiated function yet"
)]
pub trait FloatSeqField {}
impl<T: Float> FloatSeqField for [T] {}
impl<T: Float> FloatSeqField for Vec<T> {}
impl<T: Float, const N: usize> FloatSeqField for [T; N] {}

/// A field `#[differentiate]` read as an integer: no derivative flows through it.
#[diagnostic::on_unimplemented(
    message = "`#[differentiate]` read this field as an integer, but it is `{Self}`, which carries a derivative",
    label = "read as an integer because of how the function uses it (an index, a range bound, an `as` cast...)",
    note = "use the float field in float arithmetic (`s.m * x`), or bind it with its type first: `let m: f64 = s.m;`"
)]
pub trait ConstantField {}
macro_rules! constant_fields {
    ($($t:ty),*) => { $(impl ConstantField for $t {})* };
}
constant_fields!(bool, char, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// Checks (at compile time, costs nothing) that a field read as a float is one.
#[inline(always)]
pub fn float_field<T: FloatField>(_: &T) {}

/// Checks (at compile time, costs nothing) that a field read as a sequence of floats is one.
#[inline(always)]
pub fn float_seq_field<T: FloatSeqField + ?Sized>(_: &T) {}

/// Checks (at compile time, costs nothing) that a field the derive recorded as an array of arrays
/// (`[[T; C]; R]`, `Vec<[T; C]>`) is rows of `C` floats.
#[inline(always)]
pub fn float_rows_field<T: FloatField, const C: usize>(_: &[[T; C]]) {}

/// Checks (at compile time, costs nothing) that a field read as an integer carries no derivative.
#[inline(always)]
pub fn constant_field<T: ConstantField>(_: &T) {}

/// The value of a float field of a struct held whole in a local (`s2.x` of `let s2 = step(s,
/// dt);`), checked to be a float (the error, spanned at the field, says how to read another
/// type).
#[inline(always)]
pub fn float_read<T: FloatField + Copy>(x: &T) -> T {
    *x
}

/// The value of a field of a struct held whole that a `let` annotation took for an integer or
/// bool (`let n: usize = s2.n;`), checked to carry no derivative.
#[inline(always)]
pub fn constant_read<T: ConstantField + Copy>(x: &T) -> T {
    *x
}

/// The number of steps of a `#[checkpoint]` loop over `r`.
pub fn range_steps<I: Iterator>(r: I) -> usize {
    match r.size_hint() {
        (lo, Some(hi)) if lo == hi => lo,
        _ => r.count(),
    }
}

/// The index of step `j` of a `#[checkpoint]` loop over `r`.
pub fn range_nth<I: Iterator>(mut r: I, j: usize) -> I::Item {
    r.nth(j)
        .expect("a step of a checkpointed loop past the end of its range")
}
