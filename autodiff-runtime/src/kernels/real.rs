//! The float types of the kernels: takes `f32` and `f64`, gives the sealed [`Real`] trait, which
//! carries everything that differs between the two (micro-kernel table, constants and polynomial
//! coefficients of the element-wise functions, bit-level helpers).

use std::fmt::Debug;

use super::coefs;
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
    pub trait Sealed: Copy + 'static {
        /// The unsigned integer of the same width (the float's bits).
        type Bits: Copy
            + std::ops::BitAnd<Output = Self::Bits>
            + std::ops::BitOr<Output = Self::Bits>
            + std::ops::Shl<u32, Output = Self::Bits>
            + std::ops::Shr<u32, Output = Self::Bits>;
        /// Bits of the float.
        fn to_bits_(self) -> Self::Bits;
        /// Float from bits.
        fn from_bits_(b: Self::Bits) -> Self;
        /// `a + b` on the bits, wrapping.
        fn bits_add(a: Self::Bits, b: Self::Bits) -> Self::Bits;
        /// The float from an `f64` constant (rounded once for `f32`).
        fn c(x: f64) -> Self;
        /// Number of explicit mantissa bits (52 or 23).
        const MANT_BITS: u32;
        /// Exponent bias (1023 or 127), as bits.
        const BIAS: Self::Bits;
        /// Mask of the mantissa field.
        const MANT_MASK: Self::Bits;
        /// Bits of 1.0.
        const ONE_BITS: Self::Bits;
        /// Bits of 2^MANT_BITS: OR-ing a small integer into them gives `2^MANT_BITS + integer`.
        const INT_BITS: Self::Bits;
        /// `1.5 * 2^MANT_BITS`: adding it rounds to an integer and leaves it in the low bits.
        const SHIFTER: Self;
        /// `2^MANT_BITS` as a float.
        const TWO_MANT: Self;
        /// `2^MANT_BITS + BIAS`: the float of the exponent-field trick minus it is the exponent.
        const EXP_FIELD_OFFSET: Self;
        /// `2^(MANT_BITS + 1)`: brings a subnormal into the normal range.
        const SUB_SCALE: Self;
        /// `MANT_BITS + 1` as a float.
        const SUB_SHIFT: Self;
        /// `2^(MANT_BITS / 2 + 1) + 1`, Dekker's splitting constant.
        const SPLITTER: Self;
        /// `ln 2` split in a high part with trailing zero bits (so that `n * LN2_HI` is exact for
        /// every exponent `n` that occurs) and the rest.
        const LN2_HI: Self;
        /// See `LN2_HI`.
        const LN2_LO: Self;
        /// `exp` argument clamp: above it the result overflows to +inf.
        const EXP_HI: Self;
        /// `exp` argument clamp: below it `e^x` is +0 and so is `m e^x` for the multipliers `m`
        /// of `math::sigmoid_scaled` (|m| below e^1400 for `f64`, e^66 for `f32`), and `2^n` is
        /// still two normal factors.
        const EXP_LO: Self;
        /// Above this |x|, `tanh(x)` rounds to ±1.
        const TANH_ONE: Self;
        /// Above this |x|, `Φ(-|x|)` and `exp(-x²/2)` underflow to 0.
        const PHI_ZERO: Self;
        /// See `coefs.rs`.
        const EXP_TAYLOR: &'static [Self];
        /// See `coefs.rs`.
        const LOG_SERIES: &'static [Self];
        /// See `coefs.rs`.
        const ERFC_CHEB: &'static [Self];
        /// See `coefs.rs`.
        const ERFC_T_SCALE: Self;
        /// See `coefs.rs`.
        const ERFC_T_SHIFT: Self;
        /// See `coefs.rs`.
        const PHI_TAYLOR: &'static [Self];
        /// The micro-kernel of a path.
        fn micro(isa: Isa) -> &'static MicroKernel<Self>;
    }
}

impl sealed::Sealed for f64 {
    type Bits = u64;
    #[inline(always)]
    fn to_bits_(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits_(b: u64) -> f64 {
        f64::from_bits(b)
    }
    #[inline(always)]
    fn bits_add(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn c(x: f64) -> f64 {
        x
    }
    const MANT_BITS: u32 = 52;
    const BIAS: u64 = 1023;
    const MANT_MASK: u64 = (1 << 52) - 1;
    const ONE_BITS: u64 = 1023 << 52;
    const INT_BITS: u64 = (1023 + 52) << 52;
    const SHIFTER: f64 = 6755399441055744.0; // 1.5 * 2^52
    const TWO_MANT: f64 = 4503599627370496.0; // 2^52
    const EXP_FIELD_OFFSET: f64 = 4503599627371519.0; // 2^52 + 1023
    const SUB_SCALE: f64 = 9007199254740992.0; // 2^53
    const SUB_SHIFT: f64 = 53.0;
    const SPLITTER: f64 = 134217729.0; // 2^27 + 1
    const LN2_HI: f64 = 0.6931471803691238; // 0x3fe62e42fee00000: 21 trailing zero bits
    const LN2_LO: f64 = 1.9082149292705877e-10;
    const EXP_HI: f64 = 709.79;
    const EXP_LO: f64 = -1400.0;
    const TANH_ONE: f64 = 19.1;
    const PHI_ZERO: f64 = 38.9;
    const EXP_TAYLOR: &'static [f64] = &coefs::EXP_TAYLOR_F64;
    const LOG_SERIES: &'static [f64] = &coefs::LOG_SERIES_F64;
    const ERFC_CHEB: &'static [f64] = &coefs::ERFC_CHEB_F64;
    const ERFC_T_SCALE: f64 = coefs::ERFC_T_SCALE_F64;
    const ERFC_T_SHIFT: f64 = coefs::ERFC_T_SHIFT_F64;
    const PHI_TAYLOR: &'static [f64] = &coefs::PHI_TAYLOR_F64;
    fn micro(isa: Isa) -> &'static MicroKernel<f64> {
        super::micro::micro_f64(isa)
    }
}

impl sealed::Sealed for f32 {
    type Bits = u32;
    #[inline(always)]
    fn to_bits_(self) -> u32 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits_(b: u32) -> f32 {
        f32::from_bits(b)
    }
    #[inline(always)]
    fn bits_add(a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn c(x: f64) -> f32 {
        x as f32
    }
    const MANT_BITS: u32 = 23;
    const BIAS: u32 = 127;
    const MANT_MASK: u32 = (1 << 23) - 1;
    const ONE_BITS: u32 = 127 << 23;
    const INT_BITS: u32 = (127 + 23) << 23;
    const SHIFTER: f32 = 12582912.0; // 1.5 * 2^23
    const TWO_MANT: f32 = 8388608.0; // 2^23
    const EXP_FIELD_OFFSET: f32 = 8388735.0; // 2^23 + 127
    const SUB_SCALE: f32 = 16777216.0; // 2^24
    const SUB_SHIFT: f32 = 24.0;
    const SPLITTER: f32 = 4097.0; // 2^12 + 1
    const LN2_HI: f32 = f32::from_bits(0x3f31_8000); // 0.693359375: 15 trailing zero bits
    const LN2_LO: f32 = -2.1219444e-4;
    const EXP_HI: f32 = 88.73;
    const EXP_LO: f32 = -170.0;
    const TANH_ONE: f32 = 9.1;
    const PHI_ZERO: f32 = 14.9;
    const EXP_TAYLOR: &'static [f32] = &coefs::EXP_TAYLOR_F32;
    const LOG_SERIES: &'static [f32] = &coefs::LOG_SERIES_F32;
    const ERFC_CHEB: &'static [f32] = &coefs::ERFC_CHEB_F32;
    const ERFC_T_SCALE: f32 = coefs::ERFC_T_SCALE_F32;
    const ERFC_T_SHIFT: f32 = coefs::ERFC_T_SHIFT_F32;
    const PHI_TAYLOR: &'static [f32] = &coefs::PHI_TAYLOR_F32;
    fn micro(isa: Isa) -> &'static MicroKernel<f32> {
        super::micro::micro_f32(isa)
    }
}
