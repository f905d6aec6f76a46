//! Structs lent whole by a function that also uses their float fields: takes `&mut self` methods
//! and free functions that pass the struct on to other differentiated methods (`self.forces()`)
//! and read and write its fields themselves (`self.v[i] += self.dt * self.f[i]`, `self.t +=
//! self.dt`), gives checks of both modes against central finite differences and of reverse
//! against forward by the dot-product test, and of the in-out convention (the struct's adjoint
//! holds the final state's adjoint on entry and the initial state's on exit).
#![allow(clippy::needless_range_loop, clippy::let_and_return)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

// ---------------------------------------------------------------------------------------------
// Particles on springs: `forces` fills `f`, `step` lends the state to it and then integrates
// with its own field reads and writes, `run` steps in a loop

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Sys {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub f: Vec<f64>,
    pub k: f64,
    pub c: f64,
    pub dt: f64,
    pub t: f64,
    pub n: usize,
}

impl Sys {
    /// Cubic springs to the origin and linear springs to the neighbours.
    #[differentiate]
    pub fn forces(&mut self) {
        for i in 0..self.n {
            let left = if i > 0 { self.x[i - 1] } else { 0.0 };
            let right = if i + 1 < self.n { self.x[i + 1] } else { 0.0 };
            self.f[i] = -self.k * self.x[i].powi(3) + self.c * (left + right - 2.0 * self.x[i]);
        }
    }

    /// One symplectic Euler step: lends `self` to `forces`, then reads and writes its fields.
    #[differentiate]
    pub fn step(&mut self) {
        self.forces();
        for i in 0..self.n {
            self.v[i] += self.dt * self.f[i];
            self.x[i] += self.dt * self.v[i];
        }
        self.t += self.dt;
    }

    /// `steps` steps, each a lending call.
    #[differentiate]
    pub fn run(&mut self, steps: usize) {
        for _ in 0..steps {
            self.step();
        }
    }

    /// A loop whose body lends the state and also writes its fields (damping, a drifting
    /// stiffness), and reads one (`self.t`) after the loop.
    #[differentiate]
    pub fn run_damped(&mut self, steps: usize, damping: f64) -> f64 {
        for _ in 0..steps {
            self.step();
            for i in 0..self.n {
                self.v[i] *= 1.0 - damping * self.dt;
            }
            self.k += 0.01 * self.x[0];
        }
        self.t * self.x[1]
    }

    /// Field reads in expressions before and after the lending call.
    #[differentiate]
    pub fn energy_change(&mut self) -> f64 {
        let before = self.x[0] * self.x[0] + self.k * self.v[1] + self.t;
        self.step();
        let after = self.x[0] * self.x[0] + self.k * self.v[1] + self.t;
        after - before.sin()
    }

    /// A kick of a given length: the argument is a field of the struct lent (`self.kick(self.dt)`).
    #[differentiate]
    pub fn kick(&mut self, h: f64) {
        for i in 0..self.n {
            self.v[i] += h * self.f[i];
        }
    }

    /// Kick–drift–kick with the kicks' lengths read from fields.
    #[differentiate]
    pub fn leapfrog(&mut self) {
        self.forces();
        self.kick(0.5 * self.dt);
        for i in 0..self.n {
            self.x[i] += self.dt * self.v[i];
        }
        self.forces();
        self.kick(self.dt * 0.5);
        self.t += self.dt;
    }
}

impl Sys {
    /// A loop lending the state in every iteration between element reads and writes at `i` and
    /// `i + 1` (no adjoint of a field may be kept in a loop window across the call).
    #[differentiate]
    pub fn sweep(&mut self) {
        for i in 0..self.n - 1 {
            self.x[i + 1] += 0.5 * self.x[i] * self.v[i];
            self.forces();
            self.v[i] -= self.dt * (self.f[i + 1] + self.f[i]);
        }
    }
}

impl Sys {
    #[differentiate]
    pub fn energy(&self) -> f64 {
        self.k * self.x[0].powi(2) + self.t * self.v[1]
    }

    /// The lending call's value is the function's, after field writes: returned early, and at
    /// the end (bound by `let` first: a lending call is a statement of its own).
    #[differentiate]
    pub fn drift_energy(&mut self, w: f64) -> f64 {
        self.t += self.dt;
        self.k *= 1.0 + 0.1 * w;
        if w > 0.5 {
            let e = self.energy();
            return e;
        }
        self.x[0] -= 0.1 * self.k;
        let e = self.energy();
        e
    }
}

/// A free function lending the state to a method and reading its fields after.
#[differentiate]
fn simulate(s: &mut Sys, steps: usize, w: f64) -> f64 {
    let mut acc = 0.0;
    for _ in 0..steps {
        s.step();
        acc += w * s.x[0] * s.v[2];
    }
    s.k *= 1.0 + w;
    acc + s.t
}

const N: usize = 3;
/// Inputs: x, v, f (3 each), k, c, dt, t; then the scalar arguments.
const STATE: usize = 3 * N + 4;

fn sys(p: &[f64]) -> Sys {
    Sys {
        x: p[0..N].to_vec(),
        v: p[N..2 * N].to_vec(),
        f: p[2 * N..3 * N].to_vec(),
        k: p[3 * N],
        c: p[3 * N + 1],
        dt: 0.1 + 0.05 * p[3 * N + 2],
        t: p[3 * N + 3],
        n: N,
    }
}

fn tangent(p: &[f64]) -> SysTangent {
    SysTangent {
        x: p[0..N].to_vec(),
        v: p[N..2 * N].to_vec(),
        f: p[2 * N..3 * N].to_vec(),
        k: p[3 * N],
        c: p[3 * N + 1],
        dt: 0.05 * p[3 * N + 2],
        t: p[3 * N + 3],
        n: (),
    }
}

fn values(s: &Sys) -> Vec<f64> {
    let mut out = [&s.x[..], &s.v[..], &s.f[..]].concat();
    out.extend([s.k, s.c, s.dt, s.t]);
    out
}

fn flat(t: &SysTangent) -> Vec<f64> {
    let mut out = [&t.x[..], &t.v[..], &t.f[..]].concat();
    out.extend([t.k, t.c, t.dt, t.t]);
    out
}

/// The adjoint of the inputs `p` (state then arguments) given the adjoint of the state `b` (the
/// state's inputs are `x, v, f, k, c, t` as they are and `dt = 0.1 + 0.05 p`).
fn add_state(g: &mut [f64], b: &SysTangent) {
    let mut bf = flat(b);
    bf[3 * N + 2] *= 0.05;
    for (k, x) in bf.iter().enumerate() {
        g[k] += x;
    }
}

/// The seed of the state output as a tangent (the inverse of `values`' order).
fn seed(s: &[f64]) -> SysTangent {
    let mut t = tangent(s);
    t.dt = s[3 * N + 2];
    t
}

/// Both modes of a method stepping the state in place and giving a value, over the state's
/// inputs and `extra` scalar arguments: outputs are the final state then the value.
fn check_stepper(
    extra: usize,
    f: impl Fn(&mut Sys, &[f64]) -> f64,
    jvp: impl Fn(&mut Sys, &[f64], &mut SysTangent, &[f64]) -> (f64, f64),
    vjp: impl Fn(&mut Sys, &[f64], &mut SysTangent, &mut [f64], f64) -> f64,
    range: f64,
) {
    Harness::new(STATE + extra)
        .primal(|p| {
            let mut s = sys(p);
            let y = f(&mut s, &p[STATE..]);
            let mut out = values(&s);
            out.push(y);
            out
        })
        .jvp(|p, d| {
            let mut s = sys(p);
            let mut ds = tangent(d);
            let (y, dy) = jvp(&mut s, &p[STATE..], &mut ds, &d[STATE..]);
            let (mut out, mut dout) = (values(&s), flat(&ds));
            out.push(y);
            dout.push(dy);
            (out, dout)
        })
        .vjp(|p, c, g| {
            let mut s = sys(p);
            let mut bs = seed(c);
            let mut bx = vec![0.0; extra];
            let y = vjp(&mut s, &p[STATE..], &mut bs, &mut bx, c[STATE]);
            add_state(g, &bs);
            for (k, b) in bx.iter().enumerate() {
                g[STATE + k] += b;
            }
            let mut out = values(&s);
            out.push(y);
            out
        })
        .random(3, -range, range);
}

#[test]
fn step_lends_the_state_and_integrates_its_fields() {
    check_stepper(
        0,
        |s, _| {
            s.step();
            0.0
        },
        |s, _, ds, _| {
            s.step_jvp(ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.step_vjp(bs);
            0.0
        },
        1.0,
    );
}

#[test]
fn run_steps_a_lending_method_in_a_loop() {
    check_stepper(
        0,
        |s, _| {
            s.run(12);
            0.0
        },
        |s, _, ds, _| {
            s.run_jvp(12, ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.run_vjp(12, bs);
            0.0
        },
        0.8,
    );
}

#[test]
fn a_loop_lends_the_state_and_writes_its_fields() {
    check_stepper(
        1,
        |s, a| s.run_damped(6, a[0]),
        |s, a, ds, da| s.run_damped_jvp(6, a[0], ds, da[0]),
        |s, a, bs, ba, y| s.run_damped_vjp(6, a[0], bs, &mut ba[0], y),
        0.8,
    );
}

#[test]
fn fields_read_before_and_after_the_lending_call() {
    check_stepper(
        0,
        |s, _| s.energy_change(),
        |s, _, ds, _| s.energy_change_jvp(ds),
        |s, _, bs, _, y| s.energy_change_vjp(bs, y),
        1.0,
    );
}

#[test]
fn arguments_of_the_lending_call_read_its_fields() {
    check_stepper(
        0,
        |s, _| {
            s.leapfrog();
            0.0
        },
        |s, _, ds, _| {
            s.leapfrog_jvp(ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.leapfrog_vjp(bs);
            0.0
        },
        1.0,
    );
}

#[test]
fn a_loop_lends_the_state_between_element_accesses() {
    check_stepper(
        0,
        |s, _| {
            s.sweep();
            0.0
        },
        |s, _, ds, _| {
            s.sweep_jvp(ds);
            (0.0, 0.0)
        },
        |s, _, bs, _, _| {
            s.sweep_vjp(bs);
            0.0
        },
        1.0,
    );
}

#[test]
fn the_lending_call_gives_the_value() {
    check_stepper(
        1,
        |s, a| s.drift_energy(a[0]),
        |s, a, ds, da| s.drift_energy_jvp(a[0], ds, da[0]),
        |s, a, bs, ba, y| s.drift_energy_vjp(a[0], bs, &mut ba[0], y),
        1.0,
    );
}

#[test]
fn free_function_lends_and_reads_the_state() {
    check_stepper(
        1,
        |s, a| simulate(s, 5, a[0]),
        |s, a, ds, da| simulate_jvp(s, 5, a[0], ds, da[0]),
        |s, a, bs, ba, y| simulate_vjp(s, 5, a[0], bs, &mut ba[0], y),
        0.8,
    );
}

// ---------------------------------------------------------------------------------------------
// The in-out convention, explicitly: the adjoint struct holds the final state's adjoint on entry
// and the initial state's on exit

#[test]
fn adjoint_struct_goes_from_final_to_initial_state() {
    let p: Vec<f64> = (0..STATE).map(|k| 0.3 * (k as f64 * 0.7).sin()).collect();
    // Seed: the final x[1] only.
    let mut bs = tangent(&[0.0; STATE]);
    bs.x[1] = 1.0;
    let mut s = sys(&p);
    s.run_vjp(4, &mut bs);
    // The state itself is stepped as the primal steps it.
    let mut plain = sys(&p);
    plain.run(4);
    assert_eq!(s, plain);
    // On exit: d x_final[1] / d (initial state), against central differences.
    let h = 1e-6;
    let got = {
        let mut g = vec![0.0; STATE];
        add_state(&mut g, &bs);
        g
    };
    for k in 0..STATE {
        let at = |e: f64| {
            let mut q = p.clone();
            q[k] += e;
            let mut s = sys(&q);
            s.run(4);
            s.x[1]
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!(
            (got[k] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
            "input {k}: adjoint {} vs central difference {fd}",
            got[k]
        );
    }
    // Forward: the tangent struct is updated in place along the same path.
    let mut ds = tangent(&[0.0; STATE]);
    ds.k = 1.0;
    let mut s = sys(&p);
    s.run_jvp(4, &mut ds);
    assert_eq!(s, plain);
    let at = |e: f64| {
        let mut q = p.clone();
        q[3 * N] += e;
        let mut s = sys(&q);
        s.run(4);
        s.x[1]
    };
    let fd = (at(h) - at(-h)) / (2.0 * h);
    assert!((ds.x[1] - fd).abs() <= 1e-6 * (1.0 + fd.abs()));
}

// ---------------------------------------------------------------------------------------------
// A pendulum of scalar fields: a read-only method called on the lent state (`&mut` coerced), a
// kick whose length is a field, a `while` loop on a field, an early return

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Pendulum {
    pub theta: f64,
    pub omega: f64,
    pub g: f64,
    pub len: f64,
    pub dt: f64,
    pub t: f64,
    pub kicks: usize,
}

impl Pendulum {
    #[differentiate]
    pub fn accel(&self) -> f64 {
        -self.g / self.len * self.theta.sin()
    }

    /// Lends `self` to `accel` (by `&`) and writes a field with the result.
    #[differentiate]
    pub fn kick(&mut self, h: f64) {
        let a = self.accel();
        self.omega += h * a;
        self.kicks += 1;
    }

    #[differentiate]
    pub fn step(&mut self) {
        self.kick(0.5 * self.dt);
        self.theta += self.dt * self.omega;
        self.kick(0.5 * self.dt);
        self.t += self.dt;
    }

    /// Steps until a time read from a field; gives the bob's height.
    #[differentiate]
    pub fn run_until(&mut self, t_end: f64) -> f64 {
        while self.t < t_end {
            self.step();
        }
        -self.len * self.theta.cos()
    }

    /// Returns early, from inside the loop, once the bob has swung past zero.
    #[differentiate]
    pub fn until_swing(&mut self, steps: usize) -> f64 {
        for _ in 0..steps {
            self.step();
            if self.theta < 0.0 {
                self.omega *= 0.5;
                return self.t * self.omega;
            }
        }
        self.theta * self.len
    }
}

fn pendulum(p: &[f64]) -> Pendulum {
    Pendulum {
        theta: p[0],
        omega: p[1],
        g: 9.0 + p[2],
        len: 1.0 + 0.2 * p[3],
        dt: 0.05 + 0.01 * p[4],
        t: 0.0,
        kicks: 0,
    }
}

fn pendulum_tangent(d: &[f64]) -> PendulumTangent {
    PendulumTangent {
        theta: d[0],
        omega: d[1],
        g: d[2],
        len: 0.2 * d[3],
        dt: 0.01 * d[4],
        t: 0.0,
        kicks: (),
    }
}

fn pendulum_values(s: &Pendulum) -> Vec<f64> {
    vec![s.theta, s.omega, s.g, s.len, s.dt, s.t]
}

fn pendulum_flat(s: &PendulumTangent) -> Vec<f64> {
    vec![s.theta, s.omega, s.g, s.len, s.dt, s.t]
}

/// Both modes of a pendulum method with one scalar argument and a value; outputs the final
/// state then the value.
fn check_pendulum(
    arg: impl Fn(&[f64]) -> f64,
    f: impl Fn(&mut Pendulum, f64) -> f64,
    jvp: impl Fn(&mut Pendulum, f64, &mut PendulumTangent, f64) -> (f64, f64),
    vjp: impl Fn(&mut Pendulum, f64, &mut PendulumTangent, &mut f64, f64) -> f64,
) {
    Harness::new(6)
        .primal(|p| {
            let mut s = pendulum(p);
            let y = f(&mut s, arg(p));
            let mut out = pendulum_values(&s);
            out.push(y);
            out
        })
        .jvp(|p, d| {
            let mut s = pendulum(p);
            let mut ds = pendulum_tangent(d);
            let (y, dy) = jvp(&mut s, arg(p), &mut ds, d[5]);
            let (mut out, mut dout) = (pendulum_values(&s), pendulum_flat(&ds));
            out.push(y);
            dout.push(dy);
            (out, dout)
        })
        .vjp(|p, c, g| {
            let mut s = pendulum(p);
            let mut bs = PendulumTangent {
                theta: c[0],
                omega: c[1],
                g: c[2],
                len: c[3],
                dt: c[4],
                t: c[5],
                kicks: (),
            };
            let mut ba = 0.0;
            let y = vjp(&mut s, arg(p), &mut bs, &mut ba, c[6]);
            let b = pendulum_flat(&bs);
            let scale = [1.0, 1.0, 1.0, 0.2, 0.01];
            for k in 0..5 {
                g[k] += scale[k] * b[k];
            }
            g[5] += ba;
            let mut out = pendulum_values(&s);
            out.push(y);
            out
        })
        .random(4, -0.6, 0.6);
}

#[test]
fn pendulum_runs_until_a_time_read_from_a_field() {
    check_pendulum(
        |p| 0.4 + 0.1 * p[5],
        |s, t| {
            let y = s.run_until(t);
            assert!(s.kicks > 0);
            y
        },
        |s, t, ds, dt| s.run_until_jvp(t, ds, dt),
        |s, t, bs, bt, y| s.run_until_vjp(t, bs, bt, y),
    );
}

#[test]
fn pendulum_returns_early_from_the_lending_loop() {
    check_pendulum(
        |p| p[5],
        |s, _| s.until_swing(30),
        |s, _, ds, _| s.until_swing_jvp(30, ds),
        |s, _, bs, _, y| s.until_swing_vjp(30, bs, y),
    );
}

// ---------------------------------------------------------------------------------------------
// A nested struct with an array field: lending calls in both branches of an `if` (a method, the
// same by path, a free function), a read-only method's value bound by `let`, a copy of a sequence
// field passed by reference after the call

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Body {
    pub x: [f64; 2],
    pub m: f64,
}

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct World {
    pub body: Body,
    pub g: f64,
    pub t: f64,
    pub w: Vec<f64>,
}

impl World {
    #[differentiate]
    pub fn fall(&mut self, h: f64) {
        self.body.x[1] -= h * self.g * self.body.m;
        self.body.x[0] += h * self.body.x[1].sin();
    }

    #[differentiate]
    pub fn energy(&self) -> f64 {
        self.body.m * self.g * self.body.x[1] + self.w[0] * self.body.x[0]
    }

    #[differentiate]
    pub fn absorb(&mut self, a: &[f64]) {
        for i in 0..self.w.len() {
            self.w[i] += 0.1 * a[i] * self.body.x[0];
        }
    }

    #[differentiate]
    pub fn go(&mut self, h: f64, n: usize) -> f64 {
        let mut e = 0.0;
        for i in 0..n {
            if i % 2 == 0 {
                self.fall(h * self.t);
                self.body.m *= 1.01;
            } else {
                Self::fall(self, h);
                push(self, h);
            }
            let en = self.energy();
            e += en * self.body.x[0];
            let w = self.w.to_vec();
            self.absorb(&w);
            self.t += h;
        }
        e + self.body.x[1]
    }
}

#[differentiate]
fn push(w: &mut World, h: f64) {
    w.g += h * w.body.x[0];
}

#[test]
fn nested_fields_and_lending_calls_in_branches() {
    let world = |p: &[f64]| World {
        body: Body {
            x: [p[0], p[1]],
            m: 1.0 + 0.1 * p[2],
        },
        g: p[3],
        t: p[4],
        w: vec![p[5], p[6]],
    };
    let values = |w: &World| vec![w.body.x[0], w.body.x[1], w.body.m, w.g, w.t, w.w[0], w.w[1]];
    let flat =
        |w: &WorldTangent| vec![w.body.x[0], w.body.x[1], w.body.m, w.g, w.t, w.w[0], w.w[1]];
    let tangent = |d: &[f64], m: f64| WorldTangent {
        body: BodyTangent {
            x: [d[0], d[1]],
            m: m * d[2],
        },
        g: d[3],
        t: d[4],
        w: vec![d[5], d[6]],
    };
    Harness::new(8)
        .primal(|p| {
            let mut w = world(p);
            let y = w.go(p[7], 5);
            let mut out = values(&w);
            out.push(y);
            out
        })
        .jvp(|p, d| {
            let mut w = world(p);
            let mut dw = tangent(d, 0.1);
            let (y, dy) = w.go_jvp(p[7], 5, &mut dw, d[7]);
            let (mut out, mut dout) = (values(&w), flat(&dw));
            out.push(y);
            dout.push(dy);
            (out, dout)
        })
        .vjp(|p, c, g| {
            let mut w = world(p);
            let mut bw = tangent(c, 1.0);
            let mut bh = 0.0;
            let y = w.go_vjp(p[7], 5, &mut bw, &mut bh, c[7]);
            let b = flat(&bw);
            for k in 0..7 {
                g[k] += if k == 2 { 0.1 } else { 1.0 } * b[k];
            }
            g[7] += bh;
            let mut out = values(&w);
            out.push(y);
            out
        })
        .random(3, -0.5, 0.5);
}
