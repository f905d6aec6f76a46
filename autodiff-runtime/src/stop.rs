//! `stop_gradient`: takes a value, gives it back unchanged; `#[differentiate]` reads the call as
//! a constant (no tangent comes out of it, no adjoint flows into its argument).

/// The value `x`, unchanged, held constant by `#[differentiate]`: in the generated `_jvp` its
/// tangent is zero and in `_vjp`/`_grad` no adjoint flows back into `x`, as if the value had been
/// computed outside the function and passed in. (JAX's `lax.stop_gradient`, PyTorch's
/// `detach`.)
///
/// It takes any value: a float, an array, a `Vec`, a slice (`stop_gradient(v)` with
/// `v: &[f64]`), an element (`stop_gradient(v[i])`), a tuple. Outside differentiated code it is
/// the identity. The macro recognises the call written `stop_gradient(e)` or
/// `autodiff_runtime::stop_gradient(e)`.
///
/// ```
/// use autodiff_runtime::{differentiate, stop_gradient};
///
/// // A loss against a target computed from the parameter itself, held fixed ("detached").
/// #[differentiate]
/// fn loss(w: f64, x: f64) -> f64 {
///     let target = stop_gradient(2.0 * w * x);
///     let r = w * x - target;
///     r * r
/// }
///
/// let (value, grad) = loss_grad(3.0, 0.5);
/// assert_eq!(value, 2.25);
/// // d/dw (w x - t)^2 with t constant: 2 (w x - t) x = 2 (1.5 - 3) 0.5.
/// assert_eq!(grad.w, -1.5);
/// ```
#[inline(always)]
#[must_use]
pub fn stop_gradient<T>(x: T) -> T {
    x
}
