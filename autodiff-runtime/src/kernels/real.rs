//! The float types of the kernels: takes `f32` and `f64`, gives the sealed [`Real`] trait, which
//! carries everything that differs between the two (micro-kernel table, constants and polynomial
//! coefficients of the element-wise functions, bit-level helpers).

use std::fmt::Debug;

use super::isa::Isa;
use super::micro::MicroKernel;

/// A float type the kernels accept: `f32` or `f64` (sealed; the kernels need per-type micro-kernels
/// and polynomial coefficients, so no other type can implement it).
pub trait Real:
    num_traits::Float + Debug + Default + Send + Sync + 'static + sealed::Sealed
{
}

impl Real for f32 {}
impl Real for f64 {}

pub(crate) mod sealed {
    use super::*;

    /// The per-type part of [`Real`](super::Real), unnameable outside the crate.
    pub trait Sealed: Copy {
        /// The micro-kernel of a path.
        fn micro(isa: Isa) -> &'static MicroKernel<Self>;
    }
}

impl sealed::Sealed for f64 {
    fn micro(isa: Isa) -> &'static MicroKernel<f64> {
        super::micro::micro_f64(isa)
    }
}

impl sealed::Sealed for f32 {
    fn micro(isa: Isa) -> &'static MicroKernel<f32> {
        super::micro::micro_f32(isa)
    }
}
