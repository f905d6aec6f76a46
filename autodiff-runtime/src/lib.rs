//! Runtime of `#[differentiate]`: takes nothing from the user but types, gives the `Dual` number,
//! the one table of derivative rules, the value traits (zero tangents, accumulation, scaling of
//! any value generated code handles), gradient-check helpers, and the hidden `__private` path that
//! generated code calls.
//!
//! Users depend on this crate alone; it re-exports the attribute macro:
//!
//! ```
//! use autodiff_runtime::differentiate;
//!
//! #[differentiate]
//! fn f(x: f64, y: f64) -> f64 {
//!     x * y.sin()
//! }
//!
//! let (value, tangent) = f_jvp(2.0, 0.5, 1.0, 0.0);
//! assert_eq!(value, 2.0 * 0.5f64.sin());
//! assert_eq!(tangent, 0.5f64.sin());
//! ```

// Lets this crate's own tests and doc tests use the macro, which names `::autodiff_runtime`.
extern crate self as autodiff_runtime;

pub use autodiff_macros::differentiate;

pub mod check;
pub mod dual;
pub mod kernels;
pub mod rules;
pub mod value;

pub use dual::Dual;
pub use value::{Differentiable, Scalar, Scale, Tangent};

#[doc(hidden)]
pub mod __private;
