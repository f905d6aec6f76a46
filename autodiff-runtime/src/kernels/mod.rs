//! Numerical kernels: takes slices (vectors, row-major matrices with a leading dimension) of `f32`
//! or `f64`, gives matrix products, vector kernels, activations and losses with their forward,
//! JVP and VJP forms, each vectorized per instruction set and chosen at run time.
//!
//! # Paths
//!
//! Every kernel runs on one of the [`Isa`] paths: AVX-512F, AVX2+FMA or portable Rust. The widest
//! one the CPU has is detected once ([`detected_isa`]) and cached; [`with_isa`] forces another one
//! on the current thread (tests and benchmarks), [`available_isas`] lists them, and
//! [`isa_calls`] counts, per thread and path, the kernel calls dispatched (to prove a path ran).
//!
//! # Checked shapes
//!
//! Every kernel checks its arguments' shapes and lengths and panics with a message naming them;
//! the `unsafe` code (micro-kernels, packing buffers) only runs after these checks and lives in
//! this module alone.
//!
//! # Conventions
//!
//! - Matrices are row-major: [`MatRef`] (read-only, transposable for free with [`MatRef::t`]) and
//!   [`MatMut`] (output), both with a leading dimension.
//! - Forward kernels overwrite their output (`y`), JVP kernels overwrite the output and its tangent
//!   (`y`, `dy`), VJP kernels **accumulate** into the input's adjoint (`x_bar += Jᵀ y_bar`), as all
//!   adjoint buffers of this crate do. Matrix kernels take `beta`, so `beta = 1` accumulates: the
//!   VJP of `C = A B` is `matmul(1, c_bar, b.t(), 1, a_bar)` and `matmul(1, a.t(), c_bar, 1,
//!   b_bar)`, with no temporary.
//! - Names: `f(x, y)`, `f_jvp(x, dx, y, dy)`, `f_vjp(x, y_bar, x_bar)`; parameters (the slope of
//!   `leaky_relu`) come last; losses return the loss (`f`) or `(loss, d_loss)` (`f_jvp`) and their
//!   VJP takes the scalar `loss_bar`.
//! - Derivatives at kinks: `relu'(0) = 0`, `leaky_relu'(0) = slope`.
//! - Strong zero: a zero tangent or adjoint contributes zero even where the derivative is infinite
//!   or NaN (`log_vjp` at `x = 0` with `y_bar = 0` adds nothing), as [`crate::Dual`] does.
//! - NaN in, NaN out, with the limits at ±inf (`silu(-inf) = gelu(-inf) = -0`, `sigmoid(±inf) = 1,
//!   0`, ...); the formulas are chosen so that no intermediate overflows (sigmoid and softplus
//!   through `exp(-|x|)`, softmax and logsumexp with the row maximum subtracted).
//!
//! # Accuracy
//!
//! The element-wise functions are branch-free polynomial approximations (see `math.rs`), measured
//! against the scalar `std` formulas over a sweep of the whole float range (subnormals, ±inf and
//! NaN included) in `tests/kernels.rs`: `exp`, `log` within 1 ulp; `sigmoid` 2; `softplus` 2;
//! `tanh` 2 (`f32`) and 4 (`f64`); `silu` 3 and 4; `gelu_tanh` 4 and 5 for `x >= -1` (below, the
//! function's condition number `≈ 1 + |2u|` scales both ours and the reference's rounding);
//! `gelu_erf` 6 and 5 (against mpmath for `f64`).

#![warn(missing_docs)]

mod activations;
mod blas;
mod coefs;
mod gemm;
mod isa;
mod losses;
mod mat;
mod math;
mod micro;
mod real;
mod softmax;

pub use activations::{
    exp, exp_jvp, exp_vjp, gelu_erf, gelu_erf_jvp, gelu_erf_vjp, gelu_tanh, gelu_tanh_jvp,
    gelu_tanh_vjp, leaky_relu, leaky_relu_jvp, leaky_relu_vjp, log, log_jvp, log_vjp, relu,
    relu_jvp, relu_vjp, sigmoid, sigmoid_jvp, sigmoid_vjp, silu, silu_jvp, silu_vjp, softplus,
    softplus_jvp, softplus_vjp, tanh, tanh_jvp, tanh_vjp,
};
pub use blas::{axpy, dot, ger, matvec};
pub use gemm::matmul;
pub use isa::{available_isas, current_isa, detected_isa, isa_calls, with_isa, Isa};
pub use losses::{
    cross_entropy_labels, cross_entropy_labels_jvp, cross_entropy_labels_vjp, cross_entropy_onehot,
    cross_entropy_onehot_jvp, cross_entropy_onehot_vjp, mse, mse_jvp, mse_vjp,
};
pub use mat::{MatMut, MatRef};
pub use real::Real;
pub use softmax::{
    log_softmax, log_softmax_jvp, log_softmax_vjp, logsumexp, logsumexp_jvp, logsumexp_vjp,
    softmax, softmax_jvp, softmax_vjp,
};

#[cfg(test)]
mod tests;
