//! One value on both sides of a binary operator (`u * u`, `x[i] * x[i]`, `x[i] - x[i]`,
//! `x[i] / x[i]`): the reverse sweep sums the two partials before scaling the adjoint (issue 12).
//! Takes such products as scalars, as elements of a loop whose adjoints sit in a window (added
//! into an adjoint that already holds a contribution) and next to different elements
//! (`x[i] * x[i + 1]`, not folded), gives checks of `_jvp` against central differences, of
//! `_vjp` by the dot-product test and of accumulation, at lengths 0 to 5.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn squares(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let u = 1.0 - x[i];
        s += u * u + 3.0 * x[i] * x[i];
        if i + 1 < n {
            s += x[i] * x[i + 1] + (x[i + 1] + x[i + 1]) * x[i];
        }
    }
    s
}

#[differentiate]
fn differences_and_ratios(x: &[f64], n: usize) -> f64 {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let q = x[i] * x[i] + 1.0;
        y[i] = (x[i] - x[i]) * q + q / q + (q * q) / (1.0 + x[i] * x[i]);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += y[i] * y[i] * x[i];
    }
    s
}

macro_rules! each_len {
    ($f:ident, $fj:ident, $fv:ident) => {
        for len in 0..6usize {
            Harness::new(len)
                .primal(|p| vec![$f(p, len)])
                .jvp(|p, t| {
                    let (v, d) = $fj(p, len, t);
                    (vec![v], vec![d])
                })
                .vjp(|p, c, g| vec![$fv(p, len, g, c[0])])
                .random(3, -1.2, 1.2);
        }
    };
}

#[test]
fn same_operand_products() {
    each_len!(squares, squares_jvp, squares_vjp);
}

#[test]
fn same_operand_differences_and_ratios() {
    each_len!(
        differences_and_ratios,
        differences_and_ratios_jvp,
        differences_and_ratios_vjp
    );
}
