//! Portable micro-kernels: plain Rust over fixed-size arrays, which LLVM keeps in registers and
//! vectorizes with the baseline instruction set (SSE2 on x86-64).

use super::MicroKernel;
use crate::kernels::real::Real;

const MR: usize = 4;
const NR: usize = 8;

/// `f64` portable kernel, 4 x 8 tile.
pub static F64: MicroKernel<f64> = MicroKernel {
    mr: MR,
    nr: NR,
    kc: 256,
    mc: 64,
    nc: 512,
    func: kernel::<f64>,
};

/// `f32` portable kernel, 4 x 8 tile.
pub static F32: MicroKernel<f32> = MicroKernel {
    mr: MR,
    nr: NR,
    kc: 256,
    mc: 64,
    nc: 512,
    func: kernel::<f32>,
};

/// # Safety
///
/// See [`super::KernelFn`]: `a[i*rsa + p*csa]` and `b[p*ldb..][..NR]` readable for `i < MR`,
/// `p < kc`; `c` writable for `MR` rows of `NR` at stride `ldc`, readable too when `beta != 0`.
#[allow(clippy::too_many_arguments)]
unsafe fn kernel<T: Real>(
    kc: usize,
    alpha: T,
    a: *const T,
    rsa: usize,
    csa: usize,
    b: *const T,
    ldb: usize,
    beta: T,
    c: *mut T,
    ldc: usize,
) {
    let mut acc = [[T::zero(); NR]; MR];
    for p in 0..kc {
        // SAFETY: the caller guarantees `a[i*rsa + p*csa]` for `i < MR` and `NR` values from
        // `b + p*ldb` are readable at every step `p < kc`.
        let (ap, bp): ([T; MR], &[T]) = unsafe {
            (
                std::array::from_fn(|i| *a.add(i * rsa + p * csa)),
                std::slice::from_raw_parts(b.add(p * ldb), NR),
            )
        };
        for i in 0..MR {
            for j in 0..NR {
                acc[i][j] = acc[i][j] + ap[i] * bp[j];
            }
        }
    }
    for (i, row) in acc.iter().enumerate() {
        // SAFETY: the caller guarantees row `i < MR` of the tile, `NR` values from `c + i * ldc`,
        // is valid for reads and writes and does not overlap `a` or `b`.
        let crow = unsafe { std::slice::from_raw_parts_mut(c.add(i * ldc), NR) };
        if beta == T::zero() {
            for (cj, &v) in crow.iter_mut().zip(row) {
                *cj = alpha * v;
            }
        } else {
            for (cj, &v) in crow.iter_mut().zip(row) {
                *cj = alpha * v + beta * *cj;
            }
        }
    }
}
