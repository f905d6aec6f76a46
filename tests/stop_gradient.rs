//! `stop_gradient(x)` in both modes: takes differentiated functions that hold some values
//! constant, gives checks of `_jvp` and `_vjp` against the derivative of the same function with
//! the stopped values frozen (finite differences cannot see `stop_gradient`: each function has
//! a plain twin that records the stopped values at the base point, then replays them as
//! constants while it is perturbed), hand-derived derivatives, and the dot-product test.
#![allow(clippy::all)]
// The functions under test are run through their companions and checked against plain twins.
#![allow(dead_code)]

use autodiff_runtime::{check, differentiate, stop_gradient};
use num_traits::Float;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The plain twins' `stop_gradient`: records each stopped value (`replay: None`), or gives the
/// recorded one back in the same order (`replay: Some`).
struct Freeze<'a> {
    replay: Option<&'a [f64]>,
    seen: Vec<f64>,
}

impl Freeze<'_> {
    fn sg(&mut self, v: f64) -> f64 {
        let out = match self.replay {
            Some(r) => r[self.seen.len()],
            None => v,
        };
        self.seen.push(v);
        out
    }
}

type Plain<'a> = &'a dyn Fn(&[f64], &mut Freeze) -> Vec<f64>;
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>);
type Vjp<'a> = &'a dyn Fn(&[f64], &[f64], &mut [f64]) -> Vec<f64>;

/// At `count` random points in `[lo, hi]^n` and along random and coordinate directions: the
/// value equals the plain twin's, the tangent equals central differences of the twin with the
/// stopped values frozen at the point, and `_vjp` passes the dot-product test against `_jvp`.
/// `tol`: relative tolerance of the comparisons (f32 functions need a coarser one).
fn check_frozen(
    n: usize,
    plain: Plain,
    jvp: Jvp,
    vjp: Vjp,
    count: usize,
    lo: f64,
    hi: f64,
    tol: f64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let step = if tol > 1e-5 { 1e-3 } else { 1e-6 };
    for _ in 0..count {
        let x: Vec<f64> = (0..n).map(|_| rng.gen_range(lo..hi)).collect();
        let mut rec = Freeze {
            replay: None,
            seen: Vec::new(),
        };
        let y = plain(&x, &mut rec);
        let frozen = rec.seen;
        let mut dirs: Vec<Vec<f64>> = (0..n)
            .map(|k| (0..n).map(|j| if j == k { 1.0 } else { 0.0 }).collect())
            .collect();
        dirs.push((0..n).map(|_| rng.gen_range(-1.0..1.0)).collect());
        for t in &dirs {
            let (v, jt) = jvp(&x, t);
            check::all_close(&v, &y, tol, tol).unwrap_or_else(|e| panic!("value at {x:?}: {e}"));
            let fd = check::central_difference(
                |p: &[f64]| {
                    let mut f = Freeze {
                        replay: Some(&frozen),
                        seen: Vec::new(),
                    };
                    plain(p, &mut f)
                },
                &x,
                t,
                step,
            );
            check::all_close(&jt, &fd, 100.0 * tol.max(1e-7), 100.0 * tol.max(1e-7))
                .unwrap_or_else(|e| panic!("jvp vs frozen differences at {x:?}, t = {t:?}: {e}"));
            let c: Vec<f64> = (0..y.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
            let mut g = vec![0.0; n];
            let v2 = vjp(&x, &c, &mut g);
            check::all_close(&v2, &y, tol, tol).unwrap_or_else(|e| panic!("vjp value: {e}"));
            check::dot_product_test(&jt, &c, t, &g, tol.max(1e-12))
                .unwrap_or_else(|e| panic!("dot-product test at {x:?}, t = {t:?}: {e}"));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// x * stop_gradient(x): derivative x, not 2x
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn self_product(x: f64) -> f64 {
    x * stop_gradient(x)
}

#[differentiate]
fn self_product32(x: f32) -> f32 {
    x * autodiff_runtime::stop_gradient(x)
}

#[test]
fn derivative_of_x_times_stopped_x_is_x() {
    for x in [-2.0, -0.5, 0.0, 1.0, 3.0] {
        assert_eq!(self_product_jvp(x, 1.0), (x * x, x));
        assert_eq!(self_product_grad(x), (x * x, SelfProductGrad { x }));
        let mut dx = 0.25;
        assert_eq!(self_product_vjp(x, &mut dx, 2.0), x * x);
        assert_eq!(dx, 0.25 + 2.0 * x);
        let x32 = x as f32;
        assert_eq!(self_product32_jvp(x32, 1.0), (x32 * x32, x32));
        assert_eq!(self_product32_grad(x32).1.x, x32);
    }
}

/// Every derivative is zero when the whole result is stopped.
#[differentiate]
fn all_stopped(x: f64, y: f64) -> f64 {
    stop_gradient(x.sin() * y) + 1.0
}

#[test]
fn a_stopped_result_has_zero_derivative() {
    let (v, t) = all_stopped_jvp(0.3, 2.0, 1.0, -1.0);
    assert_eq!((v, t), (0.3f64.sin() * 2.0 + 1.0, 0.0));
    let (_, g) = all_stopped_grad(0.3, 2.0);
    assert_eq!((g.x, g.y), (0.0, 0.0));
}

// ---------------------------------------------------------------------------------------------
// A loss against a detached target
// ---------------------------------------------------------------------------------------------

/// Least squares of a linear model against targets made from the model itself and held fixed
/// (a "detached" target, as in bootstrapped value estimates).
#[differentiate]
fn detached_loss(w: &[f64], x: &[f64], gamma: f64) -> f64 {
    let mut loss = 0.0;
    for i in 0..x.len() - 1 {
        let pred = w[0] + w[1] * x[i];
        let next = w[0] + w[1] * x[i + 1];
        let target = x[i] + gamma * stop_gradient(next);
        let r = pred - target;
        loss += r * r;
    }
    loss
}

fn detached_loss_plain(w: &[f64], x: &[f64], gamma: f64, f: &mut Freeze) -> f64 {
    let mut loss = 0.0;
    for i in 0..x.len() - 1 {
        let pred = w[0] + w[1] * x[i];
        let next = w[0] + w[1] * x[i + 1];
        let target = x[i] + gamma * f.sg(next);
        let r = pred - target;
        loss += r * r;
    }
    loss
}

#[test]
fn detached_target_gradient() {
    let x = [0.5, -1.0, 2.0, 0.25];
    let gamma = 0.9;
    let w = [0.3, -0.7];
    // Hand-derived: d/dw0 = sum 2 r, d/dw1 = sum 2 r x[i] (the target is a constant).
    let (mut g0, mut g1) = (0.0, 0.0);
    for i in 0..3 {
        let r = w[0] + w[1] * x[i] - (x[i] + gamma * (w[0] + w[1] * x[i + 1]));
        g0 += 2.0 * r;
        g1 += 2.0 * r * x[i];
    }
    let (_, g) = detached_loss_grad(&w, &x, gamma);
    check::all_close(&g.w, &[g0, g1], 1e-14, 1e-14).unwrap();
    // Over `w`, `x` and `gamma`, against the frozen twin.
    check_frozen(
        7,
        &|p, f| vec![detached_loss_plain(&p[..2], &p[2..6], p[6], f)],
        &|p, t| {
            let (v, d) = detached_loss_jvp(&p[..2], &p[2..6], p[6], &t[..2], &t[2..6], t[6]);
            (vec![v], vec![d])
        },
        &|p, c, g| {
            let (gw, rest) = g.split_at_mut(2);
            let (gx, gg) = rest.split_at_mut(4);
            vec![detached_loss_vjp(
                &p[..2],
                &p[2..6],
                p[6],
                gw,
                gx,
                &mut gg[0],
                c[0],
            )]
        },
        5,
        -2.0,
        2.0,
        1e-12,
    );
}

// ---------------------------------------------------------------------------------------------
// In loops (a stopped value overwritten every iteration), in branches, on slice elements
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn in_loop(x: f64, y: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = s * stop_gradient(s).sin() + y * stop_gradient(s * y);
    }
    s
}

fn in_loop_plain(x: f64, y: f64, n: usize, f: &mut Freeze) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = s * f.sg(s).sin() + y * f.sg(s * y);
    }
    s
}

#[differentiate]
fn in_loop32(x: f32, y: f32, n: usize) -> f32 {
    let mut s = x;
    for _ in 0..n {
        s = s * stop_gradient(s).sin() + y * stop_gradient(s * y);
    }
    s
}

#[test]
fn stopped_values_in_a_loop() {
    check_frozen(
        2,
        &|p, f| vec![in_loop_plain(p[0], p[1], 4, f)],
        &|p, t| {
            let (v, d) = in_loop_jvp(p[0], p[1], 4, t[0], t[1]);
            (vec![v], vec![d])
        },
        &|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![in_loop_vjp(p[0], p[1], 4, &mut a[0], &mut b[0], c[0])]
        },
        6,
        -1.0,
        1.0,
        1e-12,
    );
    check_frozen(
        2,
        &|p, f| vec![in_loop_plain(p[0], p[1], 4, f)],
        &|p, t| {
            let (v, d) = in_loop32_jvp(p[0] as f32, p[1] as f32, 4, t[0] as f32, t[1] as f32);
            (vec![v as f64], vec![d as f64])
        },
        &|p, c, g| {
            let (mut a, mut b) = (0.0f32, 0.0f32);
            let v = in_loop32_vjp(p[0] as f32, p[1] as f32, 4, &mut a, &mut b, c[0] as f32);
            g[0] += a as f64;
            g[1] += b as f64;
            vec![v as f64]
        },
        6,
        -1.0,
        1.0,
        1e-5,
    );
}

#[differentiate]
fn in_branches(x: f64, y: f64) -> f64 {
    let z;
    if x > 0.0 {
        z = stop_gradient(x * x) * y + x;
    } else if y > 0.0 {
        let k = stop_gradient(y.exp());
        z = k * x * y;
    } else {
        z = x.exp() * stop_gradient(x);
    }
    z * stop_gradient(z)
}

fn in_branches_plain(x: f64, y: f64, f: &mut Freeze) -> f64 {
    let z;
    if x > 0.0 {
        z = f.sg(x * x) * y + x;
    } else if y > 0.0 {
        let k = f.sg(y.exp());
        z = k * x * y;
    } else {
        z = x.exp() * f.sg(x);
    }
    z * f.sg(z)
}

#[test]
fn stopped_values_in_branches() {
    check_frozen(
        2,
        &|p, f| vec![in_branches_plain(p[0], p[1], f)],
        &|p, t| {
            let (v, d) = in_branches_jvp(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        },
        &|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![in_branches_vjp(p[0], p[1], &mut a[0], &mut b[0], c[0])]
        },
        12,
        -2.0,
        2.0,
        1e-12,
    );
}

/// Stopped slice elements, a stopped slice and a stopped copy of a `Vec` that is then
/// overwritten.
#[differentiate]
fn on_slices(v: &[f64], w: &[f64]) -> f64 {
    let frozen = stop_gradient(w);
    let mut acc = stop_gradient(v.to_vec());
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * stop_gradient(v[i]) * frozen[i] + w[i].sin();
        acc[i] = acc[i] * v[i];
    }
    for i in 0..v.len() {
        s += acc[i] * stop_gradient(acc[i]);
    }
    s
}

fn on_slices_plain(v: &[f64], w: &[f64], f: &mut Freeze) -> f64 {
    let frozen: Vec<f64> = w.iter().map(|&x| f.sg(x)).collect();
    let mut acc: Vec<f64> = v.iter().map(|&x| f.sg(x)).collect();
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * f.sg(v[i]) * frozen[i] + w[i].sin();
        acc[i] = acc[i] * v[i];
    }
    for i in 0..v.len() {
        s += acc[i] * f.sg(acc[i]);
    }
    s
}

#[test]
fn stopped_slice_elements_and_slices() {
    check_frozen(
        6,
        &|p, f| vec![on_slices_plain(&p[..3], &p[3..], f)],
        &|p, t| {
            let (v, d) = on_slices_jvp(&p[..3], &p[3..], &t[..3], &t[3..]);
            (vec![v], vec![d])
        },
        &|p, c, g| {
            let (a, b) = g.split_at_mut(3);
            vec![on_slices_vjp(&p[..3], &p[3..], a, b, c[0])]
        },
        5,
        -1.5,
        1.5,
        1e-12,
    );
}

/// A stopped array and a generic function, called with f32 and f64.
#[differentiate]
fn generic_stop<T: Float>(a: [T; 2], y: T) -> [T; 2] {
    let c = stop_gradient([a[0] * y, a[1].exp()]);
    [a[0] * c[1] + y, (a[1] - c[0]).powi(2) * stop_gradient(y)]
}

fn generic_stop_plain(a: &[f64], y: f64, f: &mut Freeze) -> Vec<f64> {
    let c = [f.sg(a[0] * y), f.sg(a[1].exp())];
    let sy = f.sg(y);
    vec![a[0] * c[1] + y, (a[1] - c[0]).powi(2) * sy]
}

#[test]
fn stopped_array_in_generic_code() {
    check_frozen(
        3,
        &|p, f| generic_stop_plain(&p[..2], p[2], f),
        &|p, t| {
            let (v, d) = generic_stop_jvp([p[0], p[1]], p[2], [t[0], t[1]], t[2]);
            (v.to_vec(), d.to_vec())
        },
        &|p, c, g| {
            let (a, b) = g.split_at_mut(2);
            let mut da = [a[0], a[1]];
            let v = generic_stop_vjp([p[0], p[1]], p[2], &mut da, &mut b[0], [c[0], c[1]]);
            a.copy_from_slice(&da);
            v.to_vec()
        },
        6,
        -1.0,
        1.0,
        1e-12,
    );
    check_frozen(
        3,
        &|p, f| generic_stop_plain(&p[..2], p[2], f),
        &|p, t| {
            let q = |k: usize| p[k] as f32;
            let s = |k: usize| t[k] as f32;
            let (v, d) = generic_stop_jvp([q(0), q(1)], q(2), [s(0), s(1)], s(2));
            (
                v.iter().map(|&x| x as f64).collect(),
                d.iter().map(|&x| x as f64).collect(),
            )
        },
        &|p, c, g| {
            let mut da = [0.0f32; 2];
            let mut dy = 0.0f32;
            let a = [p[0] as f32, p[1] as f32];
            let v = generic_stop_vjp(a, p[2] as f32, &mut da, &mut dy, [c[0] as f32, c[1] as f32]);
            g[0] += da[0] as f64;
            g[1] += da[1] as f64;
            g[2] += dy as f64;
            v.iter().map(|&x| x as f64).collect()
        },
        6,
        -1.0,
        1.0,
        1e-5,
    );
}
