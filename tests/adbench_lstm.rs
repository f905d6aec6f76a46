//! ADBench LSTM: takes the shipped instances (`tests/data/adbench/data/lstm`), gives checks that
//! the loss, the generated gradient and the hand-written gradient match the outputs of ADBench's
//! Manual module with the harness's rule (ρ ≤ 1e-8), and that the generated derivatives agree
//! with central differences and with each other (forward against reverse).

#[path = "../benches/adbench_problems/mod.rs"]
mod adbench;
mod common;

use adbench::io::{read_lstm, read_numbers, read_scalar, LstmInput};
use adbench::lstm::*;
use adbench::{adbench_compare, data_root, ADBENCH_TOLERANCE};
use common::Harness;

const INSTANCES: &[&str] = &["lstm_l2_c1024", "lstm_l4_c1024"];

fn load(name: &str) -> LstmInput {
    read_lstm(&data_root().join(format!("data/lstm/{name}.txt")))
}

/// The largest difference between `got` and `want` relative to `want`'s largest entry. The
/// LSTM gradient's entries are below 1e-4, where ADBench's rule compares absolute differences
/// (1e-8); this check is the one that has teeth for them.
fn relative_to_max(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let worst = got
        .iter()
        .zip(want)
        .fold(0.0f64, |m, (g, w)| m.max((g - w).abs()));
    worst / scale
}

fn expected(name: &str) -> (f64, Vec<f64>) {
    let dir = data_root().join("expected/manual/lstm");
    (
        read_scalar(&dir.join(format!("{name}_F_Manual.txt"))),
        read_numbers(&dir.join(format!("{name}_J_Manual.txt"))),
    )
}

#[test]
fn reader_gives_the_sizes_in_the_header() {
    let m = load("lstm_l2_c1024");
    assert_eq!((m.l, m.c, m.b), (2, 1024, 14));
    assert_eq!(m.main_params.len(), 8 * 14 * 2);
    assert_eq!(m.main_params[0], 0.7477620204927391);
    assert_eq!(m.extra_params.len(), 42);
    assert_eq!(m.state.len(), 56);
    assert_eq!(m.sequence.len(), 1024 * 14);
    assert!(m.sequence.iter().all(|&v| v == 0.0 || v == 1.0));
}

#[test]
fn objective_and_gradients_match_manual() {
    for name in INSTANCES {
        let m = load(name);
        let (f, j) = expected(name);
        let value = objective(&m);
        adbench_compare(&[value], &[f], ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: loss {e}"));
        let (vg, gen) = generated_gradient(&m);
        assert_eq!(vg, value, "{name}: _vjp value differs from the loss");
        let worst = adbench_compare(&gen, &j, ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: generated gradient {e}"));
        let rel = relative_to_max(&gen, &j);
        eprintln!("{name}: generated gradient, largest difference {worst:.1e} ({rel:.1e} of the largest entry)");
        assert!(
            rel < 1e-10,
            "{name}: generated gradient off by {rel:e} of its largest entry"
        );
        let (vh, hand) = hand_gradient(&m);
        assert_eq!(
            vh, value,
            "{name}: hand-written value differs from the loss"
        );
        let worst = adbench_compare(&hand, &j, ADBENCH_TOLERANCE)
            .unwrap_or_else(|e| panic!("{name}: hand-written gradient {e}"));
        let rel = relative_to_max(&hand, &j);
        eprintln!("{name}: hand-written gradient, largest difference {worst:.1e} ({rel:.1e} of the largest entry)");
        assert!(
            rel < 1e-10,
            "{name}: hand-written gradient off by {rel:e} of its largest entry"
        );
    }
}

#[test]
fn grad_api_agrees_with_vjp() {
    let m = load("lstm_l2_c1024");
    let (value, grad) = lstm_objective_grad(
        m.l,
        m.c,
        m.b,
        &m.main_params,
        &m.extra_params,
        &m.state,
        &m.sequence,
    );
    let (v2, flat) = generated_gradient(&m);
    assert_eq!(value, v2);
    assert_eq!([grad.main_params, grad.extra_params].concat(), flat);
}

#[test]
fn generated_derivatives_against_finite_differences() {
    // The first 6 characters: 5 steps through both layers (266 parameters).
    let mut m = load("lstm_l2_c1024");
    m.c = 6;
    m.sequence.truncate(6 * m.b);
    let n_main = m.main_params.len();
    let p = [m.main_params.clone(), m.extra_params.clone()].concat();
    let m = &m;
    Harness::new(m.params())
        .primal(move |p| {
            let (main, extra) = p.split_at(n_main);
            vec![lstm_objective(
                m.l,
                m.c,
                m.b,
                main,
                extra,
                &m.state,
                &m.sequence,
            )]
        })
        .jvp(move |p, t| {
            let (main, extra) = p.split_at(n_main);
            let (tmain, textra) = t.split_at(n_main);
            let (v, dv) = lstm_objective_jvp(
                m.l,
                m.c,
                m.b,
                main,
                extra,
                &m.state,
                &m.sequence,
                tmain,
                textra,
            );
            (vec![v], vec![dv])
        })
        .vjp(move |p, seed, buf| {
            let (main, extra) = p.split_at(n_main);
            let (dmain, dextra) = buf.split_at_mut(n_main);
            let v = lstm_objective_vjp(
                m.l,
                m.c,
                m.b,
                main,
                extra,
                &m.state,
                &m.sequence,
                dmain,
                dextra,
                seed[0],
            );
            vec![v]
        })
        .at(&[&p]);
}

#[test]
fn hand_gradient_against_generated_on_a_short_sequence() {
    let mut m = load("lstm_l4_c1024");
    m.c = 9;
    m.sequence.truncate(9 * m.b);
    let (vg, gen) = generated_gradient(&m);
    let (vh, hand) = hand_gradient(&m);
    assert_eq!(vg, vh);
    let rel = relative_to_max(&hand, &gen);
    assert!(
        rel < 1e-12,
        "hand-written against generated: {rel:e} of the largest entry"
    );
}
