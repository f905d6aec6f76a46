//! Element-wise activations: takes slices, gives each function's forward (`y = f(x)`), JVP
//! (`y = f(x)`, `dy = f'(x) dx`) and VJP (`x_bar += f'(x) y_bar`) kernels, one generic loop per
//! form compiled once per path (see `isa::dispatch`) over the branch-free functions of `math.rs`.
//!
//! Products with a zero tangent or adjoint are zero even where `f'(x)` is infinite or NaN (the
//! crate's strong zero, see [`crate::Dual`]): `log_vjp` at `x = 0` with `y_bar = 0` adds 0.

use super::isa::{dispatch, Arith, Isa, Job};
use super::math;
use super::real::Real;

/// An element-wise function: value and derivative at `x`.
pub(crate) trait Unary<T: Real>: Copy {
    /// `f(x)`.
    fn f<A: Arith>(self, x: T) -> T;
    /// `f'(x)`.
    fn df<A: Arith>(self, x: T) -> T;
    /// `(f(x), f'(x))`, sharing work where the two have some.
    #[inline(always)]
    fn f_df<A: Arith>(self, x: T) -> (T, T) {
        (self.f::<A>(x), self.df::<A>(x))
    }
}

/// `g * d`, but zero when `g` is zero whatever `d` is (strong zero).
#[inline(always)]
fn strong_mul<T: Real>(g: T, d: T) -> T {
    if g == T::zero() {
        T::zero()
    } else {
        g * d
    }
}

struct Forward<'a, T, K> {
    k: K,
    x: &'a [T],
    y: &'a mut [T],
}

impl<T: Real, K: Unary<T>> Job for Forward<'_, T, K> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        for (y, &x) in self.y.iter_mut().zip(self.x) {
            *y = self.k.f::<A>(x);
        }
    }
}

struct Jvp<'a, T, K> {
    k: K,
    x: &'a [T],
    dx: &'a [T],
    y: &'a mut [T],
    dy: &'a mut [T],
}

impl<T: Real, K: Unary<T>> Job for Jvp<'_, T, K> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        let it = self.y.iter_mut().zip(self.dy.iter_mut());
        for ((y, dy), (&x, &dx)) in it.zip(self.x.iter().zip(self.dx)) {
            let (v, d) = self.k.f_df::<A>(x);
            *y = v;
            *dy = strong_mul(dx, d);
        }
    }
}

struct Vjp<'a, T, K> {
    k: K,
    x: &'a [T],
    y_bar: &'a [T],
    x_bar: &'a mut [T],
}

impl<T: Real, K: Unary<T>> Job for Vjp<'_, T, K> {
    type Out = ();
    #[inline(always)]
    fn run<A: Arith>(self, _: Isa) {
        for (xb, (&x, &yb)) in self.x_bar.iter_mut().zip(self.x.iter().zip(self.y_bar)) {
            *xb = *xb + strong_mul(yb, self.k.df::<A>(x));
        }
    }
}

fn same_len(what: &str, lens: &[(&str, usize)]) {
    let (first, n) = lens[0];
    for &(name, len) in &lens[1..] {
        assert!(
            len == n,
            "kernels::{what}: length mismatch: {first} has {n} elements, {name} has {len}"
        );
    }
}

pub(crate) fn forward<T: Real, K: Unary<T>>(what: &str, k: K, x: &[T], y: &mut [T]) {
    same_len(what, &[("x", x.len()), ("y", y.len())]);
    dispatch(Forward { k, x, y });
}

pub(crate) fn jvp<T: Real, K: Unary<T>>(
    what: &str,
    k: K,
    x: &[T],
    dx: &[T],
    y: &mut [T],
    dy: &mut [T],
) {
    same_len(
        what,
        &[
            ("x", x.len()),
            ("dx", dx.len()),
            ("y", y.len()),
            ("dy", dy.len()),
        ],
    );
    dispatch(Jvp { k, x, dx, y, dy });
}

pub(crate) fn vjp<T: Real, K: Unary<T>>(what: &str, k: K, x: &[T], y_bar: &[T], x_bar: &mut [T]) {
    same_len(
        what,
        &[
            ("x", x.len()),
            ("y_bar", y_bar.len()),
            ("x_bar", x_bar.len()),
        ],
    );
    dispatch(Vjp { k, x, y_bar, x_bar });
}

/// Writes the three public kernels of an element-wise function without parameters.
macro_rules! unary_kernels {
    ($op:expr, $fwd:ident, $jvp:ident, $vjp:ident, $formula:literal, $deriv:literal) => {
        #[doc = concat!("Forward: `y[i] = ", $formula, "` for `x[i]`.")]
        ///
        /// # Panics
        ///
        /// If the slices' lengths differ.
        pub fn $fwd<T: Real>(x: &[T], y: &mut [T]) {
            forward(stringify!($fwd), $op, x, y)
        }

        #[doc = concat!("JVP: `y[i] = ", $formula, "`, `dy[i] = ", $deriv, " * dx[i]` (both overwritten).")]
        ///
        /// # Panics
        ///
        /// If the slices' lengths differ.
        pub fn $jvp<T: Real>(x: &[T], dx: &[T], y: &mut [T], dy: &mut [T]) {
            jvp(stringify!($jvp), $op, x, dx, y, dy)
        }

        #[doc = concat!("VJP: `x_bar[i] += ", $deriv, " * y_bar[i]` (accumulates).")]
        ///
        /// # Panics
        ///
        /// If the slices' lengths differ.
        pub fn $vjp<T: Real>(x: &[T], y_bar: &[T], x_bar: &mut [T]) {
            vjp(stringify!($vjp), $op, x, y_bar, x_bar)
        }
    };
}

#[derive(Clone, Copy)]
struct Relu;
impl<T: Real> Unary<T> for Relu {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        // NaN stays NaN (the comparison is false), -0 becomes +0.
        if x <= T::zero() {
            T::zero()
        } else {
            x
        }
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        if x > T::zero() {
            T::one()
        } else {
            T::zero()
        }
    }
}
unary_kernels!(
    Relu,
    relu,
    relu_jvp,
    relu_vjp,
    "max(x, 0)",
    "(x > 0 ? 1 : 0)"
);

#[derive(Clone, Copy)]
struct LeakyRelu<T>(T);
impl<T: Real> Unary<T> for LeakyRelu<T> {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        if x > T::zero() {
            x
        } else {
            self.0 * x
        }
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        if x > T::zero() {
            T::one()
        } else {
            self.0
        }
    }
}

/// Forward: `y[i] = x[i] > 0 ? x[i] : slope * x[i]`.
///
/// # Panics
///
/// If the slices' lengths differ.
pub fn leaky_relu<T: Real>(x: &[T], y: &mut [T], slope: T) {
    forward("leaky_relu", LeakyRelu(slope), x, y)
}

/// JVP: `y` as [`leaky_relu`], `dy[i] = (x[i] > 0 ? 1 : slope) * dx[i]` (the derivative at 0 is
/// `slope`, so `slope = 0` agrees with [`relu`]).
///
/// # Panics
///
/// If the slices' lengths differ.
pub fn leaky_relu_jvp<T: Real>(x: &[T], dx: &[T], y: &mut [T], dy: &mut [T], slope: T) {
    jvp("leaky_relu_jvp", LeakyRelu(slope), x, dx, y, dy)
}

/// VJP: `x_bar[i] += (x[i] > 0 ? 1 : slope) * y_bar[i]`.
///
/// # Panics
///
/// If the slices' lengths differ.
pub fn leaky_relu_vjp<T: Real>(x: &[T], y_bar: &[T], x_bar: &mut [T], slope: T) {
    vjp("leaky_relu_vjp", LeakyRelu(slope), x, y_bar, x_bar)
}

#[derive(Clone, Copy)]
struct Sigmoid;
impl<T: Real> Unary<T> for Sigmoid {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        math::sigmoid::<T, A>(x)
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        math::sigmoid_deriv::<T, A>(x).1
    }
}
unary_kernels!(
    Sigmoid,
    sigmoid,
    sigmoid_jvp,
    sigmoid_vjp,
    "1 / (1 + exp(-x))",
    "σ(x) (1 - σ(x))"
);

#[derive(Clone, Copy)]
struct Tanh;
impl<T: Real> Unary<T> for Tanh {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        math::tanh::<T, A>(x)
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        math::tanh_deriv::<T, A>(x)
    }
}
unary_kernels!(Tanh, tanh, tanh_jvp, tanh_vjp, "tanh(x)", "(1 - tanh²(x))");

/// `√(2/π)` and the cubic coefficient of the tanh form of GELU.
const GELU_C: f64 = 0.797_884_560_802_865_4;
const GELU_K: f64 = 0.044_715;

#[derive(Clone, Copy)]
struct GeluTanh;
impl<T: Real> Unary<T> for GeluTanh {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        self.f_df::<A>(x).0
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        self.f_df::<A>(x).1
    }
    #[inline(always)]
    fn f_df<A: Arith>(self, x: T) -> (T, T) {
        // 0.5 x (1 + tanh u) = x σ(2u), u = c x (1 + k x²): no cancellation for x < 0.
        let x2 = x * x;
        // 2u = x (2c + 2ck x²): three roundings.
        let two_u = x * A::madd(T::c(2.0 * GELU_C * GELU_K), x2, T::c(2.0 * GELU_C));
        let y = math::sigmoid_scaled::<T, A>(two_u, x);
        let (s, ds) = math::sigmoid_deriv::<T, A>(two_u);
        // d/dx = σ(2u) + x σ'(2u) 2u'(x), 2u' = 2c (1 + 3k x²); zero where σ' underflowed (this
        // also keeps inf * 0 out for huge |x|).
        let two_du = T::c(2.0 * GELU_C) * A::madd(T::c(3.0 * GELU_K), x2, T::one());
        let dy = if ds == T::zero() {
            s
        } else {
            A::madd(x * ds, two_du, s)
        };
        (y, dy)
    }
}
unary_kernels!(
    GeluTanh,
    gelu_tanh,
    gelu_tanh_jvp,
    gelu_tanh_vjp,
    "0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))",
    "gelu_tanh'(x)"
);

#[derive(Clone, Copy)]
struct GeluErf;
impl<T: Real> Unary<T> for GeluErf {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        math::normal_cdf_pdf::<T, A>(x, x).2
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        self.f_df::<A>(x).1
    }
    #[inline(always)]
    fn f_df<A: Arith>(self, x: T) -> (T, T) {
        let (p, d, y) = math::normal_cdf_pdf::<T, A>(x, x);
        let dy = if d == T::zero() { p } else { A::madd(x, d, p) };
        (y, dy)
    }
}
unary_kernels!(
    GeluErf,
    gelu_erf,
    gelu_erf_jvp,
    gelu_erf_vjp,
    "x Φ(x) = 0.5 x (1 + erf(x / √2))",
    "(Φ(x) + x φ(x))"
);

#[derive(Clone, Copy)]
struct Silu;
impl<T: Real> Unary<T> for Silu {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        math::sigmoid_scaled::<T, A>(x, x)
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        self.f_df::<A>(x).1
    }
    #[inline(always)]
    fn f_df<A: Arith>(self, x: T) -> (T, T) {
        let y = math::sigmoid_scaled::<T, A>(x, x);
        let (s, ds) = math::sigmoid_deriv::<T, A>(x);
        // σ + x σ'; σ' = 0 where it underflowed (keeps inf * 0 out at x = ±inf).
        let dy = if ds == T::zero() {
            s
        } else {
            A::madd(x, ds, s)
        };
        (y, dy)
    }
}
unary_kernels!(Silu, silu, silu_jvp, silu_vjp, "x σ(x)", "(σ(x) + x σ'(x))");

#[derive(Clone, Copy)]
struct Softplus;
impl<T: Real> Unary<T> for Softplus {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        let e = math::exp::<T, A>(-x.abs());
        let pos = if x > T::zero() { x } else { T::zero() };
        pos + math::ln_1p_unit::<T, A>(e)
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        math::sigmoid_deriv::<T, A>(x).0
    }
}
unary_kernels!(
    Softplus,
    softplus,
    softplus_jvp,
    softplus_vjp,
    "ln(1 + exp(x)) = max(x, 0) + ln(1 + exp(-|x|))",
    "σ(x)"
);

#[derive(Clone, Copy)]
struct Exp;
impl<T: Real> Unary<T> for Exp {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        math::exp::<T, A>(x)
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        math::exp::<T, A>(x)
    }
    #[inline(always)]
    fn f_df<A: Arith>(self, x: T) -> (T, T) {
        let y = math::exp::<T, A>(x);
        (y, y)
    }
}
unary_kernels!(Exp, exp, exp_jvp, exp_vjp, "exp(x)", "exp(x)");

#[derive(Clone, Copy)]
struct Log;
impl<T: Real> Unary<T> for Log {
    #[inline(always)]
    fn f<A: Arith>(self, x: T) -> T {
        math::ln::<T, A>(x)
    }
    #[inline(always)]
    fn df<A: Arith>(self, x: T) -> T {
        x.recip()
    }
}
unary_kernels!(Log, log, log_jvp, log_vjp, "ln(x)", "(1 / x)");
