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
