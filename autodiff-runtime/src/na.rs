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
    mat_mul_forward("mat_mul_jvp", a, b, m, k, n, Some(da), Some(db))
}

/// Forward mode of [`mat_mul`] for generated code: `None` for a tangent that is zero skips its
/// product (`dA B` or `A dB`; both `None`, zeros and no product).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    mat_mul_forward("mat_mul_pushforward", a, b, m, k, n, da, db)
}

/// `C` and `dC = dA B + A dB` under the name `op`, each product skipped for a `None` tangent.
///
/// With both tangents, `dC = dA B` (written) then `+= A dB`. With one, its product is added into
/// zeros (`beta = 1`), which is what [`mat_mul_jvp`] gives with a zero tangent there: the
/// kernels' sums start from `+0`, so the product of zeros with a finite operand is `+0`, and
/// adding a `+0` changes no sum (which, from `+0`, is never `-0`). Where that operand holds an
/// `inf` or a NaN, [`mat_mul_jvp`]'s plain product of it with the zeros is NaN, and here that
/// term is absent: the kernels have no strong zero.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn mat_mul_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let len = check_mat_mul(op, a.len(), b.len(), m, k, n);
    if let Some(da) = da {
        check_mat(op, "da", da.len(), m, k);
    }
    if let Some(db) = db {
        check_mat(op, "db", db.len(), k, n);
    }
    let mut c = vec![T::zero(); len];
    product(a, b, m, k, n, T::zero(), &mut c);
    let mut dc = vec![T::zero(); len];
    match (da, db) {
        (Some(da), Some(db)) => {
            product(da, b, m, k, n, T::zero(), &mut dc);
            product(a, db, m, k, n, T::one(), &mut dc);
        }
        (Some(da), None) => product(da, b, m, k, n, T::one(), &mut dc),
        (None, Some(db)) => product(a, db, m, k, n, T::one(), &mut dc),
        (None, None) => {}
    }
    (c, dc)
}

/// The adjoints of [`mat_mul`] under the name `op`: `Ā += C̄ Bᵀ` into `da`, `B̄ += Aᵀ C̄` into
/// `db`, each product skipped for a `None` buffer, both for an empty seed.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn mat_mul_adjoints<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    let len = check_mat_mul(op, a.len(), b.len(), m, k, n);
    if let Some(da) = da.as_deref() {
        check_mat(op, "da", da.len(), m, k);
    }
    if let Some(db) = db.as_deref() {
        check_mat(op, "db", db.len(), k, n);
    }
    check_seed(op, seed.len(), len);
    if seed.is_empty() || (da.is_none() && db.is_none()) {
        return;
    }
    let cbar: Cow<'_, [T]> = if seed.len() == len {
        Cow::Borrowed(seed)
    } else {
        let mut padded = seed.to_vec();
        padded.resize(len, T::zero());
        Cow::Owned(padded)
    };
    let one = T::one();
    if let Some(da) = da {
        // Row-major, the transposes: Āᵀ (k x m) += B C̄ᵀ, with B = (Bᵀ)ᵀ and C̄ᵀ n x m.
        kernels::matmul(
            one,
            MatRef::new(b, n, k).t(),
            MatRef::new(&cbar, n, m),
            one,
            MatMut::new(da, k, m),
        );
    }
    if let Some(db) = db {
        // B̄ᵀ (n x k) += C̄ᵀ A, with A = (Aᵀ)ᵀ.
        kernels::matmul(
            one,
            MatRef::new(&cbar, n, m),
            MatRef::new(a, k, m).t(),
            one,
            MatMut::new(db, n, k),
        );
    }
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
    mat_mul_adjoints("mat_mul_vjp", a, b, m, k, n, Some(da), Some(db), seed);
    mat_mul(a, b, m, k, n)
}

/// Adjoints of [`mat_mul`] without its value, for generated code: `None` skips its product.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mat_mul_pullback<T: Real>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    mat_mul_adjoints("mat_mul_pullback", a, b, m, k, n, da, db, seed);
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

/// `term2(ta(i), pa(i), tb(i), pb(i))` for `i < n`, a `None` tangent read as `+0` (what `f_jvp`
/// gives with a zero tangent there) without its term: `x + term(0, p)` is `x` except where `x`
/// is a zero (`-0 + +0` is `+0`), so the whole `term2`, and the `None` side's partial, is taken
/// only where the other term is zero. Both `None`, `term2(0, pa, 0, pb)`: `-0` where both
/// partials are finite and negative, as `f_jvp` gives it.
#[inline(always)]
fn tangents2<T: Real, A: Fn(usize) -> T, B: Fn(usize) -> T>(
    n: usize,
    ta: Option<A>,
    pa: impl Fn(usize) -> T,
    tb: Option<B>,
    pb: impl Fn(usize) -> T,
) -> Vec<T> {
    let zero = T::zero();
    match (ta, tb) {
        (Some(ta), Some(tb)) => (0..n).map(|i| term2(ta(i), pa(i), tb(i), pb(i))).collect(),
        (Some(ta), None) => (0..n)
            .map(|i| {
                let (t, p) = (ta(i), pa(i));
                let y = term(t, p);
                if y == zero {
                    term2(t, p, zero, pb(i))
                } else {
                    y
                }
            })
            .collect(),
        (None, Some(tb)) => (0..n)
            .map(|i| {
                let (t, p) = (tb(i), pb(i));
                let y = term(t, p);
                if y == zero {
                    term2(zero, pa(i), t, p)
                } else {
                    y
                }
            })
            .collect(),
        (None, None) => (0..n).map(|i| term2(zero, pa(i), zero, pb(i))).collect(),
    }
}

/// `i -> t[i]`: a slice tangent for [`tangents2`].
#[inline(always)]
fn at<T: Real>(t: &[T]) -> impl Fn(usize) -> T + '_ {
    move |i| t[i]
}

/// The value `f(a[i], b[i])` of an element-wise binary operation and its tangent `term2(da[i],
/// pa, db[i], pb)` under the name `op`, the partials `pa(a[i], b[i], y[i])` and `pb(..)` taken as
/// [`tangents2`] needs them.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn binary_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
    f: impl Fn(T, T) -> T,
    pa: impl Fn(T, T, T) -> T,
    pb: impl Fn(T, T, T) -> T,
) -> (Vec<T>, Vec<T>) {
    check_binary_adjoints(op, a, b, da, db);
    let y: Vec<T> = a.iter().zip(b).map(|(&x, &z)| f(x, z)).collect();
    let dy = tangents2(
        a.len(),
        da.map(at),
        |i| pa(a[i], b[i], y[i]),
        db.map(at),
        |i| pb(a[i], b[i], y[i]),
    );
    (y, dy)
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

/// The adjoints of an element-wise binary operation under the name `op`: `da[i] += seed[i] *
/// pa(a[i], b[i])` and `db[i] += seed[i] * pb(a[i], b[i])` (strong zero) over the seed's entries,
/// each partial evaluated only for a `Some` buffer.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn binary_adjoints<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
    pa: impl Fn(T, T) -> T,
    pb: impl Fn(T, T) -> T,
) {
    check_binary_adjoints(op, a, b, da.as_deref(), db.as_deref());
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (i, &s) in seed.iter().enumerate() {
            da[i] = da[i] + term(s, pa(a[i], b[i]));
        }
    }
    if let Some(db) = db {
        for (i, &s) in seed.iter().enumerate() {
            db[i] = db[i] + term(s, pb(a[i], b[i]));
        }
    }
}

/// Element-wise `a + b` (nalgebra's `&a + &b`).
#[inline]
pub fn add<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("add", a, b, |x, y| x + y)
}

/// Forward mode of [`add`]: `da + db`.
#[inline]
pub fn add_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    add_forward("add_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`add`] for generated code: `None` for a tangent that is zero skips its term.
#[inline]
pub fn add_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    add_forward("add_pushforward", a, b, da, db)
}

/// [`add_jvp`] and [`add_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn add_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let one = |_, _, _| T::one();
    binary_forward(op, a, b, da, db, |x, y| x + y, one, one)
}

/// Reverse mode of [`add`]: `da += seed`, `db += seed`.
#[inline]
pub fn add_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: &[T]) -> Vec<T> {
    binary_adjoints(
        "add_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        |_, _| T::one(),
        |_, _| T::one(),
    );
    add(a, b)
}

/// Adjoints of [`add`] without its value, for generated code: `da += seed`, `db += seed`.
#[inline]
pub fn add_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints(
        "add_pullback",
        a,
        b,
        da,
        db,
        seed,
        |_, _| T::one(),
        |_, _| T::one(),
    );
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
    sub_forward("sub_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`sub`] for generated code: `None` for a tangent that is zero skips its term.
#[inline]
pub fn sub_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    sub_forward("sub_pushforward", a, b, da, db)
}

/// [`sub_jvp`] and [`sub_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn sub_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    binary_forward(
        op,
        a,
        b,
        da,
        db,
        |x, y| x - y,
        |_, _, _| T::one(),
        |_, _, _| -T::one(),
    )
}

/// Reverse mode of [`sub`]: `da += seed`, `db -= seed`.
#[inline]
pub fn sub_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: &[T]) -> Vec<T> {
    binary_adjoints(
        "sub_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        |_, _| T::one(),
        |_, _| -T::one(),
    );
    sub(a, b)
}

/// Adjoints of [`sub`] without its value, for generated code: `da += seed`, `db -= seed`.
#[inline]
pub fn sub_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints(
        "sub_pullback",
        a,
        b,
        da,
        db,
        seed,
        |_, _| T::one(),
        |_, _| -T::one(),
    );
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
    component_mul_forward("component_mul_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`component_mul`] for generated code: `None` for a tangent that is zero skips
/// its term (`da * b` or `a * db`).
#[inline]
pub fn component_mul_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    component_mul_forward("component_mul_pushforward", a, b, da, db)
}

/// [`component_mul_jvp`] and [`component_mul_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn component_mul_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    binary_forward(op, a, b, da, db, |x, y| x * y, |_, y, _| y, |x, _, _| x)
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
    binary_adjoints(
        "component_mul_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        |_, y| y,
        |x, _| x,
    );
    component_mul(a, b)
}

/// Adjoints of [`component_mul`] without its value, for generated code: `seed * b`, `seed * a`.
#[inline]
pub fn component_mul_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints(
        "component_mul_pullback",
        a,
        b,
        da,
        db,
        seed,
        |_, y| y,
        |x, _| x,
    );
}

/// [`component_mul_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn component_mul_vjp_dropped<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T]) {
    check_binary("component_mul_vjp", a, b, da, db);
}

/// `∂(a / b) / ∂a = 1 / b`.
#[inline(always)]
fn div_da<T: Real>(_a: T, b: T) -> T {
    b.recip()
}

/// `∂(a / b) / ∂b = -(a / b) / b`, as [`div_db_of`] gives it from the value: the one partial of
/// the element-wise operations that needs the value.
#[inline(always)]
fn div_db<T: Real>(a: T, b: T) -> T {
    div_db_of(b, a / b)
}

/// `∂(a / b) / ∂b = -y / b` from the value `y = a / b`.
#[inline(always)]
fn div_db_of<T: Real>(b: T, y: T) -> T {
    -(y / b)
}

/// Element-wise `a / b` (nalgebra's `a.component_div(&b)`).
#[inline]
pub fn component_div<T: Real>(a: &[T], b: &[T]) -> Vec<T> {
    binary("component_div", a, b, |x, y| x / y)
}

/// Forward mode of [`component_div`]: `da / b - (a / b) db / b`.
#[inline]
pub fn component_div_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (Vec<T>, Vec<T>) {
    component_div_forward("component_div_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`component_div`] for generated code: `None` for a tangent that is zero skips
/// its term (`da / b` or `-(a / b) db / b`).
#[inline]
pub fn component_div_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    component_div_forward("component_div_pushforward", a, b, da, db)
}

/// [`component_div_jvp`] and [`component_div_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn component_div_forward<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    binary_forward(
        op,
        a,
        b,
        da,
        db,
        |x, y| x / y,
        |x, y, _| div_da(x, y),
        |_, y, v| div_db_of(y, v),
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
    binary_adjoints(
        "component_div_vjp",
        a,
        b,
        Some(da),
        Some(db),
        seed,
        div_da,
        div_db,
    );
    component_div(a, b)
}

/// Adjoints of [`component_div`] without its value, for generated code: as [`component_div_vjp`].
#[inline]
pub fn component_div_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: &[T],
) {
    binary_adjoints("component_div_pullback", a, b, da, db, seed, div_da, div_db);
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
    neg_forward("neg_jvp", a, Some(da))
}

/// Forward mode of [`neg`] for generated code: `None` for a tangent that is zero gives `-0`s, as
/// [`neg_jvp`] of zeros does.
#[inline]
pub fn neg_pushforward<T: Real>(a: &[T], da: Option<&[T]>) -> (Vec<T>, Vec<T>) {
    neg_forward("neg_pushforward", a, da)
}

/// [`neg_jvp`] and [`neg_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn neg_forward<T: Real>(op: &str, a: &[T], da: Option<&[T]>) -> (Vec<T>, Vec<T>) {
    let dy = match da {
        Some(da) => {
            check_same(op, "a", a.len(), "da", da.len());
            neg(da)
        }
        None => vec![-T::zero(); a.len()],
    };
    (neg(a), dy)
}

/// `da -= seed` under the name `op`, nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn neg_adjoints<T: Real>(op: &str, a: &[T], da: Option<&mut [T]>, seed: &[T]) {
    if let Some(da) = da.as_deref() {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (d, &s) in da.iter_mut().zip(seed) {
            *d = *d - s;
        }
    }
}

/// Reverse mode of [`neg`]: `da -= seed`.
#[inline]
pub fn neg_vjp<T: Real>(a: &[T], da: &mut [T], seed: &[T]) -> Vec<T> {
    neg_adjoints("neg_vjp", a, Some(da), seed);
    neg(a)
}

/// Adjoints of [`neg`] without its value, for generated code: `da -= seed`.
#[inline]
pub fn neg_pullback<T: Real>(a: &[T], da: Option<&mut [T]>, seed: &[T]) {
    neg_adjoints("neg_pullback", a, da, seed);
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
    scale_forward("scale_jvp", a, s, Some(da), Some(ds))
}

/// Forward mode of [`scale`] for generated code: `None` for a tangent that is zero skips its term
/// (`da * s` or `a * ds`).
#[inline]
pub fn scale_pushforward<T: Real>(
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    scale_forward("scale_pushforward", a, s, da, ds)
}

/// [`scale_jvp`] and [`scale_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn scale_forward<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
    }
    let dy = tangents2(
        a.len(),
        da.map(at),
        |_| s,
        ds.map(|ds| move |_| ds),
        |i| a[i],
    );
    (scale(a, s), dy)
}

/// The adjoints of `a * s` under the name `op`: `da[i] += seed[i] * pa(s)` and
/// `ds += Σ seed[i] * ps(a[i], s)` (strong zero) over the seed's entries, `ds` untouched by an
/// empty seed, each partial evaluated only for a `Some` buffer.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn with_scalar_adjoints<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
    pa: impl Fn(T) -> T,
    ps: impl Fn(T, T) -> T,
) {
    if let Some(da) = da.as_deref() {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (d, &g) in da.iter_mut().zip(seed) {
            *d = *d + term(g, pa(s));
        }
    }
    if let Some(ds) = ds {
        if !seed.is_empty() {
            let sum = a
                .iter()
                .zip(seed)
                .fold(T::zero(), |sum, (&x, &g)| sum + term(g, ps(x, s)));
            *ds = *ds + sum;
        }
    }
}

/// Reverse mode of [`scale`]: `da += seed * s`, `ds += Σ seed[i] a[i]`.
#[inline]
pub fn scale_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    with_scalar_adjoints("scale_vjp", a, s, Some(da), Some(ds), seed, |s| s, |x, _| x);
    scale(a, s)
}

/// Adjoints of [`scale`] without its value, for generated code: `seed * s`, `Σ seed[i] a[i]`.
#[inline]
pub fn scale_pullback<T: Real>(
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    with_scalar_adjoints("scale_pullback", a, s, da, ds, seed, |s| s, |x, _| x);
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
    div_scalar_forward("div_scalar_jvp", a, s, Some(da), Some(ds))
}

/// Forward mode of [`div_scalar`] for generated code: `None` for a tangent that is zero skips its
/// term (`da / s` or `-(a / s) ds / s`).
#[inline]
pub fn div_scalar_pushforward<T: Real>(
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    div_scalar_forward("div_scalar_pushforward", a, s, da, ds)
}

/// [`div_scalar_jvp`] and [`div_scalar_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn div_scalar_forward<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
    }
    let y = div_scalar(a, s);
    let dy = tangents2(
        a.len(),
        da.map(at),
        |_| div_da(T::zero(), s),
        ds.map(|ds| move |_| ds),
        |i| div_db_of(s, y[i]),
    );
    (y, dy)
}

/// Reverse mode of [`div_scalar`]: `da += seed / s`, `ds -= Σ seed[i] (a[i] / s) / s`.
#[inline]
pub fn div_scalar_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    with_scalar_adjoints(
        "div_scalar_vjp",
        a,
        s,
        Some(da),
        Some(ds),
        seed,
        T::recip,
        div_db,
    );
    div_scalar(a, s)
}

/// Adjoints of [`div_scalar`] without its value, for generated code: as [`div_scalar_vjp`].
#[inline]
pub fn div_scalar_pullback<T: Real>(
    a: &[T],
    s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    with_scalar_adjoints("div_scalar_pullback", a, s, da, ds, seed, T::recip, div_db);
}

/// [`div_scalar_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn div_scalar_vjp_dropped<T: Real>(a: &[T], _s: T, da: &mut [T], _ds: &mut T) {
    check_same("div_scalar_vjp", "a", a.len(), "da", da.len());
}

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

/// `a + s`, the scalar `s` added to every element (nalgebra's `a.add_scalar(s)`).
#[inline]
pub fn add_scalar<T: Real>(a: &[T], s: T) -> Vec<T> {
    a.iter().map(|&x| x + s).collect()
}

/// Forward mode of [`add_scalar`]: `da + ds`.
#[inline]
pub fn add_scalar_jvp<T: Real>(a: &[T], s: T, da: &[T], ds: T) -> (Vec<T>, Vec<T>) {
    add_scalar_forward("add_scalar_jvp", a, s, Some(da), Some(ds))
}

/// Forward mode of [`add_scalar`] for generated code: `None` for a tangent that is zero skips its
/// term (the `+ 0` kept: `da + 0` and `0 + ds`, whose `-0`s become `+0` as in [`add_scalar_jvp`]).
#[inline]
pub fn add_scalar_pushforward<T: Real>(
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    add_scalar_forward("add_scalar_pushforward", a, s, da, ds)
}

/// [`add_scalar_jvp`] and [`add_scalar_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn add_scalar_forward<T: Real>(
    op: &str,
    a: &[T],
    s: T,
    da: Option<&[T]>,
    ds: Option<T>,
) -> (Vec<T>, Vec<T>) {
    let dy = match (da, ds) {
        (Some(da), ds) => {
            check_same(op, "a", a.len(), "da", da.len());
            add_scalar(da, ds.unwrap_or_else(T::zero))
        }
        (None, ds) => vec![T::zero() + ds.unwrap_or_else(T::zero); a.len()],
    };
    (add_scalar(a, s), dy)
}

/// The adjoints of `a + s` under the name `op`: `da += seed`, `ds += Σ seed[i]` (untouched by an
/// empty seed), nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn add_scalar_adjoints<T: Real>(
    op: &str,
    a: &[T],
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    if let Some(da) = da.as_deref() {
        check_same(op, "a", a.len(), "da", da.len());
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        for (d, &g) in da.iter_mut().zip(seed) {
            *d = *d + g;
        }
    }
    if let Some(ds) = ds {
        if !seed.is_empty() {
            *ds = *ds + sum(seed);
        }
    }
}

/// Reverse mode of [`add_scalar`]: `da += seed`, `ds += Σ seed[i]`.
#[inline]
pub fn add_scalar_vjp<T: Real>(a: &[T], s: T, da: &mut [T], ds: &mut T, seed: &[T]) -> Vec<T> {
    add_scalar_adjoints("add_scalar_vjp", a, Some(da), Some(ds), seed);
    add_scalar(a, s)
}

/// Adjoints of [`add_scalar`] without its value, for generated code: `da += seed`, `ds += Σ seed`.
#[inline]
pub fn add_scalar_pullback<T: Real>(
    a: &[T],
    _s: T,
    da: Option<&mut [T]>,
    ds: Option<&mut T>,
    seed: &[T],
) {
    add_scalar_adjoints("add_scalar_pullback", a, da, ds, seed);
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
    transpose_forward("transpose_jvp", a, rows, cols, Some(da))
}

/// Forward mode of [`transpose`] for generated code: `None` for a tangent that is zero gives zeros.
#[inline]
pub fn transpose_pushforward<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    transpose_forward("transpose_pushforward", a, rows, cols, da)
}

/// [`transpose_jvp`] and [`transpose_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn transpose_forward<T: Real>(
    op: &str,
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    check_mat(op, "a", a.len(), rows, cols);
    let dy = match da {
        Some(da) => {
            check_mat(op, "da", da.len(), rows, cols);
            transposed(da, rows, cols)
        }
        None => vec![T::zero(); a.len()],
    };
    (transposed(a, rows, cols), dy)
}

/// `da += seedᵀ` under the name `op`, nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn transpose_adjoints<T: Real>(
    op: &str,
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    seed: &[T],
) {
    check_mat(op, "a", a.len(), rows, cols);
    if let Some(da) = da.as_deref() {
        check_mat(op, "da", da.len(), rows, cols);
    }
    check_seed(op, seed.len(), a.len());
    if let Some(da) = da {
        // Seed entry `k` is element `(k % cols, k / cols)` of Aᵀ, so element `(k / cols, k % cols)`
        // of A (`cols > 0` whenever the seed has entries).
        for (k, &g) in seed.iter().enumerate() {
            let at = k / cols + (k % cols) * rows;
            da[at] = da[at] + g;
        }
    }
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
    transpose_adjoints("transpose_vjp", a, rows, cols, Some(da), seed);
    transposed(a, rows, cols)
}

/// Adjoints of [`transpose`] without its value, for generated code: `da += seedᵀ`.
#[inline]
pub fn transpose_pullback<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    seed: &[T],
) {
    transpose_adjoints("transpose_pullback", a, rows, cols, da, seed);
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
    column_forward("column_jvp", a, rows, cols, j, Some(da))
}

/// Forward mode of [`column`] for generated code: `None` for a tangent that is zero gives zeros.
#[inline]
pub fn column_pushforward<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    j: usize,
    da: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    column_forward("column_pushforward", a, rows, cols, j, da)
}

/// Column `j` of `a` and of `da` (zeros for `None`); `da` checked under the name `op`, `a` and
/// `j` under [`column`]'s.
#[inline(always)]
#[track_caller]
fn column_forward<T: Real>(
    op: &str,
    a: &[T],
    rows: usize,
    cols: usize,
    j: usize,
    da: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    if let Some(da) = da {
        check_mat(op, "da", da.len(), rows, cols);
    }
    let y = column(a, rows, cols, j);
    let dy = match da {
        Some(da) => column(da, rows, cols, j),
        None => vec![T::zero(); rows],
    };
    (y, dy)
}

/// The seed added into column `j` of `da` under the name `op`, nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn column_adjoints<T: Real>(
    op: &str,
    a: &[T],
    rows: usize,
    cols: usize,
    j: usize,
    da: Option<&mut [T]>,
    seed: &[T],
) {
    check_mat(op, "a", a.len(), rows, cols);
    if let Some(da) = da.as_deref() {
        check_mat(op, "da", da.len(), rows, cols);
    }
    check_index(op, "column", j, cols, rows, cols);
    check_seed(op, seed.len(), rows);
    if let Some(da) = da {
        for (d, &g) in da[j * rows..].iter_mut().zip(seed) {
            *d = *d + g;
        }
    }
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
    column_adjoints("column_vjp", a, rows, cols, j, Some(da), seed);
    a[j * rows..(j + 1) * rows].to_vec()
}

/// Adjoints of [`column`] without its value, for generated code: `seed` into column `j` of `da`.
#[inline]
pub fn column_pullback<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    j: usize,
    da: Option<&mut [T]>,
    seed: &[T],
) {
    column_adjoints("column_pullback", a, rows, cols, j, da, seed);
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
    row_forward("row_jvp", a, rows, cols, i, Some(da))
}

/// Forward mode of [`row`] for generated code: `None` for a tangent that is zero gives zeros.
#[inline]
pub fn row_pushforward<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    i: usize,
    da: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    row_forward("row_pushforward", a, rows, cols, i, da)
}

/// Row `i` of `a` and of `da` (zeros for `None`); `da` checked under the name `op`, `a` and `i`
/// under [`row`]'s.
#[inline(always)]
#[track_caller]
fn row_forward<T: Real>(
    op: &str,
    a: &[T],
    rows: usize,
    cols: usize,
    i: usize,
    da: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    if let Some(da) = da {
        check_mat(op, "da", da.len(), rows, cols);
    }
    let y = row(a, rows, cols, i);
    let dy = match da {
        Some(da) => row(da, rows, cols, i),
        None => vec![T::zero(); cols],
    };
    (y, dy)
}

/// The seed added into row `i` of `da` under the name `op`, nothing for a `None` buffer.
#[inline(always)]
#[track_caller]
fn row_adjoints<T: Real>(
    op: &str,
    a: &[T],
    rows: usize,
    cols: usize,
    i: usize,
    da: Option<&mut [T]>,
    seed: &[T],
) {
    check_mat(op, "a", a.len(), rows, cols);
    if let Some(da) = da.as_deref() {
        check_mat(op, "da", da.len(), rows, cols);
    }
    check_index(op, "row", i, rows, rows, cols);
    check_seed(op, seed.len(), cols);
    if let Some(da) = da {
        for (j, &g) in seed.iter().enumerate() {
            let at = i + j * rows;
            da[at] = da[at] + g;
        }
    }
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
    row_adjoints("row_vjp", a, rows, cols, i, Some(da), seed);
    (0..cols).map(|j| a[i + j * rows]).collect()
}

/// Adjoints of [`row`] without its value, for generated code: `seed` into row `i` of `da`.
#[inline]
pub fn row_pullback<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    i: usize,
    da: Option<&mut [T]>,
    seed: &[T],
) {
    row_adjoints("row_pullback", a, rows, cols, i, da, seed);
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

/// The tangent `Σ term2(da[i], b[i], db[i], a[i])` of `a · b` under the name `op`, after the
/// shape checks of the tangents present. With one `None`, `Σ term(da[i], b[i])` (or `Σ term(db[i],
/// a[i])`), which is the same sum bit for bit: each term is the full one but where either is a
/// zero, and a sum from `+0` is never `-0`, so `s + -0` and `s + +0` agree. Both `None`, `+0`.
#[inline(always)]
#[track_caller]
fn dot_tangent<T: Real>(op: &str, a: &[T], b: &[T], da: Option<&[T]>, db: Option<&[T]>) -> T {
    check_binary_adjoints(op, a, b, da, db);
    match (da, db) {
        (Some(da), Some(db)) => a
            .iter()
            .zip(b)
            .zip(da.iter().zip(db))
            .fold(T::zero(), |s, ((&x, &y), (&dx, &dy))| {
                s + term2(dx, y, dy, x)
            }),
        (Some(da), None) => tangent_dot(da, b),
        (None, Some(db)) => tangent_dot(db, a),
        (None, None) => T::zero(),
    }
}

/// `da += seed b`, `db += seed a` under the name `op` (nothing for a zero seed or a `None`
/// buffer), after the shape checks of the buffers present.
#[inline(always)]
#[track_caller]
fn dot_adjoints<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: T,
) {
    check_binary_adjoints(op, a, b, da.as_deref(), db.as_deref());
    if let Some(da) = da {
        add_seed_times(da, seed, b);
    }
    if let Some(db) = db {
        add_seed_times(db, seed, a);
    }
}

/// Forward mode of [`dot`]: `Σ da[i] b[i] + a[i] db[i]`.
#[inline]
pub fn dot_jvp<T: Real>(a: &[T], b: &[T], da: &[T], db: &[T]) -> (T, T) {
    dot_forward("dot_jvp", a, b, Some(da), Some(db))
}

/// Forward mode of [`dot`] for generated code: `None` for a tangent that is zero skips its term
/// (`Σ da[i] b[i]` or `Σ a[i] db[i]`).
#[inline]
pub fn dot_pushforward<T: Real>(a: &[T], b: &[T], da: Option<&[T]>, db: Option<&[T]>) -> (T, T) {
    dot_forward("dot_pushforward", a, b, da, db)
}

/// [`dot_jvp`] and [`dot_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn dot_forward<T: Real>(op: &str, a: &[T], b: &[T], da: Option<&[T]>, db: Option<&[T]>) -> (T, T) {
    check_same(op, "a", a.len(), "b", b.len());
    let value = na_column_dot(T::zero(), a, b);
    (value, dot_tangent(op, a, b, da, db))
}

/// Reverse mode of [`dot`]: `da += seed b`, `db += seed a`.
#[inline]
pub fn dot_vjp<T: Real>(a: &[T], b: &[T], da: &mut [T], db: &mut [T], seed: T) -> T {
    dot_adjoints("dot_vjp", a, b, Some(da), Some(db), seed);
    dot(a, b)
}

/// Adjoints of [`dot`] without its value, for generated code: `da += seed b`, `db += seed a`.
#[inline]
pub fn dot_pullback<T: Real>(
    a: &[T],
    b: &[T],
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: T,
) {
    dot_adjoints("dot_pullback", a, b, da, db, seed);
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
    (value, dot_tangent("dot_mat_jvp", a, b, Some(da), Some(db)))
}

/// Forward mode of [`dot_mat`] for generated code: `None` for a tangent that is zero skips its
/// term (as [`dot_pushforward`]).
#[inline]
pub fn dot_mat_pushforward<T: Real>(
    a: &[T],
    b: &[T],
    rows: usize,
    cols: usize,
    da: Option<&[T]>,
    db: Option<&[T]>,
) -> (T, T) {
    let value = dot_mat(a, b, rows, cols);
    (value, dot_tangent("dot_mat_pushforward", a, b, da, db))
}

/// The adjoints of [`dot_mat`] under the name `op`: its shape checks, then [`dot_adjoints`].
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn dot_mat_adjoints<T: Real>(
    op: &str,
    a: &[T],
    b: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: T,
) {
    check_mat(op, "a", a.len(), rows, cols);
    check_mat(op, "b", b.len(), rows, cols);
    dot_adjoints(op, a, b, da, db, seed);
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
    dot_mat_adjoints("dot_mat_vjp", a, b, rows, cols, Some(da), Some(db), seed);
    na_dot(a, b, rows, cols)
}

/// Adjoints of [`dot_mat`] without its value, for generated code: `da += seed b`, `db += seed a`.
#[inline]
pub fn dot_mat_pullback<T: Real>(
    a: &[T],
    b: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    db: Option<&mut [T]>,
    seed: T,
) {
    dot_mat_adjoints("dot_mat_pullback", a, b, rows, cols, da, db, seed);
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
    sum_forward("sum_jvp", a, Some(da))
}

/// Forward mode of [`sum`] for generated code: `None` for a tangent that is zero gives `0`.
#[inline]
pub fn sum_pushforward<T: Real>(a: &[T], da: Option<&[T]>) -> (T, T) {
    sum_forward("sum_pushforward", a, da)
}

/// [`sum_jvp`] and [`sum_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn sum_forward<T: Real>(op: &str, a: &[T], da: Option<&[T]>) -> (T, T) {
    let dy = match da {
        Some(da) => {
            check_same(op, "a", a.len(), "da", da.len());
            sum(da)
        }
        None => T::zero(),
    };
    (sum(a), dy)
}

/// `da[i] += seed` under the name `op`, nothing for a zero seed or a `None` buffer.
#[inline(always)]
#[track_caller]
fn sum_adjoints<T: Real>(op: &str, a: &[T], da: Option<&mut [T]>, seed: T) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
        if seed != T::zero() {
            for d in da.iter_mut() {
                *d = *d + seed;
            }
        }
    }
}

/// Reverse mode of [`sum`]: `da[i] += seed`.
#[inline]
pub fn sum_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    sum_adjoints("sum_vjp", a, Some(da), seed);
    sum(a)
}

/// Adjoints of [`sum`] without its value, for generated code: `da[i] += seed`.
#[inline]
pub fn sum_pullback<T: Real>(a: &[T], da: Option<&mut [T]>, seed: T) {
    sum_adjoints("sum_pullback", a, da, seed);
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
    mean_forward("mean_jvp", a, Some(da))
}

/// Forward mode of [`mean`] for generated code: `None` for a tangent that is zero gives `0`.
#[inline]
pub fn mean_pushforward<T: Real>(a: &[T], da: Option<&[T]>) -> (T, T) {
    mean_forward("mean_pushforward", a, da)
}

/// [`mean_jvp`] and [`mean_pushforward`] under the name `op`.
#[inline(always)]
#[track_caller]
fn mean_forward<T: Real>(op: &str, a: &[T], da: Option<&[T]>) -> (T, T) {
    let dy = match da {
        Some(da) => {
            check_same(op, "a", a.len(), "da", da.len());
            mean(da)
        }
        None => T::zero(),
    };
    (mean(a), dy)
}

/// `da[i] += seed / n` under the name `op`, nothing for a zero seed, an empty `a` or a `None`
/// buffer.
#[inline(always)]
#[track_caller]
fn mean_adjoints<T: Real>(op: &str, a: &[T], da: Option<&mut [T]>, seed: T) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
        if seed != T::zero() && !a.is_empty() {
            let g = seed / count(a.len());
            for d in da.iter_mut() {
                *d = *d + g;
            }
        }
    }
}

/// Reverse mode of [`mean`]: `da[i] += seed / n`.
#[inline]
pub fn mean_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    mean_adjoints("mean_vjp", a, Some(da), seed);
    mean(a)
}

/// Adjoints of [`mean`] without its value, for generated code: `da[i] += seed / n`.
#[inline]
pub fn mean_pullback<T: Real>(a: &[T], da: Option<&mut [T]>, seed: T) {
    mean_adjoints("mean_pullback", a, da, seed);
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
    let dy = norm_squared_tangent("norm_squared_jvp", a, Some(da));
    (norm_squared(a), dy)
}

/// Forward mode of [`norm_squared`] for generated code: `None` for a tangent that is zero gives
/// `0`.
#[inline]
pub fn norm_squared_pushforward<T: Real>(a: &[T], da: Option<&[T]>) -> (T, T) {
    let dy = norm_squared_tangent("norm_squared_pushforward", a, da);
    (norm_squared(a), dy)
}

/// `2 Σ term(da[i], a[i])` after the check of `da` under the name `op`, `0` for `None`.
#[inline(always)]
#[track_caller]
fn norm_squared_tangent<T: Real>(op: &str, a: &[T], da: Option<&[T]>) -> T {
    match da {
        Some(da) => {
            check_same(op, "a", a.len(), "da", da.len());
            let t = tangent_dot(da, a);
            t + t
        }
        None => T::zero(),
    }
}

/// `da += 2 seed a` under the name `op`, nothing for a zero seed or a `None` buffer.
#[inline(always)]
#[track_caller]
fn norm_squared_adjoints<T: Real>(op: &str, a: &[T], da: Option<&mut [T]>, seed: T) {
    if let Some(da) = da {
        check_same(op, "a", a.len(), "da", da.len());
        add_seed_times(da, seed + seed, a);
    }
}

/// Reverse mode of [`norm_squared`]: `da += 2 seed a`.
#[inline]
pub fn norm_squared_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    norm_squared_adjoints("norm_squared_vjp", a, Some(da), seed);
    norm_squared(a)
}

/// Adjoints of [`norm_squared`] without its value, for generated code: `da += 2 seed a`.
#[inline]
pub fn norm_squared_pullback<T: Real>(a: &[T], da: Option<&mut [T]>, seed: T) {
    norm_squared_adjoints("norm_squared_pullback", a, da, seed);
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
    (
        value,
        norm_squared_tangent("norm_squared_mat_jvp", a, Some(da)),
    )
}

/// Forward mode of [`norm_squared_mat`] for generated code: `None` for a tangent that is zero
/// gives `0`.
#[inline]
pub fn norm_squared_mat_pushforward<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&[T]>,
) -> (T, T) {
    let value = norm_squared_mat(a, rows, cols);
    (
        value,
        norm_squared_tangent("norm_squared_mat_pushforward", a, da),
    )
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
    let op = "norm_squared_mat_vjp";
    check_mat(op, "a", a.len(), rows, cols);
    norm_squared_adjoints(op, a, Some(da), seed);
    na_norm_squared(a, rows, cols)
}

/// Adjoints of [`norm_squared_mat`] without its value, for generated code: `da += 2 seed a`.
#[inline]
pub fn norm_squared_mat_pullback<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    seed: T,
) {
    let op = "norm_squared_mat_pullback";
    check_mat(op, "a", a.len(), rows, cols);
    norm_squared_adjoints(op, a, da, seed);
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

/// `da[i] += term(seed, a[i] / n)` under the name `op`: the adjoint of the norm `n` of `a`, which
/// `norm` gives, nothing at `n == 0`. The norm is computed only for a `Some` buffer and a nonzero
/// seed.
#[inline(always)]
#[track_caller]
fn norm_adjoints<T: Real>(
    op: &str,
    a: &[T],
    norm: impl FnOnce() -> T,
    da: Option<&mut [T]>,
    seed: T,
) {
    let Some(da) = da else { return };
    check_same(op, "a", a.len(), "da", da.len());
    if seed == T::zero() {
        return;
    }
    let n = norm();
    if n == T::zero() {
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
    let n = norm(a);
    (n, norm_tangent_of("norm_jvp", a, n, Some(da)))
}

/// Forward mode of [`norm`] for generated code: `None` for a tangent that is zero gives `0`.
#[inline]
pub fn norm_pushforward<T: Real>(a: &[T], da: Option<&[T]>) -> (T, T) {
    let n = norm(a);
    (n, norm_tangent_of("norm_pushforward", a, n, da))
}

/// [`norm_tangent`] after the check of `da` under the name `op`, `0` for `None`.
#[inline(always)]
#[track_caller]
fn norm_tangent_of<T: Real>(op: &str, a: &[T], n: T, da: Option<&[T]>) -> T {
    match da {
        Some(da) => {
            check_same(op, "a", a.len(), "da", da.len());
            norm_tangent(a, n, da)
        }
        None => T::zero(),
    }
}

/// Reverse mode of [`norm`]: `da += seed a / ‖a‖`, nothing at `a = 0` (see the module docs).
#[inline]
pub fn norm_vjp<T: Real>(a: &[T], da: &mut [T], seed: T) -> T {
    let n = norm(a);
    norm_adjoints("norm_vjp", a, || n, Some(da), seed);
    n
}

/// Adjoints of [`norm`] without its value, for generated code: `da += seed a / ‖a‖` (`0` at `0`).
#[inline]
pub fn norm_pullback<T: Real>(a: &[T], da: Option<&mut [T]>, seed: T) {
    norm_adjoints("norm_pullback", a, || norm(a), da, seed);
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
    (n, norm_tangent_of("norm_mat_jvp", a, n, Some(da)))
}

/// Forward mode of [`norm_mat`] for generated code: `None` for a tangent that is zero gives `0`.
#[inline]
pub fn norm_mat_pushforward<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&[T]>,
) -> (T, T) {
    let n = norm_mat(a, rows, cols);
    (n, norm_tangent_of("norm_mat_pushforward", a, n, da))
}

/// Reverse mode of [`norm_mat`]: `da += seed a / ‖a‖`, nothing at `a = 0`.
#[inline]
pub fn norm_mat_vjp<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T], seed: T) -> T {
    let op = "norm_mat_vjp";
    check_mat(op, "a", a.len(), rows, cols);
    let n = na_norm_squared(a, rows, cols).sqrt();
    norm_adjoints(op, a, || n, Some(da), seed);
    n
}

/// Adjoints of [`norm_mat`] without its value, for generated code: `da += seed a / ‖a‖`.
#[inline]
pub fn norm_mat_pullback<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    seed: T,
) {
    let op = "norm_mat_pullback";
    check_mat(op, "a", a.len(), rows, cols);
    norm_adjoints(op, a, || na_norm_squared(a, rows, cols).sqrt(), da, seed);
}

/// [`norm_mat_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
pub fn norm_mat_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T]) {
    check_mat("norm_mat_vjp", "a", a.len(), rows, cols);
    check_same("norm_mat_vjp", "a", a.len(), "da", da.len());
}
