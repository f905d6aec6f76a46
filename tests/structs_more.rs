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
