//! Dense Jacobians: takes the values a generated `<f>_jacobian` handles (float outputs and
//! tangents: floats, arrays, slices, `Vec`s, nalgebra matrices (column-major), tuples of them),
//! gives them as flat sequences of scalars ([`Flat`]) and the row-major [`Jacobian`] matrix
//! `<f>_jacobian` returns.
//!
//! Rows are the function's outputs flattened in order (a tuple's components one after another),
//! columns its active arguments flattened in argument order: for
//! `fn f(x: f64, v: &[f64]) -> [f64; 2]`, column 0 is `x` and columns `1..1 + v.len()` are `v`.
//!
//! ```
//! use autodiff_runtime::differentiate;
//!
//! #[differentiate]
//! fn polar(p: &[f64; 2]) -> [f64; 2] {
//!     [(p[0] * p[0] + p[1] * p[1]).sqrt(), p[1].atan2(p[0])]
//! }
//!
//! let (value, j) = polar_jacobian(&[3.0, 4.0]);
//! assert_eq!(value[0], 5.0);
//! assert_eq!((j.rows(), j.cols()), (2, 2));
//! assert!((j[(0, 0)] - 0.6).abs() < 1e-15 && (j[(0, 1)] - 0.8).abs() < 1e-15);
//! ```

use crate::dual::Dual;
use num_traits::Float;

/// A value read and written as a flat sequence of scalars `T`.
pub trait Flat<T> {
    /// The number of scalars.
    fn flat_len(&self) -> usize;
    /// Scalar `k` (`k < flat_len()`).
    fn flat_get(&self, k: usize) -> T;
    /// Sets scalar `k` (`k < flat_len()`).
    fn flat_set(&mut self, k: usize, v: T);
}

macro_rules! flat_float {
    ($($t:ty),*) => {$(
        impl Flat<$t> for $t {
            #[inline]
            fn flat_len(&self) -> usize {
                1
            }
            #[inline]
            fn flat_get(&self, _k: usize) -> $t {
                *self
            }
            #[inline]
            fn flat_set(&mut self, _k: usize, v: $t) {
                *self = v;
            }
        }
    )*};
}
flat_float!(f32, f64);

impl<T: Float> Flat<Dual<T>> for Dual<T> {
    #[inline]
    fn flat_len(&self) -> usize {
        1
    }
    #[inline]
    fn flat_get(&self, _k: usize) -> Dual<T> {
        *self
    }
    #[inline]
    fn flat_set(&mut self, _k: usize, v: Dual<T>) {
        *self = v;
    }
}

impl<T: Float, const N: usize> Flat<T> for [T; N] {
    #[inline]
    fn flat_len(&self) -> usize {
        N
    }
    #[inline]
    fn flat_get(&self, k: usize) -> T {
        self[k]
    }
    #[inline]
    fn flat_set(&mut self, k: usize, v: T) {
        self[k] = v;
    }
}

/// Arrays of arrays, `Vec`s and slices of rows: row-major, as `#[differentiate]` flattens them.
macro_rules! flat_rows {
    ($(impl<$($c:ident),+> for $t:ty;)*) => {$(
        impl<T: Float, $(const $c: usize),+> Flat<T> for $t {
            #[inline]
            fn flat_len(&self) -> usize {
                self.as_flattened().len()
            }
            #[inline]
            fn flat_get(&self, k: usize) -> T {
                self.as_flattened()[k]
            }
            #[inline]
            fn flat_set(&mut self, k: usize, v: T) {
                self.as_flattened_mut()[k] = v;
            }
        }
    )*};
}
flat_rows! {
    impl<C, R> for [[T; C]; R];
    impl<C> for [[T; C]];
    impl<C> for Vec<[T; C]>;
}

/// Ragged rows (`[Vec<T>]`, `Vec<Vec<T>>`): row-major, as `#[differentiate]` flattens them
/// (scalar `k` found by walking the rows).
macro_rules! flat_ragged {
    ($($t:ty),*) => {$(
        impl<T: Float> Flat<T> for $t {
            fn flat_len(&self) -> usize {
                self.iter().map(Vec::len).sum()
            }
            fn flat_get(&self, k: usize) -> T {
                let (i, j) = ragged_at(self.iter().map(Vec::len), k);
                self[i][j]
            }
            fn flat_set(&mut self, k: usize, v: T) {
                let (i, j) = ragged_at(self.iter().map(Vec::len), k);
                self[i][j] = v;
            }
        }
    )*};
}
flat_ragged!([Vec<T>], Vec<Vec<T>>);

/// Row and column of scalar `k` of rows of the lengths `lens`, row-major.
fn ragged_at(lens: impl Iterator<Item = usize>, mut k: usize) -> (usize, usize) {
    for (i, n) in lens.enumerate() {
        if k < n {
            return (i, k);
        }
        k -= n;
    }
    panic!("flat index past the end of ragged rows")
}

/// `Flat` of a type indexed by `usize` in order (slices, `Vec`s, nalgebra matrices): the impl's
/// header as written, the same three methods.
macro_rules! flat_by_index {
    ($($head:tt)*) => {
        $($head)* {
            #[inline]
            fn flat_len(&self) -> usize {
                self.len()
            }
            #[inline]
            fn flat_get(&self, k: usize) -> T {
                self[k]
            }
            #[inline]
            fn flat_set(&mut self, k: usize, v: T) {
                self[k] = v;
            }
        }
    };
}

flat_by_index!(impl<T: Float> Flat<T> for [T]);

flat_by_index!(impl<T: Float> Flat<T> for Vec<T>);

impl<T, F: Flat<T> + ?Sized> Flat<T> for &F {
    #[inline]
    fn flat_len(&self) -> usize {
        (**self).flat_len()
    }
    #[inline]
    fn flat_get(&self, k: usize) -> T {
        (**self).flat_get(k)
    }
    #[inline]
    fn flat_set(&mut self, _k: usize, _v: T) {
        panic!("#[differentiate]: a shared reference is read-only (a bug in the macro, please report it)")
    }
}

impl<T, F: Flat<T> + ?Sized> Flat<T> for &mut F {
    #[inline]
    fn flat_len(&self) -> usize {
        (**self).flat_len()
    }
    #[inline]
    fn flat_get(&self, k: usize) -> T {
        (**self).flat_get(k)
    }
    #[inline]
    fn flat_set(&mut self, k: usize, v: T) {
        (**self).flat_set(k, v)
    }
}

/// A value whose tangent is read and written as a flat sequence of scalars (`Flat`): what
/// `#[derive(Differentiable)]` bounds a struct's field types by in the `Flat` of its tangent (a
/// bound on the field type itself, which never fails to be well-formed: a field type without a
/// tangent is reported once, at the field, not again by this impl).
#[doc(hidden)]
pub trait FlatTangent<T>: crate::value::Differentiable {
    fn tangent_len(t: &Self::Tangent) -> usize;
    fn tangent_get(t: &Self::Tangent, k: usize) -> T;
    fn tangent_set(t: &mut Self::Tangent, k: usize, v: T);
}

impl<T, F: crate::value::Differentiable + ?Sized> FlatTangent<T> for F
where
    F::Tangent: Flat<T>,
{
    #[inline]
    fn tangent_len(t: &Self::Tangent) -> usize {
        t.flat_len()
    }
    #[inline]
    fn tangent_get(t: &Self::Tangent, k: usize) -> T {
        t.flat_get(k)
    }
    #[inline]
    fn tangent_set(t: &mut Self::Tangent, k: usize, v: T) {
        t.flat_set(k, v)
    }
}

/// No scalars: the tangent of an integer, a `bool` or a skipped field of a derived struct.
impl<T> Flat<T> for () {
    fn flat_len(&self) -> usize {
        0
    }
    fn flat_get(&self, k: usize) -> T {
        panic!("flat index {k} of a value without scalars")
    }
    fn flat_set(&mut self, k: usize, _v: T) {
        panic!("flat index {k} of a value without scalars")
    }
}

macro_rules! flat_tuple {
    ($($name:ident $idx:tt),+) => {
        impl<T, $($name: Flat<T>),+> Flat<T> for ($($name,)+) {
            fn flat_len(&self) -> usize {
                0 $(+ self.$idx.flat_len())+
            }
            fn flat_get(&self, mut k: usize) -> T {
                $(
                    let n = self.$idx.flat_len();
                    if k < n {
                        return self.$idx.flat_get(k);
                    }
                    k -= n;
                )+
                panic!("flat index {k} past the end of a tuple")
            }
            fn flat_set(&mut self, mut k: usize, v: T) {
                $(
                    let n = self.$idx.flat_len();
                    if k < n {
                        return self.$idx.flat_set(k, v);
                    }
                    k -= n;
                )+
                panic!("flat index {k} past the end of a tuple")
            }
        }
    };
}
flat_tuple!(A 0);
flat_tuple!(A 0, B 1);
flat_tuple!(A 0, B 1, C 2);
flat_tuple!(A 0, B 1, C 2, D 3);
flat_tuple!(A 0, B 1, C 2, D 3, E 4);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

// A nalgebra matrix or vector (owned, or a mutable view): its elements in storage order, which
// is column-major (scalar `k` is element `(k % nrows, k / nrows)`), as `m.as_slice()` has them.
flat_by_index!(
    impl<T, R, C, St> Flat<T> for nalgebra::Matrix<T, R, C, St>
    where
        T: Float + nalgebra::Scalar,
        R: nalgebra::Dim,
        C: nalgebra::Dim,
        St: nalgebra::StorageMut<T, R, C>,
);

/// A dense Jacobian, row-major: entry `(i, j)` is the derivative of output scalar `i` with
/// respect to input scalar `j` (see the module docs for the order).
#[derive(Clone, Debug, PartialEq)]
pub struct Jacobian<T> {
    rows: usize,
    cols: usize,
    data: Vec<T>,
}

impl<T: Float> Jacobian<T> {
    /// A `rows` x `cols` matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Jacobian {
            rows,
            cols,
            data: vec![T::zero(); rows * cols],
        }
    }

    /// The number of rows (output scalars).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns (active input scalars).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`: the gradient of output scalar `i`.
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Column `j` (copied): the derivative of every output with respect to input scalar `j`.
    pub fn column(&self, j: usize) -> Vec<T> {
        assert!(
            j < self.cols,
            "column {j} of a Jacobian with {} columns",
            self.cols
        );
        (0..self.rows)
            .map(|i| self.data[i * self.cols + j])
            .collect()
    }

    /// The entries, row after row.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The entries, row after row, by value.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// Sets row `i` from a flat value of `cols` scalars, starting at column `at`.
    #[doc(hidden)]
    pub fn set_row_from<F: Flat<T> + ?Sized>(&mut self, i: usize, at: usize, v: &F) {
        for k in 0..v.flat_len() {
            self.data[i * self.cols + at + k] = v.flat_get(k);
        }
    }

    /// Sets column `j` from a flat value of `rows` scalars, starting at row `at`.
    #[doc(hidden)]
    pub fn set_column_from<F: Flat<T> + ?Sized>(&mut self, j: usize, at: usize, v: &F) {
        for k in 0..v.flat_len() {
            self.data[(at + k) * self.cols + j] = v.flat_get(k);
        }
    }
}

impl<T> std::ops::Index<(usize, usize)> for Jacobian<T> {
    type Output = T;
    fn index(&self, (i, j): (usize, usize)) -> &T {
        assert!(
            i < self.rows && j < self.cols,
            "index ({i}, {j}) of a {}x{} Jacobian",
            self.rows,
            self.cols
        );
        &self.data[i * self.cols + j]
    }
}

/// The number of scalars of `v`.
#[doc(hidden)]
#[inline]
pub fn flat_len<T, F: Flat<T> + ?Sized>(v: &F) -> usize {
    v.flat_len()
}

/// Sets scalar `k` of `v` to one if `k` lies in `at..at + v.flat_len()`.
#[doc(hidden)]
#[inline]
pub fn set_unit_in<T: Float, F: Flat<T> + ?Sized>(v: &mut F, at: usize, k: usize) {
    if k >= at && k - at < v.flat_len() {
        v.flat_set(k - at, T::one());
    }
}

/// The scalars of `v`, in order.
#[doc(hidden)]
pub fn to_flat_vec<T, F: Flat<T> + ?Sized>(v: &F) -> Vec<T> {
    (0..v.flat_len()).map(|k| v.flat_get(k)).collect()
}

// -------------------------------------------------------------------------------------- sparse

/// Where a Jacobian may be nonzero: a `rows` x `cols` pattern in compressed sparse row form
/// (the column indices of row `i` are `col_idx[row_ptr[i]..row_ptr[i + 1]]`, ascending).
///
/// Every entry of the Jacobian outside the pattern must be zero: `<f>_jacobian_sparse` computes
/// the entries inside it from compressed directional derivatives, and a nonzero outside it would
/// be added into an entry of the same row. Build it from what the function's structure says
/// (which outputs read which inputs), for example [`Sparsity::banded`] for stencils.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sparsity {
    rows: usize,
    cols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    /// The greedy coloring of the columns, computed with the pattern (a function of it, so equal
    /// patterns have equal colorings): the number of colors and each column's.
    ncolors: usize,
    color: Vec<usize>,
}

impl Sparsity {
    /// The pattern holding the given `(row, column)` entries (in any order, duplicates allowed).
    ///
    /// # Panics
    ///
    /// If an entry lies outside `rows` x `cols`.
    pub fn from_entries(rows: usize, cols: usize, entries: &[(usize, usize)]) -> Self {
        let mut by_row: Vec<Vec<usize>> = vec![Vec::new(); rows];
        for &(i, j) in entries {
            assert!(
                i < rows && j < cols,
                "entry ({i}, {j}) outside a {rows}x{cols} sparsity pattern"
            );
            by_row[i].push(j);
        }
        let mut row_ptr = vec![0];
        let mut col_idx = Vec::new();
        for mut r in by_row {
            r.sort_unstable();
            r.dedup();
            col_idx.extend(r);
            row_ptr.push(col_idx.len());
        }
        let mut p = Sparsity {
            rows,
            cols,
            row_ptr,
            col_idx,
            ncolors: 0,
            color: Vec::new(),
        };
        (p.ncolors, p.color) = p.greedy_coloring();
        p
    }

    /// A band: row `i` may depend on columns `i - lower ..= i + upper` (clipped to the matrix).
    pub fn banded(rows: usize, cols: usize, lower: usize, upper: usize) -> Self {
        let mut entries = Vec::new();
        for i in 0..rows {
            for j in i.saturating_sub(lower)..=(i + upper).min(cols.saturating_sub(1)) {
                if j < cols {
                    entries.push((i, j));
                }
            }
        }
        Sparsity::from_entries(rows, cols, &entries)
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The number of entries.
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }

    /// The columns of row `i`, ascending.
    pub fn row(&self, i: usize) -> &[usize] {
        &self.col_idx[self.row_ptr[i]..self.row_ptr[i + 1]]
    }

    /// A greedy distance-1 coloring of the columns: two columns that share a row get different
    /// colors, so one directional derivative per color (the sum of that color's unit columns)
    /// gives every entry of the pattern. Returns the number of colors and each column's color.
    /// Columns are taken in order; a band of width `w` needs `w` colors. Computed once, when the
    /// pattern is built ([`Sparsity::coloring`] borrows it).
    pub fn color_columns(&self) -> (usize, Vec<usize>) {
        (self.ncolors, self.color.clone())
    }

    /// [`Sparsity::color_columns`], borrowed.
    pub fn coloring(&self) -> (usize, &[usize]) {
        (self.ncolors, &self.color)
    }

    fn greedy_coloring(&self) -> (usize, Vec<usize>) {
        // Rows of each column, to find the columns sharing a row with it.
        let mut col_rows: Vec<Vec<usize>> = vec![Vec::new(); self.cols];
        for i in 0..self.rows {
            for &j in self.row(i) {
                col_rows[j].push(i);
            }
        }
        let mut color = vec![usize::MAX; self.cols];
        let mut used = Vec::new();
        let mut ncolors = 0;
        for j in 0..self.cols {
            used.clear();
            for &i in &col_rows[j] {
                for &k in self.row(i) {
                    if color[k] != usize::MAX {
                        used.push(color[k]);
                    }
                }
            }
            used.sort_unstable();
            used.dedup();
            let c = used
                .iter()
                .enumerate()
                .find(|(want, &have)| *want != have)
                .map_or(used.len(), |(want, _)| want);
            color[j] = c;
            ncolors = ncolors.max(c + 1);
        }
        (ncolors, color)
    }
}

/// A sparse Jacobian: the values of the entries of a [`Sparsity`] pattern, row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseJacobian<T> {
    pattern: Sparsity,
    values: Vec<T>,
}

impl<T: Float> SparseJacobian<T> {
    /// The entries from compressed directional derivatives: `compressed[c]` is the Jacobian
    /// times the sum of the unit columns of color `c` (see [`Sparsity::color_columns`]).
    #[doc(hidden)]
    #[allow(clippy::needless_range_loop)] // `i` is a row of the pattern and of each column
    pub fn from_compressed(pattern: &Sparsity, color: &[usize], compressed: &[Vec<T>]) -> Self {
        let mut values = Vec::with_capacity(pattern.nnz());
        for i in 0..pattern.rows {
            for &j in pattern.row(i) {
                values.push(compressed[color[j]][i]);
            }
        }
        SparseJacobian {
            pattern: pattern.clone(),
            values,
        }
    }

    /// The pattern.
    pub fn pattern(&self) -> &Sparsity {
        &self.pattern
    }

    /// Entry `(i, j)` (zero outside the pattern).
    pub fn get(&self, i: usize, j: usize) -> T {
        let row = self.pattern.row(i);
        match row.binary_search(&j) {
            Ok(k) => self.values[self.pattern.row_ptr[i] + k],
            Err(_) => T::zero(),
        }
    }

    /// Row `i`: its columns and values.
    pub fn row(&self, i: usize) -> (&[usize], &[T]) {
        let (a, b) = (self.pattern.row_ptr[i], self.pattern.row_ptr[i + 1]);
        (&self.pattern.col_idx[a..b], &self.values[a..b])
    }

    /// The entries as `(row, column, value)` triplets (coordinate form), row by row.
    pub fn triplets(&self) -> Vec<(usize, usize, T)> {
        let mut out = Vec::with_capacity(self.values.len());
        for i in 0..self.pattern.rows {
            let (cols, vals) = self.row(i);
            out.extend(cols.iter().zip(vals).map(|(&j, &v)| (i, j, v)));
        }
        out
    }

    /// The compressed-sparse-row arrays `(row_ptr, col_idx, values)`, as `sprs` and
    /// `nalgebra-sparse` take them.
    pub fn csr(&self) -> (&[usize], &[usize], &[T]) {
        (&self.pattern.row_ptr, &self.pattern.col_idx, &self.values)
    }

    /// The dense matrix.
    pub fn to_dense(&self) -> Jacobian<T> {
        let mut j = Jacobian::zeros(self.pattern.rows, self.pattern.cols);
        for (r, c, v) in self.triplets() {
            j.data[r * j.cols + c] = v;
        }
        j
    }
}

/// Checks that a pattern fits a function with `rows` outputs and `cols` active inputs.
#[doc(hidden)]
pub fn check_pattern(p: &Sparsity, rows: usize, cols: usize) {
    assert!(
        p.rows == rows && p.cols == cols,
        "the sparsity pattern is {}x{}, the Jacobian {rows}x{cols}",
        p.rows,
        p.cols
    );
}

/// Copies the scalars of `src` into `dst` (the same length): an in-out argument put back to
/// the contents a Jacobian pass starts from.
#[doc(hidden)]
pub fn restore<T, D: Flat<T> + ?Sized, S: Flat<T> + ?Sized>(dst: &mut D, src: &S) {
    for k in 0..src.flat_len() {
        dst.flat_set(k, src.flat_get(k));
    }
}
