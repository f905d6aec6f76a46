//! Struct arguments passed whole (by value, by `&`, as clones) to other differentiated functions
//! and methods: takes functions over `#[derive(Differentiable)]` structs, gives checks of both
//! modes against central finite differences and of reverse against forward by the dot-product
//! test.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

// ---------------------------------------------------------------------------------------------
// A struct taken by value, passed on by `&`, by value and as a clone

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Body {
    pub x: Vec<f64>,
    pub k: f64,
    pub n: usize,
}

impl Body {
    #[differentiate]
    pub fn energy(&self, a: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..self.n {
            e += self.k * (a * self.x[i]).sin();
        }
        e
    }

    /// Takes `self` by value and calls a `&self` method on it.
    #[differentiate]
    pub fn scaled(self, a: f64) -> f64 {
        self.energy(a) * self.k + self.x[0] * a
    }
}

#[differentiate]
fn by_ref(b: &Body, a: f64) -> f64 {
    b.x[1] * b.k * a
}

#[differentiate]
fn by_value(b: Body, a: f64) -> f64 {
    b.x[0] * b.x[2] + (b.k * a).cos()
}

/// A struct by value passed on by `&`, by method, as a clone and finally moved.
#[differentiate]
fn total(b: Body, a: f64) -> f64 {
    let e = b.energy(a) + by_ref(&b, a) + by_value(b.clone(), a);
    e * b.k + b.clone().scaled(a) + by_value(b, 2.0 * a)
}

/// A struct by `&` passed on as a clone and by dereference-and-borrow.
#[differentiate]
#[allow(clippy::borrow_deref_ref)] // `&*b` is what is tested
fn total_ref(b: &Body, a: f64) -> f64 {
    by_value(b.clone(), a) * by_ref(&*b, a) + b.clone().scaled(a) * b.x[1]
}

fn body(v: &[f64]) -> Body {
    Body {
        x: v[..3].to_vec(),
        k: v[3],
        n: 3,
    }
}

fn body_tangent(v: &[f64]) -> BodyTangent {
    BodyTangent {
        x: v[..3].to_vec(),
        k: v[3],
        n: (),
    }
}

fn flat(t: &BodyTangent) -> Vec<f64> {
    t.x.iter().copied().chain([t.k]).collect()
}

#[test]
fn structs_by_value_passed_whole() {
    for which in 0..3 {
        let f = move |b: Body, a: f64| match which {
            0 => total(b, a),
            1 => total_ref(&b, a),
            _ => b.scaled(a),
        };
        Harness::new(5)
            .primal(|v| vec![f(body(v), v[4])])
            .jvp(|v, t| {
                let (b, db) = (body(v), body_tangent(t));
                let (y, dy) = match which {
                    0 => total_jvp(b, v[4], db, t[4]),
                    1 => total_ref_jvp(&b, v[4], &db, t[4]),
                    _ => b.scaled_jvp(v[4], db, t[4]),
                };
                (vec![y], vec![dy])
            })
            .vjp(|v, c, g| {
                let b = body(v);
                let mut bb = body_tangent(&[0.0; 4]);
                let mut ba = 0.0;
                let y = match which {
                    0 => total_vjp(b, v[4], &mut bb, &mut ba, c[0]),
                    1 => total_ref_vjp(&b, v[4], &mut bb, &mut ba, c[0]),
                    _ => b.scaled_vjp(v[4], &mut bb, &mut ba, c[0]),
                };
                for (k, x) in flat(&bb).into_iter().chain([ba]).enumerate() {
                    g[k] += x;
                }
                vec![y]
            })
            .random(6, 0.2, 1.5);
    }
}

// ---------------------------------------------------------------------------------------------
// Struct outputs given by `if`/`match` and by early `return`s

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Osc {
    pub x: f64,
    pub v: f64,
    pub q: [f64; 2],
    pub steps: usize,
}

impl Osc {
    /// `Self` from an `if` with a struct literal, a `..*self` update and `self.clone()`.
    #[differentiate]
    pub fn kick(&self, dt: f64) -> Self {
        let a = -self.x.sin();
        if self.v > 0.0 {
            let v = self.v + dt * a;
            Self {
                x: self.x + dt * v,
                v,
                ..*self
            }
        } else if self.x > 0.5 {
            Osc {
                v: self.v * 0.5 + dt * self.q[0],
                ..*self
            }
        } else {
            self.clone()
        }
    }
}

/// Early `return`s from a loop and a `match` at the end; `steps` the same in every exit.
#[differentiate]
#[allow(clippy::needless_return)] // a `return` in the last `match` is what is tested
fn settle(s: Osc, dt: f64) -> Osc {
    let mut x = s.x;
    let mut v = s.v;
    for _ in 0..s.steps {
        v -= dt * x;
        x += dt * v;
        if x * x + v * v < 0.05 {
            return Osc {
                x,
                v,
                q: [x * v, v],
                steps: s.steps + 1,
            };
        }
    }
    match s.steps {
        0 => {
            return Osc {
                steps: s.steps + 1,
                q: [s.q[0], s.q[1]],
                ..s
            }
        }
        1 => Osc {
            x: x * 2.0,
            v,
            q: [v, x],
            steps: s.steps + 1,
        },
        _ => {
            let w = x * v;
            Osc {
                x: x + w,
                v: v - w,
                q: [w, s.q[0]],
                steps: s.steps + 1,
            }
        }
    }
}

fn osc(v: &[f64], steps: usize) -> Osc {
    Osc {
        x: v[0],
        v: v[1],
        q: [v[2], v[3]],
        steps,
    }
}

fn osc_tangent(v: &[f64]) -> OscTangent {
    OscTangent {
        x: v[0],
        v: v[1],
        q: [v[2], v[3]],
        steps: (),
    }
}

fn osc_flat(t: &OscTangent) -> Vec<f64> {
    vec![t.x, t.v, t.q[0], t.q[1]]
}

fn osc_values(o: &Osc) -> Vec<f64> {
    vec![o.x, o.v, o.q[0], o.q[1]]
}

#[test]
fn struct_outputs_from_branches_and_returns() {
    // (which, steps): `kick` in its three branches, `settle` through each exit.
    for (which, steps) in [(0, 0), (1, 0), (1, 1), (1, 2), (1, 6), (1, 40)] {
        let f = move |o: Osc, dt: f64| match which {
            0 => o.kick(dt),
            _ => settle(o, dt),
        };
        let checks = Harness::new(5)
            .primal(|v| {
                let o = f(osc(v, steps), v[4]);
                assert_eq!(o.steps, if which == 1 { steps + 1 } else { steps });
                osc_values(&o)
            })
            .jvp(|v, t| {
                let (o, dt) = (osc(v, steps), v[4]);
                let (y, dy) = match which {
                    0 => o.kick_jvp(dt, &osc_tangent(t), t[4]),
                    _ => settle_jvp(o, dt, osc_tangent(t), t[4]),
                };
                (osc_values(&y), osc_flat(&dy))
            })
            .vjp(|v, c, g| {
                let (o, dt) = (osc(v, steps), v[4]);
                let mut bo = osc_tangent(&[0.0; 4]);
                let mut bdt = 0.0;
                let y = match which {
                    0 => o.kick_vjp(dt, &mut bo, &mut bdt, osc_tangent(c)),
                    _ => settle_vjp(o, dt, &mut bo, &mut bdt, osc_tangent(c)),
                };
                for (k, x) in osc_flat(&bo).into_iter().chain([bdt]).enumerate() {
                    g[k] += x;
                }
                osc_values(&y)
            });
        // Points in each branch of `kick`: v > 0; v <= 0, x > 0.5; v <= 0, x <= 0.5.
        checks.at(&[
            &[0.3, 0.7, 0.2, -0.4, 0.1],
            &[0.9, -0.6, 0.5, 0.3, 0.2],
            &[0.1, -0.3, -0.7, 0.8, 0.05],
            &[0.05, 0.1, 0.3, 0.2, 0.1],
        ]);
    }
}

// ---------------------------------------------------------------------------------------------
// A struct only passed on (active without a field read), and one left out of `wrt`

/// Reads no field itself: active because it passes the struct on.
#[differentiate]
fn only_passes(b: &Body, a: f64) -> f64 {
    by_ref(b, a) * a + b.energy(a)
}

/// `b` is a constant: its callees get a zero tangent and a scratch adjoint.
#[differentiate(wrt(a))]
fn passes_inactive(b: &Body, a: f64) -> f64 {
    by_ref(b, a) * b.k + b.clone().scaled(a)
}

#[test]
fn structs_passed_on_without_field_reads_and_left_out_of_wrt() {
    Harness::new(5)
        .primal(|v| vec![only_passes(&body(v), v[4])])
        .jvp(|v, t| {
            let (y, dy) = only_passes_jvp(&body(v), v[4], &body_tangent(t), t[4]);
            (vec![y], vec![dy])
        })
        .vjp(|v, c, g| {
            let mut bb = body_tangent(&[0.0; 4]);
            let mut ba = 0.0;
            let y = only_passes_vjp(&body(v), v[4], &mut bb, &mut ba, c[0]);
            for (k, x) in flat(&bb).into_iter().chain([ba]).enumerate() {
                g[k] += x;
            }
            vec![y]
        })
        .random(6, 0.2, 1.5);
    let b = body(&[0.3, -0.8, 1.1, 0.7]);
    Harness::new(1)
        .primal(|v| vec![passes_inactive(&b, v[0])])
        .jvp(|v, t| {
            let (y, dy) = passes_inactive_jvp(&b, v[0], t[0]);
            (vec![y], vec![dy])
        })
        .vjp(|v, c, g| {
            let mut ba = 0.0;
            let y = passes_inactive_vjp(&b, v[0], &mut ba, c[0]);
            g[0] += ba;
            vec![y]
        })
        .random(6, 0.2, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Integer fields of a struct local, written

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Acc {
    pub s: f64,
    pub n: usize,
}

/// A running mean in a struct local: its integer field counts.
#[differentiate]
fn mean_square(x: &[f64]) -> f64 {
    let mut a = Acc { s: 0.0, n: 0 };
    for i in 0..x.len() {
        if x[i] > 0.0 {
            a.s += x[i] * x[i];
            a.n += 1;
        }
    }
    a.s / (a.n.max(1) as f64)
}

#[test]
fn integer_fields_of_struct_locals_written() {
    Harness::new(5)
        .primal(|v| vec![mean_square(v)])
        .jvp(|v, t| {
            let (y, dy) = mean_square_jvp(v, t);
            (vec![y], vec![dy])
        })
        .vjp(|v, c, g| {
            let y = mean_square_vjp(v, g, c[0]);
            vec![y]
        })
        .random(6, -1.0, 1.0);
    assert_eq!(mean_square(&[1.0, -2.0, 3.0]), 5.0);
}

// ---------------------------------------------------------------------------------------------
// Integer fields of a `&mut` struct only written (counters)

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Counted {
    pub x: Vec<f64>,
    pub k: f64,
    pub calls: usize,
    pub evals: u32,
}

impl Counted {
    /// Relaxes `x` in place and gives its squared norm, counting calls and evaluations.
    #[differentiate]
    pub fn relax(&mut self, dt: f64) -> f64 {
        self.calls += 1;
        let mut e = 0.0;
        for i in 0..self.x.len() {
            self.x[i] -= dt * self.k * self.x[i].sin();
            e += self.x[i] * self.x[i];
            self.evals += 2;
        }
        e
    }
}

fn counted(v: &[f64]) -> Counted {
    Counted {
        x: v[..3].to_vec(),
        k: v[3],
        calls: 5,
        evals: 0,
    }
}

fn counted_tangent(v: &[f64]) -> CountedTangent {
    CountedTangent {
        x: v[..3].to_vec(),
        k: v[3],
        calls: (),
        evals: (),
    }
}

fn counted_flat(t: &CountedTangent) -> Vec<f64> {
    t.x.iter().copied().chain([t.k]).collect()
}

#[test]
fn counters_of_a_mut_struct_are_written_once_per_call() {
    // Inputs: x, k, dt; outputs: the value, then the final x and k.
    let check = |c: &Counted| {
        assert_eq!((c.calls, c.evals), (6, 6));
    };
    Harness::new(5)
        .primal(|v| {
            let mut c = counted(v);
            let e = c.relax(v[4]);
            check(&c);
            std::iter::once(e)
                .chain(c.x.iter().copied())
                .chain([c.k])
                .collect()
        })
        .jvp(|v, t| {
            let mut c = counted(v);
            let mut dc = counted_tangent(t);
            let (e, de) = c.relax_jvp(v[4], &mut dc, t[4]);
            check(&c);
            let y = std::iter::once(e).chain(c.x.iter().copied()).chain([c.k]);
            (
                y.collect(),
                std::iter::once(de).chain(counted_flat(&dc)).collect(),
            )
        })
        .vjp(|v, s, g| {
            let mut c = counted(v);
            let mut bc = counted_tangent(&s[1..]);
            let mut bdt = 0.0;
            let e = c.relax_vjp(v[4], &mut bc, &mut bdt, s[0]);
            check(&c);
            for (k, b) in counted_flat(&bc).into_iter().chain([bdt]).enumerate() {
                g[k] += b;
            }
            std::iter::once(e)
                .chain(c.x.iter().copied())
                .chain([c.k])
                .collect()
        })
        .random(5, -0.8, 0.8);
}
