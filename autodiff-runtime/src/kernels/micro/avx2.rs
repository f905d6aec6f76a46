//! AVX2+FMA micro-kernels: `f64` 6 x 8 and `f32` 6 x 16 tiles (12 accumulator registers of 16,
//! two vector loads of B and six broadcasts of A per step).

use std::arch::x86_64::*;

use super::{simd_kernel, MicroKernel};

/// `f64` AVX2 kernel, 6 x 8 tile.
pub static F64: MicroKernel<f64> = MicroKernel {
    mr: 6,
    nr: 8,
    kc: 256,
    mc: 4092,
    nc: 512,
    func: kernel_f64,
};

/// `f32` AVX2 kernel, 6 x 16 tile.
pub static F32: MicroKernel<f32> = MicroKernel {
    mr: 6,
    nr: 16,
    kc: 256,
    mc: 4092,
    nc: 1024,
    func: kernel_f32,
};

simd_kernel! {
    #[target_feature(enable = "avx2,fma")]
    fn kernel_f64(f64, lanes = 4, mr = 6, nv = 2);
    zero = _mm256_setzero_pd, set1 = _mm256_set1_pd, load = _mm256_loadu_pd,
    store = _mm256_storeu_pd, fmadd = _mm256_fmadd_pd, mul = _mm256_mul_pd,
}

simd_kernel! {
    #[target_feature(enable = "avx2,fma")]
    fn kernel_f32(f32, lanes = 8, mr = 6, nv = 2);
    zero = _mm256_setzero_ps, set1 = _mm256_set1_ps, load = _mm256_loadu_ps,
    store = _mm256_storeu_ps, fmadd = _mm256_fmadd_ps, mul = _mm256_mul_ps,
}
