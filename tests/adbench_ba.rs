//! ADBench bundle adjustment: takes the shipped instances (`tests/data/adbench/data/ba`), gives
//! checks that the residuals and the sparse Jacobian, assembled from generated and from
//! hand-written blocks, match the outputs of ADBench's Manual module (the whole CSR file for
//! `test`, the one-observation block tiled for `ba1` and `ba2`) with the harness's rule
//! (ρ ≤ 1e-8), and that the generated block agrees with central differences, with forward mode
//! (dot-product test) and with `_jacobian`.

#[path = "../benches/adbench_problems/mod.rs"]
mod adbench;
mod common;

use adbench::ba::*;
use adbench::io::{read_ba, read_ba_expected_f, read_csr, BaInput, Csr};
use adbench::{adbench_compare, data_root, ADBENCH_TOLERANCE};
use common::Harness;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The ba1..ba20 instances shipped (all hold the same camera, point, weight and feature).
const REPLICATED: &[&str] = &["ba1_n49_m7776_p31843", "ba2_n21_m11315_p36455"];

fn load(name: &str) -> BaInput {
    read_ba(&data_root().join(format!("data/ba/{name}.txt")))
}

fn expected(name: &str) -> std::path::PathBuf {
    data_root().join("expected/manual/ba").join(name)
}

fn residuals(b: &BaInput) -> (Vec<f64>, Vec<f64>) {
    let mut reproj = vec![0.0; 2 * b.p()];
    let mut werr = vec![0.0; b.p()];
    objective(b, &mut reproj, &mut werr);
    (reproj, werr)
}

/// Compares two CSR matrices as ADBench compares `_J_` files: the structure exactly (it is made of
/// integers), the values with ρ ≤ 1e-8.
fn assert_csr(what: &str, got: &Csr, want: &Csr) {
    assert_eq!(
        (got.nrows, got.ncols),
        (want.nrows, want.ncols),
        "{what}: shape"
    );
    assert_eq!(got.rows, want.rows, "{what}: row pointers");
    assert_eq!(got.cols, want.cols, "{what}: column indices");
    let worst = adbench_compare(&got.vals, &want.vals, ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("{what}: values {e}"));
    eprintln!("{what}: largest difference {worst:.1e}");
}

#[test]
fn reader_expands_the_replicated_instance() {
    let b = load("ba1_n49_m7776_p31843");
    assert_eq!((b.n(), b.m(), b.p()), (49, 7776, 31843));
    assert_eq!(b.cams[48][6], 419.194514);
    assert_eq!(b.points[7775], [7.203245, 0.001144, 3.023326]);
    assert_eq!(
        (b.weights[31842], b.feats[5]),
        (0.417022, [271.760969, 834.209256])
    );
    assert_eq!(b.obs[100], (100 % 49, 100));
    assert_eq!(b.obs[31842], (31842 % 49, 31842 % 7776));
}

#[test]
fn test_instance_matches_manual() {
    let b = load("test");
    let (reproj, werr) = residuals(&b);
    let (want_reproj, want_werr) = read_ba_expected_f(&expected("test_F_Manual.txt"), b.p());
    adbench_compare(&reproj, &want_reproj, ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("reprojection errors {e}"));
    adbench_compare(&werr, &want_werr, ADBENCH_TOLERANCE)
        .unwrap_or_else(|e| panic!("weight errors {e}"));
    let want = read_csr(&expected("test_J_Manual.txt"));
    assert_eq!((want.nrows, want.ncols, want.vals.len()), (30, 62, 310));
    assert_csr("test, generated", &generated_jacobian(&b), &want);
    assert_csr("test, hand-written", &hand_jacobian(&b), &want);
}

/// The one-observation instance of the replicated files: their camera, point, weight, feature.
fn single(b: &BaInput) -> BaInput {
    BaInput {
        cams: vec![b.cams[0]],
        points: vec![b.points[0]],
        weights: vec![b.weights[0]],
        feats: vec![b.feats[0]],
        obs: vec![(0, 0)],
    }
}

#[test]
fn replicated_instances_match_the_manual_block() {
    let stem = "ba1_n49_m7776_p31843_obs1";
    let (block_reproj, block_werr) =
        read_ba_expected_f(&expected(&format!("{stem}_F_Manual.txt")), 1);
    let block = read_csr(&expected(&format!("{stem}_J_Manual.txt")));
    for name in REPLICATED {
        let b = load(name);
        // The block itself, structure included.
        let one = single(&b);
        assert_csr(
            &format!("{name}, one observation, generated"),
            &generated_jacobian(&one),
            &block,
        );
        assert_csr(
            &format!("{name}, one observation, hand-written"),
            &hand_jacobian(&one),
            &block,
        );
        // Every observation: the block's values tiled over the instance's pattern.
        let (reproj, werr) = residuals(&b);
        let want_reproj: Vec<f64> = block_reproj
            .iter()
            .copied()
            .cycle()
            .take(2 * b.p())
            .collect();
        adbench_compare(&reproj, &want_reproj, ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: reprojection errors {e}"));
        adbench_compare(&werr, &vec![block_werr[0]; b.p()], ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: weight errors {e}"));
        let mut want = jacobian_pattern(&b);
        let (rows, weights) = want.vals.split_at_mut(2 * b.p() * BLOCK);
        for (dst, src) in rows.iter_mut().zip(block.vals[..2 * BLOCK].iter().cycle()) {
            *dst = *src;
        }
        weights.fill(block.vals[2 * BLOCK]);
        assert_eq!(want.vals.len(), 31 * b.p());
        assert_csr(
            &format!("{name}, generated"),
            &generated_jacobian(&b),
            &want,
        );
        assert_csr(&format!("{name}, hand-written"), &hand_jacobian(&b), &want);
    }
}

/// Inputs of one observation flattened: camera (11), point (3), weight.
fn flatten(cam: &[f64; 11], x: &[f64; 3], w: f64) -> Vec<f64> {
    let mut p = cam.to_vec();
    p.extend_from_slice(x);
    p.push(w);
    p
}

fn unflatten(p: &[f64]) -> ([f64; 11], [f64; 3], f64) {
    let cam: [f64; 11] = p[..11].try_into().expect("11 camera parameters");
    let x: [f64; 3] = p[11..14].try_into().expect("3 point coordinates");
    (cam, x, p[14])
}

/// The harness on `ba_reprojection` with the feature fixed: 15 inputs, 2 outputs.
fn harness(feat: [f64; 2]) -> Harness<'static> {
    Harness::new(BLOCK)
        .primal(move |p| {
            let (cam, x, w) = unflatten(p);
            ba_reprojection(&cam, &x, w, &feat).to_vec()
        })
        .jvp(move |p, t| {
            let (cam, x, w) = unflatten(p);
            let (dcam, dx, dw) = unflatten(t);
            let (v, dv) = ba_reprojection_jvp(&cam, &x, w, &feat, &dcam, &dx, dw);
            (v.to_vec(), dv.to_vec())
        })
        .vjp(move |p, seed, buf| {
            let (cam, x, w) = unflatten(p);
            let (mut dcam, mut dx, mut dw) = unflatten(buf);
            let v = ba_reprojection_vjp(
                &cam,
                &x,
                w,
                &feat,
                &mut dcam,
                &mut dx,
                &mut dw,
                [seed[0], seed[1]],
            );
            buf.copy_from_slice(&flatten(&dcam, &dx, dw));
            v.to_vec()
        })
}

#[test]
fn generated_block_against_finite_differences() {
    for name in ["test", REPLICATED[0]] {
        let b = load(name);
        let (c, q) = b.obs[0];
        let p = flatten(&b.cams[c], &b.points[q], b.weights[0]);
        // Finite differences of residuals of size ~1e2 to 1e3 with a 1e-6 step: relative 1e-6.
        harness(b.feats[0]).tolerance(1e-6, 1e-6).at(&[&p]);
    }
    // A zero rotation: the first-order branch, whose derivative is Rodrigues' at r = 0.
    let b = load("test");
    let mut cam = b.cams[0];
    cam[..3].fill(0.0);
    let p = flatten(&cam, &b.points[0], b.weights[0]);
    harness(b.feats[0]).tolerance(1e-6, 1e-6).at(&[&p]);
}

/// One observation's inputs: camera, point, weight, feature.
type Observation = ([f64; 11], [f64; 3], f64, [f64; 2]);

/// Random observations near the shipped ones, including a zero rotation.
fn random_observations() -> Vec<Observation> {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let b = load("test");
    let mut out = Vec::new();
    for i in 0..20 {
        let mut cam = b.cams[0];
        for v in cam.iter_mut() {
            *v *= rng.gen_range(0.5..1.5);
        }
        if i == 0 {
            cam[..3].fill(0.0);
        }
        let x = b.points[i % b.m()].map(|v| v * rng.gen_range(0.5..1.5));
        out.push((cam, x, rng.gen_range(0.1..2.0), b.feats[0]));
    }
    out
}

#[test]
fn hand_block_agrees_with_generated_block() {
    for (cam, x, w, feat) in random_observations() {
        let (g, gw) = generated_block(&cam, &x, w, &feat);
        let (h, hw) = hand_block(&cam, &x, w, &feat);
        assert_eq!(gw, hw);
        for a in 0..2 {
            adbench_compare(&h[a], &g[a], 1e-12).unwrap_or_else(|e| {
                panic!("row {a} at cam {cam:?}, x {x:?}, w {w}: hand-written against generated {e}")
            });
        }
    }
}

#[test]
fn jacobian_api_gives_the_vjp_block() {
    for (cam, x, w, feat) in random_observations() {
        let (value, j) = ba_reprojection_jacobian(&cam, &x, w, &feat);
        assert_eq!(value, ba_reprojection(&cam, &x, w, &feat));
        assert_eq!((j.rows(), j.cols()), (2, BLOCK));
        let (rows, _) = generated_block(&cam, &x, w, &feat);
        for (a, row) in rows.iter().enumerate() {
            assert_eq!(j.row(a), &row[..]);
        }
    }
}
