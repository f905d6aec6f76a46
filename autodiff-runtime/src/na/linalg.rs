//! Rules of square-matrix functions on column-major storage: `determinant` (`m.determinant()`).
//!
//! The derivative of `det A` is `Σ C_ij dA_ij` with `C` the cofactor matrix (`C_ij` is
//! `(-1)^(i+j)` times the determinant of `A` without row `i` and column `j`; `C = det(A) A⁻ᵀ`
//! when `A` is invertible). The cofactors are computed as such, not as `det(A) A⁻ᵀ`, so the
//! derivative is right at singular matrices too (where it is the adjugate's transpose, nonzero
//! for rank `n - 1`): explicit formulas for `n ≤ 3`, `det(A) A⁻ᵀ` from an LU factorisation for
//! larger invertible matrices, and minors' determinants for larger singular ones.

use super::*;

/// Panics unless `a` is the storage of a square `rows x cols` matrix (nalgebra's `determinant`
/// and `trace` panic on non-square matrices too); `what` names the quantity.
#[track_caller]
fn check_square(op: &str, what: &str, len: usize, rows: usize, cols: usize) -> usize {
    assert!(
        rows == cols,
        "na::{op}: the {what} of a non-square {rows} x {cols} matrix"
    );
    check_mat(op, "a", len, rows, cols);
    rows
}

/// The determinant of the column-major `n x n` matrix `a` (element `(i, j)` at `i + j n`).
fn det<T: Real>(a: &[T], n: usize) -> T {
    let at = |i: usize, j: usize| a[i + j * n];
    match n {
        0 => T::one(),
        1 => a[0],
        2 => at(0, 0) * at(1, 1) - at(0, 1) * at(1, 0),
        3 => {
            at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1))
                - at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0))
                + at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0))
        }
        _ => lu(a, n).map_or(T::zero(), |f| f.det),
    }
}

/// An LU factorisation with partial pivoting, row-major `lu` (`L` unit lower, `U` upper).
struct Lu<T> {
    lu: Vec<T>,
    perm: Vec<usize>,
    det: T,
}

/// `P A = L U` of the column-major `a`; `None` when a pivot is exactly zero (singular).
fn lu<T: Real>(a: &[T], n: usize) -> Option<Lu<T>> {
    // Row-major working copy.
    let mut m: Vec<T> = (0..n * n).map(|k| a[(k / n) + (k % n) * n]).collect();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut det = T::one();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&x, &y| {
                m[x * n + c]
                    .abs()
                    .partial_cmp(&m[y * n + c].abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .unwrap_or(c);
        if m[p * n + c] == T::zero() || m[p * n + c].is_nan() {
            return None;
        }
        if p != c {
            for k in 0..n {
                m.swap(p * n + k, c * n + k);
            }
            perm.swap(p, c);
            det = -det;
        }
        let pivot = m[c * n + c];
        det = det * pivot;
        for r in c + 1..n {
            let f = m[r * n + c] / pivot;
            m[r * n + c] = f;
            for k in c + 1..n {
                m[r * n + k] = m[r * n + k] - f * m[c * n + k];
            }
        }
    }
    Some(Lu { lu: m, perm, det })
}

/// The determinant and the cofactor matrix `C` of the column-major `n x n` matrix `a`
/// (column-major: `d det = Σ C[k] da[k]`), from one factorisation for `n > 3`.
fn det_and_cofactors<T: Real>(a: &[T], n: usize) -> (T, Vec<T>) {
    let at = |i: usize, j: usize| a[i + j * n];
    let c = match n {
        0 => Vec::new(),
        1 => vec![T::one()],
        2 => vec![at(1, 1), -at(0, 1), -at(1, 0), at(0, 0)],
        3 => {
            let mut c = vec![T::zero(); 9];
            for j in 0..3 {
                for i in 0..3 {
                    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
                    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                    // The cyclic order of the remaining rows and columns carries the sign.
                    c[i + j * 3] = at(i1, j1) * at(i2, j2) - at(i1, j2) * at(i2, j1);
                }
            }
            c
        }
        _ => {
            return match lu(a, n) {
                Some(f) => (f.det, det_inverse_transpose(&f, n)),
                None => (T::zero(), minors(a, n)),
            }
        }
    };
    (det(a, n), c)
}

/// `det(A) A⁻ᵀ`, column-major, from the factorisation: column `j` of `A⁻ᵀ` is row `j` of `A⁻¹`,
/// so solve `Aᵀ x = e_j` (`Uᵀ Lᵀ P x = e_j`).
fn det_inverse_transpose<T: Real>(f: &Lu<T>, n: usize) -> Vec<T> {
    let m = &f.lu;
    let mut out = vec![T::zero(); n * n];
    let mut y = vec![T::zero(); n];
    for j in 0..n {
        // Uᵀ z = e_j (forward substitution; Uᵀ is lower triangular).
        for r in 0..n {
            let mut s = if r == j { T::one() } else { T::zero() };
            for k in 0..r {
                s = s - m[k * n + r] * y[k];
            }
            y[r] = s / m[r * n + r];
        }
        // Lᵀ w = z (back substitution; Lᵀ is unit upper triangular).
        for r in (0..n).rev() {
            let mut s = y[r];
            for k in r + 1..n {
                s = s - m[k * n + r] * y[k];
            }
            y[r] = s;
        }
        // x = Pᵀ w: row perm[r] of x is w[r].
        for r in 0..n {
            out[f.perm[r] + j * n] = f.det * y[r];
        }
    }
    out
}

/// The cofactors by their definition (a singular matrix of size above 3).
fn minors<T: Real>(a: &[T], n: usize) -> Vec<T> {
    let mut out = vec![T::zero(); n * n];
    let mut sub = vec![T::zero(); (n - 1) * (n - 1)];
    for j in 0..n {
        for i in 0..n {
            let mut k = 0;
            for jj in (0..n).filter(|&c| c != j) {
                for ii in (0..n).filter(|&r| r != i) {
                    sub[k] = a[ii + jj * n];
                    k += 1;
                }
            }
            let m = det(&sub, n - 1);
            out[i + j * n] = if (i + j) % 2 == 0 { m } else { -m };
        }
    }
    out
}

/// `det(a)` of the column-major `rows x cols` storage `a` (`rows == cols`).
#[inline]
#[track_caller]
pub fn determinant<T: Real>(a: &[T], rows: usize, cols: usize) -> T {
    let n = check_square("determinant", "determinant", a.len(), rows, cols);
    det(a, n)
}

/// Forward mode of [`determinant`]: `Σ C_ij da_ij` (`C` the cofactors).
#[track_caller]
pub fn determinant_jvp<T: Real>(a: &[T], rows: usize, cols: usize, da: &[T]) -> (T, T) {
    determinant_pushforward(a, rows, cols, Some(da))
}

/// Forward mode of [`determinant`] for generated code: `None` for a zero tangent.
#[track_caller]
pub fn determinant_pushforward<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&[T]>,
) -> (T, T) {
    let n = check_square("determinant_jvp", "determinant", a.len(), rows, cols);
    match da {
        Some(da) => {
            check_same("determinant_jvp", "a", a.len(), "da", da.len());
            let (y, c) = det_and_cofactors(a, n);
            let dy = c.iter().zip(da).fold(T::zero(), |s, (&c, &d)| s + c * d);
            (y, dy)
        }
        None => (det(a, n), T::zero()),
    }
}

/// Reverse mode of [`determinant`]: `da += seed C`.
#[track_caller]
pub fn determinant_vjp<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T], seed: T) -> T {
    determinant_adjoints(a, rows, cols, da, seed)
}

/// Adjoints of [`determinant`] without its value, for generated code.
#[track_caller]
pub fn determinant_pullback<T: Real>(
    a: &[T],
    rows: usize,
    cols: usize,
    da: Option<&mut [T]>,
    seed: T,
) {
    match da {
        Some(da) => {
            determinant_adjoints(a, rows, cols, da, seed);
        }
        None => {
            check_square("determinant_vjp", "determinant", a.len(), rows, cols);
        }
    }
}

/// `da += seed C`; gives the determinant (from the same factorisation).
#[track_caller]
fn determinant_adjoints<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T], seed: T) -> T {
    let n = check_square("determinant_vjp", "determinant", a.len(), rows, cols);
    check_same("determinant_vjp", "a", a.len(), "da", da.len());
    let (y, c) = det_and_cofactors(a, n);
    for (d, c) in da.iter_mut().zip(c) {
        *d = *d + seed * c;
    }
    y
}

/// [`determinant_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[track_caller]
pub fn determinant_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T]) {
    check_square("determinant_vjp", "determinant", a.len(), rows, cols);
    check_same("determinant_vjp", "a", a.len(), "da", da.len());
}

/// `Σ a_ii` of the column-major square `rows x cols` storage `a` (nalgebra's `trace`, which
/// also asks for a square matrix).
#[inline]
#[track_caller]
pub fn trace<T: Real>(a: &[T], rows: usize, cols: usize) -> T {
    let n = check_square("trace", "trace", a.len(), rows, cols);
    (0..n).fold(T::zero(), |s, i| s + a[i + i * n])
}

/// Forward mode of [`trace`]: the trace of the tangent.
#[inline]
#[track_caller]
pub fn trace_jvp<T: Real>(a: &[T], rows: usize, cols: usize, da: &[T]) -> (T, T) {
    trace_pushforward(a, rows, cols, Some(da))
}

/// Forward mode of [`trace`] for generated code: `None` for a zero tangent.
#[inline]
#[track_caller]
pub fn trace_pushforward<T: Real>(a: &[T], rows: usize, cols: usize, da: Option<&[T]>) -> (T, T) {
    let y = trace(a, rows, cols);
    let dy = match da {
        Some(da) => {
            check_same("trace_jvp", "a", a.len(), "da", da.len());
            trace(da, rows, cols)
        }
        None => T::zero(),
    };
    (y, dy)
}

/// Reverse mode of [`trace`]: `da_ii += seed`.
#[inline]
#[track_caller]
pub fn trace_vjp<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T], seed: T) -> T {
    trace_pullback(a, rows, cols, Some(da), seed);
    trace(a, rows, cols)
}

/// Adjoints of [`trace`] without its value, for generated code.
#[inline]
#[track_caller]
pub fn trace_pullback<T: Real>(a: &[T], rows: usize, cols: usize, da: Option<&mut [T]>, seed: T) {
    let n = check_square("trace_vjp", "trace", a.len(), rows, cols);
    if let Some(da) = da {
        check_same("trace_vjp", "a", a.len(), "da", da.len());
        for i in 0..n {
            da[i + i * n] = da[i + i * n] + seed;
        }
    }
}

/// [`trace_vjp`] with a zero seed: checks the shapes, adds nothing.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn trace_vjp_dropped<T: Real>(a: &[T], rows: usize, cols: usize, da: &mut [T]) {
    check_square("trace_vjp", "trace", a.len(), rows, cols);
    check_same("trace_vjp", "a", a.len(), "da", da.len());
}
