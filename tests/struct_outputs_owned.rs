//! Struct outputs of a struct that is not `Copy` (a `Vec` field): takes functions giving back a
//! copy whose float field was written (`let mut t = s.clone(); t.m = ..; t`), literals whose
//! other fields come from `..s.clone()` (given by branches too), the argument whole
//! (`return s.clone()`), and the same by value; gives checks of both modes against central
//! finite differences and of reverse against forward by the dot-product test. The generated code
//! once built these outputs with `..*s`, which moves the `Vec` out of the borrow (E0507).
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff_runtime::{differentiate, Differentiable};
use common::Harness;

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Cells {
    pub x: [f64; 2],
    pub v: Vec<f64>,
    pub m: f64,
}

fn cells(p: &[f64]) -> Cells {
    Cells {
        x: [p[0], p[1]],
        v: vec![p[2], p[3]],
        m: p[4],
    }
}

fn cells_t(p: &[f64]) -> CellsTangent {
    CellsTangent {
        x: [p[0], p[1]],
        v: vec![p[2], p[3]],
        m: p[4],
    }
}

fn flat(c: &Cells) -> Vec<f64> {
    vec![c.x[0], c.x[1], c.v[0], c.v[1], c.m]
}

fn flat_t(c: &CellsTangent) -> Vec<f64> {
    vec![c.x[0], c.x[1], c.v[0], c.v[1], c.m]
}

/// A copy with one float field written, given back whole.
#[differentiate]
fn written_copy(s: &Cells, dt: f64) -> Cells {
    let mut t = s.clone();
    t.m = s.x[0] * dt + s.v[1] * s.m;
    t
}

/// Literals taking the other fields from `..s.clone()`, one per branch.
#[differentiate]
fn by_branch(s: &Cells, dt: f64) -> Cells {
    if dt > 0.0 {
        Cells {
            x: [s.x[0], s.x[1]],
            m: s.x[0] * dt + s.v[1].sin(),
            ..s.clone()
        }
    } else {
        Cells {
            x: [s.x[1], dt * s.x[0]],
            ..s.clone()
        }
    }
}

/// The argument whole from an early return, else a literal.
#[differentiate]
fn early_whole(s: &Cells, dt: f64) -> Cells {
    if dt > 0.5 {
        return s.clone();
    }
    Cells {
        m: dt * s.m * s.v[0],
        ..s.clone()
    }
}

/// By value: a copy with a float field written.
#[differentiate]
fn written_copy_by_value(s: Cells, dt: f64) -> Cells {
    let mut t = s.clone();
    t.m = s.x[0] * dt + s.v[1] * s.m;
    t
}

/// `f(s, dt)` (`s` from inputs 0..5, `dt` input 5; `s` given by value, the `&` functions wrapped)
/// in both modes at random points of `[lo, hi]`.
fn check(
    f: impl Fn(Cells, f64) -> Cells,
    f_jvp: impl Fn(Cells, f64, CellsTangent, f64) -> (Cells, CellsTangent),
    f_vjp: impl Fn(Cells, f64, &mut CellsTangent, &mut f64, CellsTangent) -> Cells,
    lo: f64,
    hi: f64,
) {
    Harness::new(6)
        .primal(|p| flat(&f(cells(p), p[5])))
        .jvp(|p, t| {
            let (y, dy) = f_jvp(cells(p), p[5], cells_t(t), t[5]);
            (flat(&y), flat_t(&dy))
        })
        .vjp(|p, c, g| {
            let mut ds = cells_t(&[0.0; 5]);
            let mut ddt = 0.0;
            let y = f_vjp(cells(p), p[5], &mut ds, &mut ddt, cells_t(c));
            for (gi, d) in g.iter_mut().zip(flat_t(&ds)) {
                *gi += d;
            }
            g[5] += ddt;
            flat(&y)
        })
        .random(8, lo, hi);
}

/// `check` of a function taking the struct by `&`.
macro_rules! check_ref {
    ($f:ident, $jvp:ident, $vjp:ident, $lo:expr, $hi:expr) => {
        check(
            |s, dt| $f(&s, dt),
            |s, dt, ds, ddt| $jvp(&s, dt, &ds, ddt),
            |s, dt, ds, ddt, c| $vjp(&s, dt, ds, ddt, c),
            $lo,
            $hi,
        )
    };
}

#[test]
fn a_written_copy_of_a_non_copy_struct() {
    check_ref!(written_copy, written_copy_jvp, written_copy_vjp, -1.5, 1.5);
}

#[test]
fn literals_from_a_clone_in_branches() {
    // Both branches: dt of either sign.
    check_ref!(by_branch, by_branch_jvp, by_branch_vjp, -1.5, 1.5);
}

#[test]
fn the_argument_whole_from_an_early_return() {
    // dt in [0.6, 1.5]: the early return; [-1.5, 0.4]: the literal (away from the switch).
    check_ref!(early_whole, early_whole_jvp, early_whole_vjp, 0.6, 1.5);
    check_ref!(early_whole, early_whole_jvp, early_whole_vjp, -1.5, 0.4);
}

#[test]
fn a_written_copy_by_value() {
    check(
        written_copy_by_value,
        written_copy_by_value_jvp,
        written_copy_by_value_vjp,
        -1.5,
        1.5,
    );
    // The value is the primal's, the untouched fields the argument's.
    let s = cells(&[0.1, 0.2, 0.3, 0.4, 0.5]);
    let y = written_copy_by_value(s.clone(), 0.7);
    assert_eq!(y.v, s.v);
    assert_eq!(y.x, s.x);
    assert_eq!(y.m, 0.1 * 0.7 + 0.4 * 0.5);
}
