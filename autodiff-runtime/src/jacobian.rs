//! Dense Jacobians: takes the values a generated `<f>_jacobian` handles (float outputs and
//! tangents: floats, arrays, slices, `Vec`s, tuples of them), gives them as flat sequences of
//! scalars ([`Flat`]) and the row-major [`Jacobian`] matrix `<f>_jacobian` returns.
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

impl<T: Float> Flat<T> for [T] {
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

impl<T: Float> Flat<T> for Vec<T> {
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
