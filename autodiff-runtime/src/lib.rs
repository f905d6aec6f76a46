//! Runtime of `#[differentiate]`: takes nothing from the user but types, gives the `Dual` number,
//! the one table of derivative rules, the value traits (zero tangents, accumulation, scaling of
//! any value generated code handles), gradient-check helpers, checkpointed reverse sweeps through
//! time-stepping loops, and the hidden `__private` path that generated code calls.
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
pub mod checkpoint;
pub mod dual;
pub mod dualn;
mod fast;
pub mod jacobian;
pub mod kernels;
pub mod lanes;
#[doc(hidden)]
pub mod na;
pub mod nn;
#[doc(hidden)]
pub mod ragged;
pub mod rules;
pub mod second_order;
mod stop;
pub mod value;

pub use dual::Dual;
pub use dualn::DualN;
pub use lanes::{LaneScalar, LaneTangent};
pub use stop::stop_gradient;
pub use value::{Differentiable, Scalar, Scale, Tangent};

/// Derives [`Differentiable`](trait@Differentiable) for a struct: named, tuple or unit, generic or
/// not. It generates the tangent type `<Name>Tangent` (same visibility, same fields, each typed
/// `<F as Differentiable>::Tangent`, so a `usize`, `bool` or `String` field gets `()`), and
/// implements [`Differentiable`](trait@Differentiable) for the struct and [`Tangent`], [`Scale`],
/// `Clone`, `Debug` and `PartialEq` for its tangent (for a generic struct, `Debug` and `PartialEq`
/// when its fields' tangents have them). Every field's type must be `Differentiable`; mark one
/// that is not (an `Rc`, an `Option`, a `PhantomData`) or that should be held constant
/// `#[differentiable(skip)]`: its tangent is `()`. See the [`value`] module docs for the details.
///
/// ```
/// use autodiff_runtime::value::{accumulate, add_scaled, scale, zero_tangent};
/// use autodiff_runtime::Differentiable;
/// use std::rc::Rc;
///
/// #[derive(Differentiable)]
/// struct Particle {
///     pos: [f64; 3],
///     mass: f64,
///     id: usize,
///     #[differentiable(skip)]
///     label: Rc<str>,
/// }
///
/// let p = Particle { pos: [1.0, 2.0, 3.0], mass: 2.0, id: 7, label: "p".into() };
/// let mut t: ParticleTangent = zero_tangent(&p);
/// assert_eq!(t, ParticleTangent { pos: [0.0; 3], mass: 0.0, id: (), label: () });
/// let g = ParticleTangent { pos: [1.0, 0.0, -1.0], mass: 0.5, id: (), label: () };
/// accumulate(&mut t, &g); // t += g
/// add_scaled(&mut t, &g, 2.0); // t += 2 g
/// scale(&mut t, 0.5); // t *= 0.5
/// assert_eq!(t.pos, [1.5, 0.0, -1.5]);
/// assert_eq!(t.mass, 0.75);
///
/// // Generic structs: the impls ask what the fields need (here `T: Differentiable`).
/// #[derive(Differentiable)]
/// struct State<T> {
///     x: Vec<T>,
///     m: T,
///     steps: usize,
/// }
/// let s = State { x: vec![1.0_f32, 2.0], m: 3.0, steps: 10 };
/// let ds: StateTangent<f32> = zero_tangent(&s);
/// assert_eq!((ds.x, ds.m, ds.steps), (vec![0.0, 0.0], 0.0, ()));
/// # let _ = (p.id, p.label, s.steps);
/// ```
pub use autodiff_macros::Differentiable;

#[doc(hidden)]
pub mod __private;
