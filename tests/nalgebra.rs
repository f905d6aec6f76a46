//! nalgebra values in differentiated functions (issue 11, item 3): takes functions written with
//! `DMatrix`, `DVector`, `Matrix3`, `Vector3`, `SMatrix`... as arguments, locals and outputs
//! (products, sums, `transpose`, `map`, `dot`, `norm`, constructors, element reads and writes,
//! loops), gives checks of `_jvp` against central differences, of `_vjp` against `_jvp` by the
//! dot-product test, of accumulation, and of the values against the functions themselves
//! (products go through the runtime's kernels, so values agree to rounding, not bit for bit).
#![allow(clippy::needless_range_loop)]

use autodiff_runtime::{check, differentiate, nn};
use nalgebra::{
    convert, DMatrix, DVector, Matrix2, Matrix2x3, Matrix3, RealField, RowDVector, SMatrix,
    Vector2, Vector3,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Flat<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;
type FlatJvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>);
type FlatVjp<'a> = &'a dyn Fn(&[f64], &[f64], &mut [f64]) -> Vec<f64>;

/// Every check at `points` random points of `[-1.5, 1.5]^n`, inputs flattened (column-major for
/// matrices). `rtol`: of the finite differences and of the values (rounding of the kernels).
fn check_all(n: usize, f: Flat, jvp: FlatJvp, vjp: FlatVjp, points: usize, f32_: bool) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (step, fd_rtol, fd_atol, rtol) = if f32_ {
        (1e-2, 2e-2, 2e-3, 1e-5)
    } else {
        (1e-6, 1e-6, 1e-8, 1e-12)
    };
    for _ in 0..points {
        let x: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.5..1.5)).collect();
        let t: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let y = f(&x);
        let (v, jt) = jvp(&x, &t);
        check::all_close(&v, &y, rtol, rtol).unwrap_or_else(|e| panic!("jvp value: {e}"));
        let fd = check::central_difference(f, &x, &t, step);
        check::all_close(&jt, &fd, fd_rtol, fd_atol)
            .unwrap_or_else(|e| panic!("jvp against central differences at {x:?}: {e}"));
        let c: Vec<f64> = (0..y.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let mut g = vec![0.0; n];
        let v2 = vjp(&x, &c, &mut g);
        check::all_close(&v2, &y, rtol, rtol).unwrap_or_else(|e| panic!("vjp value: {e}"));
        check::dot_product_test(&jt, &c, &t, &g, if f32_ { 1e-4 } else { 1e-10 })
            .unwrap_or_else(|e| panic!("dot-product test at {x:?}: {e}"));
        let mut g2 = g.clone();
        vjp(&x, &c, &mut g2);
        let acc = if f32_ { 1e-5 } else { 1e-12 };
        for (a, b) in g2.iter().zip(&g) {
            assert!(
                (a - 2.0 * b).abs() <= acc * (1.0 + b.abs()),
                "vjp does not accumulate"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Logistic regression over `&DVector` / `&DMatrix` (the case issue 11 names)

#[differentiate(wrt(w))]
fn logistic(w: &DVector<f64>, x: &DMatrix<f64>, y: &DVector<f64>) -> f64 {
    let z = x * w;
    let p = z.map(|t| 1.0 / (1.0 + (-t).exp()));
    let mut loss = 0.0;
    for i in 0..y.len() {
        loss -= y[i] * p[i].ln() + (1.0 - y[i]) * (1.0 - p[i]).ln();
    }
    loss / y.len() as f64
}

fn logistic_data() -> (DMatrix<f64>, DVector<f64>) {
    let x = DMatrix::from_fn(5, 3, |i, j| ((i * 3 + j) as f64 * 0.7).sin());
    let y = DVector::from_vec(vec![1.0, 0.0, 1.0, 1.0, 0.0]);
    (x, y)
}

#[test]
fn logistic_regression_over_dvector_and_dmatrix() {
    let (x, y) = logistic_data();
    let f = |v: &[f64]| vec![logistic(&DVector::from_column_slice(v), &x, &y)];
    let jvp = |v: &[f64], t: &[f64]| {
        let (w, dw) = (DVector::from_column_slice(v), DVector::from_column_slice(t));
        let (a, b) = logistic_jvp(&w, &x, &y, &dw);
        (vec![a], vec![b])
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let mut dw = DVector::from_column_slice(g);
        let a = logistic_vjp(&DVector::from_column_slice(v), &x, &y, &mut dw, c[0]);
        g.copy_from_slice(dw.as_slice());
        vec![a]
    };
    check_all(3, &f, &jvp, &vjp, 6, false);
    // The gradient by hand: Xᵀ (p - y) / n.
    let w = DVector::from_vec(vec![0.3, -0.2, 0.5]);
    let (value, g) = logistic_grad(&w, &x, &y);
    let p = (&x * &w).map(|t| 1.0 / (1.0 + (-t).exp()));
    let want = x.transpose() * (&p - &y) / 5.0;
    assert!((value - logistic(&w, &x, &y)).abs() < 1e-14);
    for k in 0..3 {
        assert!(
            (g.w[k] - want[k]).abs() < 1e-14,
            "{} vs {}",
            g.w[k],
            want[k]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A two-layer network written with nalgebra and the `nn` activations (issue 11, done-when)

/// `mean ‖W2 relu(W1 X + b1) + b2 - T‖²` over the columns of `X` (one sample per column).
#[differentiate(wrt(w1, b1, w2, b2))]
fn two_layer(
    w1: &DMatrix<f64>,
    b1: &DVector<f64>,
    w2: &DMatrix<f64>,
    b2: &DVector<f64>,
    x: &DMatrix<f64>,
    t: &DMatrix<f64>,
) -> f64 {
    let z = w1 * x;
    let z = DMatrix::from_fn(z.nrows(), z.ncols(), |i, j| z[(i, j)] + b1[i]);
    let mut a = vec![0.0; z.len()];
    nn::relu(z.as_slice(), &mut a);
    let a = DMatrix::from_vec(z.nrows(), z.ncols(), a);
    let y = w2 * &a;
    let y = DMatrix::from_fn(y.nrows(), y.ncols(), |i, j| y[(i, j)] + b2[i]);
    let d = &y - t;
    d.norm_squared() / x.ncols() as f64
}

/// The same loss with the kernels on slices (`nn::linear` per sample, row-major weights).
#[differentiate(wrt(w1, b1, w2, b2))]
fn two_layer_slices(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    x: &[f64],
    t: &[f64],
    sizes: &[usize],
) -> f64 {
    let (n_in, n_hid, n_out, batch) = (sizes[0], sizes[1], sizes[2], sizes[3]);
    let mut loss = 0.0;
    for s in 0..batch {
        let mut h = vec![0.0; n_hid];
        nn::linear(w1, &x[s * n_in..(s + 1) * n_in], b1, &mut h, n_hid, n_in);
        let mut a = vec![0.0; n_hid];
        nn::relu(&h, &mut a);
        let mut y = vec![0.0; n_out];
        nn::linear(w2, &a, b2, &mut y, n_out, n_hid);
        for k in 0..n_out {
            let d = y[k] - t[s * n_out + k];
            loss += d * d;
        }
    }
    loss / batch as f64
}

const SIZES: [usize; 4] = [3, 4, 2, 5];

/// Column-major nalgebra matrices from the flat inputs `[w1 | b1 | w2 | b2]`.
fn net(v: &[f64]) -> (DMatrix<f64>, DVector<f64>, DMatrix<f64>, DVector<f64>) {
    let [ni, nh, no, _] = SIZES;
    let (w1, r) = v.split_at(nh * ni);
    let (b1, r) = r.split_at(nh);
    let (w2, b2) = r.split_at(no * nh);
    (
        DMatrix::from_column_slice(nh, ni, w1),
        DVector::from_column_slice(b1),
        DMatrix::from_column_slice(no, nh, w2),
        DVector::from_column_slice(b2),
    )
}

fn net_data() -> (DMatrix<f64>, DMatrix<f64>) {
    let [ni, _, no, batch] = SIZES;
    let x = DMatrix::from_fn(ni, batch, |i, j| ((i + 2 * j) as f64 * 0.37).cos());
    let t = DMatrix::from_fn(no, batch, |i, j| ((3 * i + j) as f64 * 0.21).sin());
    (x, t)
}

fn net_len() -> usize {
    let [ni, nh, no, _] = SIZES;
    nh * ni + nh + no * nh + no
}

#[test]
fn two_layer_network_with_nalgebra_in_both_modes() {
    let (x, t) = net_data();
    let f = |v: &[f64]| {
        let (w1, b1, w2, b2) = net(v);
        vec![two_layer(&w1, &b1, &w2, &b2, &x, &t)]
    };
    let jvp = |v: &[f64], d: &[f64]| {
        let (w1, b1, w2, b2) = net(v);
        let (d1, e1, d2, e2) = net(d);
        let (a, b) = two_layer_jvp(&w1, &b1, &w2, &b2, &x, &t, &d1, &e1, &d2, &e2);
        (vec![a], vec![b])
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let (w1, b1, w2, b2) = net(v);
        let (mut d1, mut e1, mut d2, mut e2) = net(g);
        let a = two_layer_vjp(
            &w1, &b1, &w2, &b2, &x, &t, &mut d1, &mut e1, &mut d2, &mut e2, c[0],
        );
        let all: Vec<f64> = [d1.as_slice(), e1.as_slice(), d2.as_slice(), e2.as_slice()].concat();
        g.copy_from_slice(&all);
        vec![a]
    };
    // relu's kink: points where a hidden unit is exactly zero have probability zero.
    check_all(net_len(), &f, &jvp, &vjp, 4, false);
}

#[test]
fn two_layer_network_nalgebra_equals_the_slice_version() {
    let [ni, nh, no, batch] = SIZES;
    let (x, t) = net_data();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let v: Vec<f64> = (0..net_len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let (w1, b1, w2, b2) = net(&v);
    let (value, g) = two_layer_grad(&w1, &b1, &w2, &b2, &x, &t);
    // The slice version takes row-major weights and one sample after the other: the columns of
    // `x` and `t`, which is their column-major storage.
    let row_major = |m: &DMatrix<f64>| m.transpose().as_slice().to_vec();
    let (xs, ts) = (x.as_slice(), t.as_slice());
    let sizes = [ni, nh, no, batch];
    let (w1r, w2r) = (row_major(&w1), row_major(&w2));
    let (value2, g2) =
        two_layer_slices_grad(&w1r, b1.as_slice(), &w2r, b2.as_slice(), xs, ts, &sizes);
    assert!(
        (value - value2).abs() <= 1e-12 * value2.abs(),
        "{value} vs {value2}"
    );
    let value3 = two_layer_slices(&w1r, b1.as_slice(), &w2r, b2.as_slice(), xs, ts, &sizes);
    assert_eq!(value2, value3);
    let close = |a: &[f64], b: &[f64]| {
        check::all_close(a, b, 1e-12, 1e-13).unwrap_or_else(|e| panic!("{e}"));
    };
    close(&row_major(&g.w1), &g2.w1);
    close(g.b1.as_slice(), &g2.b1);
    close(&row_major(&g.w2), &g2.w2);
    close(g.b2.as_slice(), &g2.b2);
}

// ---------------------------------------------------------------------------------------------
// Fixed sizes: `Matrix3`, `Vector3` by reference and by value; `transpose`, `dot`, `norm`

#[differentiate]
fn rotation_energy(m: &Matrix3<f64>, v: Vector3<f64>) -> f64 {
    let w = m * v;
    w.dot(&v) + m.transpose()[(0, 1)] * v.norm() - (m * m).sum() * 0.1
}

#[test]
fn fixed_size_matrix_and_vector() {
    let f = |x: &[f64]| {
        vec![rotation_energy(
            &Matrix3::from_column_slice(&x[..9]),
            Vector3::from_column_slice(&x[9..]),
        )]
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let (a, b) = rotation_energy_jvp(
            &Matrix3::from_column_slice(&x[..9]),
            Vector3::from_column_slice(&x[9..]),
            &Matrix3::from_column_slice(&t[..9]),
            Vector3::from_column_slice(&t[9..]),
        );
        (vec![a], vec![b])
    };
    let vjp = |x: &[f64], c: &[f64], g: &mut [f64]| {
        let mut dm = Matrix3::from_column_slice(&g[..9]);
        let mut dv = Vector3::from_column_slice(&g[9..]);
        let a = rotation_energy_vjp(
            &Matrix3::from_column_slice(&x[..9]),
            Vector3::from_column_slice(&x[9..]),
            &mut dm,
            &mut dv,
            c[0],
        );
        g[..9].copy_from_slice(dm.as_slice());
        g[9..].copy_from_slice(dv.as_slice());
        vec![a]
    };
    check_all(12, &f, &jvp, &vjp, 6, false);
    // `_grad` gives the owned types.
    let (_, g) = rotation_energy_grad(&Matrix3::identity(), Vector3::new(1.0, 2.0, 3.0));
    let _: Matrix3<f64> = g.m;
    let _: Vector3<f64> = g.v;
}

// ---------------------------------------------------------------------------------------------
// Outputs: `Vector2` (fixed) and `DVector` (dynamic); the seed has the output's type

#[differentiate]
fn affine2(a: &Matrix2<f64>, x: &Vector2<f64>) -> Vector2<f64> {
    a * x + x.scale(2.0) - Vector2::new(x[1] * x[0], 0.5)
}

#[test]
fn fixed_size_vector_output() {
    let f = |v: &[f64]| {
        let y = affine2(
            &Matrix2::from_column_slice(&v[..4]),
            &Vector2::from_column_slice(&v[4..]),
        );
        y.as_slice().to_vec()
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let (y, dy) = affine2_jvp(
            &Matrix2::from_column_slice(&v[..4]),
            &Vector2::from_column_slice(&v[4..]),
            &Matrix2::from_column_slice(&t[..4]),
            &Vector2::from_column_slice(&t[4..]),
        );
        let _: (Vector2<f64>, Vector2<f64>) = (y, dy);
        (y.as_slice().to_vec(), dy.as_slice().to_vec())
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let mut da = Matrix2::from_column_slice(&g[..4]);
        let mut dx = Vector2::from_column_slice(&g[4..]);
        let y = affine2_vjp(
            &Matrix2::from_column_slice(&v[..4]),
            &Vector2::from_column_slice(&v[4..]),
            &mut da,
            &mut dx,
            Vector2::from_column_slice(c),
        );
        g[..4].copy_from_slice(da.as_slice());
        g[4..].copy_from_slice(dx.as_slice());
        y.as_slice().to_vec()
    };
    check_all(6, &f, &jvp, &vjp, 6, false);
}

#[differentiate]
fn waves(x: &DVector<f64>, s: f64) -> DVector<f64> {
    let y = x.map(|t| (t * s).sin());
    y.component_mul(x).add_scalar(s) / 2.0
}

#[test]
fn dynamic_vector_output() {
    let f = |v: &[f64]| {
        waves(&DVector::from_column_slice(&v[..4]), v[4])
            .as_slice()
            .to_vec()
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let x = DVector::from_column_slice(&v[..4]);
        let dx = DVector::from_column_slice(&t[..4]);
        let (y, dy) = waves_jvp(&x, v[4], &dx, t[4]);
        (y.as_slice().to_vec(), dy.as_slice().to_vec())
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let x = DVector::from_column_slice(&v[..4]);
        let mut dx = DVector::from_column_slice(&g[..4]);
        let mut ds = g[4];
        let y = waves_vjp(&x, v[4], &mut dx, &mut ds, DVector::from_column_slice(c));
        g[..4].copy_from_slice(dx.as_slice());
        g[4] = ds;
        y.as_slice().to_vec()
    };
    check_all(5, &f, &jvp, &vjp, 6, false);
}

/// A `DMatrix` output: its dimensions are read from the arguments (`a.ncols()`).
#[differentiate]
fn gram(a: &DMatrix<f64>, s: f64) -> DMatrix<f64> {
    a.transpose() * a * s
}

/// A `DMatrix` built with an integer argument and a `let` of an argument's length as its
/// dimensions, returned early or at the end.
#[differentiate]
fn scaled_outer(x: &DVector<f64>, n: usize, s: f64) -> DMatrix<f64> {
    let k = x.len();
    let m = DMatrix::from_fn(n, k, |i, j| x[j] * (i as f64 + s).sin());
    if s > 2.0 {
        return m.map(|t| t * t);
    }
    m
}

/// A `DMatrix` output whose left operand's dimensions are computed in the body (`x` from a
/// `vec!`): the right operand's, built from literals, give the output's (random programs, seed
/// 73004).
#[allow(clippy::let_and_return)]
#[differentiate]
fn outer_minus(s: f64, b: &DVector<f64>) -> DMatrix<f64> {
    let x = DVector::from_vec(vec![s, b[0] * s, b[1].sin()]);
    let y = &x * DMatrix::from_fn(1, 3, |_, j| b[0] + j as f64)
        - DMatrix::from_fn(3, 3, |i, j| (i + j) as f64 * s);
    y
}

#[test]
fn dynamic_matrix_output_dimensions_from_the_right_operand() {
    let f = |v: &[f64]| {
        let m = outer_minus(v[0], &DVector::from_column_slice(&v[1..3]));
        assert_eq!((m.nrows(), m.ncols()), (3, 3));
        m.as_slice().to_vec()
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let b = DVector::from_column_slice(&v[1..3]);
        let db = DVector::from_column_slice(&t[1..3]);
        let (y, dy) = outer_minus_jvp(v[0], &b, t[0], &db);
        assert_eq!((dy.nrows(), dy.ncols()), (3, 3));
        (y.as_slice().to_vec(), dy.as_slice().to_vec())
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let b = DVector::from_column_slice(&v[1..3]);
        let mut ds = g[0];
        let mut db = DVector::from_column_slice(&g[1..3]);
        let y = outer_minus_vjp(
            v[0],
            &b,
            &mut ds,
            &mut db,
            DMatrix::from_column_slice(3, 3, c),
        );
        g[0] = ds;
        g[1..3].copy_from_slice(db.as_slice());
        y.as_slice().to_vec()
    };
    check_all(3, &f, &jvp, &vjp, 9, false);
}

#[test]
fn dynamic_matrix_outputs() {
    // gram: a is 3 x 2 (6 inputs), s; the output 2 x 2 (column-major).
    let f = |v: &[f64]| {
        gram(&DMatrix::from_column_slice(3, 2, &v[..6]), v[6])
            .as_slice()
            .to_vec()
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let a = DMatrix::from_column_slice(3, 2, &v[..6]);
        let da = DMatrix::from_column_slice(3, 2, &t[..6]);
        let (y, dy) = gram_jvp(&a, v[6], &da, t[6]);
        assert_eq!((y.nrows(), y.ncols(), dy.nrows(), dy.ncols()), (2, 2, 2, 2));
        (y.as_slice().to_vec(), dy.as_slice().to_vec())
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let a = DMatrix::from_column_slice(3, 2, &v[..6]);
        let mut da = DMatrix::from_column_slice(3, 2, &g[..6]);
        let mut ds = g[6];
        let y = gram_vjp(
            &a,
            v[6],
            &mut da,
            &mut ds,
            DMatrix::from_column_slice(2, 2, c),
        );
        assert_eq!((y.nrows(), y.ncols()), (2, 2));
        g[..6].copy_from_slice(da.as_slice());
        g[6] = ds;
        y.as_slice().to_vec()
    };
    check_all(7, &f, &jvp, &vjp, 6, false);
    let a = DMatrix::from_fn(3, 2, |i, j| (i + 2 * j) as f64 - 1.5);
    let want = a.transpose() * &a * 0.7;
    assert!((gram(&a, 0.7) - want).norm() < 1e-12);

    // scaled_outer, n = 3 rows, x of 2: both returns (s below and above 2).
    for s in [0.4, 2.6] {
        let f = move |v: &[f64]| {
            let m = scaled_outer(&DVector::from_column_slice(&v[..2]), 3, v[2] + s);
            assert_eq!((m.nrows(), m.ncols()), (3, 2));
            m.as_slice().to_vec()
        };
        let jvp = move |v: &[f64], t: &[f64]| {
            let x = DVector::from_column_slice(&v[..2]);
            let dx = DVector::from_column_slice(&t[..2]);
            let (y, dy) = scaled_outer_jvp(&x, 3, v[2] + s, &dx, t[2]);
            (y.as_slice().to_vec(), dy.as_slice().to_vec())
        };
        let vjp = move |v: &[f64], c: &[f64], g: &mut [f64]| {
            let x = DVector::from_column_slice(&v[..2]);
            let mut dx = DVector::from_column_slice(&g[..2]);
            let mut ds = g[2];
            let seed = DMatrix::from_column_slice(3, 2, c);
            let y = scaled_outer_vjp(&x, 3, v[2] + s, &mut dx, &mut ds, seed);
            g[..2].copy_from_slice(dx.as_slice());
            g[2] = ds;
            y.as_slice().to_vec()
        };
        // Points within [-1.5, 1.5]: s + v[2] stays on one side of 2 for s = 0.4 only near
        // the middle, so keep the shift small enough by scaling v[2].
        let f2 = move |v: &[f64]| f(&[v[0], v[1], v[2] * 0.2]);
        let jvp2 = move |v: &[f64], t: &[f64]| {
            let (y, dy) = jvp(&[v[0], v[1], v[2] * 0.2], &[t[0], t[1], t[2] * 0.2]);
            (y, dy)
        };
        let vjp2 = move |v: &[f64], c: &[f64], g: &mut [f64]| {
            let mut h = [g[0], g[1], 0.0];
            let y = vjp(&[v[0], v[1], v[2] * 0.2], c, &mut h);
            g[0] = h[0];
            g[1] = h[1];
            g[2] += h[2] * 0.2;
            y
        };
        check_all(3, &f2, &jvp2, &vjp2, 6, false);
    }
}

#[test]
#[should_panic(expected = "the seed of a `DMatrix` output must have the output's dimensions")]
fn dynamic_matrix_output_seed_of_other_dimensions_panics() {
    let a = DMatrix::from_element(3, 2, 1.0);
    let mut da = DMatrix::zeros(3, 2);
    let mut ds = 0.0;
    gram_vjp(&a, 1.0, &mut da, &mut ds, DMatrix::zeros(3, 3));
}

// ---------------------------------------------------------------------------------------------
// Loops, reassignment, compound assignment and element writes

/// Three steps of a normalised power iteration.
#[differentiate]
fn power_steps(a: &DMatrix<f64>, x: &DVector<f64>) -> f64 {
    let mut h = x.clone();
    for _ in 0..3 {
        h = a * &h;
        h /= h.norm();
        h += x;
    }
    h.sum() + h.mean()
}

#[test]
fn loops_over_nalgebra_values() {
    let f = |v: &[f64]| {
        vec![power_steps(
            &DMatrix::from_column_slice(3, 3, &v[..9]),
            &DVector::from_column_slice(&v[9..]),
        )]
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let (a, b) = power_steps_jvp(
            &DMatrix::from_column_slice(3, 3, &v[..9]),
            &DVector::from_column_slice(&v[9..]),
            &DMatrix::from_column_slice(3, 3, &t[..9]),
            &DVector::from_column_slice(&t[9..]),
        );
        (vec![a], vec![b])
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let mut da = DMatrix::from_column_slice(3, 3, &g[..9]);
        let mut dx = DVector::from_column_slice(&g[9..]);
        let y = power_steps_vjp(
            &DMatrix::from_column_slice(3, 3, &v[..9]),
            &DVector::from_column_slice(&v[9..]),
            &mut da,
            &mut dx,
            c[0],
        );
        g[..9].copy_from_slice(da.as_slice());
        g[9..].copy_from_slice(dx.as_slice());
        vec![y]
    };
    check_all(12, &f, &jvp, &vjp, 6, false);
}

/// Constructors and element writes from slices and floats.
#[differentiate]
fn built(x: &[f64]) -> f64 {
    let mut m = DMatrix::zeros(2, 3);
    m[(0, 1)] = x[0] * x[1];
    m[(1, 2)] += x[1].sin();
    let r = Matrix2x3::new(x[0], x[1], 0.5, x[2], x[0], -1.0);
    let s = DMatrix::from_row_slice(2, 3, &[x[2], 1.0, x[0], x[1], 2.0, x[2]]);
    let v = DVector::from_fn(3, |i, _| x[i] * (i as f64 + 1.0));
    let w = RowDVector::from_vec(vec![x[0], x[1]]);
    let u = Vector3::new(x[2], x[1], x[0]);
    let e = SMatrix::<f64, 2, 2>::from_fn(|i, j| x[i + j]);
    let p = (&m + &s) * &v;
    let q = (r * u).component_mul(&(e * Vector2::new(1.0, x[2])));
    (w * p)[0] + q.dot(&q) + s.column(1).sum() * s.row(0).norm_squared()
}

#[test]
fn constructors_and_element_writes() {
    let f = |v: &[f64]| vec![built(v)];
    let jvp = |v: &[f64], t: &[f64]| {
        let (a, b) = built_jvp(v, t);
        (vec![a], vec![b])
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| vec![built_vjp(v, g, c[0])];
    check_all(3, &f, &jvp, &vjp, 8, false);
}

// ---------------------------------------------------------------------------------------------
// f32

#[differentiate]
fn quad32(a: &DMatrix<f32>, x: &DVector<f32>) -> f32 {
    let y = a * x;
    let z = a.transpose() * &y;
    z.dot(x) + y.map(|t| t.tanh()).sum()
}

#[test]
fn f32_matrices() {
    let d = |v: &[f64]| v.iter().map(|&t| t as f32).collect::<Vec<f32>>();
    let f = |v: &[f64]| {
        let v = d(v);
        vec![quad32(
            &DMatrix::from_column_slice(3, 2, &v[..6]),
            &DVector::from_column_slice(&v[6..]),
        ) as f64]
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let (v, t) = (d(v), d(t));
        let (a, b) = quad32_jvp(
            &DMatrix::from_column_slice(3, 2, &v[..6]),
            &DVector::from_column_slice(&v[6..]),
            &DMatrix::from_column_slice(3, 2, &t[..6]),
            &DVector::from_column_slice(&t[6..]),
        );
        (vec![a as f64], vec![b as f64])
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let v = d(v);
        let g32 = d(g);
        let mut da = DMatrix::from_column_slice(3, 2, &g32[..6]);
        let mut dx = DVector::from_column_slice(&g32[6..]);
        let y = quad32_vjp(
            &DMatrix::from_column_slice(3, 2, &v[..6]),
            &DVector::from_column_slice(&v[6..]),
            &mut da,
            &mut dx,
            c[0] as f32,
        );
        for (k, &a) in da.iter().chain(dx.iter()).enumerate() {
            g[k] = a as f64;
        }
        vec![y as f64]
    };
    check_all(8, &f, &jvp, &vjp, 4, true);
}

// ---------------------------------------------------------------------------------------------
// Generic elements: `T: RealField` (the companions add what the rules need; instantiated at
// `f32` and `f64`)

/// Logistic regression written once for any `RealField`, with `nalgebra::convert` and
/// `RealField`'s own `exp`/`ln` (which `num_traits::Float` also has: generated code must not
/// make them ambiguous).
#[differentiate(wrt(w))]
fn logistic_generic<T: RealField + Copy>(w: &DVector<T>, x: &DMatrix<T>, y: &DVector<T>) -> T {
    let z = x * w;
    let p = z.map(|t| T::one() / (T::one() + (-t).exp()));
    let mut loss = T::zero();
    for i in 0..y.len() {
        loss -= y[i] * p[i].ln() + (T::one() - y[i]) * (T::one() - p[i]).ln();
    }
    loss / nalgebra::convert(y.len() as f64)
}

#[differentiate]
fn energy_generic<T: RealField + Copy>(a: &DMatrix<T>, v: Vector3<T>) -> T {
    let w = a * v;
    w.norm_squared() + w.dot(&w).sqrt() * convert(0.5) + v.norm() * v[0].sin().max(v[1])
}

#[differentiate]
fn gram_generic<T: RealField + Copy>(a: &DMatrix<T>, s: T) -> DMatrix<T> {
    a.transpose() * a * s
}

#[test]
fn generic_real_field_elements() {
    // f64: equal to the f64-only version, gradient against central differences.
    let (x, y) = logistic_data();
    let w = DVector::from_vec(vec![0.3, -0.2, 0.5]);
    let (l, g) = logistic_generic_grad(&w, &x, &y);
    let (l2, g2) = logistic_grad(&w, &x, &y);
    assert!((l - l2).abs() < 1e-12 * l2.abs());
    assert!((&g.w - &g2.w).norm() < 1e-12 * g2.w.norm());
    let f = |v: &[f64]| vec![logistic_generic(&DVector::from_column_slice(v), &x, &y)];
    let jvp = |v: &[f64], t: &[f64]| {
        let (a, b) = logistic_generic_jvp(
            &DVector::from_column_slice(v),
            &x,
            &y,
            &DVector::from_column_slice(t),
        );
        (vec![a], vec![b])
    };
    let vjp = |v: &[f64], c: &[f64], gr: &mut [f64]| {
        let mut dw = DVector::from_column_slice(gr);
        let r = logistic_generic_vjp(&DVector::from_column_slice(v), &x, &y, &mut dw, c[0]);
        gr.copy_from_slice(dw.as_slice());
        vec![r]
    };
    check_all(3, &f, &jvp, &vjp, 6, false);

    // f32 instance of the same function.
    let x32 = x.map(|t| t as f32);
    let y32 = y.map(|t| t as f32);
    let w32 = w.map(|t| t as f32);
    let (l32, g32) = logistic_generic_grad(&w32, &x32, &y32);
    assert!((l32 as f64 - l).abs() < 1e-5);
    for k in 0..3 {
        assert!((g32.w[k] as f64 - g.w[k]).abs() < 1e-5, "{k}");
    }

    // energy: a and v (6 + 3 inputs), f64 and f32.
    let f = |u: &[f64]| {
        let v = Vector3::new(u[6], u[7], u[8]);
        vec![energy_generic(
            &DMatrix::from_column_slice(2, 3, &u[..6]),
            v,
        )]
    };
    let jvp = |u: &[f64], t: &[f64]| {
        let (a, b) = energy_generic_jvp(
            &DMatrix::from_column_slice(2, 3, &u[..6]),
            Vector3::new(u[6], u[7], u[8]),
            &DMatrix::from_column_slice(2, 3, &t[..6]),
            Vector3::new(t[6], t[7], t[8]),
        );
        (vec![a], vec![b])
    };
    let vjp = |u: &[f64], c: &[f64], gr: &mut [f64]| {
        let mut da = DMatrix::from_column_slice(2, 3, &gr[..6]);
        let mut dv = Vector3::new(gr[6], gr[7], gr[8]);
        let r = energy_generic_vjp(
            &DMatrix::from_column_slice(2, 3, &u[..6]),
            Vector3::new(u[6], u[7], u[8]),
            &mut da,
            &mut dv,
            c[0],
        );
        gr[..6].copy_from_slice(da.as_slice());
        gr[6..].copy_from_slice(dv.as_slice());
        vec![r]
    };
    check_all(9, &f, &jvp, &vjp, 6, false);
    let a32 = DMatrix::from_fn(2, 3, |i, j| (i + j) as f32 * 0.3 - 0.4);
    let v32 = Vector3::new(0.2f32, -0.7, 0.4);
    let (e32, ge32) = energy_generic_grad(&a32, v32);
    let (e64, ge64) = energy_generic_grad(&a32.map(|t| t as f64), v32.map(|t| t as f64));
    assert!((e32 as f64 - e64).abs() < 1e-5 * (1.0 + e64.abs()));
    for k in 0..3 {
        assert!((ge32.v[k] as f64 - ge64.v[k]).abs() < 1e-4 * (1.0 + ge64.v[k].abs()));
    }

    // A generic `DMatrix` output, f32.
    let a = DMatrix::from_fn(3, 2, |i, j| (i * 2 + j) as f32 * 0.25 - 0.5);
    let da = DMatrix::from_fn(3, 2, |i, j| if (i + j) % 2 == 0 { 1.0f32 } else { -0.5 });
    let (m, dm) = gram_generic_jvp(&a, 1.5f32, &da, 0.25);
    let want = a.transpose() * &a * 1.5;
    let dwant = (da.transpose() * &a + a.transpose() * &da) * 1.5 + a.transpose() * &a * 0.25;
    assert!((gram_generic(&a, 1.5f32) - &want).norm() < 1e-5);
    assert!((m - want).norm() < 1e-5);
    assert!((dm - dwant).norm() < 1e-5);
}

// ---------------------------------------------------------------------------------------------
// `&mut` nalgebra arguments: in-out storage (the tangent and adjoint updated in place)

/// One explicit step `u <- u + dt (A u - u³)`, written element by element into `u`.
#[differentiate]
fn relax(u: &mut DVector<f64>, a: &DMatrix<f64>, dt: f64) {
    let au = a * &*u;
    for i in 0..u.len() {
        u[i] += dt * (au[i] - u[i] * u[i] * u[i]);
    }
}

/// Two steps through the in-out argument, then a scalar read of it.
#[differentiate]
fn relax_twice(u: &mut Matrix2x3<f64>, k: f64) -> f64 {
    for j in 0..3 {
        for i in 0..2 {
            u[(i, j)] = (u[(i, j)] * k).sin() + 0.1 * u[(1 - i, j)];
        }
    }
    u[(0, 2)] * k + u.sum()
}

/// Both modes of a step `u <- step(u, a, dt)` on a `&mut DVector` of 3 (inputs: u, a (3 x 3),
/// dt; outputs: the final u), under the in-out convention: the buffer of `u` holds the output's
/// adjoint on entry and the input's on exit, the other buffers accumulate.
#[allow(clippy::type_complexity)]
fn check_in_out_step(
    step: fn(&mut DVector<f64>, &DMatrix<f64>, f64),
    step_jvp: fn(&mut DVector<f64>, &DMatrix<f64>, f64, &mut DVector<f64>, &DMatrix<f64>, f64),
    step_vjp: fn(
        &mut DVector<f64>,
        &DMatrix<f64>,
        f64,
        &mut DVector<f64>,
        &mut DMatrix<f64>,
        &mut f64,
    ),
) {
    let f = |v: &[f64]| {
        let mut u = DVector::from_column_slice(&v[..3]);
        step(&mut u, &DMatrix::from_column_slice(3, 3, &v[3..12]), v[12]);
        u.as_slice().to_vec()
    };
    let jvp = |v: &[f64], t: &[f64]| {
        let mut u = DVector::from_column_slice(&v[..3]);
        let mut du = DVector::from_column_slice(&t[..3]);
        let a = DMatrix::from_column_slice(3, 3, &v[3..12]);
        let da = DMatrix::from_column_slice(3, 3, &t[3..12]);
        step_jvp(&mut u, &a, v[12], &mut du, &da, t[12]);
        (u.as_slice().to_vec(), du.as_slice().to_vec())
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let mut u = DVector::from_column_slice(&v[..3]);
        let mut du = DVector::from_column_slice(c);
        let mut da = DMatrix::from_column_slice(3, 3, &g[3..12]);
        let mut ddt = g[12];
        step_vjp(
            &mut u,
            &DMatrix::from_column_slice(3, 3, &v[3..12]),
            v[12],
            &mut du,
            &mut da,
            &mut ddt,
        );
        for k in 0..3 {
            g[k] += du[k];
        }
        g[3..12].copy_from_slice(da.as_slice());
        g[12] = ddt;
        u.as_slice().to_vec()
    };
    check_all(13, &f, &jvp, &vjp, 6, false);
}

#[test]
fn in_out_nalgebra_arguments() {
    check_in_out_step(relax, relax_jvp, relax_vjp);

    let f2 = |v: &[f64]| {
        let mut u = Matrix2x3::from_column_slice(&v[..6]);
        let y = relax_twice(&mut u, v[6]);
        [u.as_slice(), &[y]].concat()
    };
    let jvp2 = |v: &[f64], t: &[f64]| {
        let mut u = Matrix2x3::from_column_slice(&v[..6]);
        let mut du = Matrix2x3::from_column_slice(&t[..6]);
        let (y, dy) = relax_twice_jvp(&mut u, v[6], &mut du, t[6]);
        (
            [u.as_slice(), &[y]].concat(),
            [du.as_slice(), &[dy]].concat(),
        )
    };
    let vjp2 = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let mut u = Matrix2x3::from_column_slice(&v[..6]);
        let mut du = Matrix2x3::from_column_slice(&c[..6]);
        let mut dk = g[6];
        let y = relax_twice_vjp(&mut u, v[6], &mut du, &mut dk, c[6]);
        for k in 0..6 {
            g[k] += du[k];
        }
        g[6] = dk;
        [u.as_slice(), &[y]].concat()
    };
    check_all(7, &f2, &jvp2, &vjp2, 6, false);
}

/// The same kind of step written with whole assignments of the `&mut` argument.
#[differentiate]
fn relax_whole(u: &mut DVector<f64>, a: &DMatrix<f64>, dt: f64) {
    let au = a * &*u;
    *u += au * dt;
    *u = u.map(|t| t.tanh()) * 1.5;
    *u -= a.column(0) * dt;
    *u *= 0.9;
}

#[test]
fn whole_assignments_of_in_out_nalgebra_arguments() {
    check_in_out_step(relax_whole, relax_whole_jvp, relax_whole_vjp);
    // The value equals nalgebra's own computation.
    let a = DMatrix::from_fn(3, 3, |i, j| (i as f64 - j as f64) * 0.3 + 0.1);
    let mut u = DVector::from_vec(vec![0.2, -0.4, 0.7]);
    let mut want = u.clone();
    let au = &a * &want;
    want += au * 0.1;
    want = want.map(|t| t.tanh()) * 1.5;
    want -= a.column(0) * 0.1;
    want *= 0.9;
    relax_whole(&mut u, &a, 0.1);
    assert!((u - want).norm() < 1e-14);
}

/// Jacobian `j` (rows: outputs, columns: inputs) against central differences of `f` at `x`.
fn check_jacobian(j: &autodiff_runtime::jacobian::Jacobian<f64>, f: Flat, x: &[f64]) {
    assert_eq!(j.cols(), x.len());
    for c in 0..x.len() {
        let mut t = vec![0.0; x.len()];
        t[c] = 1.0;
        let fd = check::central_difference(f, x, &t, 1e-6);
        assert_eq!(fd.len(), j.rows());
        for (r, want) in fd.iter().enumerate() {
            assert!(
                (j[(r, c)] - want).abs() <= 1e-6 * (1.0 + want.abs()),
                "J[{r}, {c}] = {} against {want}",
                j[(r, c)]
            );
        }
    }
}

#[test]
fn jacobians_of_nalgebra_functions() {
    // A `DVector` output: rows its elements, columns x's then s.
    let x = DVector::from_vec(vec![0.3, -0.5, 0.8, 0.1]);
    let (v, j) = waves_jacobian(&x, 0.7);
    assert_eq!(v, waves(&x, 0.7));
    let f = |p: &[f64]| {
        waves(&DVector::from_column_slice(&p[..4]), p[4])
            .as_slice()
            .to_vec()
    };
    check_jacobian(&j, &f, &[0.3, -0.5, 0.8, 0.1, 0.7]);

    // A `DMatrix` output (column-major rows), a matrix argument and a scalar.
    let a = DMatrix::from_fn(3, 2, |i, k| (i + 2 * k) as f64 * 0.3 - 0.2);
    let (g, jg) = gram_jacobian(&a, 0.8);
    assert!((g - gram(&a, 0.8)).norm() == 0.0);
    let f = |p: &[f64]| {
        gram(&DMatrix::from_column_slice(3, 2, &p[..6]), p[6])
            .as_slice()
            .to_vec()
    };
    check_jacobian(&jg, &f, &[a.as_slice(), &[0.8]].concat());

    // A `&mut` argument (rows: its final contents; columns: its initial contents, then a
    // and dt); the argument ends holding the function's result.
    let b = DMatrix::from_fn(3, 3, |i, k| (i as f64 - k as f64) * 0.2 + 0.05);
    let mut u = DVector::from_vec(vec![0.1, 0.2, -0.3]);
    let mut want = u.clone();
    relax_whole(&mut want, &b, 0.1);
    let ju = relax_whole_jacobian(&mut u, &b, 0.1);
    assert_eq!(u, want);
    let f = |p: &[f64]| {
        let mut u = DVector::from_column_slice(&p[..3]);
        relax_whole(&mut u, &DMatrix::from_column_slice(3, 3, &p[3..12]), p[12]);
        u.as_slice().to_vec()
    };
    check_jacobian(&ju, &f, &[&[0.1, 0.2, -0.3], b.as_slice(), &[0.1]].concat());
}

/// A neo-Hookean-like energy of a deformation gradient `F` (3 x 3): `det` of a fixed-size and of
/// a dynamic matrix.
#[differentiate]
fn neo_hookean(f: &Matrix3<f64>, g: &DMatrix<f64>, mu: f64) -> f64 {
    let j = f.determinant();
    let c = f.transpose() * f;
    let tr = c.trace();
    0.5 * mu * (tr - 3.0) - mu * j.ln() + (j - 1.0).powi(2) + g.determinant() * 0.1
}

#[test]
fn determinants_in_both_modes() {
    let f = |p: &[f64]| {
        let fm = Matrix3::from_column_slice(&p[..9]);
        let g = DMatrix::from_column_slice(4, 4, &p[9..25]);
        vec![neo_hookean(&fm, &g, p[25])]
    };
    let jvp = |p: &[f64], t: &[f64]| {
        let (v, d) = neo_hookean_jvp(
            &Matrix3::from_column_slice(&p[..9]),
            &DMatrix::from_column_slice(4, 4, &p[9..25]),
            p[25],
            &Matrix3::from_column_slice(&t[..9]),
            &DMatrix::from_column_slice(4, 4, &t[9..25]),
            t[25],
        );
        (vec![v], vec![d])
    };
    let vjp = |p: &[f64], c: &[f64], g: &mut [f64]| {
        let mut df = Matrix3::from_column_slice(&g[..9]);
        let mut dg = DMatrix::from_column_slice(4, 4, &g[9..25]);
        let mut dmu = g[25];
        let v = neo_hookean_vjp(
            &Matrix3::from_column_slice(&p[..9]),
            &DMatrix::from_column_slice(4, 4, &p[9..25]),
            p[25],
            &mut df,
            &mut dg,
            &mut dmu,
            c[0],
        );
        g[..9].copy_from_slice(df.as_slice());
        g[9..25].copy_from_slice(dg.as_slice());
        g[25] = dmu;
        vec![v]
    };
    // F near the identity (det > 0 for the logarithm): points are 0.2 * [-1.5, 1.5] off it.
    let near = |p: &[f64]| -> Vec<f64> {
        let mut q: Vec<f64> = p.iter().map(|x| 0.2 * x).collect();
        for k in [0, 4, 8] {
            q[k] += 1.0;
        }
        q[25] = 1.0 + 0.2 * p[25];
        q
    };
    let f2 = |p: &[f64]| f(&near(p));
    let jvp2 = |p: &[f64], t: &[f64]| {
        let t2: Vec<f64> = t.iter().map(|x| 0.2 * x).collect();
        jvp(&near(p), &t2)
    };
    let vjp2 = |p: &[f64], c: &[f64], g: &mut [f64]| {
        let mut h = vec![0.0; 26];
        let v = vjp(&near(p), c, &mut h);
        for (gk, hk) in g.iter_mut().zip(&h) {
            *gk += 0.2 * hk;
        }
        v
    };
    check_all(26, &f2, &jvp2, &vjp2, 6, false);
    // The value is nalgebra's.
    let fm = Matrix3::<f64>::new(1.1, 0.1, 0.0, 0.2, 0.9, 0.1, 0.0, 0.3, 1.2);
    let g = DMatrix::from_fn(4, 4, |i, j| ((i * 4 + j) as f64 * 0.37).sin());
    let c = fm.transpose() * fm;
    let want = 0.5 * 1.3 * (c.trace() - 3.0) - 1.3 * fm.determinant().ln()
        + (fm.determinant() - 1.0).powi(2)
        + g.determinant() * 0.1;
    assert!((neo_hookean(&fm, &g, 1.3) - want).abs() < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Shapes are checked as nalgebra checks them (the rules on storage alone would only compare
// lengths, and a 2 x 3 plus a 3 x 2 has equal lengths)

#[differentiate]
fn mismatched(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a + b).sum()
}

#[test]
#[should_panic(expected = "different shapes: 2 x 3 and 3 x 2")]
fn shape_mismatch_panics_in_the_gradient_too() {
    // The function itself: nalgebra's message differs, the check is the same.
    let ok = std::panic::catch_unwind(|| mismatched(&DMatrix::zeros(2, 3), &DMatrix::zeros(3, 2)));
    assert!(ok.is_err());
    let _ = mismatched_grad(&DMatrix::zeros(2, 3), &DMatrix::zeros(3, 2));
}

#[test]
#[should_panic(expected = "different shapes: 2 x 3 and 3 x 2")]
fn shape_mismatch_panics_in_forward_mode_too() {
    let (a, b) = (DMatrix::zeros(2, 3), DMatrix::zeros(3, 2));
    let _ = mismatched_jvp(&a, &b, &a, &b);
}

// ---------------------------------------------------------------------------------------------
// Fixed-size values are `Copy`: a copy written to leaves the original as it was

#[differentiate]
#[allow(unused_assignments)]
fn copies(x: &Vector3<f64>) -> f64 {
    let v = x.map(|t| t.sin());
    let mut w = v;
    w[0] = 5.0 * w[1];
    let mut u = Vector3::zeros();
    u = v;
    u[2] += x[0];
    v.sum() + w.sum() * 2.0 + u.dot(&v)
}

#[test]
fn copies_of_fixed_size_values_are_independent() {
    let f = |v: &[f64]| vec![copies(&Vector3::from_column_slice(v))];
    let jvp = |v: &[f64], t: &[f64]| {
        let (a, b) = copies_jvp(
            &Vector3::from_column_slice(v),
            &Vector3::from_column_slice(t),
        );
        (vec![a], vec![b])
    };
    let vjp = |v: &[f64], c: &[f64], g: &mut [f64]| {
        let mut dx = Vector3::from_column_slice(g);
        let a = copies_vjp(&Vector3::from_column_slice(v), &mut dx, c[0]);
        g.copy_from_slice(dx.as_slice());
        vec![a]
    };
    check_all(3, &f, &jvp, &vjp, 6, false);
}
