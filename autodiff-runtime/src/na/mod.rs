//! nalgebra operations on flat storage: the rules `#[differentiate]` lowers nalgebra values and
//! operations to (issue 11, item 3). Takes each matrix or vector as its **column-major** storage
//! (`m.as_slice()`: element `(i, j)` of an `r x c` matrix at `i + j * r`) plus its dimensions as
//! `usize`, gives the operation's value (a `Vec<T>` in the same layout, or a scalar) and the
//! hand-written `_jvp`/`_vjp`/`_vjp_dropped` companions in the generated convention:
//!
//! - `f(args..) -> Out`;
//! - `f_jvp(args.., d<arg>..) -> (Out, dOut)`: after all primal arguments, one tangent per float
//!   argument (`&[T]` for a slice, `T` for a scalar; the `usize` dimensions get none);
//! - `f_pushforward(args.., d<arg>..) -> (Out, dOut)`: `f_jvp` for generated code, each tangent
//!   an `Option` (`Option<&[T]>` for a slice, `Option<T>` for a scalar): `None`, a tangent known
//!   to be zero (a data matrix, a constant), skips its term, which for [`mat_mul_pushforward`] is
//!   a whole product. `f_jvp` is `f_pushforward` with every tangent `Some`; with a `None`, the
//!   tangent is bit for bit what `f_jvp` gives with `+0`s in that place, `-0`s included (the
//!   skipped term is taken after all where the others come to a zero, whose sign it may
//!   change). The one difference: [`mat_mul_jvp`]'s plain product of zeros with an operand
//!   holding an `inf` or a NaN is NaN there, a term [`mat_mul_pushforward`] does not have;
//! - `f_vjp(args.., d<arg>.., seed) -> Out`: **adds** `seedᵀ J` into the adjoint buffers
//!   (`&mut [T]` for a slice, `&mut T` for a scalar) and returns the value. A `Vec` output takes a
//!   `&[T]` seed, which may be shorter than the output: the missing entries are zero (`&[]` adds
//!   nothing); a scalar output takes a `T` seed;
//! - `f_pullback(args.., d<arg>.., seed)`: the adjoints of `f_vjp` without the value, for
//!   generated code, which has the value already. Each adjoint buffer is an `Option`
//!   (`Option<&mut [T]>` for a slice, `Option<&mut T>` for a scalar): `Some` gets exactly what
//!   `f_vjp` adds, bit for bit (`f_vjp` is the pullback followed by `f`), and `None`, an adjoint
//!   nobody wants (a data matrix, a constant), skips its work. The value is computed only where a
//!   partial needs it (`a / b` in [`component_div_pullback`], `‖a‖` in [`norm_pullback`]), never
//!   for [`mat_mul_pullback`], which is at most the two products below;
//! - `f_vjp_dropped(args.., d<arg>..)`: the same adjoints with a zero seed, for a call whose value
//!   generated code drops: it checks the shapes and adds nothing.
//!
//! ```
//! use autodiff_runtime::na;
//! use nalgebra::{DMatrix, DVector};
//!
//! let a = DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
//! let b = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
//! let c = na::mat_mul(a.as_slice(), b.as_slice(), 2, 3, 2);
//! assert_eq!(c, (&a * &b).as_slice());
//!
//! // ‖v‖² and its gradient 2 v, added into `dv`.
//! let v = DVector::from_vec(vec![3.0, 4.0]);
//! let mut dv = vec![0.0; 2];
//! let n2 = na::norm_squared_vjp(v.as_slice(), &mut dv, 1.0);
//! assert_eq!((n2, dv), (v.norm_squared(), vec![6.0, 8.0]));
//! ```
//!
//! # Shapes
//!
//! Every function checks the lengths of its slices against the dimensions it is given (or against
//! each other, for element-wise operations) and panics with a message naming the operation and
//! the shapes (`na::mat_mul: b has 5 elements, expected a 3 x 2 matrix`). A seed longer than the
//! output panics too.
//!
//! # Values: the same as nalgebra's
//!
//! The macro leaves the primal function (the user's nalgebra code) as written; the values of the
//! companions come from here. So that the two agree, the values are computed as nalgebra 0.33
//! computes them:
//!
//! - element-wise operations, [`transpose`], [`column`], [`row`], [`sum`] (a left-to-right fold in
//!   storage order from zero) and [`mean`] (that sum over the length converted through `f64`, and
//!   **`0` for an empty matrix**, as nalgebra's `mean` returns, not NaN): bit for bit;
//! - [`dot`], [`norm_squared`] and [`norm`] (`sqrt` of `norm_squared`, as nalgebra's `norm` is:
//!   no rescaling, so it overflows for `|x| > ~1e154` in `f64` exactly when nalgebra's does): bit
//!   for bit on **column vectors**, by nalgebra's own summation order, which is not a plain loop:
//!   per column, eight partial sums over blocks of eight rows, added pairwise into the running sum,
//!   then the remaining rows one by one. That order depends on the number of rows, so on a matrix
//!   or a row vector the slice alone does not say it: [`dot_mat`], [`norm_squared_mat`] and
//!   [`norm_mat`] take the dimensions and match nalgebra on every shape. Two exceptions remain,
//!   because nalgebra picks them by the static type, which a slice does not carry: a column of
//!   statically **4** rows (`Vector4`, the columns of `Matrix4` in `norm_squared`) is summed as
//!   `(x0 y0 + x2 y2) + (x1 y1 + x3 y3)`, so it may differ from here in the last bit; and a column
//!   of statically 2 or 3 rows starts from its first product instead of `0 +`, which changes only
//!   the sign of an all-`-0` result;
//! - [`mat_mul`] runs on [`crate::kernels::matmul`], which blocks and vectorises the sums
//!   differently from nalgebra's product (matrixmultiply for dynamic matrices with every
//!   dimension above 5, its own loop over the columns otherwise): equal to rounding, not bit for
//!   bit (each entry within the usual `k ε Σ |a_il b_lj|` of the other).
//!
//! # Derivatives
//!
//! - `‖x‖` at `x = 0` has derivative `0`, by convention, as `relu'(0) = 0` (the one-sided
//!   derivatives differ in every direction). The derivative `x / ‖x‖` is taken with the computed
//!   norm: where `norm_squared` underflows to `0` it is `0`; where it overflows to `inf` it is `0`
//!   for every finite element.
//! - A zero tangent or seed entry contributes exactly zero even against an infinite partial
//!   (`component_div` by `0`, [`scale`] by `inf`): the crate's strong zero (see [`crate::Dual`]).
//!   [`mat_mul`]'s companions run on the kernels with plain products, as [`crate::nn`] does.
//! - [`mat_mul_vjp`] is two products, `Ā += C̄ Bᵀ` and `B̄ += Aᵀ C̄`, on the kernels; an empty seed
//!   skips them, and so does a `None` adjoint in [`mat_mul_pullback`] (its own product).

use std::borrow::Cow;

use crate::dual::{term, term2};
use crate::kernels::{self, MatMut, MatRef, Real};

mod elementwise;
mod linalg;
mod product;
mod rearrange;
mod reduce;

pub use elementwise::*;
pub use linalg::*;
pub use product::*;
pub use rearrange::*;
pub use reduce::*;

// ---------------------------------------------------------------------------------------------
// Shape checks (the messages built in cold, non-generic functions)

/// `rows * cols`, checked for overflow.
#[inline]
#[track_caller]
fn elements(op: &str, rows: usize, cols: usize) -> usize {
    match rows.checked_mul(cols) {
        Some(n) => n,
        None => too_large(op, rows, cols),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_large(op: &str, rows: usize, cols: usize) -> ! {
    panic!("na::{op}: a {rows} x {cols} matrix has more elements than a usize counts")
}

/// Panics unless `name` holds exactly a `rows x cols` matrix.
#[inline]
#[track_caller]
fn check_mat(op: &str, name: &str, len: usize, rows: usize, cols: usize) {
    if elements(op, rows, cols) != len {
        not_a_matrix(op, name, len, rows, cols);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn not_a_matrix(op: &str, name: &str, len: usize, rows: usize, cols: usize) -> ! {
    panic!("na::{op}: {name} has {len} elements, expected a {rows} x {cols} matrix")
}

/// Panics unless `a` and `b` (an operand and another operand or its tangent) have one length.
#[inline]
#[track_caller]
fn check_same(op: &str, a: &str, la: usize, b: &str, lb: usize) {
    if la != lb {
        shapes_differ(op, a, la, b, lb);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn shapes_differ(op: &str, a: &str, la: usize, b: &str, lb: usize) -> ! {
    panic!("na::{op}: shapes differ: {a} has {la} elements, {b} has {lb}")
}

/// Panics if a seed is longer than the output it is the adjoint of (shorter is zero-padded).
#[inline]
#[track_caller]
fn check_seed(op: &str, seed: usize, out: usize) {
    if seed > out {
        seed_too_long(op, seed, out);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn seed_too_long(op: &str, seed: usize, out: usize) -> ! {
    panic!("na::{op}: the seed has {seed} elements, the output only {out}")
}

/// Panics unless `(i, j)`-style index `idx` lies below `bound` (a row or column of a matrix).
#[inline]
#[track_caller]
fn check_index(op: &str, what: &str, idx: usize, bound: usize, rows: usize, cols: usize) {
    if idx >= bound {
        out_of_bounds(op, what, idx, rows, cols);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(op: &str, what: &str, idx: usize, rows: usize, cols: usize) -> ! {
    panic!("na::{op}: {what} {idx} is out of bounds of a {rows} x {cols} matrix")
}

/// The shape checks of an element-wise binary operation's operands and tangents or adjoints.
#[inline(always)]
#[track_caller]
fn check_binary<T>(op: &str, a: &[T], b: &[T], da: &[T], db: &[T]) {
    check_same(op, "a", a.len(), "b", b.len());
    check_same(op, "a", a.len(), "da", da.len());
    check_same(op, "b", b.len(), "db", db.len());
}

/// The shape checks of an element-wise binary operation's tangents or adjoints, of those present.
#[inline(always)]
#[track_caller]
fn check_binary_adjoints<T>(op: &str, a: &[T], b: &[T], da: Option<&[T]>, db: Option<&[T]>) {
    check_same(op, "a", a.len(), "b", b.len());
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
    }
    if let Some(db) = db {
        check_same(op, "b", b.len(), "db", db.len());
    }
}

// ---------------------------------------------------------------------------------------------
// What generated code calls besides the rules: shape checks and a coercion

/// A tangent as the slice a `_pushforward` takes (`&Vec<T>`, `&&[T]`, `&[T; N]` alike): what
/// generated code wraps in `Some(..)`, where no coercion would happen by itself.
#[inline(always)]
pub fn tangent_slice<T, S: AsRef<[T]> + ?Sized>(s: &S) -> &[T] {
    s.as_ref()
}

/// The check generated code makes before an element-wise operation or a dot product of two
/// nalgebra values (nalgebra's own operators panic when the shapes differ; the rules on storage
/// could only compare lengths): panics when `rows x cols` and `rows2 x cols2` differ.
#[inline]
#[track_caller]
pub fn same_shape(rows: usize, cols: usize, rows2: usize, cols2: usize) {
    if (rows, cols) != (rows2, cols2) {
        shapes_mismatch(rows, cols, rows2, cols2);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn shapes_mismatch(rows: usize, cols: usize, rows2: usize, cols2: usize) -> ! {
    panic!("nalgebra operands of different shapes: {rows} x {cols} and {rows2} x {cols2}")
}

/// The check generated code makes before assigning a new value to a nalgebra variable (the
/// variable keeps the dimensions it was declared with): panics, as nalgebra's operators do on
/// mismatched shapes, when `rows x cols` and `new_rows x new_cols` differ.
#[inline]
#[track_caller]
pub fn same_dims(rows: usize, cols: usize, new_rows: usize, new_cols: usize) {
    if (rows, cols) != (new_rows, new_cols) {
        dims_changed(rows, cols, new_rows, new_cols);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn dims_changed(rows: usize, cols: usize, new_rows: usize, new_cols: usize) -> ! {
    panic!(
        "a {rows} x {cols} nalgebra variable assigned a {new_rows} x {new_cols} value in a \
         #[differentiate] function (a variable keeps its dimensions there: bind the new value \
         to a new name)"
    )
}
