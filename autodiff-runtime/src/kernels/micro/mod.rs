//! Micro-kernels of the matrix product: takes a panel of A (`kc` steps of `mr` values) and one of
//! B (`kc` steps of `nr` values), packed or read in place through their strides, gives
//! `C = alpha A B + beta C` on one `mr x nr` tile of a row-major C, one implementation per path
//! (AVX-512F, AVX2+FMA, portable), with the cache-block sizes tuned for it.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod portable;

use super::isa::Isa;

/// Signature of a micro-kernel: `(kc, alpha, a, rsa, csa, b, ldb, beta, c, ldc)`.
///
/// Computes `C = alpha * sum_p A_p (outer) B_p + beta * C` on the tile `c[i*ldc + j]`, `i < mr`,
/// `j < nr`, where `A_p[i] = a[i*rsa + p*csa]` and `B_p[j] = b[p*ldb + j]`: a packed panel of A has
/// `(rsa, csa) = (1, mr)`, a row-major A read in place `(lda, 1)`; a packed panel of B has
/// `ldb = nr`, a row-major B read in place its leading dimension. When `beta == 0`, C is not read
/// (NaN in C is ignored).
///
/// # Safety
///
/// `a` must be valid for reading `a[i*rsa + p*csa]` and `b` for reading `b[p*ldb + j]` for all
/// `i < mr`, `j < nr`, `p < kc`; `c` for writing (and, when `beta != 0`, reading) `mr` rows of
/// `nr` values at stride `ldc`; the CPU must support the kernel's path; `c` must not overlap `a`
/// or `b`.
pub type KernelFn<T> =
    unsafe fn(usize, T, *const T, usize, usize, *const T, usize, T, *mut T, usize);

/// A micro-kernel and the blocking it was tuned with.
pub struct MicroKernel<T> {
    /// Rows of the tile (values of A broadcast per step).
    pub mr: usize,
    /// Columns of the tile (values of B loaded as vectors per step).
    pub nr: usize,
    /// Depth of a packed block (steps per micro-kernel call).
    pub kc: usize,
    /// Rows of A packed at once (a multiple of `mr`).
    pub mc: usize,
    /// Columns of B packed at once (a multiple of `nr`).
    pub nc: usize,
    /// The kernel (see [`KernelFn`]).
    pub func: KernelFn<T>,
}

/// The micro-kernel of `isa` for `f64`.
pub fn micro_f64(isa: Isa) -> &'static MicroKernel<f64> {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &avx512::F64,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => &avx2::F64,
        _ => &portable::F64,
    }
}

/// The micro-kernel of `isa` for `f32`.
pub fn micro_f32(isa: Isa) -> &'static MicroKernel<f32> {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &avx512::F32,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => &avx2::F32,
        _ => &portable::F32,
    }
}

/// Writes one SIMD micro-kernel (used by the AVX2 and AVX-512 files): `mr` rows broadcast from
/// packed A, `nv` vectors of `lanes` values loaded from packed B per step, `mr * nv` accumulator
/// registers, then `C = alpha * acc + beta * C` stored straight into the row-major tile.
#[cfg(target_arch = "x86_64")]
macro_rules! simd_kernel {
    (
        $(#[$attr:meta])*
        fn $name:ident($T:ty, lanes = $W:expr, mr = $MR:expr, nv = $NV:expr);
        zero = $zero:path, set1 = $set1:path, load = $load:path, store = $store:path,
        fmadd = $fmadd:path, mul = $mul:path $(,)?
    ) => {
        $(#[$attr])*
        /// # Safety
        ///
        /// See [`super::KernelFn`]; the CPU must support the features enabled on this function.
        #[allow(clippy::too_many_arguments)]
        unsafe fn $name(
            kc: usize,
            alpha: $T,
            a: *const $T,
            rsa: usize,
            csa: usize,
            b: *const $T,
            ldb: usize,
            beta: $T,
            c: *mut $T,
            ldc: usize,
        ) {
            // SAFETY: the caller guarantees that `a[i*rsa + p*csa]` (i < MR) and `b[p*ldb..][..NV
            // * W]` are readable for every step p < kc (the pointers below are moved with
            // `wrapping_add` and only read at those places), that the tile of `MR` rows of
            // `NV * W` values at stride `ldc` from `c` is writable (readable when `beta != 0`),
            // and that the CPU has this function's target features. Unaligned loads and stores
            // are used throughout.
            unsafe {
                let mut acc = [[$zero(); $NV]; $MR];
                let (mut a, mut b) = (a, b);
                for _ in 0..kc {
                    let mut bv = [$zero(); $NV];
                    for (v, bvv) in bv.iter_mut().enumerate() {
                        *bvv = $load(b.add(v * $W));
                    }
                    for (i, row) in acc.iter_mut().enumerate() {
                        let ai = $set1(*a.wrapping_add(i * rsa));
                        for (accv, &bvv) in row.iter_mut().zip(&bv) {
                            *accv = $fmadd(ai, bvv, *accv);
                        }
                    }
                    a = a.wrapping_add(csa);
                    b = b.wrapping_add(ldb);
                }
                let alpha_v = $set1(alpha);
                if beta == 0.0 {
                    for (i, row) in acc.iter().enumerate() {
                        for (v, &accv) in row.iter().enumerate() {
                            $store(c.add(i * ldc + v * $W), $mul(alpha_v, accv));
                        }
                    }
                } else {
                    let beta_v = $set1(beta);
                    for (i, row) in acc.iter().enumerate() {
                        for (v, &accv) in row.iter().enumerate() {
                            let p = c.add(i * ldc + v * $W);
                            $store(p, $fmadd(alpha_v, accv, $mul(beta_v, $load(p))));
                        }
                    }
                }
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
use simd_kernel;
