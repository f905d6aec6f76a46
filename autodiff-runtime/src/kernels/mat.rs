//! Matrix views: takes a slice and a shape (row-major, with a leading dimension), gives
//! [`MatRef`] (read-only, can be viewed transposed for free) and [`MatMut`] (the output of a
//! product: row-major only), both checked against the slice's length when made.

/// A read-only matrix view over a slice: row-major with a leading dimension, possibly viewed
/// transposed ([`MatRef::t`]).
///
/// Element `(i, j)` of the view is `data[i * row_stride + j * col_stride]`; a row-major view has
/// `col_stride == 1` and `row_stride == ld`, its transpose swaps the two strides and the two
/// dimensions. Every constructor checks that all elements lie inside the slice.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a, T> {
    pub(crate) data: &'a [T],
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) rs: usize,
    pub(crate) cs: usize,
}

/// A mutable row-major matrix view over a slice, with a leading dimension: element `(i, j)` is
/// `data[i * ld + j]`. Elements between the end of a row and the start of the next (when
/// `ld > cols`) are never read or written by the kernels.
#[derive(Debug)]
pub struct MatMut<'a, T> {
    pub(crate) data: &'a mut [T],
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) ld: usize,
}

/// The length a row-major `rows x cols` matrix with leading dimension `ld` needs, after checking
/// `ld >= cols`.
fn needed_len(what: &str, len: usize, rows: usize, cols: usize, ld: usize) -> usize {
    assert!(
        ld >= cols,
        "kernels::{what}: leading dimension {ld} is smaller than the number of columns {cols}"
    );
    let needed = if rows == 0 || cols == 0 {
        0
    } else {
        (rows - 1)
            .checked_mul(ld)
            .and_then(|x| x.checked_add(cols))
            .unwrap_or_else(|| panic!("kernels::{what}: {rows} x {cols} with ld {ld} overflows"))
    };
    assert!(
        len >= needed,
        "kernels::{what}: a {rows} x {cols} matrix with leading dimension {ld} needs {needed} \
         elements, the slice has {len}"
    );
    needed
}

impl<'a, T> MatRef<'a, T> {
    /// A dense row-major `rows x cols` view (`ld == cols`).
    ///
    /// # Panics
    ///
    /// If `data.len() < rows * cols`.
    pub fn new(data: &'a [T], rows: usize, cols: usize) -> Self {
        Self::with_ld(data, rows, cols, cols)
    }

    /// A row-major `rows x cols` view whose rows start `ld` elements apart (element `(i, j)` is
    /// `data[i * ld + j]`), like a BLAS leading dimension.
    ///
    /// # Panics
    ///
    /// If `ld < cols`, or if the slice is shorter than `(rows - 1) * ld + cols`.
    pub fn with_ld(data: &'a [T], rows: usize, cols: usize, ld: usize) -> Self {
        needed_len("MatRef", data.len(), rows, cols, ld);
        MatRef {
            data,
            rows,
            cols,
            rs: ld,
            cs: 1,
        }
    }

    /// The transposed view (`cols x rows`), without copying: `matmul(alpha, a.t(), b, ...)`
    /// computes `alpha * Aᵀ B`.
    #[must_use]
    pub fn t(self) -> Self {
        MatRef {
            data: self.data,
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// Number of rows of the view.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns of the view.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Whether the view is a transposed one (its columns, not its rows, are contiguous).
    pub fn is_transposed(&self) -> bool {
        self.cs != 1 && self.rs == 1
    }
}

impl<T: Copy> MatRef<'_, T> {
    /// Element `(i, j)` of the view.
    ///
    /// # Panics
    ///
    /// If `i >= rows` or `j >= cols`.
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(
            i < self.rows && j < self.cols,
            "kernels::MatRef::get: ({i}, {j}) outside a {} x {} matrix",
            self.rows,
            self.cols
        );
        self.data[i * self.rs + j * self.cs]
    }
}

impl<'a, T> MatMut<'a, T> {
    /// A dense row-major `rows x cols` view (`ld == cols`).
    ///
    /// # Panics
    ///
    /// If `data.len() < rows * cols`.
    pub fn new(data: &'a mut [T], rows: usize, cols: usize) -> Self {
        Self::with_ld(data, rows, cols, cols)
    }

    /// A row-major `rows x cols` view whose rows start `ld` elements apart.
    ///
    /// # Panics
    ///
    /// If `ld < cols`, or if the slice is shorter than `(rows - 1) * ld + cols`.
    pub fn with_ld(data: &'a mut [T], rows: usize, cols: usize, ld: usize) -> Self {
        needed_len("MatMut", data.len(), rows, cols, ld);
        MatMut {
            data,
            rows,
            cols,
            ld,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// A read-only view of the same matrix.
    pub fn as_ref(&self) -> MatRef<'_, T> {
        MatRef {
            data: self.data,
            rows: self.rows,
            cols: self.cols,
            rs: self.ld,
            cs: 1,
        }
    }

    /// A shorter-lived mutable view of the same matrix (to pass it to a kernel and keep using it).
    pub fn reborrow(&mut self) -> MatMut<'_, T> {
        MatMut {
            data: self.data,
            rows: self.rows,
            cols: self.cols,
            ld: self.ld,
        }
    }

    /// Row `i`, `cols` elements.
    pub(crate) fn row_mut(&mut self, i: usize) -> &mut [T] {
        &mut self.data[i * self.ld..][..self.cols]
    }
}
