//! The value traits for nalgebra matrices and vectors (issue 11): tangent an owned matrix of
//! the same shape.

use super::{Differentiable, Scalar, Scale, Tangent};

/// Panics unless two matrices added elementwise have one shape.
#[inline(always)]
#[track_caller]
fn check_shape(acc: (usize, usize), other: (usize, usize)) {
    if acc != other {
        shape_mismatch(acc, other);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn shape_mismatch(acc: (usize, usize), other: (usize, usize)) -> ! {
    panic!(
        "autodiff: cannot add a {} x {} matrix tangent into a {} x {} one \
         (tangents and adjoints must be shaped like their values; make them with `zero_tangent`)",
        other.0, other.1, acc.0, acc.1
    )
}

/// A nalgebra matrix or vector, static or dynamic, owned or a view (`DMatrix`, `DVector`,
/// `RowDVector`, `SMatrix`, `Matrix3`, `Vector3`, `DMatrixView`, ...), has as tangent the owned
/// matrix of the same shape (`OMatrix<T, R, C>`), zeros from `zero_tangent`.
impl<T, R, C, St> Differentiable for nalgebra::Matrix<T, R, C, St>
where
    T: Scalar + nalgebra::Scalar,
    R: nalgebra::Dim,
    C: nalgebra::Dim,
    St: nalgebra::RawStorage<T, R, C>,
    nalgebra::DefaultAllocator: nalgebra::allocator::Allocator<R, C>,
{
    type Tangent = nalgebra::OMatrix<T, R, C>;
    #[inline]
    fn zero_tangent(&self) -> nalgebra::OMatrix<T, R, C> {
        let (rows, cols) = self.shape_generic();
        nalgebra::OMatrix::from_element_generic(rows, cols, T::zero())
    }
}

/// A matrix tangent (or adjoint, also behind a mutable view) accumulates elementwise after a
/// shape check.
impl<T, R, C, St> Tangent for nalgebra::Matrix<T, R, C, St>
where
    T: Tangent + nalgebra::Scalar,
    R: nalgebra::Dim,
    C: nalgebra::Dim,
    St: nalgebra::StorageMut<T, R, C>,
{
    #[inline]
    #[track_caller]
    fn accumulate(&mut self, other: &Self) {
        check_shape(self.shape(), other.shape());
        for (a, b) in self.iter_mut().zip(other.iter()) {
            a.accumulate(b);
        }
    }
    #[inline]
    fn set_zero(&mut self) {
        for a in self.iter_mut() {
            a.set_zero();
        }
    }
}

impl<S, T, R, C, St> Scale<S> for nalgebra::Matrix<T, R, C, St>
where
    S: Copy,
    T: Scale<S> + nalgebra::Scalar,
    R: nalgebra::Dim,
    C: nalgebra::Dim,
    St: nalgebra::StorageMut<T, R, C>,
{
    #[inline]
    fn scale(&mut self, s: S) {
        for a in self.iter_mut() {
            a.scale(s);
        }
    }
    #[inline]
    #[track_caller]
    fn add_scaled(&mut self, other: &Self, s: S) {
        check_shape(self.shape(), other.shape());
        for (a, b) in self.iter_mut().zip(other.iter()) {
            a.add_scaled(b, s);
        }
    }
}
