//! Row-wise kernels over a row-major matrix: takes `x` (`rows x cols`), gives `softmax`,
//! `log_softmax` (same shape) and `logsumexp` (one value per row), each with JVP and VJP, with the
//! maximum of each row subtracted before exponentiating (no overflow).
//!
//! Non-finite rows: a row holding NaN gives NaN; a row whose maximum is +inf, or whose entries are
//! all -inf, has `logsumexp` +inf or -inf and NaN softmax entries.

use super::isa::{dispatch, Arith, Isa, Job};
use super::mat::{MatMut, MatRef};
use super::math;
use super::real::Real;

const LANES: usize = 16;

/// Maximum of a row (NaN entries skipped, -inf for an empty row).
#[inline(always)]
fn row_max<T: Real>(row: &[T]) -> T {
    let mut acc = [T::neg_infinity(); LANES];
    let chunks = row.chunks_exact(LANES);
    for (l, &v) in chunks.remainder().iter().enumerate() {
        acc[l] = if v > acc[l] { v } else { acc[l] };
    }
    for c in chunks {
        for l in 0..LANES {
            acc[l] = if c[l] > acc[l] { c[l] } else { acc[l] };
        }
    }
    acc.iter()
        .fold(T::neg_infinity(), |m, &v| if v > m { v } else { m })
}

/// `Σ row[j]` in independent lanes.
#[inline(always)]
pub(crate) fn row_sum<T: Real>(row: &[T]) -> T {
    let mut acc = [T::zero(); LANES];
    let chunks = row.chunks_exact(LANES);
    for (l, &v) in chunks.remainder().iter().enumerate() {
        acc[l] = acc[l] + v;
    }
    for c in chunks {
        for l in 0..LANES {
            acc[l] = acc[l] + c[l];
        }
    }
    acc.iter().fold(T::zero(), |s, &v| s + v)
}

/// `Σ a[j] b[j]` in independent lanes.
#[inline(always)]
pub(crate) fn row_dot<T: Real, A: Arith>(a: &[T], b: &[T]) -> T {
    let mut acc = [T::zero(); LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    for (l, (&u, &v)) in ca.remainder().iter().zip(cb.remainder()).enumerate() {
        acc[l] = A::madd(u, v, acc[l]);
    }
    for (u, v) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] = A::madd(u[l], v[l], acc[l]);
        }
    }
    acc.iter().fold(T::zero(), |s, &v| s + v)
}

/// `(shift, sum)` with `sum = Σ exp(row[j] - shift)`: the shift is the row's maximum when it is
/// finite, else 0 (so that all -inf gives sum 0 and a +inf gives sum +inf). `exps`, if given,
/// receives the `exp(row[j] - shift)`.
#[inline(always)]
fn shifted_exp_sum<T: Real, A: Arith>(row: &[T], exps: &mut [T]) -> (T, T) {
    let m = row_max(row);
    let shift = if m.is_finite() { m } else { T::zero() };
    for (e, &v) in exps.iter_mut().zip(row) {
        *e = math::exp::<T, A>(v - shift);
    }
    (shift, row_sum(exps))
}

/// `logsumexp` of one row, using `scratch` (at least as long as the row).
#[inline(always)]
pub(crate) fn row_lse<T: Real, A: Arith>(row: &[T], scratch: &mut [T]) -> T {
    let (shift, sum) = shifted_exp_sum::<T, A>(row, &mut scratch[..row.len()]);
    shift + math::ln::<T, A>(sum)
}

/// Softmax of one row into `p` (same length).
#[inline(always)]
pub(crate) fn row_softmax<T: Real, A: Arith>(row: &[T], p: &mut [T]) {
    let (_, sum) = shifted_exp_sum::<T, A>(row, p);
    let inv = T::one() / sum;
    for v in p.iter_mut() {
        *v = *v * inv;
    }
}

pub(crate) fn check_row_major<T>(what: &str, name: &str, x: &MatRef<'_, T>) {
    assert!(
        x.cs == 1 || x.cols <= 1,
        "kernels::{what}: {name} must be a row-major view, not a transposed one"
    );
}

pub(crate) fn check_same_shape<T, U>(what: &str, x: &MatRef<'_, T>, name: &str, y: &MatMut<'_, U>) {
    assert!(
        x.rows == y.rows && x.cols == y.cols,
        "kernels::{what}: shapes do not agree: x is {} x {}, {name} is {} x {}",
        x.rows,
        x.cols,
        y.rows,
        y.cols
    );
}

fn check_shapes2<T>(what: &str, x: &MatRef<'_, T>, name: &str, d: &MatRef<'_, T>) {
    check_row_major(what, name, d);
    assert!(
        x.rows == d.rows && x.cols == d.cols,
        "kernels::{what}: shapes do not agree: x is {} x {}, {name} is {} x {}",
        x.rows,
        x.cols,
        d.rows,
        d.cols
    );
}

fn check_row_len(what: &str, name: &str, rows: usize, len: usize) {
    assert!(
        len == rows,
        "kernels::{what}: {name} has {len} elements, x has {rows} rows"
    );
}

/// Row `i` of a row-major view.
#[inline(always)]
pub(crate) fn row<'a, T>(x: &MatRef<'a, T>, i: usize) -> &'a [T] {
    if x.cols == 0 {
        &[]
    } else {
        &x.data[i * x.rs..][..x.cols]
    }
}

/// Which row-wise function a job computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Softmax,
    LogSoftmax,
}

struct RowFwd<'a, T> {
    kind: Kind,
    x: MatRef<'a, T>,
    y: MatMut<'a, T>,
}

impl<T: Real> Job for RowFwd<'_, T> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let RowFwd { kind, x, mut y } = self;
        for i in 0..x.rows {
            let (xi, yi) = (row(&x, i), y.row_mut(i));
            if kind == Kind::Softmax {
                row_softmax::<T, A>(xi, yi);
            } else {
                let lse = row_lse::<T, A>(xi, yi);
                for (v, &xv) in yi.iter_mut().zip(xi) {
                    *v = xv - lse;
                }
            }
        }
    }
}

struct RowJvp<'a, T> {
    kind: Kind,
    x: MatRef<'a, T>,
    dx: MatRef<'a, T>,
    y: MatMut<'a, T>,
    dy: MatMut<'a, T>,
}

impl<T: Real> Job for RowJvp<'_, T> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let RowJvp {
            kind,
            x,
            dx,
            mut y,
            mut dy,
        } = self;
        for i in 0..x.rows {
            let (xi, dxi, yi, dyi) = (row(&x, i), row(&dx, i), y.row_mut(i), dy.row_mut(i));
            // p = softmax in dy's row for now.
            row_softmax::<T, A>(xi, dyi);
            let c = row_dot::<T, A>(dyi, dxi);
            if kind == Kind::Softmax {
                yi.copy_from_slice(dyi);
                for (d, (&p, &t)) in dyi.iter_mut().zip(yi.iter().zip(dxi)) {
                    *d = p * (t - c);
                }
            } else {
                let lse = row_lse::<T, A>(xi, yi);
                for (v, &xv) in yi.iter_mut().zip(xi) {
                    *v = xv - lse;
                }
                for (d, &t) in dyi.iter_mut().zip(dxi) {
                    *d = t - c;
                }
            }
        }
    }
}

struct RowVjp<'a, T> {
    kind: Kind,
    x: MatRef<'a, T>,
    y_bar: MatRef<'a, T>,
    x_bar: MatMut<'a, T>,
}

impl<T: Real> Job for RowVjp<'_, T> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let RowVjp {
            kind,
            x,
            y_bar,
            mut x_bar,
        } = self;
        let mut p = vec![T::zero(); x.cols];
        for i in 0..x.rows {
            let (xi, ybi, xbi) = (row(&x, i), row(&y_bar, i), x_bar.row_mut(i));
            row_softmax::<T, A>(xi, &mut p);
            if kind == Kind::Softmax {
                // x_bar += p ⊙ (y_bar - <p, y_bar>)
                let c = row_dot::<T, A>(&p, ybi);
                for (xb, (&pv, &yb)) in xbi.iter_mut().zip(p.iter().zip(ybi)) {
                    *xb = A::madd(pv, yb - c, *xb);
                }
            } else {
                // x_bar += y_bar - p Σ y_bar
                let c = row_sum(ybi);
                for (xb, (&pv, &yb)) in xbi.iter_mut().zip(p.iter().zip(ybi)) {
                    *xb = *xb + (yb - pv * c);
                }
            }
        }
    }
}

fn fwd<T: Real>(what: &str, kind: Kind, x: MatRef<'_, T>, y: MatMut<'_, T>) {
    check_row_major(what, "x", &x);
    check_same_shape(what, &x, "y", &y);
    dispatch(RowFwd { kind, x, y });
}

fn jvp<T: Real>(
    what: &str,
    kind: Kind,
    x: MatRef<'_, T>,
    dx: MatRef<'_, T>,
    y: MatMut<'_, T>,
    dy: MatMut<'_, T>,
) {
    check_row_major(what, "x", &x);
    check_shapes2(what, &x, "dx", &dx);
    check_same_shape(what, &x, "y", &y);
    check_same_shape(what, &x, "dy", &dy);
    dispatch(RowJvp { kind, x, dx, y, dy });
}

fn vjp<T: Real>(
    what: &str,
    kind: Kind,
    x: MatRef<'_, T>,
    y_bar: MatRef<'_, T>,
    x_bar: MatMut<'_, T>,
) {
    check_row_major(what, "x", &x);
    check_shapes2(what, &x, "y_bar", &y_bar);
    check_same_shape(what, &x, "x_bar", &x_bar);
    dispatch(RowVjp {
        kind,
        x,
        y_bar,
        x_bar,
    });
}

/// Row-wise softmax: `y[i][j] = exp(x[i][j] - m_i) / Σ_k exp(x[i][k] - m_i)`, `m_i` the row's
/// maximum.
///
/// # Panics
///
/// If `x` is a transposed view or the shapes of `x` and `y` differ.
pub fn softmax<T: Real>(x: MatRef<'_, T>, y: MatMut<'_, T>) {
    fwd("softmax", Kind::Softmax, x, y)
}

/// JVP of [`softmax`]: `y = softmax(x)`, `dy[i][j] = y[i][j] (dx[i][j] - Σ_k y[i][k] dx[i][k])`.
///
/// # Panics
///
/// If a view is transposed or the shapes differ.
pub fn softmax_jvp<T: Real>(
    x: MatRef<'_, T>,
    dx: MatRef<'_, T>,
    y: MatMut<'_, T>,
    dy: MatMut<'_, T>,
) {
    jvp("softmax_jvp", Kind::Softmax, x, dx, y, dy)
}

/// VJP of [`softmax`] (recomputes `y` from `x`): `x_bar[i][j] += y[i][j] (y_bar[i][j] -
/// Σ_k y[i][k] y_bar[i][k])`.
///
/// # Panics
///
/// If a view is transposed or the shapes differ.
pub fn softmax_vjp<T: Real>(x: MatRef<'_, T>, y_bar: MatRef<'_, T>, x_bar: MatMut<'_, T>) {
    vjp("softmax_vjp", Kind::Softmax, x, y_bar, x_bar)
}

/// Row-wise log-softmax: `y[i][j] = x[i][j] - logsumexp(x[i])`.
///
/// # Panics
///
/// If `x` is a transposed view or the shapes of `x` and `y` differ.
pub fn log_softmax<T: Real>(x: MatRef<'_, T>, y: MatMut<'_, T>) {
    fwd("log_softmax", Kind::LogSoftmax, x, y)
}

/// JVP of [`log_softmax`]: `y = log_softmax(x)`, `dy[i][j] = dx[i][j] - Σ_k p[i][k] dx[i][k]`
/// with `p = softmax(x)`.
///
/// # Panics
///
/// If a view is transposed or the shapes differ.
pub fn log_softmax_jvp<T: Real>(
    x: MatRef<'_, T>,
    dx: MatRef<'_, T>,
    y: MatMut<'_, T>,
    dy: MatMut<'_, T>,
) {
    jvp("log_softmax_jvp", Kind::LogSoftmax, x, dx, y, dy)
}

/// VJP of [`log_softmax`]: `x_bar[i][j] += y_bar[i][j] - p[i][j] Σ_k y_bar[i][k]`,
/// `p = softmax(x)`.
///
/// # Panics
///
/// If a view is transposed or the shapes differ.
pub fn log_softmax_vjp<T: Real>(x: MatRef<'_, T>, y_bar: MatRef<'_, T>, x_bar: MatMut<'_, T>) {
    vjp("log_softmax_vjp", Kind::LogSoftmax, x, y_bar, x_bar)
}

struct Lse<'a, T> {
    x: MatRef<'a, T>,
    dx: Option<MatRef<'a, T>>,
    out: &'a mut [T],
    d_out: Option<&'a mut [T]>,
}

impl<T: Real> Job for Lse<'_, T> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let Lse {
            x,
            dx,
            out,
            mut d_out,
        } = self;
        let mut p = vec![T::zero(); x.cols];
        for (i, o) in out.iter_mut().enumerate() {
            let xi = row(&x, i);
            *o = row_lse::<T, A>(xi, &mut p);
            if let (Some(dx), Some(d_out)) = (&dx, &mut d_out) {
                row_softmax::<T, A>(xi, &mut p);
                d_out[i] = row_dot::<T, A>(&p, row(dx, i));
            }
        }
    }
}

/// Row-wise log-sum-exp: `out[i] = m_i + ln Σ_j exp(x[i][j] - m_i)`, `m_i` the row's maximum
/// (`-inf` for a row with no columns).
///
/// # Panics
///
/// If `x` is a transposed view or `out.len() != x.rows()`.
pub fn logsumexp<T: Real>(x: MatRef<'_, T>, out: &mut [T]) {
    check_row_major("logsumexp", "x", &x);
    check_row_len("logsumexp", "out", x.rows, out.len());
    dispatch(Lse {
        x,
        dx: None,
        out,
        d_out: None,
    })
}

/// JVP of [`logsumexp`]: `out` as there, `d_out[i] = Σ_j p[i][j] dx[i][j]`, `p = softmax(x)`.
///
/// # Panics
///
/// If a view is transposed, the shapes of `x` and `dx` differ, or `out` or `d_out` do not have
/// one element per row.
pub fn logsumexp_jvp<T: Real>(x: MatRef<'_, T>, dx: MatRef<'_, T>, out: &mut [T], d_out: &mut [T]) {
    check_row_major("logsumexp_jvp", "x", &x);
    check_shapes2("logsumexp_jvp", &x, "dx", &dx);
    check_row_len("logsumexp_jvp", "out", x.rows, out.len());
    check_row_len("logsumexp_jvp", "d_out", x.rows, d_out.len());
    dispatch(Lse {
        x,
        dx: Some(dx),
        out,
        d_out: Some(d_out),
    })
}

struct LseVjp<'a, T> {
    x: MatRef<'a, T>,
    out_bar: &'a [T],
    x_bar: MatMut<'a, T>,
}

impl<T: Real> Job for LseVjp<'_, T> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let LseVjp {
            x,
            out_bar,
            mut x_bar,
        } = self;
        let mut p = vec![T::zero(); x.cols];
        for (i, &ob) in out_bar.iter().enumerate() {
            row_softmax::<T, A>(row(&x, i), &mut p);
            for (xb, &pv) in x_bar.row_mut(i).iter_mut().zip(&p) {
                *xb = A::madd(pv, ob, *xb);
            }
        }
    }
}

/// VJP of [`logsumexp`]: `x_bar[i][j] += p[i][j] out_bar[i]`, `p = softmax(x)`.
///
/// # Panics
///
/// If `x` is a transposed view, `out_bar` does not have one element per row, or the shapes of
/// `x` and `x_bar` differ.
pub fn logsumexp_vjp<T: Real>(x: MatRef<'_, T>, out_bar: &[T], x_bar: MatMut<'_, T>) {
    check_row_major("logsumexp_vjp", "x", &x);
    check_row_len("logsumexp_vjp", "out_bar", x.rows, out_bar.len());
    check_same_shape("logsumexp_vjp", &x, "x_bar", &x_bar);
    dispatch(LseVjp { x, out_bar, x_bar })
}
