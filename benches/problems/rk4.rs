//! Benchmark problem e: fitting a Lotka-Volterra model integrated by classic Runge-Kutta 4. Takes
//! the four rates, the initial populations and observations after each step, gives the primal
//! (as a user writes it for `#[differentiate]`: a right-hand side function called four times per
//! step), a good hand-written adjoint and a good hand-written tangent.

// The primal body indexes on purpose: loops over indices are what `#[differentiate]` reads.
#![allow(clippy::needless_range_loop)]

/// Number of Runge-Kutta steps used by the benchmark.
pub const LV_STEPS: usize = 200;
/// Step size used by the benchmark (the whole run covers about two periods).
pub const LV_H: f64 = 0.05;
/// Rates `[a, b, c, d]` around which the benchmark draws its parameters.
pub const LV_RATES: [f64; 4] = [2.0 / 3.0, 4.0 / 3.0, 1.0, 1.0];

/// Lotka-Volterra right-hand side: prey `y[0]`, predators `y[1]`, rates `p = [a, b, c, d]`.
pub fn lotka_volterra(p: &[f64; 4], y: &[f64; 2]) -> [f64; 2] {
    let [a, b, c, d] = *p;
    [a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]]
}

/// Sum of squared differences between `steps` RK4 steps of size `h` from `y0` and `obs` (two
/// populations after each step).
pub fn lv_fit(p: &[f64; 4], y0: &[f64; 2], obs: &[f64], h: f64, steps: usize) -> f64 {
    let mut y = *y0;
    let mut loss = 0.0;
    for s in 0..steps {
        let k1: [f64; 2] = lotka_volterra(p, &y);
        let k2: [f64; 2] = lotka_volterra(p, &[y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3: [f64; 2] = lotka_volterra(p, &[y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4: [f64; 2] = lotka_volterra(p, &[y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        let e0 = y[0] - obs[2 * s];
        let e1 = y[1] - obs[2 * s + 1];
        loss += e0 * e0 + e1 * e1;
    }
    loss
}

/// The right-hand side on plain floats, with [`lotka_volterra`]'s arithmetic.
#[inline(always)]
fn rhs(p: &[f64; 4], y0: f64, y1: f64) -> (f64, f64) {
    let [a, b, c, d] = *p;
    (a * y0 - b * y0 * y1, c * y0 * y1 - d * y1)
}

/// `J(y)^T v` of the right-hand side at `y`; adds `(df/dp)^T v` into `pb`.
#[inline(always)]
fn rhs_pullback(p: &[f64; 4], y0: f64, y1: f64, v0: f64, v1: f64, pb: &mut [f64; 4]) -> (f64, f64) {
    let [a, b, c, d] = *p;
    let y01 = y0 * y1;
    pb[0] += v0 * y0;
    pb[1] -= v0 * y01;
    pb[2] += v1 * y01;
    pb[3] -= v1 * y1;
    (
        v0 * (a - b * y1) + v1 * c * y1,
        v1 * (c * y0 - d) - v0 * b * y0,
    )
}

/// A point or a slope of the two populations.
type Pair = (f64, f64);

/// One RK4 step from `(x0, x1)`: the three inner stage points and the four slopes.
#[inline(always)]
fn stages(p: &[f64; 4], h: f64, x0: f64, x1: f64) -> ([Pair; 3], [Pair; 4]) {
    let k1 = rhs(p, x0, x1);
    let s2 = (x0 + 0.5 * h * k1.0, x1 + 0.5 * h * k1.1);
    let k2 = rhs(p, s2.0, s2.1);
    let s3 = (x0 + 0.5 * h * k2.0, x1 + 0.5 * h * k2.1);
    let k3 = rhs(p, s3.0, s3.1);
    let s4 = (x0 + h * k3.0, x1 + h * k3.1);
    let k4 = rhs(p, s4.0, s4.1);
    ([s2, s3, s4], [k1, k2, k3, k4])
}

/// Hand-written adjoint of [`lv_fit`] with respect to `p` and `y0`: returns the value and adds
/// `seed` times the derivatives into `dp` and `dy0`.
///
/// Forward sweep: the primal on two registers, storing the state after every step (16 bytes a
/// step). Reverse sweep: per step, the stages are recomputed from the stored state (cheaper than
/// storing them) and the slopes' adjoints pulled back through the right-hand side's 2 x 2
/// Jacobian in closed form; the state's and the rates' adjoints stay in registers throughout.
#[allow(clippy::too_many_arguments)]
pub fn lv_fit_adjoint(
    p: &[f64; 4],
    y0: &[f64; 2],
    obs: &[f64],
    h: f64,
    steps: usize,
    dp: &mut [f64; 4],
    dy0: &mut [f64; 2],
    seed: f64,
) -> f64 {
    let obs = &obs[..2 * steps];
    let mut ys = Vec::with_capacity(steps + 1);
    let (mut x0, mut x1) = (y0[0], y0[1]);
    ys.push((x0, x1));
    let mut loss = 0.0;
    for s in 0..steps {
        let (_, [k1, k2, k3, k4]) = stages(p, h, x0, x1);
        x0 += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        x1 += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        ys.push((x0, x1));
        let e0 = x0 - obs[2 * s];
        let e1 = x1 - obs[2 * s + 1];
        loss += e0 * e0 + e1 * e1;
    }

    let mut pb = [0.0; 4];
    let (mut yb0, mut yb1) = (0.0, 0.0);
    for s in (0..steps).rev() {
        let (n0, n1) = ys[s + 1];
        yb0 += 2.0 * seed * (n0 - obs[2 * s]);
        yb1 += 2.0 * seed * (n1 - obs[2 * s + 1]);
        let (x0, x1) = ys[s];
        let ([s2, s3, s4], _) = stages(p, h, x0, x1);
        // y_new = y + h/6 (k1 + 2 k2 + 2 k3 + k4): the slopes' adjoints.
        let (w0, w1) = (h / 6.0 * yb0, h / 6.0 * yb1);
        let (mut k3b0, mut k3b1) = (2.0 * w0, 2.0 * w1);
        let (mut k2b0, mut k2b1) = (2.0 * w0, 2.0 * w1);
        let (mut k1b0, mut k1b1) = (w0, w1);
        // k4 = f(y + h k3)
        let (g0, g1) = rhs_pullback(p, s4.0, s4.1, w0, w1, &mut pb);
        yb0 += g0;
        yb1 += g1;
        k3b0 += h * g0;
        k3b1 += h * g1;
        // k3 = f(y + h/2 k2)
        let (g0, g1) = rhs_pullback(p, s3.0, s3.1, k3b0, k3b1, &mut pb);
        yb0 += g0;
        yb1 += g1;
        k2b0 += 0.5 * h * g0;
        k2b1 += 0.5 * h * g1;
        // k2 = f(y + h/2 k1)
        let (g0, g1) = rhs_pullback(p, s2.0, s2.1, k2b0, k2b1, &mut pb);
        yb0 += g0;
        yb1 += g1;
        k1b0 += 0.5 * h * g0;
        k1b1 += 0.5 * h * g1;
        // k1 = f(y)
        let (g0, g1) = rhs_pullback(p, x0, x1, k1b0, k1b1, &mut pb);
        yb0 += g0;
        yb1 += g1;
    }
    for i in 0..4 {
        dp[i] += pb[i];
    }
    dy0[0] += yb0;
    dy0[1] += yb1;
    loss
}

/// `J(y) t + (df/dp) tp` of the right-hand side at `y`, with its value.
#[inline(always)]
fn rhs_tangent(p: &[f64; 4], tp: &[f64; 4], y: Pair, t: Pair) -> [Pair; 2] {
    let [a, b, c, d] = *p;
    let [ta, tb, tc, td] = *tp;
    let (y0, y1) = y;
    let y01 = y0 * y1;
    let t01 = t.0 * y1 + y0 * t.1;
    [
        // The value with the primal's rounding.
        (a * y0 - b * y0 * y1, c * y0 * y1 - d * y1),
        (
            ta * y0 + a * t.0 - tb * y01 - b * t01,
            tc * y01 + c * t01 - td * y1 - d * t.1,
        ),
    ]
}

/// Hand-written tangent of [`lv_fit`] along `dp`, `dy0`: state and tangent on registers, each
/// stage's slope and its tangent together.
pub fn lv_fit_tangent(
    p: &[f64; 4],
    y0: &[f64; 2],
    obs: &[f64],
    h: f64,
    steps: usize,
    dp: &[f64; 4],
    dy0: &[f64; 2],
) -> (f64, f64) {
    let obs = &obs[..2 * steps];
    let (mut x, mut t) = ((y0[0], y0[1]), (dy0[0], dy0[1]));
    let (mut loss, mut tloss) = (0.0, 0.0);
    for s in 0..steps {
        let [k1, tk1] = rhs_tangent(p, dp, x, t);
        let y2 = (x.0 + 0.5 * h * k1.0, x.1 + 0.5 * h * k1.1);
        let t2 = (t.0 + 0.5 * h * tk1.0, t.1 + 0.5 * h * tk1.1);
        let [k2, tk2] = rhs_tangent(p, dp, y2, t2);
        let y3 = (x.0 + 0.5 * h * k2.0, x.1 + 0.5 * h * k2.1);
        let t3 = (t.0 + 0.5 * h * tk2.0, t.1 + 0.5 * h * tk2.1);
        let [k3, tk3] = rhs_tangent(p, dp, y3, t3);
        let y4 = (x.0 + h * k3.0, x.1 + h * k3.1);
        let t4 = (t.0 + h * tk3.0, t.1 + h * tk3.1);
        let [k4, tk4] = rhs_tangent(p, dp, y4, t4);
        x.0 += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        x.1 += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        t.0 += h / 6.0 * (tk1.0 + 2.0 * tk2.0 + 2.0 * tk3.0 + tk4.0);
        t.1 += h / 6.0 * (tk1.1 + 2.0 * tk2.1 + 2.0 * tk3.1 + tk4.1);
        let e0 = x.0 - obs[2 * s];
        let e1 = x.1 - obs[2 * s + 1];
        loss += e0 * e0 + e1 * e1;
        tloss += 2.0 * (e0 * t.0 + e1 * t.1);
    }
    (loss, tloss)
}
