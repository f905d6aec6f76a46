//! Rearrangements: `transpose`, a `column`, a `row`.

use super::*;

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
