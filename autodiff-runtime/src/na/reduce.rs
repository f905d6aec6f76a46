//! Scalar outputs: `dot`, `dot_mat`, `sum`, `mean`, `norm_squared`, `norm` and their shaped forms,
//! summed in nalgebra 0.33's order.

use super::*;

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
