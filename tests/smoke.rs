// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn straight(x: f64, y: f64) -> f64 {
    let a = x * y + 2.0;
    let a = a.sin() / (1.0 + y * y);
    let mut b = a;
    b *= x;
    b -= y.exp();
    b /= 3.0;
    -b + (x as f64).tanh()
}

#[test]
fn straight_line() {
    Harness::new(2)
        .primal(|p| vec![straight(p[0], p[1])])
        .jvp(|p, t| {
            let (v, d) = straight_jvp(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![straight_vjp(p[0], p[1], &mut a[0], &mut b[0], c[0])]
        })
        .random(5, -2.0, 2.0);
}

#[differentiate]
fn loops(x: f64, v: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut w = vec![0.0; n];
    for i in 0..n {
        w[i] = v[i] * x;
        if w[i] > 0.5 {
            w[i] = w[i].sin();
        }
    }
    let mut k = 0;
    while k < n {
        s = s * 0.5 + w[k] * w[k];
        k += 1;
    }
    for (i, &e) in v.iter().enumerate() {
        s += e * (i as f64);
    }
    loop {
        s = s.tanh() * x;
        if s.abs() < 10.0 {
            break;
        }
    }
    s
}

#[test]
fn loops_and_branches() {
    Harness::new(4)
        .primal(|p| vec![loops(p[0], &p[1..], 3)])
        .jvp(|p, t| {
            let (v, d) = loops_jvp(p[0], &p[1..], 3, t[0], &t[1..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![loops_vjp(p[0], &p[1..], 3, &mut a[0], b, c[0])]
        })
        .random(8, -1.0, 1.0);
}

#[differentiate]
fn early(x: f64, y: f64) -> f64 {
    if x > 1.0 {
        return x * y;
    }
    let mut s = x;
    for i in 0..5 {
        s = s * y + 1.0;
        if s > 3.0 {
            return s.sqrt();
        }
        if i == 2 {
            continue;
        }
        s += 0.1 * x;
    }
    match 3 % 2 {
        0 => s,
        _ => s * s,
    }
}

#[test]
fn early_return() {
    Harness::new(2)
        .primal(|p| vec![early(p[0], p[1])])
        .jvp(|p, t| {
            let (v, d) = early_jvp(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![early_vjp(p[0], p[1], &mut a[0], &mut b[0], c[0])]
        })
        .at(&[&[0.5, 0.3], &[2.0, 0.5], &[0.9, 1.2], &[0.2, 0.9]]);
}

#[differentiate]
fn helper(a: f64, b: f64) -> f64 {
    a * b.cos()
}

#[differentiate]
fn caller(x: f64, v: &[f64]) -> (f64, f64) {
    let h = helper(x, v[0]) + helper(2.0, x);
    let (s, c) = x.sin_cos();
    (h * s, c + v[1])
}

#[test]
fn calls_and_tuples() {
    Harness::new(3)
        .primal(|p| {
            let (a, b) = caller(p[0], &p[1..]);
            vec![a, b]
        })
        .jvp(|p, t| {
            let ((a, b), (da, db)) = caller_jvp(p[0], &p[1..], t[0], &t[1..]);
            (vec![a, b], vec![da, db])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            let (u, w) = caller_vjp(p[0], &p[1..], &mut a[0], b, (c[0], c[1]));
            vec![u, w]
        })
        .random(5, -1.5, 1.5);
}

#[differentiate]
fn stencil(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 1..n - 1 {
        let lap = x[i - 1] - 2.0 * x[i] + x[i + 1];
        s += lap * lap + x[i].sin() * x[i + 1];
    }
    for i in (0..n - 2).rev() {
        s += x[i] * x[i + 2];
    }
    let mut w = vec![0.0; n];
    for i in 1..n {
        w[i] = w[i - 1] * 0.5 + x[i] * x[i - 1];
    }
    s + w[n - 1] * w[n - 2]
}

#[test]
fn stencil_windows() {
    Harness::new(6)
        .primal(|p| vec![stencil(p, 6)])
        .jvp(|p, t| {
            let (v, d) = stencil_jvp(p, 6, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![stencil_vjp(p, 6, g, c[0])])
        .random(4, -1.0, 1.0);
}

/// Neighbour accesses guarded by conditions: adjoint windows whose loads and stores check that
/// the element exists (first and last element, both loop directions).
#[differentiate]
fn guarded_neighbours(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut d = x[i];
        if i > 0 {
            d = x[i] - x[i - 1];
        }
        if i + 1 < n {
            d += 0.5 * x[i + 1] * x[i];
        }
        s += d * d;
    }
    for i in (0..n).rev() {
        if i >= 2 {
            s += x[i] * x[i - 2];
        } else {
            s += x[i].sin();
        }
    }
    s
}

#[test]
fn guarded_windows() {
    for n in [1usize, 2, 3, 6] {
        Harness::new(n)
            .primal(|p| vec![guarded_neighbours(p, n)])
            .jvp(|p, t| {
                let (v, d) = guarded_neighbours_jvp(p, n, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![guarded_neighbours_vjp(p, n, g, c[0])])
            .random(3, -1.0, 1.0);
    }
}

/// Two writes to `w[i]` whose right-hand side also reads `w[1]`: when `i == 1` both name one
/// element (found by the random-program test, seed 201: a wrong reverse gradient).
#[differentiate]
fn aliased_element_writes(a: f64, v: &[f64], n: usize) -> f64 {
    let mut w: Vec<f64> = vec![1.0; v.len()];
    for i in 0..n {
        w[i] = 0.1 * (0.25 * w[i] * v[i]);
        w[i] = (0.25 * (0.25 * w[1] - f64::hypot(-(0.25 * w[i]), 2.0).recip())).tanh();
    }
    w[n - 1] * a + w[1]
}

#[test]
fn aliased_element_writes_reverse() {
    Harness::new(6)
        .primal(|q| vec![aliased_element_writes(q[0], &q[1..], 5)])
        .jvp(|q, t| {
            let (v, d) = aliased_element_writes_jvp(q[0], &q[1..], 5, t[0], &t[1..]);
            (vec![v], vec![d])
        })
        .vjp(|q, c, g| {
            let (x, y) = g.split_at_mut(1);
            vec![aliased_element_writes_vjp(
                q[0],
                &q[1..],
                5,
                &mut x[0],
                y,
                c[0],
            )]
        })
        .random(3, -1.0, 1.0);
}
