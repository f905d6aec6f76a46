//! `<f>_jacobian` (issue 13, dense part): columns by `_jvp` when the inputs are fewer, rows by
//! `_vjp` otherwise, against central differences of the function itself, for array, `Vec` and
//! tuple outputs, scalar, array, slice and `&Vec` arguments, inactive arguments, f32 and generic
//! code.

// The functions are written as people write them (index loops, `&Vec` arguments).
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::useless_vec,
    clippy::redundant_slicing
)]

use autodiff_runtime::differentiate;
use num_traits::Float;

#[path = "common/jacobian.rs"]
mod fd;
use fd::{assert_jacobian, fd_jacobian};

#[differentiate]
fn polar(p: &[f64; 2]) -> [f64; 2] {
    [(p[0] * p[0] + p[1] * p[1]).sqrt(), p[1].atan2(p[0])]
}

/// Five outputs from three inputs: columns by `_jvp`.
#[differentiate]
fn spread(x: f64, v: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 5];
    for i in 0..5 {
        let k = i as f64;
        out[i] = (x * k).sin() + v[i % v.len()] * v[(i + 1) % v.len()] * x;
    }
    out
}

/// Three outputs from seven inputs: rows by `_vjp`.
#[differentiate]
fn summaries(v: &[f64], s: f64, n: usize) -> (f64, [f64; 2]) {
    let mut sum = 0.0;
    let mut sq = 0.0;
    for i in 0..n {
        sum += v[i] * s;
        sq += (v[i] - s).powi(2);
    }
    let m = sum / n as f64;
    (m, [sq.sqrt(), (m * s).exp()])
}

/// A `&Vec` argument, an inactive scale, an array by value.
#[differentiate(wrt(a, w))]
fn mixed(a: [f64; 3], w: &Vec<f64>, scale: f64) -> [f64; 4] {
    [
        a[0] * w[0] * scale,
        a[1].tanh() + w[1],
        a[2] * a[0] - w[2] * w[0],
        (a[0] + a[1] + a[2]).cos() * scale,
    ]
}

#[test]
fn columns_by_jvp_for_a_square_map() {
    for p in [[3.0, 4.0], [-1.0, 0.5], [0.2, -2.0]] {
        let (v, j) = polar_jacobian(&p);
        assert_eq!(v, polar(&p));
        let fd = fd_jacobian(|x| polar(&[x[0], x[1]]).to_vec(), &p);
        assert_jacobian(&j, &fd, 1e-7);
    }
}

#[test]
fn columns_by_jvp_for_a_tall_map() {
    let (x, v) = (0.7, [0.3, -1.2]);
    let (value, j) = spread_jacobian(x, &v);
    assert_eq!(value, spread(x, &v));
    let fd = fd_jacobian(|p| spread(p[0], &p[1..]), &[x, v[0], v[1]]);
    assert_jacobian(&j, &fd, 1e-7);
}

#[test]
fn rows_by_vjp_for_a_wide_map() {
    let v = [0.3, -0.8, 1.1, 0.4, -0.2, 0.9];
    let (s, n) = (0.6, 5);
    let (value, j) = summaries_jacobian(&v, s, n);
    assert_eq!(value, summaries(&v, s, n));
    let flat = |p: &[f64]| {
        let (m, [a, b]) = summaries(&p[..6], p[6], n);
        vec![m, a, b]
    };
    let mut x = v.to_vec();
    x.push(s);
    assert_jacobian(&j, &fd_jacobian(flat, &x), 1e-7);
    // Each row is the `_vjp` of a unit seed.
    for r in 0..3 {
        let mut seed = (0.0, [0.0, 0.0]);
        match r {
            0 => seed.0 = 1.0,
            k => seed.1[k - 1] = 1.0,
        }
        let (mut gv, mut gs) = (vec![0.0; 6], 0.0);
        summaries_vjp(&v, s, n, &mut gv, &mut gs, seed);
        gv.push(gs);
        assert_eq!(j.row(r), &gv[..]);
    }
}

#[test]
fn vec_reference_array_by_value_and_an_inactive_argument() {
    let (a, w, scale) = ([0.4, -0.3, 1.2], vec![0.5, 2.0, -0.7], 1.5);
    let (value, j) = mixed_jacobian(a, &w, scale);
    assert_eq!(value, mixed(a, &w, scale));
    assert_eq!((j.rows(), j.cols()), (4, 6));
    let fd = fd_jacobian(
        |p| mixed([p[0], p[1], p[2]], &p[3..].to_vec(), scale).to_vec(),
        &[a[0], a[1], a[2], w[0], w[1], w[2]],
    );
    assert_jacobian(&j, &fd, 1e-7);
    assert_eq!(j.column(3), vec![a[0] * scale, 0.0, -w[2], 0.0]);
}

#[differentiate]
fn rotate<T: num_traits::Float>(p: &[T], c: T) -> [T; 2] {
    [
        c.cos() * p[0] - c.sin() * p[1],
        c.sin() * p[0] + c.cos() * p[1],
    ]
}

#[test]
fn generic_function_in_f32() {
    let (p, c) = ([0.5f32, -1.5], 0.3f32);
    let (value, j) = rotate_jacobian(&p, c);
    assert_eq!(value, rotate(&p, c));
    // Columns p[0], p[1], c: rows by `_vjp` (3 > 2).
    let (s, co) = (c.sin(), c.cos());
    let want = [
        [co, -s, -s * p[0] - co * p[1]],
        [s, co, co * p[0] - s * p[1]],
    ];
    for r in 0..2 {
        for k in 0..3 {
            assert!((j[(r, k)] - want[r][k]).abs() < 1e-6, "J[{r}, {k}]");
        }
    }
}

/// A nonlinear tridiagonal residual (a discretised `-u'' + u^3 = f` on a grid), in any float
/// type: its Jacobian is banded, three colors whatever the size.
#[differentiate]
fn residual<T: Float>(u: &[T], f: &[T]) -> Vec<T> {
    let n = u.len();
    let mut r = vec![T::zero(); n];
    for i in 0..n {
        let left = if i > 0 { u[i - 1] } else { T::zero() };
        let right = if i + 1 < n { u[i + 1] } else { T::zero() };
        r[i] = u[i] + u[i] - left - right + u[i] * u[i] * u[i] - f[i];
    }
    r
}

/// The pattern of `residual`'s Jacobian with respect to `(u, f)`: the band of `u`, the diagonal
/// of `f`.
fn residual_pattern(n: usize) -> autodiff_runtime::jacobian::Sparsity {
    let mut entries = Vec::new();
    for i in 0..n {
        for j in i.saturating_sub(1)..=(i + 1).min(n - 1) {
            entries.push((i, j));
        }
        entries.push((i, n + i));
    }
    autodiff_runtime::jacobian::Sparsity::from_entries(n, 2 * n, &entries)
}

#[test]
fn banded_jacobian_by_three_colored_jvps() {
    let n = 40;
    let u: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
    let f = vec![0.5; n];
    // Columns: `u` then `f` (both active).
    let pattern = residual_pattern(n);
    let (ncolors, _) = pattern.color_columns();
    assert_eq!(
        ncolors, 4,
        "three for the band of `u`, one for the diagonal of `f`"
    );
    let (value, sparse) = residual_jacobian_sparse(&u, &f, &pattern);
    assert_eq!(value, residual(&u, &f));
    // The dense Jacobian (rows by `_vjp` here: 40 rows, 80 columns) agrees to rounding.
    let (_, dense) = residual_jacobian(&u, &f);
    let from_sparse = sparse.to_dense();
    for i in 0..n {
        for j in 0..2 * n {
            let (a, b) = (from_sparse[(i, j)], dense[(i, j)]);
            assert!(
                (a - b).abs() <= 1e-14 * (1.0 + b.abs()),
                "J[{i}, {j}]: {a} vs {b}"
            );
        }
    }
    let mut x = u.clone();
    x.extend(&f);
    let fd = fd_jacobian(|p| residual(&p[..n], &p[n..]), &x);
    assert_jacobian(&from_sparse, &fd, 1e-7);
    assert_eq!(sparse.get(3, 3), 2.0 + 3.0 * u[3] * u[3]);
    assert_eq!(sparse.get(3, 4), -1.0);
    assert_eq!(sparse.get(3, n + 3), -1.0);
    assert_eq!(sparse.get(3, 7), 0.0);
    assert_eq!(sparse.triplets().len(), pattern.nnz());
    let (row_ptr, col_idx, values) = sparse.csr();
    assert_eq!(
        (row_ptr.len(), col_idx.len(), values.len()),
        (n + 1, 4 * n - 2, 4 * n - 2)
    );
}

#[test]
fn banded_jacobian_in_f32_equals_the_dense_one() {
    let n = 25;
    let u: Vec<f32> = (0..n).map(|i| (i as f32 * 0.3).sin()).collect();
    let f = vec![0.5f32; n];
    let pattern = residual_pattern(n);
    let (value, sparse) = residual_jacobian_sparse(&u, &f, &pattern);
    assert_eq!(value, residual(&u, &f));
    let (_, dense) = residual_jacobian(&u, &f);
    let from_sparse = sparse.to_dense();
    for i in 0..n {
        for j in 0..2 * n {
            let (a, b) = (from_sparse[(i, j)], dense[(i, j)]);
            assert!(
                (a - b).abs() <= 4.0 * f32::EPSILON * (1.0 + b.abs()),
                "J[{i}, {j}]: {a} vs {b}"
            );
        }
        // The closed form of row i (the three products of u^3 rounded one by one in the
        // derivative, once in the formula).
        let d = 2.0 + 3.0 * u[i] * u[i];
        assert!(
            (sparse.get(i, i) - d).abs() <= 4.0 * f32::EPSILON * d,
            "J[{i}, {i}]"
        );
        assert_eq!(sparse.get(i, n + i), -1.0);
        if i > 0 {
            assert_eq!(sparse.get(i, i - 1), -1.0);
        }
    }
}

#[test]
fn banded_pattern_coloring() {
    use autodiff_runtime::jacobian::Sparsity;
    for (lower, upper) in [(0, 0), (1, 1), (2, 1), (3, 3)] {
        let p = Sparsity::banded(30, 30, lower, upper);
        let (ncolors, color) = p.color_columns();
        assert_eq!(ncolors, lower + upper + 1, "band ({lower}, {upper})");
        for i in 0..30 {
            let row = p.row(i);
            for a in 0..row.len() {
                for b in a + 1..row.len() {
                    assert_ne!(color[row[a]], color[row[b]], "columns sharing row {i}");
                }
            }
        }
    }
}

#[test]
#[should_panic(expected = "the sparsity pattern is 3x3, the Jacobian 2x2")]
fn a_pattern_of_the_wrong_size_is_reported() {
    let p = autodiff_runtime::jacobian::Sparsity::banded(3, 3, 1, 1);
    let _ = polar_jacobian_sparse(&[1.0, 2.0], &p);
}

/// Least-squares residuals filling `r` (its initial contents are overwritten: zero columns).
#[differentiate(wrt(p, r))]
fn residuals(p: &[f64; 2], t: &[f64], obs: &[f64], r: &mut [f64]) {
    for i in 0..r.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - obs[i];
    }
}

/// An in-place step with a value: rows are the value then the final state.
#[differentiate]
fn step(state: &mut [f64; 3], dt: f64, e: &mut f64) -> f64 {
    let k = state[0] * state[2];
    state[0] += dt * state[1];
    state[1] -= dt * state[0].sin();
    state[2] *= (-dt * *e).exp();
    *e += k * dt;
    k
}

#[test]
fn residual_jacobian_through_a_mut_argument() {
    let (p, t, obs) = (
        [0.5, -0.3],
        [0.0, 0.5, 1.0, 1.5, 2.0],
        [0.4, 0.3, 0.4, 0.2, 0.1],
    );
    let mut r = [9.0; 5];
    let j = residuals_jacobian(&p, &t, &obs, &mut r);
    // `r` ends holding the residuals.
    let mut want = [0.0; 5];
    residuals(&p, &t, &obs, &mut want);
    assert_eq!(r, want);
    assert_eq!((j.rows(), j.cols()), (5, 7));
    let fd = fd_jacobian(
        |x| {
            let mut r = x[2..].to_vec();
            residuals(&[x[0], x[1]], &t, &obs, &mut r);
            r
        },
        &[p[0], p[1], 9.0, 9.0, 9.0, 9.0, 9.0],
    );
    assert_jacobian(&j, &fd, 1e-7);
    for i in 0..5 {
        assert_eq!(
            &j.row(i)[2..],
            &[0.0; 5],
            "initial contents of `r` do not matter"
        );
    }
    // Sparse: `r[i]` depends on `p` only.
    let mut entries = vec![];
    for i in 0..5 {
        entries.push((i, 0));
        entries.push((i, 1));
    }
    let pattern = autodiff_runtime::jacobian::Sparsity::from_entries(5, 7, &entries);
    let mut r2 = [0.0; 5];
    let sparse = residuals_jacobian_sparse(&p, &t, &obs, &mut r2, &pattern);
    assert_eq!(r2, want);
    assert_eq!(sparse.to_dense(), j);
}

#[test]
fn step_jacobian_with_a_value_and_in_out_state() {
    for (s0, dt, e0) in [([0.3, -0.5, 1.2], 0.1, 0.4), ([1.0, 0.2, -0.7], 0.3, -0.2)] {
        let (mut s, mut e) = (s0, e0);
        let (v, j) = step_jacobian(&mut s, dt, &mut e);
        let (mut s_want, mut e_want) = (s0, e0);
        assert_eq!(v, step(&mut s_want, dt, &mut e_want));
        assert_eq!(
            (s, e),
            (s_want, e_want),
            "the arguments end holding the results"
        );
        // Rows: value, final state (3), final `e`; columns: initial state (3), dt, initial `e`.
        assert_eq!((j.rows(), j.cols()), (5, 5));
        let fd = fd_jacobian(
            |x| {
                let (mut s, mut e) = ([x[0], x[1], x[2]], x[4]);
                let v = step(&mut s, x[3], &mut e);
                vec![v, s[0], s[1], s[2], e]
            },
            &[s0[0], s0[1], s0[2], dt, e0],
        );
        assert_jacobian(&j, &fd, 1e-7);
    }
}
