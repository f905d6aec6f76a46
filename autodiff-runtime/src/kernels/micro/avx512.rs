//! AVX-512F micro-kernels: `f64` 8 x 16 and `f32` 8 x 32 tiles (16 accumulator registers of 32,
//! two vector loads of B and eight broadcasts of A per step).

use std::arch::x86_64::*;

use super::{simd_kernel, MicroKernel};

/// `f64` AVX-512 kernel, 8 x 16 tile.
pub static F64: MicroKernel<f64> = MicroKernel {
    mr: 8,
    nr: 16,
    kc: 256,
    mc: 4096,
    nc: 512,
    func: kernel_f64,
};

/// `f32` AVX-512 kernel, 8 x 32 tile.
pub static F32: MicroKernel<f32> = MicroKernel {
    mr: 8,
    nr: 32,
    kc: 256,
    mc: 4096,
    nc: 1024,
    func: kernel_f32,
};

simd_kernel! {
    #[target_feature(enable = "avx512f")]
    fn kernel_f64(f64, lanes = 8, mr = 8, nv = 2);
    zero = _mm512_setzero_pd, set1 = _mm512_set1_pd, load = _mm512_loadu_pd,
    store = _mm512_storeu_pd, fmadd = _mm512_fmadd_pd, mul = _mm512_mul_pd,
}

simd_kernel! {
    #[target_feature(enable = "avx512f")]
    fn kernel_f32(f32, lanes = 16, mr = 8, nv = 2);
    zero = _mm512_setzero_ps, set1 = _mm512_set1_ps, load = _mm512_loadu_ps,
    store = _mm512_storeu_ps, fmadd = _mm512_fmadd_ps, mul = _mm512_mul_ps,
}
