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
//!   adjoint buffers of this crate do. Matrix kernels take `beta`, so `beta = 1` accumulates.

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
