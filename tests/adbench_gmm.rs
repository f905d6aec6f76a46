//! ADBench GMM: takes the shipped instances (`tests/data/adbench/data/gmm`), gives checks that the
//! objective, the generated gradient and the hand-written gradient match the outputs of
//! ADBench's Manual module with the harness's rule (ρ ≤ 1e-8), and that the generated derivatives
//! agree with central differences and with each other (forward against reverse).

#[path = "../benches/adbench_problems/mod.rs"]
mod adbench;
mod common;

use adbench::gmm::*;
use adbench::io::{read_gmm, read_numbers, read_scalar, GmmInput};
use adbench::{adbench_compare, data_root, ADBENCH_TOLERANCE};
use common::{split_mut, Harness};

/// Every shipped GMM instance, relative to `data/gmm/` (points given in full).
const INSTANCES: &[&str] = &[
    "test",
    "1k/gmm_d2_K5",
    "1k/gmm_d2_K10",
    "1k/gmm_d10_K5",
    "1k/gmm_d10_K25",
    "10k/gmm_d2_K5",
    "10k/gmm_d2_K200",
    "10k/gmm_d10_K5",
];

fn load(name: &str) -> GmmInput {
    read_gmm(&data_root().join(format!("data/gmm/{name}.txt")), false)
}

fn expected(name: &str) -> (f64, Vec<f64>) {
    let dir = data_root().join("expected/manual/gmm");
    (
        read_scalar(&dir.join(format!("{name}_F_Manual.txt"))),
        read_numbers(&dir.join(format!("{name}_J_Manual.txt"))),
    )
}

#[test]
fn reader_gives_the_sizes_in_the_header() {
    let g = load("test");
    assert_eq!((g.d, g.k, g.n), (2, 3, 1));
    assert_eq!(g.alphas, [-0.649014, 1.181166, -0.758453]);
    assert_eq!(&g.means[..2], &[0.092339, 0.186260]);
    assert_eq!(&g.icf[6..], &[0.166813, -1.965419, -1.270071]);
    assert_eq!(g.x, [1.175171, 2.029160]);
    assert_eq!((g.gamma, g.m), (1.0, 0));
    let g = load("1k/gmm_d10_K5");
    assert_eq!((g.d, g.k, g.n), (10, 5, 1000));
    assert_eq!(g.icf.len(), 5 * 55);
    assert_eq!(g.x.len(), 10_000);
}

#[test]
fn wishart_constant_by_hand() {
    // d = 2, m = 0, γ = 1: ν = 3, C = -6 · ½ log 2 - (½ log π + log Γ(3/2) + log Γ(1)),
    // Γ(3/2) = √π / 2.
    let pi = std::f64::consts::PI;
    let want = -3.0 * 2f64.ln() - (0.5 * pi.ln() + (pi.sqrt() / 2.0).ln());
    assert!((wishart_constant(2, 1.0, 0) - want).abs() < 1e-14);
    // d = 1, m = 1, γ = 2: ν = 3, C = 3 (log 2 - ½ log 2) - log Γ(3/2).
    let want = 3.0 * 0.5 * 2f64.ln() - (pi.sqrt() / 2.0).ln();
    assert!((wishart_constant(1, 2.0, 1) - want).abs() < 1e-14);
}

#[test]
fn objective_matches_manual() {
    for name in INSTANCES {
        let g = load(name);
        let (f, _) = expected(name);
        adbench_compare(&[objective(&g)], &[f], ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: objective {e}"));
    }
}

#[test]
fn generated_gradient_matches_manual() {
    for name in INSTANCES {
        let g = load(name);
        let (f, j) = expected(name);
        let (value, grad) = generated_gradient(&g);
        assert_eq!(
            value,
            objective(&g),
            "{name}: _vjp value differs from the objective"
        );
        adbench_compare(&[value], &[f], ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: objective {e}"));
        let worst = adbench_compare(&grad, &j, ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: generated gradient {e}"));
        eprintln!("{name}: generated gradient, largest difference {worst:.1e}");
    }
}

#[test]
fn hand_gradient_matches_manual() {
    for name in INSTANCES {
        let g = load(name);
        let (_, j) = expected(name);
        let (value, grad) = hand_gradient(&g);
        assert_eq!(value, objective(&g), "{name}: hand-written value differs");
        let worst = adbench_compare(&grad, &j, ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: hand-written gradient {e}"));
        eprintln!("{name}: hand-written gradient, largest difference {worst:.1e}");
    }
}

#[test]
fn grad_api_agrees_with_vjp() {
    let g = load("1k/gmm_d2_K5");
    let (value, grad) = gmm_objective_grad(
        g.d, g.k, g.n, &g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m,
    );
    let (v2, flat) = generated_gradient(&g);
    assert_eq!(value, v2);
    let joined: Vec<f64> = [grad.alphas, grad.means, grad.icf].concat();
    assert_eq!(joined, flat);
}

/// The harness on an instance (its parameters flattened as alphas, means, icf): the `_jvp`
/// against central differences, the `_vjp` against the `_jvp` by the dot-product test.
fn harness_on(g: &GmmInput) -> Harness<'_> {
    let (k, kd) = (g.k, g.k * g.d);
    Harness::new(g.params())
        .primal(move |p| {
            let (a, rest) = p.split_at(k);
            let (mu, icf) = rest.split_at(kd);
            vec![gmm_objective(g.d, g.k, g.n, a, mu, icf, &g.x, g.gamma, g.m)]
        })
        .jvp(move |p, t| {
            let (a, rest) = p.split_at(k);
            let (mu, icf) = rest.split_at(kd);
            let (ta, rest) = t.split_at(k);
            let (tmu, ticf) = rest.split_at(kd);
            let (v, dv) =
                gmm_objective_jvp(g.d, g.k, g.n, a, mu, icf, &g.x, g.gamma, g.m, ta, tmu, ticf);
            (vec![v], vec![dv])
        })
        .vjp(move |p, seed, buf| {
            let (a, rest) = p.split_at(k);
            let (mu, icf) = rest.split_at(kd);
            let mut parts = split_mut(buf, &[k, kd, g.icf.len()]);
            let [da, dmu, dicf] = &mut parts[..] else {
                unreachable!("three parts")
            };
            let v = gmm_objective_vjp(
                g.d, g.k, g.n, a, mu, icf, &g.x, g.gamma, g.m, da, dmu, dicf, seed[0],
            );
            vec![v]
        })
}

fn flat_params(g: &GmmInput) -> Vec<f64> {
    [g.alphas.clone(), g.means.clone(), g.icf.clone()].concat()
}

#[test]
fn generated_derivatives_against_finite_differences_on_test() {
    let g = load("test");
    let p = flat_params(&g);
    harness_on(&g).at(&[&p]);
}

#[test]
fn generated_derivatives_against_finite_differences_d10() {
    // The first 20 points of the d = 10 instance: every strictly lower entry of Q is used.
    let mut g = load("1k/gmm_d10_K5");
    g.n = 20;
    g.x.truncate(20 * g.d);
    let p = flat_params(&g);
    harness_on(&g).at(&[&p]);
}
