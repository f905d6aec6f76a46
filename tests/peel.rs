//! Loop peeling (issue 12, item 3): takes loops whose body tests the index against the loop's
//! bounds (`if j > 0`, `if j + 1 < n`, both, literal bounds, complements and flipped
//! comparisons) and loops where peeling is illegal or not done (the end changes in the body, a
//! `break`, a guard against a mutable value, a reversed loop, an inner loop), gives checks of
//! `_jvp` against central differences and of `_vjp` by the dot-product test, at lengths 0 to 5
//! (a loop with no iteration, one iteration that is both first and last, two...). Which loops
//! are peeled is tested in the macro crate (`transform/peel.rs`); here every gradient must be
//! right whichever way the loop is emitted.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// `f(x: &[f64], n: usize) -> f64` in both modes, with `n` the slice length.
macro_rules! chk_n {
    ($len:expr, $f:ident, $fj:ident, $fv:ident) => {
        Harness::new($len)
            .primal(|p| vec![$f(p, $len)])
            .jvp(|p, t| {
                let (v, d) = $fj(p, $len, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![$fv(p, $len, g, c[0])])
    };
}

/// Every length from 0 to 5, random points.
macro_rules! each_len {
    ($f:ident, $fj:ident, $fv:ident) => {
        for len in 0..6usize {
            let h = Harness::new(len)
                .primal(|p| vec![$f(p, len)])
                .jvp(|p, t| {
                    let (v, d) = $fj(p, len, t);
                    (vec![v], vec![d])
                })
                .vjp(|p, c, g| vec![$fv(p, len, g, c[0])]);
            h.random(3, -1.2, 1.2);
        }
    };
}

// ---------------------------------------------------------------------------------------------
// 1. Left neighbour: `if j > 0`

#[differentiate]
fn left(x: &[f64], n: usize) -> f64 {
    let mut y = vec![0.0; n];
    for j in 0..n {
        let mut d = x[j];
        if j > 0 {
            d = x[j] - x[j - 1];
        }
        y[j] = d * d * d + 0.5 * d;
    }
    let mut s = 0.0;
    for j in 0..n {
        s += y[j] * x[j];
    }
    s
}

// ---------------------------------------------------------------------------------------------
// 2. Right neighbour: `if j + 1 < n`, an in-place update as in the spring chain

#[differentiate]
fn right(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n];
    let mut f = vec![0.0; n];
    for j in 0..n {
        f[j] = x[j].sin();
    }
    for _step in 0..3 {
        for j in 0..n {
            let mut a = -f[j];
            if j + 1 < n {
                a += f[j + 1] * x[j + 1];
            }
            v[j] += 0.3 * a * a;
        }
        for j in 0..n {
            f[j] = f[j] * 0.5 + v[j];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += f[j] * f[j];
    }
    s
}

// ---------------------------------------------------------------------------------------------
// 3. Both: a three-point stencil with `&&`, and with two separate tests

#[differentiate]
fn both_and(x: &[f64], n: usize) -> f64 {
    let mut u = vec![0.0; n];
    for j in 0..n {
        u[j] = x[j];
    }
    let mut next = vec![0.0; n];
    for _step in 0..2 {
        for j in 0..n {
            let mut lap = -2.0 * u[j];
            if j > 0 && j + 1 < n {
                lap = u[j - 1] - 2.0 * u[j] + u[j + 1];
            }
            next[j] = u[j] + 0.2 * lap * u[j];
        }
        for j in 0..n {
            u[j] = next[j];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += u[j] * u[j] * (1.0 + j as f64);
    }
    s
}

#[differentiate]
fn both_separate(x: &[f64], n: usize) -> f64 {
    let mut y = vec![0.0; n];
    for j in 0..n {
        let mut a = x[j] * x[j];
        if 0 < j {
            a = a - x[j - 1].cos();
        }
        if n > j + 1 {
            a = a * x[j + 1];
        } else {
            a = a + 1.0;
        }
        y[j] = a;
    }
    let mut s = 0.0;
    for j in 0..n {
        s += y[j] * y[j];
    }
    s
}

/// Complements (`j == 0`, `j + 1 == n`), `>=`, `!`, `||`, and a test at the first and last
/// iteration kept where it cannot be decided (`j + 2 < n`).
#[differentiate]
fn complements(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut y = vec![0.0; n];
    for j in 0..n {
        let mut a = x[j];
        if j == 0 {
            a = a * 2.0;
        } else {
            a = a - 0.5 * x[j - 1];
        }
        if j + 1 == n || j >= n {
            a = a + 1.0;
        } else {
            a = a * x[j + 1];
        }
        if !(j >= 1) {
            a = a * a;
        }
        if j + 2 < n {
            a = a + x[j + 2];
        }
        y[j] = a;
    }
    for j in 0..n {
        s += y[j] * y[j];
    }
    s
}

/// Literal bounds: a fixed-size array, and a loop starting at 1 tested against 1.
#[differentiate]
fn literal(x: &[f64; 5]) -> f64 {
    let mut y = [0.0; 5];
    for j in 0..5 {
        let mut a = x[j];
        if j > 0 {
            a = a * x[j - 1];
        }
        if j < 4 {
            a = a + x[j + 1].sin();
        }
        y[j] = a;
    }
    let mut s = 0.0;
    for j in 1..5 {
        let mut b = y[j];
        if j > 1 {
            b = b - y[j - 2];
        }
        s += b * b;
    }
    s
}

// ---------------------------------------------------------------------------------------------
// 4. Not peeled: the end changes, a break, a guard against a mutable value, a reversed loop,
//    an inner loop whose guard tests the outer index, the index bound by a `let`

#[differentiate]
fn not_peeled(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut m = n;
    for j in 0..m {
        if j > 0 {
            s += x[j] * x[j - 1];
        }
        m = m - 1;
    }
    let mut k = 1;
    for j in 0..n {
        if j > k {
            s += x[j - 1].sin();
        }
        k = k + 1;
    }
    for j in (0..n).rev() {
        if j > 0 {
            s += x[j] * x[j - 1] * x[j - 1];
        }
    }
    for j in 0..n {
        if x[j] > 1.0 {
            break;
        }
        if j + 1 < n {
            s += x[j + 1] * x[j];
        }
    }
    for j in 0..n {
        for i in 0..n {
            if j > 0 {
                s += x[i] * x[j - 1];
            }
        }
    }
    for j in 0..n {
        let i = j;
        if j > 0 {
            s += x[i.min(n) - 1] * x[j];
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// 5. f32, and `x.len()` as the end

#[differentiate]
fn left32(x: &[f32]) -> f32 {
    let mut s = 0.0;
    let mut y = vec![0.0; x.len()];
    for j in 0..x.len() {
        let mut d = x[j];
        if j > 0 {
            d = x[j] - x[j - 1];
        }
        if j + 1 < x.len() {
            d = d * x[j + 1];
        }
        y[j] = d * d;
    }
    for j in 0..x.len() {
        s += y[j];
    }
    s
}

#[test]
fn left_neighbour() {
    each_len!(left, left_jvp, left_vjp);
}

#[test]
fn right_neighbour() {
    each_len!(right, right_jvp, right_vjp);
}

#[test]
fn both_neighbours() {
    each_len!(both_and, both_and_jvp, both_and_vjp);
    each_len!(both_separate, both_separate_jvp, both_separate_vjp);
    each_len!(complements, complements_jvp, complements_vjp);
}

#[test]
fn literal_bounds() {
    Harness::new(5)
        .primal(|p| vec![literal(p.try_into().unwrap())])
        .jvp(|p, t| {
            let (v, d) = literal_jvp(p.try_into().unwrap(), t.try_into().unwrap());
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut g5 = [0.0; 5];
            g5.copy_from_slice(g);
            let v = literal_vjp(p.try_into().unwrap(), &mut g5, c[0]);
            g.copy_from_slice(&g5);
            vec![v]
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn illegal_peels_keep_the_loops() {
    each_len!(not_peeled, not_peeled_jvp, not_peeled_vjp);
    // The `break` is taken at some points: values above 1.
    chk_n!(5, not_peeled, not_peeled_jvp, not_peeled_vjp).random(4, -0.5, 1.5);
}

#[test]
fn f32_and_len() {
    for len in 0..5usize {
        Harness::new(len)
            .f32()
            .primal(|p| vec![left32(&to32(p)) as f64])
            .jvp(|p, t| {
                let (v, d) = left32_jvp(&to32(p), &to32(t));
                (vec![v as f64], vec![d as f64])
            })
            .vjp(|p, c, g| {
                let mut g32 = to32(g);
                let v = left32_vjp(&to32(p), &mut g32, c[0] as f32);
                g.copy_from_slice(&to64(&g32));
                vec![v as f64]
            })
            .random(3, -1.0, 1.0);
    }
}

/// The values at a fixed point, against the primal, and the gradient against a closed form for
/// `left` at n = 2: s = y0 x0 + y1 x1, y0 = x0^3 + x0 / 2, y1 = d^3 + d / 2 with d = x1 - x0.
#[test]
fn closed_form() {
    let x = [0.4, -0.3];
    let mut g = [0.0; 2];
    let v = left_vjp(&x, 2, &mut g, 1.0);
    assert_eq!(v, left(&x, 2));
    let d = x[1] - x[0];
    let y1 = d * d * d + 0.5 * d;
    let dy1 = 3.0 * d * d + 0.5;
    let g0 = (x[0] * x[0] * x[0] + 0.5 * x[0]) + x[0] * (3.0 * x[0] * x[0] + 0.5) - x[1] * dy1;
    let g1 = y1 + x[1] * dy1;
    assert!((g[0] - g0).abs() < 1e-12, "{} vs {g0}", g[0]);
    assert!((g[1] - g1).abs() < 1e-12, "{} vs {g1}", g[1]);
}
