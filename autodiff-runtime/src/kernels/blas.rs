//! Vector and matrix-vector kernels: takes slices and matrix views, gives `dot`, `axpy`,
//! `matvec` (`y = alpha * op(A) x + beta * y`) and `ger` (`A += alpha * x yᵀ`), written so that
//! LLVM vectorizes them on each path (reductions over a fixed array of independent lanes).

use super::isa::{dispatch, Arith, Isa, Job};
use super::mat::{MatMut, MatRef};
use super::real::Real;

/// Independent partial sums of a reduction: enough vectors to hide the FMA latency.
const LANES: usize = 32;

#[inline(always)]
fn dot_body<T: Real, A: Arith>(x: &[T], y: &[T]) -> T {
    let mut acc = [T::zero(); LANES];
    let (xc, yc) = (x.chunks_exact(LANES), y.chunks_exact(LANES));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (xs, ys) in xc.zip(yc) {
        for l in 0..LANES {
            acc[l] = A::madd(xs[l], ys[l], acc[l]);
        }
    }
    for (l, (&xv, &yv)) in xr.iter().zip(yr).enumerate() {
        acc[l] = A::madd(xv, yv, acc[l]);
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            acc[l] = acc[l] + acc[l + width];
        }
    }
    acc[0]
}

#[inline(always)]
fn axpy_body<T: Real, A: Arith>(alpha: T, x: &[T], y: &mut [T]) {
    for (yv, &xv) in y.iter_mut().zip(x) {
        *yv = A::madd(alpha, xv, *yv);
    }
}

fn check_len(what: &str, a: &str, la: usize, b: &str, lb: usize) {
    assert!(
        la == lb,
        "kernels::{what}: length mismatch: {a} has {la} elements, {b} has {lb}"
    );
}

/// `Σ x[i] y[i]`, summed in 32 interleaved partial sums (so the rounding differs from a
/// left-to-right loop by a few ulp of the terms' magnitudes).
///
/// # Panics
///
/// If `x.len() != y.len()`.
pub fn dot<T: Real>(x: &[T], y: &[T]) -> T {
    check_len("dot", "x", x.len(), "y", y.len());
    struct Dot<'a, T>(&'a [T], &'a [T]);
    impl<T: Real> Job for Dot<'_, T> {
        type Out = T;
        #[inline(always)]
        fn run<A: Arith>(self, _: Isa) -> T {
            dot_body::<T, A>(self.0, self.1)
        }
    }
    dispatch(Dot(x, y))
}

/// `y += alpha * x` (accumulates, as adjoints do).
///
/// # Panics
///
/// If `x.len() != y.len()`.
pub fn axpy<T: Real>(alpha: T, x: &[T], y: &mut [T]) {
    check_len("axpy", "x", x.len(), "y", y.len());
    struct Axpy<'a, T>(T, &'a [T], &'a mut [T]);
    impl<T: Real> Job for Axpy<'_, T> {
        type Out = ();
        #[inline(always)]
        fn run<A: Arith>(self, _: Isa) {
            axpy_body::<T, A>(self.0, self.1, self.2)
        }
    }
    dispatch(Axpy(alpha, x, y))
}

/// `y = alpha * A x + beta * y`, where `a` may be a transposed view ([`MatRef::t`]) for
/// `y = alpha * Aᵀ x + beta * y`. With `beta == 0`, y is only written (NaN in y is ignored).
///
/// For `y = A x`, the VJP is `x_bar += Aᵀ y_bar` (`matvec(1, a.t(), y_bar, 1, x_bar)`) and
/// `A_bar += y_bar xᵀ` ([`ger`]`(1, y_bar, x, a_bar)`).
///
/// # Panics
///
/// If `x.len() != a.cols()` or `y.len() != a.rows()`.
pub fn matvec<T: Real>(alpha: T, a: MatRef<'_, T>, x: &[T], beta: T, y: &mut [T]) {
    assert!(
        x.len() == a.cols && y.len() == a.rows,
        "kernels::matvec: shapes do not agree: A is {} x {}, x has {} elements, y has {} \
         (need A: m x n, x: n, y: m)",
        a.rows,
        a.cols,
        x.len(),
        y.len()
    );
    struct MatVec<'a, T> {
        alpha: T,
        a: MatRef<'a, T>,
        x: &'a [T],
        beta: T,
        y: &'a mut [T],
    }
    impl<T: Real> Job for MatVec<'_, T> {
        type Out = ();
        #[inline(always)]
        fn run<A: Arith>(self, _: Isa) {
            let MatVec {
                alpha,
                a,
                x,
                beta,
                y,
            } = self;
            if a.cs == 1 && a.cols > 0 {
                // Rows contiguous: one dot product per row.
                for (i, yi) in y.iter_mut().enumerate() {
                    let d = dot_body::<T, A>(&a.data[i * a.rs..][..a.cols], x);
                    *yi = if beta == T::zero() {
                        alpha * d
                    } else {
                        A::madd(alpha, d, beta * *yi)
                    };
                }
            } else {
                // Columns contiguous (a transposed view), or no columns: y = beta y, then one
                // axpy per column.
                for yi in y.iter_mut() {
                    *yi = if beta == T::zero() {
                        T::zero()
                    } else {
                        beta * *yi
                    };
                }
                if a.rows > 0 && alpha != T::zero() {
                    for (j, &xj) in x.iter().enumerate() {
                        axpy_body::<T, A>(alpha * xj, &a.data[j * a.cs..][..a.rows], y);
                    }
                }
            }
        }
    }
    dispatch(MatVec {
        alpha,
        a,
        x,
        beta,
        y,
    })
}

/// `A += alpha * x yᵀ` (rank-one update, accumulating into the row-major `a`).
///
/// # Panics
///
/// If `x.len() != a.rows()` or `y.len() != a.cols()`.
pub fn ger<T: Real>(alpha: T, x: &[T], y: &[T], a: MatMut<'_, T>) {
    assert!(
        x.len() == a.rows && y.len() == a.cols,
        "kernels::ger: shapes do not agree: A is {} x {}, x has {} elements, y has {} \
         (need A: m x n, x: m, y: n)",
        a.rows,
        a.cols,
        x.len(),
        y.len()
    );
    struct Ger<'a, T>(T, &'a [T], &'a [T], MatMut<'a, T>);
    impl<T: Real> Job for Ger<'_, T> {
        type Out = ();
        #[inline(always)]
        fn run<A: Arith>(self, _: Isa) {
            let Ger(alpha, x, y, mut a) = self;
            for (i, &xi) in x.iter().enumerate() {
                axpy_body::<T, A>(alpha * xi, y, a.row_mut(i));
            }
        }
    }
    dispatch(Ger(alpha, x, y, a))
}
