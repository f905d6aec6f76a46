//! Kernel layers inside differentiated code (issue 11, part 2): calls of `nn::linear`,
//! `nn::matmul`, activations and losses are differentiated through their own matrix-level rules.
//! Both modes against central differences and by the dot-product test, f64 and f32.

mod common;
use autodiff_runtime::{differentiate, nn};
use common::*;

/// A two-layer network's mean squared error on one sample (3 -> 4 -> 2), `tanh` hidden layer.
#[differentiate(wrt(w1, b1, w2, b2, x))]
fn mlp_mse(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], x: &[f64], target: &[f64]) -> f64 {
    let mut h = vec![0.0; 4];
    nn::linear(w1, x, b1, &mut h, 4, 3);
    let mut a = vec![0.0; 4];
    nn::tanh(&h, &mut a);
    let mut y = vec![0.0; 2];
    nn::linear(w2, &a, b2, &mut y, 2, 4);
    let mut s = vec![0.0; 2];
    nn::sigmoid(&y, &mut s);
    nn::mse(&s, target) + 0.01 * nn_l2(w1)
}

/// A plain differentiated helper next to the kernel calls.
#[differentiate]
fn nn_l2(w: &[f64]) -> f64 {
    w.iter().map(|v| v * v).sum()
}

/// A batch of 5 samples through `matmul` (5 x 3 times 3 x 4), `silu` and `softplus`, then a
/// cross-entropy over 4 classes.
#[differentiate(wrt(x, w, bias))]
fn batch_ce(x: &[f64], w: &[f64], bias: f64, labels: &[usize]) -> f64 {
    let mut z = vec![0.0; 20];
    nn::matmul(x, w, &mut z, 5, 3, 4);
    for v in z.iter_mut() {
        *v += bias;
    }
    let mut a = vec![0.0; 20];
    nn::silu(&z, &mut a);
    let mut b = vec![0.0; 20];
    nn::softplus(&a, &mut b);
    nn::cross_entropy(&b, labels, 5, 4)
}

fn params(n: usize, seed: f64) -> Vec<f64> {
    (0..n)
        .map(|i| ((i as f64 + 1.0) * seed).sin() * 0.7)
        .collect()
}

#[test]
fn two_layer_network_through_kernel_layers() {
    let target = [0.3, 0.8];
    // Parameters: w1 (12), b1 (4), w2 (8), b2 (2), x (3).
    let split = |p: &[f64]| {
        (
            p[..12].to_vec(),
            p[12..16].to_vec(),
            p[16..24].to_vec(),
            p[24..26].to_vec(),
            p[26..29].to_vec(),
        )
    };
    Harness::new(29)
        .primal(move |p| {
            let (w1, b1, w2, b2, x) = split(p);
            vec![mlp_mse(&w1, &b1, &w2, &b2, &x, &target)]
        })
        .jvp(move |p, d| {
            let (w1, b1, w2, b2, x) = split(p);
            let (dw1, db1, dw2, db2, dx) = split(d);
            let (v, t) = mlp_mse_jvp(&w1, &b1, &w2, &b2, &x, &target, &dw1, &db1, &dw2, &db2, &dx);
            (vec![v], vec![t])
        })
        .vjp(move |p, c, g| {
            let (w1, b1, w2, b2, x) = split(p);
            let parts = split_mut(g, &[12, 4, 8, 2, 3]);
            let [gw1, gb1, gw2, gb2, gx] = <[&mut [f64]; 5]>::try_from(parts).unwrap();
            vec![mlp_mse_vjp(
                &w1, &b1, &w2, &b2, &x, &target, gw1, gb1, gw2, gb2, gx, c[0],
            )]
        })
        .at(&[&params(29, 0.37), &params(29, 1.3)]);
}

#[test]
fn batch_cross_entropy_through_matmul() {
    let labels = [0usize, 3, 1, 1, 2];
    Harness::new(28)
        .primal(move |p| vec![batch_ce(&p[..15], &p[15..27], p[27], &labels)])
        .jvp(move |p, d| {
            let (v, t) = batch_ce_jvp(
                &p[..15],
                &p[15..27],
                p[27],
                &labels,
                &d[..15],
                &d[15..27],
                d[27],
            );
            (vec![v], vec![t])
        })
        .vjp(move |p, c, g| {
            let (gx, rest) = g.split_at_mut(15);
            let (gw, gb) = rest.split_at_mut(12);
            vec![batch_ce_vjp(
                &p[..15],
                &p[15..27],
                p[27],
                &labels,
                gx,
                gw,
                &mut gb[0],
                c[0],
            )]
        })
        .at(&[&params(28, 0.53), &params(28, 2.1)]);
}

/// The same layers in f32.
#[differentiate(wrt(w, x))]
fn layer32(w: &[f32], x: &[f32], b: &[f32]) -> f32 {
    let mut y = vec![0.0f32; 2];
    nn::linear(w, x, b, &mut y, 2, 3);
    let mut a = vec![0.0f32; 2];
    nn::gelu_tanh(&y, &mut a);
    nn::mse(&a, b)
}

#[test]
fn kernel_layers_in_f32() {
    let b = [0.1f32, -0.2];
    Harness::new(9)
        .f32()
        .primal(move |p| vec![layer32(&to32(&p[..6]), &to32(&p[6..]), &b) as f64])
        .jvp(move |p, d| {
            let (v, t) = layer32_jvp(
                &to32(&p[..6]),
                &to32(&p[6..]),
                &b,
                &to32(&d[..6]),
                &to32(&d[6..]),
            );
            (vec![v as f64], vec![t as f64])
        })
        .vjp(move |p, c, g| {
            let (mut gw, mut gx) = (vec![0.0f32; 6], vec![0.0f32; 3]);
            let v = layer32_vjp(
                &to32(&p[..6]),
                &to32(&p[6..]),
                &b,
                &mut gw,
                &mut gx,
                c[0] as f32,
            );
            for k in 0..6 {
                g[k] += gw[k] as f64;
            }
            for k in 0..3 {
                g[6 + k] += gx[k] as f64;
            }
            vec![v as f64]
        })
        .at(&[&[0.3, -0.5, 0.8, 0.1, 0.4, -0.6, 0.9, -0.2, 0.5]]);
}

// ---------------------------------------------------------------------------------------------
// Softmax family and the batched dense layer
// ---------------------------------------------------------------------------------------------

use autodiff_runtime::kernels::Real;

fn cast<T: Real>(x: &[f64]) -> Vec<T> {
    x.iter().map(|&v| T::from(v).unwrap()).collect()
}

fn uncast<T: Real>(x: &[T]) -> Vec<f64> {
    x.iter().map(|v| v.to_f64().unwrap()).collect()
}

fn harness<'a, T: Real>(n: usize) -> Harness<'a> {
    if std::mem::size_of::<T>() == 4 {
        Harness::new(n).f32()
    } else {
        Harness::new(n)
    }
}

type RowFn<T> = fn(&[T], &mut [T], usize, usize);
type RowJvp<T> = fn(&[T], &mut [T], usize, usize, &[T], &mut [T]);
type RowVjp<T> = fn(&[T], &mut [T], usize, usize, &mut [T], &mut [T]);

/// One row-wise layer (`out_len` outputs for a `rows x cols` input) in both modes: its `_jvp`
/// against central differences, its `_vjp` by the dot-product test; the `_vjp` zeroes the output
/// adjoint, and `_vjp_dropped` adds the same adjoints.
fn check_row_layer<T: Real>(
    layers: (RowFn<T>, RowJvp<T>, RowVjp<T>, RowVjp<T>),
    rows: usize,
    cols: usize,
    out_len: usize,
    points: &[&[f64]],
) {
    let (f, jvp, vjp, dropped) = layers;
    harness::<T>(rows * cols)
        .primal(move |p| {
            let mut y = vec![T::zero(); out_len];
            f(&cast(p), &mut y, rows, cols);
            uncast(&y)
        })
        .jvp(move |p, d| {
            let (mut y, mut dy) = (vec![T::zero(); out_len], vec![T::one(); out_len]);
            jvp(&cast(p), &mut y, rows, cols, &cast(d), &mut dy);
            (uncast(&y), uncast(&dy))
        })
        .vjp(move |p, c, g| {
            let x: Vec<T> = cast(p);
            let (mut y, mut dy) = (vec![T::zero(); out_len], cast::<T>(c));
            let mut dx = vec![T::zero(); p.len()];
            vjp(&x, &mut y, rows, cols, &mut dx, &mut dy);
            assert!(dy.iter().all(|v| *v == T::zero()), "dy not consumed");
            let (mut y2, mut dy2) = (vec![T::zero(); out_len], cast::<T>(c));
            let mut dx2 = vec![T::zero(); p.len()];
            dropped(&x, &mut y2, rows, cols, &mut dx2, &mut dy2);
            assert_eq!(dx2, dx, "_vjp_dropped adds other adjoints than _vjp");
            for (gk, v) in g.iter_mut().zip(uncast(&dx)) {
                *gk += v;
            }
            uncast(&y)
        })
        .at(points);
}

fn row_layers<T: Real>() {
    let (rows, cols) = (3, 5);
    let a = params(15, 0.41);
    let b: Vec<f64> = params(15, 1.7).iter().map(|v| 4.0 * v).collect();
    // Shifted far from 0: exp would overflow f32 without the row maximum subtracted.
    let far: Vec<f64> = params(15, 0.9).iter().map(|v| v + 100.0).collect();
    let pts: [&[f64]; 3] = [&a, &b, &far];
    check_row_layer::<T>(
        (
            nn::softmax,
            nn::softmax_jvp,
            nn::softmax_vjp,
            nn::softmax_vjp_dropped,
        ),
        rows,
        cols,
        rows * cols,
        &pts,
    );
    check_row_layer::<T>(
        (
            nn::log_softmax,
            nn::log_softmax_jvp,
            nn::log_softmax_vjp,
            nn::log_softmax_vjp_dropped,
        ),
        rows,
        cols,
        rows * cols,
        &pts,
    );
    check_row_layer::<T>(
        (
            nn::logsumexp,
            nn::logsumexp_jvp,
            nn::logsumexp_vjp,
            nn::logsumexp_vjp_dropped,
        ),
        rows,
        cols,
        rows,
        &pts,
    );
}

#[test]
fn softmax_layers_f64() {
    row_layers::<f64>();
}

#[test]
fn softmax_layers_f32() {
    row_layers::<f32>();
}

#[test]
fn softmax_layer_values() {
    // Two rows; the second shifted by 1000 gives the same probabilities.
    let x = [1.0, 2.0, 3.0, 1001.0, 1002.0, 1003.0];
    let mut y = [0.0; 6];
    nn::softmax(&x, &mut y, 2, 3);
    let e: [f64; 3] = [1.0f64.exp(), 2.0f64.exp(), 3.0f64.exp()];
    let s = e[0] + e[1] + e[2];
    for j in 0..3 {
        assert!((y[j] - e[j] / s).abs() < 1e-15, "{y:?}");
        assert!((y[3 + j] - e[j] / s).abs() < 1e-15, "{y:?}");
    }
    let mut l = [0.0; 2];
    nn::logsumexp(&x, &mut l, 2, 3);
    assert!((l[0] - s.ln()).abs() < 1e-14 && (l[1] - 1000.0 - s.ln()).abs() < 1e-12);
    let mut ls = [0.0; 6];
    nn::log_softmax(&x, &mut ls, 2, 3);
    for j in 0..6 {
        assert!((ls[j] - (x[j] - l[j / 3])).abs() < 1e-12, "{ls:?}");
    }
}

#[test]
#[should_panic(expected = "nn::softmax: y has 5 elements, expected 2 x 3")]
fn softmax_layer_checks_lengths() {
    nn::softmax(&[0.0; 6], &mut [0.0; 5], 2, 3);
}

/// [`nn::dense`] alone in both modes (inputs: x (2 x 3), w (3 x 4), b (4)).
fn dense_layer<T: Real>() {
    let (rows, n_in, n_out) = (2, 3, 4);
    let split = |p: &[f64]| -> (Vec<T>, Vec<T>, Vec<T>) {
        (cast(&p[..6]), cast(&p[6..18]), cast(&p[18..]))
    };
    harness::<T>(22)
        .primal(move |p| {
            let (x, w, b) = split(p);
            let mut y = vec![T::zero(); 8];
            nn::dense(&x, &w, &b, &mut y, rows, n_in, n_out);
            uncast(&y)
        })
        .jvp(move |p, d| {
            let ((x, w, b), (dx, dw, db)) = (split(p), split(d));
            let (mut y, mut dy) = (vec![T::zero(); 8], vec![T::one(); 8]);
            nn::dense_jvp(
                &x, &w, &b, &mut y, rows, n_in, n_out, &dx, &dw, &db, &mut dy,
            );
            (uncast(&y), uncast(&dy))
        })
        .vjp(move |p, c, g| {
            let (x, w, b) = split(p);
            let (mut y, mut dy) = (vec![T::zero(); 8], cast::<T>(c));
            let mut d: Vec<T> = vec![T::zero(); 22];
            let (dx, rest) = d.split_at_mut(6);
            let (dw, db) = rest.split_at_mut(12);
            nn::dense_vjp(&x, &w, &b, &mut y, rows, n_in, n_out, dx, dw, db, &mut dy);
            assert!(dy.iter().all(|v| *v == T::zero()), "dy not consumed");
            let mut dy2 = cast::<T>(c);
            let mut d2: Vec<T> = vec![T::zero(); 22];
            let (dx2, rest2) = d2.split_at_mut(6);
            let (dw2, db2) = rest2.split_at_mut(12);
            nn::dense_vjp_dropped(
                &x, &w, &b, &mut y, rows, n_in, n_out, dx2, dw2, db2, &mut dy2,
            );
            assert_eq!(d2, d, "_vjp_dropped adds other adjoints than _vjp");
            for (gk, v) in g.iter_mut().zip(uncast(&d)) {
                *gk += v;
            }
            uncast(&y)
        })
        .at(&[&params(22, 0.61), &params(22, 1.9)]);
}

#[test]
fn dense_layer_f64() {
    dense_layer::<f64>();
}

#[test]
fn dense_layer_f32() {
    dense_layer::<f32>();
}

/// Softmax, log-softmax and log-sum-exp of the same logits `z = x w` (3 x 2 times 2 x 4) inside
/// one differentiated function: the entropy of each row plus a penalty on its log-sum-exp.
#[allow(clippy::needless_range_loop)] // index loops: what the macro reads
#[differentiate(wrt(x, w))]
fn row_entropy(x: &[f64], w: &[f64]) -> f64 {
    let mut z = vec![0.0; 12];
    nn::matmul(x, w, &mut z, 3, 2, 4);
    let mut p = vec![0.0; 12];
    nn::softmax(&z, &mut p, 3, 4);
    let mut lp = vec![0.0; 12];
    nn::log_softmax(&z, &mut lp, 3, 4);
    let mut l = vec![0.0; 3];
    nn::logsumexp(&z, &mut l, 3, 4);
    let mut s = 0.0;
    for i in 0..12 {
        s -= p[i] * lp[i];
    }
    for r in 0..3 {
        s += 0.1 * l[r] * l[r];
    }
    s
}

/// The same in f32.
#[allow(clippy::needless_range_loop)] // index loops: what the macro reads
#[differentiate(wrt(x, w))]
fn row_entropy32(x: &[f32], w: &[f32]) -> f32 {
    let mut z = vec![0.0f32; 12];
    nn::matmul(x, w, &mut z, 3, 2, 4);
    let mut p = vec![0.0f32; 12];
    nn::softmax(&z, &mut p, 3, 4);
    let mut lp = vec![0.0f32; 12];
    nn::log_softmax(&z, &mut lp, 3, 4);
    let mut l = vec![0.0f32; 3];
    nn::logsumexp(&z, &mut l, 3, 4);
    let mut s = 0.0f32;
    for i in 0..12 {
        s -= p[i] * lp[i];
    }
    for r in 0..3 {
        s += 0.1 * l[r] * l[r];
    }
    s
}

#[test]
fn softmax_layers_in_differentiated_code_f64() {
    Harness::new(14)
        .primal(|p| vec![row_entropy(&p[..6], &p[6..])])
        .jvp(|p, d| {
            let (v, t) = row_entropy_jvp(&p[..6], &p[6..], &d[..6], &d[6..]);
            (vec![v], vec![t])
        })
        .vjp(|p, c, g| {
            let (gx, gw) = g.split_at_mut(6);
            vec![row_entropy_vjp(&p[..6], &p[6..], gx, gw, c[0])]
        })
        .at(&[&params(14, 0.37), &params(14, 2.3)]);
}

#[test]
fn softmax_layers_in_differentiated_code_f32() {
    Harness::new(14)
        .f32()
        .primal(|p| vec![row_entropy32(&to32(&p[..6]), &to32(&p[6..])) as f64])
        .jvp(|p, d| {
            let (v, t) = row_entropy32_jvp(
                &to32(&p[..6]),
                &to32(&p[6..]),
                &to32(&d[..6]),
                &to32(&d[6..]),
            );
            (vec![v as f64], vec![t as f64])
        })
        .vjp(|p, c, g| {
            let (mut gx, mut gw) = (vec![0.0f32; 6], vec![0.0f32; 8]);
            let v = row_entropy32_vjp(
                &to32(&p[..6]),
                &to32(&p[6..]),
                &mut gx,
                &mut gw,
                c[0] as f32,
            );
            for (gk, v) in g.iter_mut().zip(gx.iter().chain(&gw)) {
                *gk += *v as f64;
            }
            vec![v as f64]
        })
        .at(&[&params(14, 0.37), &params(14, 2.3)]);
}

/// The benchmark's network (benches/mlp.rs) at a small size: batch 3, 4 -> 5 -> 3, relu, softmax
/// cross-entropy with integer labels, through `nn::dense`.
#[differentiate(wrt(w1, b1, w2, b2))]
fn small_mlp(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], x: &[f64], labels: &[usize]) -> f64 {
    let mut z = vec![0.0; 15];
    nn::dense(x, w1, b1, &mut z, 3, 4, 5);
    let mut a = vec![0.0; 15];
    nn::relu(&z, &mut a);
    let mut logits = vec![0.0; 9];
    nn::dense(&a, w2, b2, &mut logits, 3, 5, 3);
    nn::cross_entropy(&logits, labels, 3, 3)
}

/// The same in f32 with a smooth activation (f32 finite differences take steps of 1e-2, too
/// coarse next to relu's kink).
#[differentiate(wrt(w1, b1, w2, b2))]
fn small_mlp32(w1: &[f32], b1: &[f32], w2: &[f32], b2: &[f32], x: &[f32], labels: &[usize]) -> f32 {
    let mut z = vec![0.0f32; 15];
    nn::dense(x, w1, b1, &mut z, 3, 4, 5);
    let mut a = vec![0.0f32; 15];
    nn::silu(&z, &mut a);
    let mut logits = vec![0.0f32; 9];
    nn::dense(&a, w2, b2, &mut logits, 3, 5, 3);
    nn::cross_entropy(&logits, labels, 3, 3)
}

/// `small_mlp` with its first layer on `nn::Data`: the same values and gradients, without the
/// adjoint of `x` (which `small_mlp` computes and drops).
#[differentiate(wrt(w1, b1, w2, b2))]
fn small_mlp_data(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    x: &[f64],
    labels: &[usize],
) -> f64 {
    let mut z = vec![0.0; 15];
    nn::dense_data(nn::Data(x), w1, b1, &mut z, 3, 4, 5);
    let mut a = vec![0.0; 15];
    nn::relu(&z, &mut a);
    let mut logits = vec![0.0; 9];
    nn::dense(&a, w2, b2, &mut logits, 3, 5, 3);
    nn::cross_entropy(&logits, labels, 3, 3)
}

#[test]
fn dense_data_layer_in_differentiated_code() {
    let x = params(12, 0.77);
    let labels = [2usize, 0, 1];
    let lens = [20, 5, 15, 3];
    let parts = |p: &[f64]| {
        (
            p[..20].to_vec(),
            p[20..25].to_vec(),
            p[25..40].to_vec(),
            p[40..].to_vec(),
        )
    };
    Harness::new(43)
        .primal(|p| {
            let (w1, b1, w2, b2) = parts(p);
            vec![small_mlp_data(&w1, &b1, &w2, &b2, &x, &labels)]
        })
        .jvp(|p, d| {
            let ((w1, b1, w2, b2), (dw1, db1, dw2, db2)) = (parts(p), parts(d));
            let (v, t) =
                small_mlp_data_jvp(&w1, &b1, &w2, &b2, &x, &labels, &dw1, &db1, &dw2, &db2);
            (vec![v], vec![t])
        })
        .vjp(|p, c, g| {
            let (w1, b1, w2, b2) = parts(p);
            let [g1, g2, g3, g4] = <[&mut [f64]; 4]>::try_from(split_mut(g, &lens)).unwrap();
            vec![small_mlp_data_vjp(
                &w1, &b1, &w2, &b2, &x, &labels, g1, g2, g3, g4, c[0],
            )]
        })
        .at(&[&params(43, 0.29), &params(43, 1.1)]);
    // Equal to the `nn::dense` version, value and gradient.
    let p = params(43, 0.41);
    let (w1, b1, w2, b2) = parts(&p);
    let (v1, g1) = small_mlp_grad(&w1, &b1, &w2, &b2, &x, &labels);
    let (v2, g2) = small_mlp_data_grad(&w1, &b1, &w2, &b2, &x, &labels);
    assert_eq!(v1, v2);
    assert_eq!((g1.w1, g1.b1, g1.w2, g1.b2), (g2.w1, g2.b1, g2.w2, g2.b2));
}

#[test]
fn dense_network_in_differentiated_code() {
    let x = params(12, 0.77);
    let labels = [2usize, 0, 1];
    // w1 (20), b1 (5), w2 (15), b2 (3).
    let lens = [20, 5, 15, 3];
    let parts = |p: &[f64]| {
        (
            p[..20].to_vec(),
            p[20..25].to_vec(),
            p[25..40].to_vec(),
            p[40..].to_vec(),
        )
    };
    let x64 = x.clone();
    Harness::new(43)
        .primal(|p| {
            let (w1, b1, w2, b2) = parts(p);
            vec![small_mlp(&w1, &b1, &w2, &b2, &x64, &labels)]
        })
        .jvp(|p, d| {
            let ((w1, b1, w2, b2), (dw1, db1, dw2, db2)) = (parts(p), parts(d));
            let (v, t) = small_mlp_jvp(&w1, &b1, &w2, &b2, &x64, &labels, &dw1, &db1, &dw2, &db2);
            (vec![v], vec![t])
        })
        .vjp(|p, c, g| {
            let (w1, b1, w2, b2) = parts(p);
            let [g1, g2, g3, g4] = <[&mut [f64]; 4]>::try_from(split_mut(g, &lens)).unwrap();
            vec![small_mlp_vjp(
                &w1, &b1, &w2, &b2, &x64, &labels, g1, g2, g3, g4, c[0],
            )]
        })
        .at(&[&params(43, 0.29), &params(43, 1.1)]);
    let x32 = to32(&x);
    let parts32 = |p: &[f64]| {
        let (a, b, c, d) = parts(p);
        (to32(&a), to32(&b), to32(&c), to32(&d))
    };
    Harness::new(43)
        .f32()
        .primal(|p| {
            let (w1, b1, w2, b2) = parts32(p);
            vec![small_mlp32(&w1, &b1, &w2, &b2, &x32, &labels) as f64]
        })
        .jvp(|p, d| {
            let ((w1, b1, w2, b2), (dw1, db1, dw2, db2)) = (parts32(p), parts32(d));
            let (v, t) = small_mlp32_jvp(&w1, &b1, &w2, &b2, &x32, &labels, &dw1, &db1, &dw2, &db2);
            (vec![v as f64], vec![t as f64])
        })
        .vjp(|p, c, g| {
            let (w1, b1, w2, b2) = parts32(p);
            let mut d = vec![0.0f32; 43];
            let (g1, rest) = d.split_at_mut(20);
            let (g2, rest) = rest.split_at_mut(5);
            let (g3, g4) = rest.split_at_mut(15);
            let v = small_mlp32_vjp(
                &w1,
                &b1,
                &w2,
                &b2,
                &x32,
                &labels,
                g1,
                g2,
                g3,
                g4,
                c[0] as f32,
            );
            for (gk, v) in g.iter_mut().zip(&d) {
                *gk += *v as f64;
            }
            vec![v as f64]
        })
        .at(&[&params(43, 0.29), &params(43, 1.1)]);
}
