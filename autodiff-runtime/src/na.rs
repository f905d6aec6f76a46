//! nalgebra operations on flat storage: the rules `#[differentiate]` lowers nalgebra values and
//! operations to (issue 11, item 3). Takes each matrix or vector as its **column-major** storage
//! (`m.as_slice()`: element `(i, j)` of an `r x c` matrix at `i + j * r`) plus its dimensions as
//! `usize`, gives the operation's value (a `Vec<T>` in the same layout, or a scalar) and the
//! hand-written `_jvp`/`_vjp`/`_vjp_dropped` companions in the generated convention:
//!
//! - `f(args..) -> Out`;
//! - `f_jvp(args.., d<arg>..) -> (Out, dOut)`: after all primal arguments, one tangent per float
//!   argument (`&[T]` for a slice, `T` for a scalar; the `usize` dimensions get none);
//! - `f_vjp(args.., d<arg>.., seed) -> Out`: **adds** `seedᵀ J` into the adjoint buffers
//!   (`&mut [T]` for a slice, `&mut T` for a scalar) and returns the value. A `Vec` output takes a
//!   `&[T]` seed, which may be shorter than the output: the missing entries are zero (`&[]` adds
//!   nothing); a scalar output takes a `T` seed;
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
//!   skips them.

use std::borrow::Cow;

use crate::dual::{term, term2};
use crate::kernels::{self, MatMut, MatRef, Real};

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

// ---------------------------------------------------------------------------------------------
// Matrix product

/// `c = A B + beta c`, all column-major, through the row-major kernels: a column-major `r x c`
/// matrix is the row-major `c x r` transpose, and `Cᵀ = Bᵀ Aᵀ`.
#[inline]
fn product<T: Real>(a: &[T], b: &[T], m: usize, k: usize, n: usize, beta: T, c: &mut [T]) {
    kernels::matmul(
        T::one(),
        MatRef::new(b, n, k),
        MatRef::new(a, k, m),
        beta,
        MatMut::new(c, n, m),
    );
}

/// The shape checks of the product's operands and their tangents or adjoints.
#[inline]
#[track_caller]
fn check_mat_mul(op: &str, a: usize, b: usize, m: usize, k: usize, n: usize) -> usize {
    check_mat(op, "a", a, m, k);
    check_mat(op, "b", b, k, n);
    elements(op, m, n)
}

/// `C = A B` with `A` `m x k`, `B` `k x n` and `C` `m x n`, all column-major (nalgebra's
/// `&a * &b`), on [`kernels::matmul`]: equal to nalgebra's product to rounding (see the module
/// docs). Any dimension may be zero (`k = 0` gives zeros).
#[inline]
pub fn mat_mul<T: Real>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
    let len = check_mat_mul("mat_mul", a.len(), b.len(), m, k, n);
    let mut c = vec![T::zero(); len];
    product(a, b, m, k, n, T::zero(), &mut c);
    c
}

/// Forward mode of [`mat_mul`]: `dC = dA B + A dB`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_jvp<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: &[T],
    db: &[T],
) -> (Vec<T>, Vec<T>) {
    let op = "mat_mul_jvp";
    let len = check_mat_mul(op, a.len(), b.len(), m, k, n);
    check_mat(op, "da", da.len(), m, k);
    check_mat(op, "db", db.len(), k, n);
    let mut c = vec![T::zero(); len];
    product(a, b, m, k, n, T::zero(), &mut c);
    let mut dc = vec![T::zero(); len];
    product(da, b, m, k, n, T::zero(), &mut dc);
    product(a, db, m, k, n, T::one(), &mut dc);
    (c, dc)
}

/// Reverse mode of [`mat_mul`]: with `C̄` the seed (zero-padded to `m x n`), `Ā += C̄ Bᵀ` and
/// `B̄ += Aᵀ C̄`, two products on the kernels (none for an empty seed). Returns `C`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_vjp<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
) -> Vec<T> {
    let op = "mat_mul_vjp";
    let len = check_mat_mul(op, a.len(), b.len(), m, k, n);
    check_mat(op, "da", da.len(), m, k);
    check_mat(op, "db", db.len(), k, n);
    check_seed(op, seed.len(), len);
    let mut c = vec![T::zero(); len];
    product(a, b, m, k, n, T::zero(), &mut c);
    if !seed.is_empty() {
        let cbar: Cow<'_, [T]> = if seed.len() == len {
            Cow::Borrowed(seed)
        } else {
            let mut padded = seed.to_vec();
            padded.resize(len, T::zero());
            Cow::Owned(padded)
        };
        let one = T::one();
        // Row-major, the transposes: Āᵀ (k x m) += B C̄ᵀ, with B = (Bᵀ)ᵀ and C̄ᵀ n x m.
        kernels::matmul(
            one,
            MatRef::new(b, n, k).t(),
            MatRef::new(&cbar, n, m),
            one,
            MatMut::new(da, k, m),
        );
        // B̄ᵀ (n x k) += C̄ᵀ A, with A = (Aᵀ)ᵀ.
        kernels::matmul(
            one,
            MatRef::new(&cbar, n, m),
            MatRef::new(a, k, m).t(),
            one,
            MatMut::new(db, n, k),
        );
    }
    c
}

/// [`mat_mul_vjp`] with a zero seed, for a dropped value: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_vjp_dropped<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: &mut [T],
    db: &mut [T],
) {
    let op = "mat_mul_vjp";
    check_mat_mul(op, a.len(), b.len(), m, k, n);
    check_mat(op, "da", da.len(), m, k);
    check_mat(op, "db", db.len(), k, n);
}

// ---------------------------------------------------------------------------------------------
// Element-wise binary operations: the value `f(x, y)` and the partials `d(x, y, f(x, y))`

#[inline(always)]
#[track_caller]
fn check_binary<T>(op: &str, a: &[T], b: &[T], da: &[T], db: &[T]) {
    check_same(op, "a", a.len(), "b", b.len());
    check_same(op, "a", a.len(), "da", da.len());
    check_same(op, "b", b.len(), "db", db.len());
}

#[inline(always)]
#[track_caller]
fn binary<T: Real>(op: &str, a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    check_same(op, "a", a.len(), "b", b.len());
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn binary_jvp<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: &[T],
    db: &[T],
    f: impl Fn(T, T) -> T,
    d: impl Fn(T, T, T) -> (T, T),
) -> (Vec<T>, Vec<T>) {
    check_binary(op, a, b, da, db);
    let mut y = Vec::with_capacity(a.len());
    let mut dy = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        let v = f(a[i], b[i]);
        let (pa, pb) = d(a[i], b[i], v);
        y.push(v);
        dy.push(term2(da[i], pa, db[i], pb));
    }
    (y, dy)
}

#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn binary_vjp<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
    f: impl Fn(T, T) -> T,
    d: impl Fn(T, T, T) -> (T, T),
) -> Vec<T> {
    check_binary(op, a, b, da, db);
    check_seed(op, seed.len(), a.len());
    let y = binary(op, a, b, f);
    for (i, &s) in seed.iter().enumerate() {
        let (pa, pb) = d(a[i], b[i], y[i]);
        da[i] = da[i] + term(s, pa);
        db[i] = db[i] + term(s, pb);
    }
    y
}

/// Element-wise `a + b` (nalgebra's `&a + &b`).
#[inline]
pub fn add<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("add", a, b, |x, y| x + y)
}

/// Forward mode of [`add`]: `da + db`.
#[inline]
pub fn add_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    binary_jvp(
        "add_jvp",
        a,
        b,
        da,
        db,
        |x, y| x + y,
        |_, _, _| (T::one(), T::one()),
    )
}

/// Reverse mode of [`add`]: `da += seed`, `db += seed`.
#[inline]
pub fn add_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: &[T]) -> Vec<T> {
    binary_vjp(
        "add_vjp",
        a,
        b,
        da,
        db,
        seed,
        |x, y| x + y,
        |_, _, _| (T::one(), T::one()),
    )
}

/// [`add_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn add_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("add_vjp", a, b, da, db);
}

/// Element-wise `a - b` (nalgebra's `&a - &b`).
#[inline]
pub fn sub<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("sub", a, b, |x, y| x - y)
}

/// Forward mode of [`sub`]: `da - db`.
#[inline]
pub fn sub_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    binary_jvp(
        "sub_jvp",
        a,
        b,
        da,
        db,
        |x, y| x - y,
        |_, _, _| (T::one(), -T::one()),
    )
}

/// Reverse mode of [`sub`]: `da += seed`, `db -= seed`.
#[inline]
pub fn sub_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: &[T]) -> Vec<T> {
    binary_vjp(
        "sub_vjp",
        a,
        b,
        da,
        db,
        seed,
        |x, y| x - y,
        |_, _, _| (T::one(), -T::one()),
    )
}

/// [`sub_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn sub_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("sub_vjp", a, b, da, db);
}

/// Element-wise `a * b` (nalgebra's `a.component_mul(&b)`).
#[inline]
pub fn component_mul<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("component_mul", a, b, |x, y| x * y)
}

/// Forward mode of [`component_mul`]: `da * b + a * db`.
#[inline]
pub fn component_mul_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    binary_jvp(
        "component_mul_jvp",
        a,
        b,
        da,
        db,
        |x, y| x * y,
        |x, y, _| (y, x),
    )
}

/// Reverse mode of [`component_mul`]: `da += seed * b`, `db += seed * a`.
#[inline]
pub fn component_mul_vjp<T: Real>(
    a: &[T],
    b: &[T],
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
) -> Vec<T> {
    binary_vjp(
        "component_mul_vjp",
        a,
        b,
        da,
        db,
        seed,
        |x, y| x * y,
        |x, y, _| (y, x),
    )
}

/// [`component_mul_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn component_mul_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("component_mul_vjp", a, b, da, db);
}

/// The partials of `y = a / b`: `1 / b` and `-y / b`.
#[inline(always)]
fn div_partials<T: Real>(_a: T, b: T, y: T) -> (T, T) {
    (b.recip(), -(y / b))
}

/// Element-wise `a / b` (nalgebra's `a.component_div(&b)`).
#[inline]
pub fn component_div<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("component_div", a, b, |x, y| x / y)
}

/// Forward mode of [`component_div`]: `da / b - (a / b) db / b`.
#[inline]
pub fn component_div_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    binary_jvp(
        "component_div_jvp",
        a,
        b,
        da,
        db,
        |x, y| x / y,
        div_partials,
    )
}

/// Reverse mode of [`component_div`]: `da += seed / b`, `db -= seed (a / b) / b`.
#[inline]
pub fn component_div_vjp<T: Real>(
    a: &[T],
    b: &[T],
    da: &mut [T],
    db: &mut [T],
    seed: &[T],
) -> Vec<T> {
    binary_vjp(
        "component_div_vjp",
        a,
        b,
        da,
        db,
        seed,
        |x, y| x / y,
        div_partials,
    )
}

/// [`component_div_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn component_div_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("component_div_vjp", a, b, da, db);
}

// ---------------------------------------------------------------------------------------------
// Element-wise with one operand, or with a scalar

/// Element-wise `-a` (nalgebra's `-&a`).
#[inline]
pub fn neg<T: Real>(a: &[T]) -> Vec<T> {
    a.iter().map(|&x| -x).collect()
}

/// Forward mode of [`neg`]: `-da`.
#[inline]
pub fn neg_jvp<T: Real>(a: &[T], da: &[T]) -> (Vec<T>, Vec<T>) {
    check_same("neg_jvp", "a", a.len(), "da", da.len());
    (neg(a), neg(da))
}

/// Reverse mode of [`neg`]: `da -= seed`.
#[inline]
pub fn neg_vjp<T: Real>(a: &[T], da: &mut [T], seed: &[T]) -> Vec<T> {
    check_same("neg_vjp", "a", a.len(), "da", da.len());
    check_seed("neg_vjp", seed.len(), a.len());
    for (d, &s) in da.iter_mut().zip(seed) {
        *d = *d - s;
    }
    neg(a)
}

/// [`neg_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn neg_vjp_dropped<T: Real>(a: &[T], da: &mut [T]) {
    check_same("neg_vjp", "a", a.len(), "da", da.len());
}

/// `a * s`, every element times the scalar `s` (nalgebra's `&a * s`).
#[inline]
pub fn scale<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x * s).collect()
}

/// Forward mode of [`scale`]: `da * s + a * ds`.
#[inline]
pub fn scale_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    check_same("scale_jvp", "a", a.len(), "da", da.len());
    let dy = a
        .iter()
        .zip(da)
        .map(|(&x, &dx)| term2(dx, s, ds, x))
        .collect();
    (scale(a, s), dy)
}

/// Reverse mode of [`scale`]: `da += seed * s`, `ds += Σ seed[i] a[i]`.
#[inline]
pub fn scale_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    check_same("scale_vjp", "a", a.len(), "da", da.len());
    check_seed("scale_vjp", seed.len(), a.len());
    let mut sum = T::zero();
    for ((d, &x), &g) in da.iter_mut().zip(a).zip(seed) {
        *d = *d + term(g, s);
        sum = sum + term(g, x);
    }
    if !seed.is_empty() {
        *ds = *ds + sum;
    }
    scale(a, s)
}

/// [`scale_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn scale_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("scale_vjp", "a", a.len(), "da", da.len());
}

/// `a / s`, every element divided by the scalar `s` (nalgebra's `&a / s`: a division per
/// element, not a product by `1 / s`, so the values are nalgebra's bit for bit).
#[inline]
pub fn div_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x / s).collect()
}

/// Forward mode of [`div_scalar`]: `da / s - (a / s) ds / s`.
#[inline]
pub fn div_scalar_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    check_same("div_scalar_jvp", "a", a.len(), "da", da.len());
    let y = div_scalar(a, s);
    let dy = y
        .iter()
        .zip(da)
        .map(|(&v, &dx)| {
            let (pa, ps) = div_partials(T::zero(), s, v);
            term2(dx, pa, ds, ps)
        })
        .collect();
    (y, dy)
}

/// Reverse mode of [`div_scalar`]: `da += seed / s`, `ds -= Σ seed[i] (a[i] / s) / s`.
#[inline]
pub fn div_scalar_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    check_same("div_scalar_vjp", "a", a.len(), "da", da.len());
    check_seed("div_scalar_vjp", seed.len(), a.len());
    let y = div_scalar(a, s);
    let mut sum = T::zero();
    for ((d, &v), &g) in da.iter_mut().zip(&y).zip(seed) {
        let (pa, ps) = div_partials(T::zero(), s, v);
        *d = *d + term(g, pa);
        sum = sum + term(g, ps);
    }
    if !seed.is_empty() {
        *ds = *ds + sum;
    }
    y
}

/// [`div_scalar_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn div_scalar_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("div_scalar_vjp", "a", a.len(), "da", da.len());
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

/// `a + s`, the scalar `s` added to every element (nalgebra's `a.add_scalar(s)`).
#[inline]
pub fn add_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x + s).collect()
}

/// Forward mode of [`add_scalar`]: `da + ds`.
#[inline]
pub fn add_scalar_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    check_same("add_scalar_jvp", "a", a.len(), "da", da.len());
    (add_scalar(a, s), add_scalar(da, ds))
}

/// Reverse mode of [`add_scalar`]: `da += seed`, `ds += Σ seed[i]`.
#[inline]
pub fn add_scalar_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    check_same("add_scalar_vjp", "a", a.len(), "da", da.len());
    check_seed("add_scalar_vjp", seed.len(), a.len());
    let mut sum = T::zero();
    for (d, &g) in da.iter_mut().zip(seed) {
        *d = *d + g;
        sum = sum + g;
    }
    if !seed.is_empty() {
        *ds = *ds + sum;
    }
    add_scalar(a, s)
}

/// [`add_scalar_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn add_scalar_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("add_scalar_vjp", "a", a.len(), "da", da.len());
}

// ---------------------------------------------------------------------------------------------
// Rearrangements: transpose, a column, a row

/// `Aᵀ` (`cols x rows`, column-major) of the `rows x cols` column-major `A` (nalgebra's
/// `a.transpose()`).
#[inline]
pub fn transpose<T: Real>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    check_mat("transpose", "a", a.len(), rows, cols);
    transposed(a, rows, cols)
}

/// The transpose, shape already checked: element `(j, i)` of the `cols x rows` result, at
/// `j + i * cols`, is `a[i + j * rows]`.
#[inline]
fn transposed<T: Real>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len());
    for i in 0..rows {
        out.extend((0..cols).map(|j| a[i + j * rows]));
    }
    out
}

/// Forward mode of [`transpose`]: `daᵀ`.
#[inline]
pub fn transpose_jvp<T: Real>(a: &[T], rows: usize, cols: usize, da: &[T]) -> (Vec<T>, Vec<T>) {
    check_mat("transpose_jvp", "a", a.len(), rows, cols);
    check_mat("transpose_jvp", "da", da.len(), rows, cols);
    (transposed(a, rows, cols), transposed(da, rows, cols))
}

/// Reverse mode of [`transpose`]: `da += seedᵀ` (the seed is `cols x rows`, column-major).
#[inline]
pub fn transpose_vjp<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: &mut [T],
    seed: &[T],
) -> Vec<T> {
    check_mat("transpose_vjp", "a", a.len(), rows, cols);
    check_mat("transpose_vjp", "da", da.len(), rows, cols);
    check_seed("transpose_vjp", seed.len(), a.len());
    // Seed entry `k` is element `(k % cols, k / cols)` of Aᵀ, so element `(k / cols, k % cols)`
    // of A (`cols > 0` whenever the seed has entries).
    for (k, &g) in seed.iter().enumerate() {
        let at = k / cols + (k % cols) * rows;
        da[at] = da[at] + g;
    }
    transposed(a, rows, cols)
}

/// [`transpose_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn transpose_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T]) {
    check_mat("transpose_vjp", "a", a.len(), rows, cols);
    check_mat("transpose_vjp", "da", da.len(), rows, cols);
}

/// Column `j` (`rows` elements) of the `rows x cols` column-major `A` (nalgebra's
/// `a.column(j)`, owned).
///
/// # Panics
///
/// If `j >= cols` (or `a` is not `rows x cols`).
#[inline]
pub fn column<T: Real>(a: &[T], rows: usize, cols: usize, j: usize) -> Vec<T> {
    check_mat("column", "a", a.len(), rows, cols);
    check_index("column", "column", j, cols, rows, cols);
    a[j * rows..(j + 1) * rows].to_vec()
}

/// Forward mode of [`column`]: column `j` of `da`.
#[inline]
pub fn column_jvp<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    j: usize,
    da: &[T],
) -> (Vec<T>, Vec<T>) {
    check_mat("column_jvp", "da", da.len(), rows, cols);
    (column(a, rows, cols, j), column(da, rows, cols, j))
}

/// Reverse mode of [`column`]: the seed is added into column `j` of `da`.
#[inline]
pub fn column_vjp<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    j: usize,
    da: &mut [T],
    seed: &[T],
) -> Vec<T> {
    column_vjp_dropped(a, rows, cols, j, da);
    check_seed("column_vjp", seed.len(), rows);
    for (d, &g) in da[j * rows..].iter_mut().zip(seed) {
        *d = *d + g;
    }
    a[j * rows..(j + 1) * rows].to_vec()
}

/// [`column_vjp`] with a zero seed: checks the shapes and the index, adds nothing.
#[doc(hidden)]
#[inline]
pub fn column_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, j: usize, da: &mut [T]) {
    check_mat("column_vjp", "a", a.len(), rows, cols);
    check_mat("column_vjp", "da", da.len(), rows, cols);
    check_index("column_vjp", "column", j, cols, rows, cols);
}

/// Row `i` (`cols` elements) of the `rows x cols` column-major `A` (nalgebra's `a.row(i)`,
/// owned, its elements in order).
///
/// # Panics
///
/// If `i >= rows` (or `a` is not `rows x cols`).
#[inline]
pub fn row<T: Real>(a: &[T], rows: usize, cols: usize, i: usize) -> Vec<T> {
    check_mat("row", "a", a.len(), rows, cols);
    check_index("row", "row", i, rows, rows, cols);
    (0..cols).map(|j| a[i + j * rows]).collect()
}

/// Forward mode of [`row`]: row `i` of `da`.
#[inline]
pub fn row_jvp<T: Real>(a: &[T], rows: usize, cols: usize, i: usize, da: &[T]) -> (Vec<T>, Vec<T>) {
    check_mat("row_jvp", "da", da.len(), rows, cols);
    (row(a, rows, cols, i), row(da, rows, cols, i))
}

/// Reverse mode of [`row`]: the seed is added into row `i` of `da`.
#[inline]
pub fn row_vjp<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    i: usize,
    da: &mut [T],
    seed: &[T],
) -> Vec<T> {
    row_vjp_dropped(a, rows, cols, i, da);
    check_seed("row_vjp", seed.len(), cols);
    for (j, &g) in seed.iter().enumerate() {
        let at = i + j * rows;
        da[at] = da[at] + g;
    }
    (0..cols).map(|j| a[i + j * rows]).collect()
}

/// [`row_vjp`] with a zero seed: checks the shapes and the index, adds nothing.
#[doc(hidden)]
#[inline]
pub fn row_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, i: usize, da: &mut [T]) {
    check_mat("row_vjp", "a", a.len(), rows, cols);
    check_mat("row_vjp", "da", da.len(), rows, cols);
    check_index("row_vjp", "row", i, rows, rows, cols);
}

// ---------------------------------------------------------------------------------------------
// Scalar outputs

/// `res + Σ x[r] y[r]` over one column as nalgebra 0.33's `dot` adds it (`Matrix::dotx`, the
/// general case): eight partial sums over the blocks of eight rows, added pairwise
/// (`acc0 + acc4`, `acc1 + acc5`, ...) into `res`, then the remaining rows one at a time.
#[inline]
fn na_column_dot<T: Real>(mut res: T, x: &[T], y: &[T]) -> T {
    let mut acc = [T::zero(); 8];
    let (xb, xr) = x.as_chunks::<8>();
    let (yb, yr) = y.as_chunks::<8>();
    for (xs, ys) in xb.iter().zip(yb) {
        for r in 0..8 {
            acc[r] = acc[r] + xs[r] * ys[r];
        }
    }
    res = res + (acc[0] + acc[4]);
    res = res + (acc[1] + acc[5]);
    res = res + (acc[2] + acc[6]);
    res = res + (acc[3] + acc[7]);
    for (&p, &q) in xr.iter().zip(yr) {
        res = res + p * q;
    }
    res
}

/// nalgebra's `a.dot(&b)` on `rows x cols` matrices: one running sum over the columns.
#[inline]
fn na_dot<T: Real>(a: &[T], b: &[T], rows: usize, cols: usize) -> T {
    (0..cols).fold(T::zero(), |res, j| {
        let col = j * rows..(j + 1) * rows;
        na_column_dot(res, &a[col.clone()], &b[col])
    })
}

/// nalgebra's `a.norm_squared()` on a `rows x cols` matrix: the sum over the columns of each
/// column's own `dot` with itself.
#[inline]
fn na_norm_squared<T: Real>(a: &[T], rows: usize, cols: usize) -> T {
    (0..cols).fold(T::zero(), |res, j| {
        let col = &a[j * rows..(j + 1) * rows];
        res + na_column_dot(T::zero(), col, col)
    })
}

/// `Σ term(t[i], p[i])`, the tangent of a scalar whose gradient is `p` (strong zero).
#[inline]
fn tangent_dot<T: Real>(t: &[T], p: &[T]) -> T {
    t.iter()
        .zip(p)
        .fold(T::zero(), |s, (&ti, &pi)| s + term(ti, pi))
}

/// `d[i] += term(seed, p[i])` unless the seed is zero.
#[inline]
fn add_seed_times<T: Real>(d: &mut [T], seed: T, p: &[T]) {
    if seed != T::zero() {
        for (di, &pi) in d.iter_mut().zip(p) {
            *di = *di + term(seed, pi);
        }
    }
}

/// `Σ a[i] b[i]`, `a` and `b` seen as column vectors (nalgebra's `a.dot(&b)` on vectors, bit for
/// bit; for matrices and row vectors see [`dot_mat`]).
#[inline]
pub fn dot<T: Real>(a: &[T], b: &[T]) -> T {
    check_same("dot", "a", a.len(), "b", b.len());
    na_column_dot(T::zero(), a, b)
}

#[inline(always)]
#[track_caller]
fn dot_jvp_with<T: Real>(op: &str, a: &[T], b: &[T], da: &[T], db: &[T], value: T) -> (T, T) {
    check_binary(op, a, b, da, db);
    let dy = a
        .iter()
        .zip(b)
        .zip(da.iter().zip(db))
        .fold(T::zero(), |s, ((&x, &y), (&dx, &dy))| {
            s + term2(dx, y, dy, x)
        });
    (value, dy)
}

#[inline(always)]
#[track_caller]
fn dot_vjp_with<T: Real>(op: &str, a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: T) {
    check_binary(op, a, b, da, db);
    add_seed_times(da, seed, b);
    add_seed_times(db, seed, a);
}

/// Forward mode of [`dot`]: `Σ da[i] b[i] + a[i] db[i]`.
#[inline]
pub fn dot_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (T, T) {
    check_same("dot_jvp", "a", a.len(), "b", b.len());
    dot_jvp_with("dot_jvp", a, b, da, db, na_column_dot(T::zero(), a, b))
}

/// Reverse mode of [`dot`]: `da += seed b`, `db += seed a`.
#[inline]
pub fn dot_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: T) -> T {
    dot_vjp_with("dot_vjp", a, b, da, db, seed);
    na_column_dot(T::zero(), a, b)
}

/// [`dot_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn dot_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("dot_vjp", a, b, da, db);
}

/// `Σ a[i] b[i]` of two `rows x cols` matrices, in nalgebra's order for that shape (nalgebra's
/// `a.dot(&b)` on any matrix, row vectors included, bit for bit; see the module docs).
#[inline]
pub fn dot_mat<T: Real>(a: &[T], b: &[T], rows: usize, cols: usize) -> T {
    check_mat("dot_mat", "a", a.len(), rows, cols);
    check_mat("dot_mat", "b", b.len(), rows, cols);
    na_dot(a, b, rows, cols)
}

/// Forward mode of [`dot_mat`] (the tangent as [`dot_jvp`]'s).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn dot_mat_jvp<T: Real>(
    a: &[T],
    b: &[T],
    rows: usize,
    cols: usize,
    da: &[T],
    db: &[T],
) -> (T, T) {
    let value = dot_mat(a, b, rows, cols);
    dot_jvp_with("dot_mat_jvp", a, b, da, db, value)
}

/// Reverse mode of [`dot_mat`]: `da += seed b`, `db += seed a`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn dot_mat_vjp<T: Real>(
    a: &[T],
    b: &[T],
    rows: usize,
    cols: usize,
    da: &mut [T],
    db: &mut [T],
    seed: T,
) -> T {
    let value = dot_mat(a, b, rows, cols);
    dot_vjp_with("dot_mat_vjp", a, b, da, db, seed);
    value
}

/// [`dot_mat_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn dot_mat_vjp_dropped<T: Real>(
    a: &[T],
    b: &[T],
    rows: usize,
    cols: usize,
    da: &mut [T],
    db: &mut [T],
) {
    check_mat("dot_mat_vjp", "a", a.len(), rows, cols);
    check_binary("dot_mat_vjp", a, b, da, db);
}

/// `Σ a[i]`, left to right from zero in storage order (nalgebra's `a.sum()`, bit for bit).
#[inline]
pub fn sum<T: Real>(a: &[T]) -> T {
    a.iter().fold(T::zero(), |s, &x| s + x)
}

/// Forward mode of [`sum`]: `Σ da[i]`.
#[inline]
pub fn sum_jvp<T: Real>(a: &[T], da: &[T]) -> (T, T) {
    check_same("sum_jvp", "a", a.len(), "da", da.len());
    (sum(a), sum(da))
}

/// Reverse mode of [`sum`]: `da[i] += seed`.
#[inline]
pub fn sum_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    check_same("sum_vjp", "a", a.len(), "da", da.len());
    if seed != T::zero() {
        for d in da.iter_mut() {
            *d = *d + seed;
        }
    }
    sum(a)
}

/// [`sum_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn sum_vjp_dropped<T: Real>(a: &[T], da: &mut [T]) {
    check_same("sum_vjp", "a", a.len(), "da", da.len());
}

/// The length as nalgebra's `mean` divides by it (`usize` to `f64` to `T`).
#[inline]
fn count<T: Real>(n: usize) -> T {
    T::from(n as f64).unwrap_or_else(T::infinity)
}

/// `Σ a[i] / n`: [`sum`] divided by the length, and `0` for an empty `a` (nalgebra's `a.mean()`,
/// bit for bit, which returns zero, not NaN, for an empty matrix).
#[inline]
pub fn mean<T: Real>(a: &[T]) -> T {
    if a.is_empty() {
        T::zero()
    } else {
        sum(a) / count(a.len())
    }
}

/// Forward mode of [`mean`]: `Σ da[i] / n` (`0` for an empty `a`).
#[inline]
pub fn mean_jvp<T: Real>(a: &[T], da: &[T]) -> (T, T) {
    check_same("mean_jvp", "a", a.len(), "da", da.len());
    (mean(a), mean(da))
}

/// Reverse mode of [`mean`]: `da[i] += seed / n`.
#[inline]
pub fn mean_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    check_same("mean_vjp", "a", a.len(), "da", da.len());
    if seed != T::zero() && !a.is_empty() {
        let g = seed / count(a.len());
        for d in da.iter_mut() {
            *d = *d + g;
        }
    }
    mean(a)
}

/// [`mean_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn mean_vjp_dropped<T: Real>(a: &[T], da: &mut [T]) {
    check_same("mean_vjp", "a", a.len(), "da", da.len());
}

/// `Σ a[i]²`, `a` seen as a column vector (nalgebra's `a.norm_squared()` on vectors, bit for
/// bit; for matrices see [`norm_squared_mat`]).
#[inline]
pub fn norm_squared<T: Real>(a: &[T]) -> T {
    na_norm_squared(a, a.len(), 1)
}

/// Forward mode of [`norm_squared`]: `2 Σ a[i] da[i]`.
#[inline]
pub fn norm_squared_jvp<T: Real>(a: &[T], da: &[T]) -> (T, T) {
    check_same("norm_squared_jvp", "a", a.len(), "da", da.len());
    let t = tangent_dot(da, a);
    (norm_squared(a), t + t)
}

/// Reverse mode of [`norm_squared`]: `da += 2 seed a`.
#[inline]
pub fn norm_squared_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    check_same("norm_squared_vjp", "a", a.len(), "da", da.len());
    add_seed_times(da, seed + seed, a);
    norm_squared(a)
}

/// [`norm_squared_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn norm_squared_vjp_dropped<T: Real>(a: &[T], da: &mut [T]) {
    check_same("norm_squared_vjp", "a", a.len(), "da", da.len());
}

/// `Σ a[i]²` of a `rows x cols` matrix, in nalgebra's order for that shape (nalgebra's
/// `a.norm_squared()` on any matrix, bit for bit; see the module docs).
#[inline]
pub fn norm_squared_mat<T: Real>(a: &[T], rows: usize, cols: usize) -> T {
    check_mat("norm_squared_mat", "a", a.len(), rows, cols);
    na_norm_squared(a, rows, cols)
}

/// Forward mode of [`norm_squared_mat`]: `2 Σ a[i] da[i]`.
#[inline]
pub fn norm_squared_mat_jvp<T: Real>(a: &[T], rows: usize, cols: usize, da: &[T]) -> (T, T) {
    let value = norm_squared_mat(a, rows, cols);
    check_same("norm_squared_mat_jvp", "a", a.len(), "da", da.len());
    let t = tangent_dot(da, a);
    (value, t + t)
}

/// Reverse mode of [`norm_squared_mat`]: `da += 2 seed a`.
#[inline]
pub fn norm_squared_mat_vjp<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: &mut [T],
    seed: T,
) -> T {
    let value = norm_squared_mat(a, rows, cols);
    check_same("norm_squared_mat_vjp", "a", a.len(), "da", da.len());
    add_seed_times(da, seed + seed, a);
    value
}

/// [`norm_squared_mat_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn norm_squared_mat_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T]) {
    check_mat("norm_squared_mat_vjp", "a", a.len(), rows, cols);
    check_same("norm_squared_mat_vjp", "a", a.len(), "da", da.len());
}

/// `Σ term(da[i], a[i] / n)`: the tangent of the norm `n` of `a`, zero at `n == 0` (see the
/// module docs).
#[inline]
fn norm_tangent<T: Real>(a: &[T], n: T, da: &[T]) -> T {
    if n == T::zero() {
        return T::zero();
    }
    a.iter()
        .zip(da)
        .fold(T::zero(), |s, (&x, &dx)| s + term(dx, x / n))
}

/// `da[i] += term(seed, a[i] / n)`: the adjoint of the norm `n` of `a`, nothing at `n == 0`.
#[inline]
fn norm_adjoint<T: Real>(a: &[T], n: T, da: &mut [T], seed: T) {
    if seed == T::zero() || n == T::zero() {
        return;
    }
    for (d, &x) in da.iter_mut().zip(a) {
        *d = *d + term(seed, x / n);
    }
}

/// `‖a‖ = sqrt(Σ a[i]²)`, `a` seen as a column vector: the square root of [`norm_squared`], as
/// nalgebra's `a.norm()` computes it (bit for bit on vectors, overflowing where it does; for
/// matrices see [`norm_mat`]).
#[inline]
pub fn norm<T: Real>(a: &[T]) -> T {
    norm_squared(a).sqrt()
}

/// Forward mode of [`norm`]: `Σ (a[i] / ‖a‖) da[i]`, and `0` at `a = 0` (see the module docs).
#[inline]
pub fn norm_jvp<T: Real>(a: &[T], da: &[T]) -> (T, T) {
    check_same("norm_jvp", "a", a.len(), "da", da.len());
    let n = norm(a);
    (n, norm_tangent(a, n, da))
}

/// Reverse mode of [`norm`]: `da += seed a / ‖a‖`, nothing at `a = 0` (see the module docs).
#[inline]
pub fn norm_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    check_same("norm_vjp", "a", a.len(), "da", da.len());
    let n = norm(a);
    norm_adjoint(a, n, da, seed);
    n
}

/// [`norm_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn norm_vjp_dropped<T: Real>(a: &[T], da: &mut [T]) {
    check_same("norm_vjp", "a", a.len(), "da", da.len());
}

/// `‖a‖` of a `rows x cols` matrix (Frobenius): the square root of [`norm_squared_mat`], as
/// nalgebra's `a.norm()` computes it on any matrix (bit for bit; see the module docs).
#[inline]
pub fn norm_mat<T: Real>(a: &[T], rows: usize, cols: usize) -> T {
    norm_squared_mat(a, rows, cols).sqrt()
}

/// Forward mode of [`norm_mat`] (the tangent as [`norm_jvp`]'s).
#[inline]
pub fn norm_mat_jvp<T: Real>(a: &[T], rows: usize, cols: usize, da: &[T]) -> (T, T) {
    let n = norm_mat(a, rows, cols);
    check_same("norm_mat_jvp", "a", a.len(), "da", da.len());
    (n, norm_tangent(a, n, da))
}

/// Reverse mode of [`norm_mat`]: `da += seed a / ‖a‖`, nothing at `a = 0`.
#[inline]
pub fn norm_mat_vjp<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T], seed: T) -> T {
    let n = norm_mat(a, rows, cols);
    check_same("norm_mat_vjp", "a", a.len(), "da", da.len());
    norm_adjoint(a, n, da, seed);
    n
}

/// [`norm_mat_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn norm_mat_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T]) {
    check_mat("norm_mat_vjp", "a", a.len(), rows, cols);
    check_same("norm_mat_vjp", "a", a.len(), "da", da.len());
}
