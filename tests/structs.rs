//! Struct arguments and methods: takes functions over `#[derive(Differentiable)]` structs (by
//! value, `&`, `&mut`, `self`, `&self`, `&mut self`; scalar, `Vec`, array, integer and nested
//! struct fields; named, tuple and generic structs), gives checks of both modes against central
//! finite differences and of reverse against forward by the dot-product test, plus exact values
//! of the generated `_grad` methods.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;
use num_traits::Float;

/// `a == b` to rounding (relative 1e-12).
macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} != {b}");
    }};
}

// ---------------------------------------------------------------------------------------------
// A struct by reference with float, `Vec` and integer fields

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Params {
    pub k: f64,
    pub w: Vec<f64>,
    pub n: usize,
}

/// `n` bounds a loop, `w` is indexed, `k` is a float: each read from its use.
#[differentiate]
fn weighted(p: &Params, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..p.n {
        s += p.w[i] * (x * p.k).sin();
    }
    s + p.k * p.k
}

fn params(v: &[f64]) -> Params {
    Params {
        k: v[0],
        w: v[1..4].to_vec(),
        n: 3,
    }
}

fn params_tangent(v: &[f64]) -> ParamsTangent {
    ParamsTangent {
        k: v[0],
        w: v[1..4].to_vec(),
        n: (),
    }
}

#[test]
fn struct_by_reference_with_vec_and_integer_fields() {
    Harness::new(5)
        .primal(|v| vec![weighted(&params(v), v[4])])
        .jvp(|v, t| {
            let (y, dy) = weighted_jvp(&params(v), v[4], &params_tangent(t), t[4]);
            (vec![y], vec![dy])
        })
        .vjp(|v, c, g| {
            let mut bp = params_tangent(&[0.0; 4]);
            let mut bx = 0.0;
            let y = weighted_vjp(&params(v), v[4], &mut bp, &mut bx, c[0]);
            g[0] += bp.k;
            for i in 0..3 {
                g[1 + i] += bp.w[i];
            }
            g[4] += bx;
            vec![y]
        })
        .random(6, -1.5, 1.5);
}

/// A closure's parameter spelt like an integer local outside it (`m`): two names, so `p.k`,
/// next to the closure's float `m`, is a float (the vote made it an integer: a rustc error at
/// the field).
#[differentiate]
fn closure_parameter_named_like_an_integer(p: &Params, x: f64) -> f64 {
    let m: usize = p.n;
    let scale = |m: f64| p.k * m;
    let mut s = 0.0;
    for i in 0..m {
        let m = p.w[i] * x;
        s += scale(m);
    }
    let g = |m| p.k * m;
    s + g(x)
}

#[test]
fn closure_parameters_are_scoped_in_the_field_vote() {
    Harness::new(5)
        .primal(|v| vec![closure_parameter_named_like_an_integer(&params(v), v[4])])
        .jvp(|v, t| {
            let (p, tp) = (params(v), params_tangent(t));
            let (y, dy) = closure_parameter_named_like_an_integer_jvp(&p, v[4], &tp, t[4]);
            (vec![y], vec![dy])
        })
        .vjp(|v, c, g| {
            let mut bp = params_tangent(&[0.0; 4]);
            let mut bx = 0.0;
            let p = params(v);
            let y = closure_parameter_named_like_an_integer_vjp(&p, v[4], &mut bp, &mut bx, c[0]);
            g[0] += bp.k;
            for i in 0..3 {
                g[1 + i] += bp.w[i];
            }
            g[4] += bx;
            vec![y]
        })
        .random(4, -1.5, 1.5);
}

#[test]
fn struct_gradient_is_the_tangent_struct() {
    let p = Params {
        k: 0.5,
        w: vec![1.0, 2.0, 3.0],
        n: 2,
    };
    let (y, g) = weighted_grad(&p, 2.0);
    let s = 1.0_f64.sin();
    assert_close!(y, 3.0 * s + 0.25);
    // d/dk: sum w_i cos(xk) x + 2k; d/dw_i = sin(xk) for i < n, zero beyond n; d/dx: sum w_i cos(xk) k.
    let c = 1.0_f64.cos();
    assert_close!(g.p.k, 3.0 * c * 2.0 + 1.0);
    assert_eq!(g.p.w, vec![s, s, 0.0]);
    assert_close!(g.x, 3.0 * c * 0.5);
}

// ---------------------------------------------------------------------------------------------
// A particle chain as an `impl` on its state: `&self` and `&mut self` methods

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Chain {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub k: f64,
    pub steps: usize,
}

impl Chain {
    /// Symplectic Euler steps of a chain of unit masses joined by springs of stiffness `k`,
    /// fixed ends; the number of steps is a field.
    #[differentiate]
    pub fn advance(&mut self, dt: f64) {
        let n = self.x.len();
        for _ in 0..self.steps {
            for i in 0..n {
                let left = if i > 0 { self.x[i - 1] } else { 0.0 };
                let right = if i + 1 < n { self.x[i + 1] } else { 0.0 };
                let f = self.k * (left + right - 2.0 * self.x[i]);
                self.v[i] += dt * f;
            }
            for i in 0..n {
                self.x[i] += dt * self.v[i];
            }
        }
    }

    /// Kinetic plus spring energy.
    #[differentiate]
    pub fn energy(&self) -> f64 {
        let n = self.x.len();
        let mut e = 0.0;
        for i in 0..n {
            e += 0.5 * self.v[i] * self.v[i];
            let left = if i > 0 { self.x[i - 1] } else { 0.0 };
            e += 0.5 * self.k * (self.x[i] - left).powi(2);
        }
        e + 0.5 * self.k * self.x[n - 1].powi(2)
    }
}

fn chain(v: &[f64]) -> Chain {
    Chain {
        x: v[0..3].to_vec(),
        v: v[3..6].to_vec(),
        k: v[6],
        steps: 4,
    }
}

fn chain_tangent(v: &[f64]) -> ChainTangent {
    ChainTangent {
        x: v[0..3].to_vec(),
        v: v[3..6].to_vec(),
        k: v[6],
        steps: (),
    }
}

fn chain_flat(c: &ChainTangent) -> Vec<f64> {
    c.x.iter().chain(&c.v).copied().chain([c.k]).collect()
}

fn chain_values(c: &Chain) -> Vec<f64> {
    c.x.iter().chain(&c.v).copied().chain([c.k]).collect()
}

#[test]
fn mut_self_method_steps_the_state_in_place() {
    // Inputs: x, v, k, dt; outputs: the state after the steps (x, v, k).
    Harness::new(8)
        .primal(|p| {
            let mut c = chain(p);
            c.advance(p[7]);
            chain_values(&c)
        })
        .jvp(|p, t| {
            let mut c = chain(p);
            let mut dc = chain_tangent(t);
            c.advance_jvp(p[7], &mut dc, t[7]);
            (chain_values(&c), chain_flat(&dc))
        })
        .vjp(|p, s, g| {
            let mut c = chain(p);
            let mut bc = chain_tangent(s);
            let mut bdt = 0.0;
            c.advance_vjp(p[7], &mut bc, &mut bdt);
            for (k, b) in chain_flat(&bc).iter().chain([&bdt]).enumerate() {
                g[k] += b;
            }
            chain_values(&c)
        })
        .random(5, -0.8, 0.8);
}

#[test]
fn ref_self_method_and_its_grad() {
    Harness::new(7)
        .primal(|p| vec![chain(p).energy()])
        .jvp(|p, t| {
            let (y, dy) = chain(p).energy_jvp(&chain_tangent(t));
            (vec![y], vec![dy])
        })
        .vjp(|p, s, g| {
            let mut b = chain_tangent(&[0.0; 7]);
            let y = chain(p).energy_vjp(&mut b, s[0]);
            for (k, v) in chain_flat(&b).iter().enumerate() {
                g[k] += v;
            }
            vec![y]
        })
        .random(5, -1.0, 1.0);
    // `_grad` of a method whose only active argument is `self` gives the struct's tangent.
    let c = Chain {
        x: vec![1.0, 2.0, 3.0],
        v: vec![1.0, -1.0, 0.5],
        k: 2.0,
        steps: 0,
    };
    let (e, g) = c.energy_grad();
    // Springs: 1, 1, 1 stretched and 3 to the wall: 0.5 k (1 + 1 + 1 + 9) = 12; kinetic 1.125.
    assert_close!(e, 13.125);
    assert_eq!(g.v, c.v);
    assert_close!(g.k, 6.0);
    assert_eq!(
        g.x,
        vec![0.0, 0.0, 2.0 * 3.0 - 2.0 * 1.0 + 2.0 * 3.0 - 2.0 * 1.0]
    );
}

// ---------------------------------------------------------------------------------------------
// Nested structs: a pendulum whose bob is a struct of its own

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Bob {
    pub mass: f64,
    pub length: f64,
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Pendulum {
    pub bob: Bob,
    pub theta: f64,
    pub omega: f64,
}

#[differentiate]
fn swing(p: &mut Pendulum, g: f64, dt: f64, steps: usize) {
    for _ in 0..steps {
        let acc = -g / p.bob.length * p.theta.sin();
        p.omega += dt * acc;
        p.theta += dt * p.omega;
    }
}

#[differentiate]
fn pendulum_energy(p: &Pendulum, g: f64) -> f64 {
    let l = p.bob.length;
    0.5 * p.bob.mass * (l * p.omega).powi(2) + p.bob.mass * g * l * (1.0 - p.theta.cos())
}

fn pendulum(v: &[f64]) -> Pendulum {
    Pendulum {
        bob: Bob {
            mass: v[0],
            length: v[1],
        },
        theta: v[2],
        omega: v[3],
    }
}

fn pendulum_tangent(v: &[f64]) -> PendulumTangent {
    PendulumTangent {
        bob: BobTangent {
            mass: v[0],
            length: v[1],
        },
        theta: v[2],
        omega: v[3],
    }
}

fn pendulum_flat(p: &PendulumTangent) -> Vec<f64> {
    vec![p.bob.mass, p.bob.length, p.theta, p.omega]
}

fn pendulum_values(p: &Pendulum) -> Vec<f64> {
    vec![p.bob.mass, p.bob.length, p.theta, p.omega]
}

#[test]
fn nested_struct_fields_in_a_time_stepping_loop() {
    // Inputs: mass, length, theta, omega, g, dt / 0.05.
    Harness::new(6)
        .primal(|v| {
            let mut p = pendulum(v);
            swing(&mut p, v[4], 0.05 * v[5], 20);
            pendulum_values(&p)
        })
        .jvp(|v, t| {
            let mut p = pendulum(v);
            let mut dp = pendulum_tangent(t);
            swing_jvp(&mut p, v[4], 0.05 * v[5], 20, &mut dp, t[4], 0.05 * t[5]);
            (pendulum_values(&p), pendulum_flat(&dp))
        })
        .vjp(|v, s, g| {
            let mut p = pendulum(v);
            let mut bp = pendulum_tangent(s);
            let (mut bg, mut bdt) = (0.0, 0.0);
            swing_vjp(&mut p, v[4], 0.05 * v[5], 20, &mut bp, &mut bg, &mut bdt);
            bdt *= 0.05;
            for (k, b) in pendulum_flat(&bp).iter().chain([&bg, &bdt]).enumerate() {
                g[k] += b;
            }
            pendulum_values(&p)
        })
        .random(5, 0.5, 1.5);
    Harness::new(5)
        .primal(|v| vec![pendulum_energy(&pendulum(v), v[4])])
        .jvp(|v, t| {
            let (y, dy) = pendulum_energy_jvp(&pendulum(v), v[4], &pendulum_tangent(t), t[4]);
            (vec![y], vec![dy])
        })
        .vjp(|v, s, g| {
            let mut bp = pendulum_tangent(&[0.0; 4]);
            let mut bg = 0.0;
            let y = pendulum_energy_vjp(&pendulum(v), v[4], &mut bp, &mut bg, s[0]);
            for (k, b) in pendulum_flat(&bp).iter().chain([&bg]).enumerate() {
                g[k] += b;
            }
            vec![y]
        })
        .random(5, 0.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Integer configuration, array fields, tuple structs, structs by value, generic structs

#[derive(Differentiable, Clone, Debug)]
pub struct Config {
    pub gamma: f64,
    pub m: i32,
}

/// `c.m` is an exponent (`powi`): an integer carried as a constant.
#[differentiate]
fn damped(x: &[f64], c: &Config) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].powi(c.m) * c.gamma;
    }
    s
}

#[derive(Differentiable, Clone, Debug)]
pub struct Body {
    pub pos: [f64; 3],
    pub vel: [f64; 3],
    pub mass: f64,
}

/// Array fields indexed in a loop.
#[differentiate]
fn momentum(b: &Body) -> f64 {
    let mut s = 0.0;
    for j in 0..3 {
        let p = b.mass * b.vel[j];
        s += p * p;
    }
    s.sqrt() + b.pos[0] * b.pos[1] - b.pos[2]
}

#[derive(Differentiable, Clone, Copy, Debug)]
pub struct Pair(pub f64, pub f64);

/// A tuple struct by value.
#[differentiate]
fn pair_product(p: Pair, x: f64) -> f64 {
    p.0 * p.1 * x + p.0.exp()
}

#[derive(Differentiable, Clone, Debug)]
pub struct Spring<T> {
    pub k: T,
    pub rest: T,
}

#[differentiate]
fn spring_energy<T: Float>(s: &Spring<T>, x: &[T]) -> T {
    let half = T::from(0.5).unwrap();
    let mut e = T::zero();
    for i in 1..x.len() {
        let d = x[i] - x[i - 1] - s.rest;
        e = e + half * s.k * d * d;
    }
    e
}

#[test]
fn integer_configuration_fields_are_constants() {
    let c = Config { gamma: 0.5, m: 3 };
    let x = [1.0, 2.0];
    let (y, g) = damped_grad(&x, &c);
    assert_close!(y, 0.5 * 9.0);
    assert_eq!(g.x, vec![1.5, 6.0]);
    assert_close!(g.c.gamma, 9.0);
    Harness::new(3)
        .primal(|v| vec![damped(&v[..2], &Config { gamma: v[2], m: 3 })])
        .jvp(|v, t| {
            let c = Config { gamma: v[2], m: 3 };
            let dc = ConfigTangent { gamma: t[2], m: () };
            let (y, dy) = damped_jvp(&v[..2], &c, &t[..2], &dc);
            (vec![y], vec![dy])
        })
        .vjp(|v, s, g| {
            let c = Config { gamma: v[2], m: 3 };
            let mut bc = ConfigTangent { gamma: 0.0, m: () };
            let mut bx = [0.0; 2];
            let y = damped_vjp(&v[..2], &c, &mut bx, &mut bc, s[0]);
            g[0] += bx[0];
            g[1] += bx[1];
            g[2] += bc.gamma;
            vec![y]
        })
        .random(5, -1.0, 1.0);
}

#[test]
fn array_fields_tuple_structs_and_structs_by_value() {
    let body = |v: &[f64]| Body {
        pos: [v[0], v[1], v[2]],
        vel: [v[3], v[4], v[5]],
        mass: v[6],
    };
    let tangent = |v: &[f64]| BodyTangent {
        pos: [v[0], v[1], v[2]],
        vel: [v[3], v[4], v[5]],
        mass: v[6],
    };
    Harness::new(7)
        .primal(|v| vec![momentum(&body(v))])
        .jvp(|v, t| {
            let (y, dy) = momentum_jvp(&body(v), &tangent(t));
            (vec![y], vec![dy])
        })
        .vjp(|v, s, g| {
            let mut b = tangent(&[0.0; 7]);
            let y = momentum_vjp(&body(v), &mut b, s[0]);
            let flat: Vec<f64> = b
                .pos
                .iter()
                .chain(&b.vel)
                .copied()
                .chain([b.mass])
                .collect();
            for k in 0..7 {
                g[k] += flat[k];
            }
            vec![y]
        })
        .random(5, 0.5, 1.5);
    Harness::new(3)
        .primal(|v| vec![pair_product(Pair(v[0], v[1]), v[2])])
        .jvp(|v, t| {
            let (y, dy) = pair_product_jvp(Pair(v[0], v[1]), v[2], PairTangent(t[0], t[1]), t[2]);
            (vec![y], vec![dy])
        })
        .vjp(|v, s, g| {
            let mut bp = PairTangent(0.0, 0.0);
            let mut bx = 0.0;
            let y = pair_product_vjp(Pair(v[0], v[1]), v[2], &mut bp, &mut bx, s[0]);
            g[0] += bp.0;
            g[1] += bp.1;
            g[2] += bx;
            vec![y]
        })
        .random(5, -1.0, 1.0);
}

#[test]
fn generic_structs_in_f32_and_f64() {
    let x = [0.0_f64, 1.5, 2.0];
    let (e, g) = spring_energy_grad(&Spring { k: 2.0, rest: 1.0 }, &x);
    // Stretches 0.5 and -0.5: 0.5 * 2 * (0.25 + 0.25) = 0.5.
    assert_close!(e, 0.5);
    assert_eq!(e, spring_energy(&Spring { k: 2.0, rest: 1.0 }, &x));
    assert_close!(g.s.k, 0.25);
    assert_close!(g.s.rest, -(2.0 * 0.5) - (2.0 * -0.5));
    assert_eq!(g.x, vec![-1.0, 2.0, -1.0]);
    let (e32, g32) = spring_energy_grad(
        &Spring {
            k: 2.0_f32,
            rest: 1.0,
        },
        &[0.0_f32, 1.5, 2.0],
    );
    assert_eq!(e32, 0.5);
    assert_eq!(g32.s.k, 0.25);
    assert_eq!(g32.x, vec![-1.0, 2.0, -1.0]);
}

// ---------------------------------------------------------------------------------------------
// Selecting arguments: a struct left out of `wrt` is a constant; a method with several active
// arguments gives a tuple of gradients

#[differentiate(wrt(x))]
fn weighted_in_x(p: &Params, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..p.n {
        s += p.w[i] * (x * p.k).sin();
    }
    s
}

impl Pendulum {
    #[differentiate]
    pub fn height(&self, g: f64) -> f64 {
        g * self.bob.length * (1.0 - self.theta.cos())
    }
}

#[test]
fn struct_left_out_of_wrt_and_methods_with_several_arguments() {
    let p = params(&[0.5, 1.0, 2.0, 3.0]);
    let (y, g) = weighted_in_x_grad(&p, 2.0);
    assert_close!(y, 6.0 * 1.0_f64.sin());
    assert_eq!(y, weighted_in_x(&p, 2.0));
    assert_close!(g.x, 6.0 * 1.0_f64.cos() * 0.5);
    let pd = pendulum(&[1.0, 2.0, 0.5, 0.0]);
    let (h, (gp, gg)) = pd.height_grad(9.81);
    assert_close!(h, 9.81 * 2.0 * (1.0 - 0.5_f64.cos()));
    assert_close!(gg, 2.0 * (1.0 - 0.5_f64.cos()));
    assert_close!(gp.bob.length, 9.81 * (1.0 - 0.5_f64.cos()));
    assert_close!(gp.theta, 9.81 * 2.0 * 0.5_f64.sin());
    assert_eq!(gp.bob.mass, 0.0);
    assert_eq!(gp.omega, 0.0);
}

// ---------------------------------------------------------------------------------------------
// A struct passed whole to differentiated methods and functions

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Springs {
    pub x: Vec<f64>,
    pub k: f64,
}

impl Springs {
    #[differentiate]
    pub fn force(&self, i: usize) -> f64 {
        let left = if i > 0 { self.x[i - 1] } else { 0.0 };
        self.k * (left - self.x[i]) * self.x[i].abs().sqrt()
    }

    /// Calls another differentiated method on `self`.
    #[differentiate]
    pub fn work(&self, d: f64) -> f64 {
        let mut w = 0.0;
        for i in 0..self.x.len() {
            w += self.force(i) * d + self.x[i] * self.k;
        }
        w
    }
}

/// A struct argument passed on whole, by method and by path, next to its own fields.
#[differentiate]
fn springs_total(s: &Springs, d: f64) -> f64 {
    s.work(d) * s.x[0] + Springs::force(s, 1) + s.k.exp()
}

fn springs(v: &[f64]) -> Springs {
    Springs {
        x: v[..3].to_vec(),
        k: v[3],
    }
}

fn springs_tangent(v: &[f64]) -> SpringsTangent {
    SpringsTangent {
        x: v[..3].to_vec(),
        k: v[3],
    }
}

#[test]
fn structs_passed_whole_to_differentiated_methods() {
    for total in [false, true] {
        let f = move |s: &Springs, d: f64| match total {
            true => springs_total(s, d),
            false => s.work(d),
        };
        Harness::new(5)
            .primal(|v| vec![f(&springs(v), v[4])])
            .jvp(|v, t| {
                let (s, ds) = (springs(v), springs_tangent(t));
                let (y, dy) = match total {
                    true => springs_total_jvp(&s, v[4], &ds, t[4]),
                    false => s.work_jvp(v[4], &ds, t[4]),
                };
                (vec![y], vec![dy])
            })
            .vjp(|v, c, g| {
                let s = springs(v);
                let mut bs = springs_tangent(&[0.0; 4]);
                let mut bd = 0.0;
                let y = match total {
                    true => springs_total_vjp(&s, v[4], &mut bs, &mut bd, c[0]),
                    false => s.work_vjp(v[4], &mut bs, &mut bd, c[0]),
                };
                for (k, b) in bs.x.iter().chain([&bs.k, &bd]).enumerate() {
                    g[k] += b;
                }
                vec![y]
            })
            .random(6, 0.2, 1.5);
    }
}

// ---------------------------------------------------------------------------------------------
// Fields inside `vec![..]` and exponents of `f64::powi` (found by the random programs)

#[derive(Differentiable, Clone, Debug)]
pub struct Tile {
    pub k: f64,
    pub e: i32,
    pub m: usize,
}

/// A float field repeated by `vec![..]` (and an integer field as its length): read like any
/// other field, not left as a struct field the lowering cannot see (seed 0xad020240003, p059).
#[differentiate]
#[allow(clippy::useless_vec)] // `vec![..]` is what is tested
fn repeated_field(c: &Tile, x: f64) -> f64 {
    let w = vec![c.k * x; c.m];
    let v = vec![c.k, x, 2.0 * c.k];
    w[0] * v[2] + w[c.m - 1] * v[1]
}

/// An integer field as the exponent of `f64::powi` in path form: an integer, as in `x.powi(c.e)`
/// (it was read as a float: E0277 at the field).
#[differentiate]
fn path_powi_field(c: &Tile, x: f64) -> f64 {
    f64::powi(x * c.k, c.e) + x.powi(c.e)
}

#[test]
fn fields_in_vec_macros_and_path_powi_exponents() {
    let cell = |v: &[f64]| Tile {
        k: v[0],
        e: 3,
        m: 4,
    };
    let tangent = |v: &[f64]| TileTangent {
        k: v[0],
        e: (),
        m: (),
    };
    // y = 2 k^2 x + k x^2: d/dk = 4 k x + x^2, d/dx = 2 k^2 + 2 k x.
    let (y, g) = repeated_field_grad(&cell(&[0.5]), 2.0);
    assert_close!(y, 2.0 * 0.25 * 2.0 + 0.5 * 4.0);
    assert_close!(g.c.k, 4.0 * 0.5 * 2.0 + 4.0);
    assert_close!(g.x, 2.0 * 0.25 + 2.0 * 0.5 * 2.0);
    Harness::new(2)
        .primal(|v| vec![path_powi_field(&cell(v), v[1])])
        .jvp(|v, t| {
            let (y, dy) = path_powi_field_jvp(&cell(v), v[1], &tangent(t), t[1]);
            (vec![y], vec![dy])
        })
        .vjp(|v, s, g| {
            let mut bc = tangent(&[0.0]);
            let mut bx = 0.0;
            let y = path_powi_field_vjp(&cell(v), v[1], &mut bc, &mut bx, s[0]);
            g[0] += bc.k;
            g[1] += bx;
            vec![y]
        })
        .random(5, -1.5, 1.5);
    Harness::new(2)
        .primal(|v| vec![repeated_field(&cell(v), v[1])])
        .jvp(|v, t| {
            let (y, dy) = repeated_field_jvp(&cell(v), v[1], &tangent(t), t[1]);
            (vec![y], vec![dy])
        })
        .vjp(|v, s, g| {
            let mut bc = tangent(&[0.0]);
            let mut bx = 0.0;
            let y = repeated_field_vjp(&cell(v), v[1], &mut bc, &mut bx, s[0]);
            g[0] += bc.k;
            g[1] += bx;
            vec![y]
        })
        .random(5, -1.5, 1.5);
}

// A sequence field only lent by `&` to a differentiated function is a sequence (was read as a
// float: "passing a float by reference"; found by the random programs).
#[differentiate]
fn lent_total(u: &[f64]) -> f64 {
    u.iter().sum()
}

#[differentiate]
fn lends_a_field(s: &Params, x: f64) -> f64 {
    s.k * x + lent_total(&s.w)
}

#[test]
fn a_sequence_field_lent_to_a_call() {
    let p = Params {
        k: 2.0,
        w: vec![1.0, 2.0, 3.0],
        n: 3,
    };
    let (y, g) = lends_a_field_grad(&p, 0.5);
    assert_eq!(y, 7.0);
    assert_eq!(y, lends_a_field(&p, 0.5));
    assert_eq!(g.s.k, 0.5);
    assert_eq!(g.s.w, vec![1.0; 3]);
    assert_eq!(g.x, 2.0);
}
