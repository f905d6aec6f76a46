//! Instruction-set paths: takes nothing, gives the [`Isa`] enum, run-time detection (done once and
//! cached), a per-thread override for tests and benchmarks ([`with_isa`]), per-thread counters
//! proving which path ran ([`isa_calls`]), and the crate-internal [`dispatch`] that runs a
//! [`Job`] compiled once per instruction set.

use std::cell::Cell;
use std::sync::OnceLock;

use super::real::Real;

/// One instruction-set path of the kernels.
///
/// Every kernel has a portable path (plain Rust, SSE2 at most on x86-64) and, on x86-64, an
/// AVX2+FMA path and an AVX-512F path. The matrix products use one hand-written micro-kernel per
/// path; the element-wise kernels are the same source compiled three times, with the target
/// features of the path enabled and `mul_add` fused on the two SIMD paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isa {
    /// Plain Rust, no target feature beyond the compilation target's baseline.
    Portable,
    /// x86-64 AVX2 and FMA (256-bit vectors, 16 registers).
    Avx2Fma,
    /// x86-64 AVX-512F (512-bit vectors, 32 registers), with AVX2 and FMA.
    Avx512,
}

impl Isa {
    /// All paths, from the most portable to the widest.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2Fma, Isa::Avx512];

    fn index(self) -> usize {
        match self {
            Isa::Portable => 0,
            Isa::Avx2Fma => 1,
            Isa::Avx512 => 2,
        }
    }

    /// Whether this CPU can run the path (detected at run time).
    pub fn is_available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2Fma => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Isa::Avx2Fma.is_available() && is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// The paths this CPU can run, from the most portable to the widest (always starts with
/// [`Isa::Portable`]).
pub fn available_isas() -> Vec<Isa> {
    Isa::ALL
        .into_iter()
        .filter(|isa| isa.is_available())
        .collect()
}

/// The widest available path: what the kernels use unless [`with_isa`] says otherwise. Detected
/// on the first call, then cached for the life of the process.
pub fn detected_isa() -> Isa {
    static DETECTED: OnceLock<Isa> = OnceLock::new();
    *DETECTED.get_or_init(|| {
        let widest = available_isas().pop();
        widest.unwrap_or(Isa::Portable)
    })
}

thread_local! {
    static FORCED: Cell<Option<Isa>> = const { Cell::new(None) };
    static CALLS: [Cell<u64>; 3] = const { [Cell::new(0), Cell::new(0), Cell::new(0)] };
}

/// The path kernels called on this thread use now: the one forced by the innermost enclosing
/// [`with_isa`], else [`detected_isa`].
pub fn current_isa() -> Isa {
    FORCED.with(Cell::get).unwrap_or_else(detected_isa)
}

/// Runs `f` with every kernel called on this thread inside it forced onto `isa`, then restores the
/// previous choice (also when `f` panics). Nests; other threads are not affected.
///
/// # Panics
///
/// If this CPU cannot run `isa` (see [`available_isas`]).
pub fn with_isa<R>(isa: Isa, f: impl FnOnce() -> R) -> R {
    assert!(
        isa.is_available(),
        "kernels::with_isa: this CPU cannot run the {isa:?} path (available: {:?})",
        available_isas()
    );
    struct Restore(Option<Isa>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some(isa))));
    f()
}

/// How many kernel calls this thread has dispatched to `isa` so far (a matrix product counts once,
/// however many micro-kernel calls it makes). Tests read it before and after a call to prove
/// which path ran; other threads' calls are not counted.
pub fn isa_calls(isa: Isa) -> u64 {
    CALLS.with(|c| c[isa.index()].get())
}

fn count(isa: Isa) {
    CALLS.with(|c| {
        let cell = &c[isa.index()];
        cell.set(cell.get() + 1);
    });
}

/// Whether `mul_add` of the floats is fused (one rounding, one instruction) on the path the
/// generic code is compiled for. The portable path must not call `mul_add`: without the FMA target
/// feature it is a library call per element, which also stops vectorization.
pub(crate) trait Arith {
    /// Whether `madd` is fused.
    const FUSED: bool;
    /// `a * b + c`, fused or not.
    fn madd<T: Real>(a: T, b: T, c: T) -> T;
}

/// `a * b + c` as one fused multiply-add (the SIMD paths).
pub(crate) struct Fused;
/// `a * b + c` as a product then a sum (the portable path).
pub(crate) struct Unfused;

impl Arith for Fused {
    const FUSED: bool = true;
    #[inline(always)]
    fn madd<T: Real>(a: T, b: T, c: T) -> T {
        a.mul_add(b, c)
    }
}

impl Arith for Unfused {
    const FUSED: bool = false;
    #[inline(always)]
    fn madd<T: Real>(a: T, b: T, c: T) -> T {
        a * b + c
    }
}

/// A kernel call, compiled once per path: `run` is `#[inline(always)]` in every implementation,
/// so that its body is inlined into the `#[target_feature]` functions below and vectorized for
/// that path.
pub(crate) trait Job {
    /// What the kernel returns.
    type Out;
    /// The kernel's body, with `A` telling whether `mul_add` is fused on this path.
    fn run<A: Arith>(self, isa: Isa) -> Self::Out;
}

/// Runs `job` on the current path (see [`current_isa`]) and counts the call.
pub(crate) fn dispatch<J: Job>(job: J) -> J::Out {
    let isa = current_isa();
    count(isa);
    match isa {
        Isa::Portable => job.run::<Unfused>(isa),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `current_isa` only returns a path that `is_available` confirmed on this CPU
        // (`with_isa` asserts it, `detected_isa` filters by it), so AVX2 and FMA are present.
        Isa::Avx2Fma => unsafe { run_avx2(job, isa) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512F, AVX2 and FMA were detected on this CPU.
        Isa::Avx512 => unsafe { run_avx512(job, isa) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("only the portable path exists off x86-64"),
    }
}

/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<J: Job>(job: J, isa: Isa) -> J::Out {
    job.run::<Fused>(isa)
}

/// # Safety
///
/// The CPU must support AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn run_avx512<J: Job>(job: J, isa: Isa) -> J::Out {
    job.run::<Fused>(isa)
}
