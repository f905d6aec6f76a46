//! Checks the benchmark problems of `benches/overhead.rs`: takes each hand-written adjoint, gives
//! its agreement with central finite differences along seeded random directions, its contract
//! (returns the primal value, adds `seed * gradient`), and that `generated.rs` differentiates the
//! very bodies the benchmark times.

#[path = "../benches/problems/mod.rs"]
mod problems;

use problems::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random directions per gradient check.
const DIRECTIONS: usize = 4;
/// Finite-difference step along a direction whose components lie in [-1, 1].
const FD_STEP: f64 = 1e-5;
/// Allowed disagreement, relative to the size of the terms of `<gradient, direction>`.
const FD_RTOL: f64 = 1e-6;

fn uniform(rng: &mut ChaCha8Rng, len: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..len).map(|_| rng.gen_range(lo..hi)).collect()
}

fn axpy(p: &[f64], t: f64, u: &[f64]) -> Vec<f64> {
    p.iter().zip(u).map(|(pi, ui)| pi + t * ui).collect()
}

/// Checks `grad` of `f` at `p` against central differences along `DIRECTIONS` random directions.
fn check_gradient(
    what: &str,
    f: impl Fn(&[f64]) -> f64,
    p: &[f64],
    grad: &[f64],
    rng: &mut ChaCha8Rng,
) {
    assert_eq!(p.len(), grad.len(), "{what}: gradient length");
    for dir in 0..DIRECTIONS {
        let u = uniform(rng, p.len(), -1.0, 1.0);
        let fd = (f(&axpy(p, FD_STEP, &u)) - f(&axpy(p, -FD_STEP, &u))) / (2.0 * FD_STEP);
        let ad: f64 = grad.iter().zip(&u).map(|(g, ui)| g * ui).sum();
        let scale: f64 = grad
            .iter()
            .zip(&u)
            .map(|(g, ui)| (g * ui).abs())
            .sum::<f64>()
            .max(1e-8);
        assert!(
            (fd - ad).abs() <= FD_RTOL * scale,
            "{what}, direction {dir}: finite differences {fd:e}, adjoint {ad:e} (scale {scale:e})"
        );
    }
}

/// Runs `adjoint(seed, buffer)` on a zero buffer with seed 1 (the gradient) and on a random buffer
/// with another seed, checks the returned value is exactly `value` and that the second call added
/// `seed * gradient` (to rounding). Returns the gradient.
fn gradient_and_contract(
    what: &str,
    len: usize,
    value: f64,
    adjoint: impl Fn(f64, &mut [f64]) -> f64,
    rng: &mut ChaCha8Rng,
) -> Vec<f64> {
    let mut grad = vec![0.0; len];
    let returned = adjoint(1.0, &mut grad);
    // The adjoints do the primal's arithmetic in the primal's order.
    assert_eq!(returned, value, "{what}: value returned by the adjoint");
    let base = uniform(rng, len, -1.0, 1.0);
    let seed = 0.75;
    let mut acc = base.clone();
    adjoint(seed, &mut acc);
    for i in 0..len {
        let want = base[i] + seed * grad[i];
        assert!(
            (acc[i] - want).abs() <= 1e-12 * (want.abs() + 1.0),
            "{what}: component {i} after adding, got {}, want {want}",
            acc[i]
        );
    }
    grad
}

fn check_rosenbrock(n: usize, rng: &mut ChaCha8Rng) {
    let what = format!("rosenbrock n={n}");
    let x = uniform(rng, n, -1.5, 1.5);
    let value = rosenbrock(&x, n);
    let grad = gradient_and_contract(
        &what,
        n,
        value,
        |seed, dx| rosenbrock_adjoint(&x, n, dx, seed),
        rng,
    );
    check_gradient(&what, |p| rosenbrock(p, n), &x, &grad, rng);
}

/// Parameters `k`, `x0`, `v0` as one vector, as the gradient check sees them.
fn check_spring_chain(n: usize, steps: usize, rng: &mut ChaCha8Rng) {
    let what = format!("spring_chain n={n} steps={steps}");
    let mut p = uniform(rng, n, 0.5, 1.5);
    p.extend(uniform(rng, 2 * n, -0.5, 0.5));
    let f = |p: &[f64]| {
        spring_chain(
            &p[..n],
            &p[n..2 * n],
            &p[2 * n..],
            SPRING_C,
            SPRING_DT,
            n,
            steps,
        )
    };
    let value = f(&p);
    assert!(value.is_finite(), "{what}: value {value}");
    let grad = gradient_and_contract(
        &what,
        3 * n,
        value,
        |seed, buf| {
            let (dk, rest) = buf.split_at_mut(n);
            let (dx0, dv0) = rest.split_at_mut(n);
            spring_chain_adjoint(
                &p[..n],
                &p[n..2 * n],
                &p[2 * n..],
                SPRING_C,
                SPRING_DT,
                n,
                steps,
                dk,
                dx0,
                dv0,
                seed,
            )
        },
        rng,
    );
    check_gradient(&what, f, &p, &grad, rng);
}

/// `w1`, `b1`, `w2`, `b2` out of one parameter vector, of lengths `n1`, `n2`, `n3` and the rest.
fn net_parts(p: &[f64], n1: usize, n2: usize, n3: usize) -> (&[f64], &[f64], &[f64], &[f64]) {
    let (w1, rest) = p.split_at(n1);
    let (b1, rest) = rest.split_at(n2);
    let (w2, b2) = rest.split_at(n3);
    (w1, b1, w2, b2)
}

/// Parameters `w1`, `b1`, `w2`, `b2` as one vector; the data `xs`, `ys` stay fixed.
fn check_two_layer_loss(d: usize, h: usize, o: usize, batch: usize, rng: &mut ChaCha8Rng) {
    let what = format!("two_layer_loss d={d} h={h} o={o} batch={batch}");
    let (n1, n2, n3, n4) = (h * d, h, o * h, o);
    let mut p = uniform(rng, n1, -1.0, 1.0);
    p.extend(uniform(rng, n2 + n3 + n4, -0.5, 0.5));
    let xs = uniform(rng, batch * d, -1.0, 1.0);
    let ys = uniform(rng, batch * o, -1.0, 1.0);
    let f = |p: &[f64]| {
        let (w1, b1, w2, b2) = net_parts(p, n1, n2, n3);
        two_layer_loss(w1, b1, w2, b2, &xs, &ys, d, h, o, batch)
    };
    let value = f(&p);
    let grad = gradient_and_contract(
        &what,
        p.len(),
        value,
        |seed, buf| {
            let (w1, b1, w2, b2) = net_parts(&p, n1, n2, n3);
            let (dw1, rest) = buf.split_at_mut(n1);
            let (db1, rest) = rest.split_at_mut(n2);
            let (dw2, db2) = rest.split_at_mut(n3);
            two_layer_loss_adjoint(
                w1, b1, w2, b2, &xs, &ys, d, h, o, batch, dw1, db1, dw2, db2, seed,
            )
        },
        rng,
    );
    check_gradient(&what, f, &p, &grad, rng);
}

#[test]
fn rosenbrock_adjoint_matches_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for n in [2, 3, 4, 17, 100] {
        check_rosenbrock(n, &mut rng);
    }
}

#[test]
fn rosenbrock_adjoint_of_a_single_element_is_zero() {
    let mut dx = [0.5];
    assert_eq!(rosenbrock(&[2.0], 1), 0.0);
    assert_eq!(rosenbrock_adjoint(&[2.0], 1, &mut dx, 1.0), 0.0);
    assert_eq!(dx, [0.5]);
}

#[test]
fn spring_chain_adjoint_matches_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for (n, steps) in [(1, 30), (2, 30), (3, 40), (8, 60), (16, 100)] {
        check_spring_chain(n, steps, &mut rng);
    }
}

#[test]
fn spring_chain_adjoint_without_steps_differentiates_the_initial_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    check_spring_chain(5, 0, &mut rng);
}

#[test]
fn two_layer_loss_adjoint_matches_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for (d, h, o, batch) in [(1, 1, 1, 1), (3, 5, 2, 4), (4, 7, 3, 5)] {
        check_two_layer_loss(d, h, o, batch, &mut rng);
    }
}

/// The sizes the benchmark runs, so that what it times is a correct gradient of a tame problem
/// (the time stepping neither blows up nor dies out).
#[test]
fn adjoints_at_benchmark_sizes_match_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    check_rosenbrock(ROSENBROCK_N, &mut rng);
    check_spring_chain(SPRING_N, SPRING_STEPS, &mut rng);
    check_two_layer_loss(NET_D, NET_H, NET_O, NET_BATCH, &mut rng);
}

/// The source of item `pub fn name(` up to its closing brace at the start of a line.
fn item_source<'a>(src: &'a str, file: &str, name: &str) -> &'a str {
    let start = src
        .find(&format!("pub fn {name}("))
        .unwrap_or_else(|| panic!("{file} has no `pub fn {name}(`"));
    let len = src[start..]
        .find("\n}\n")
        .unwrap_or_else(|| panic!("{file}: `{name}` has no closing brace"));
    &src[start..start + len + 3]
}

#[test]
fn generated_copies_have_the_primal_bodies() {
    let primal = include_str!("../benches/problems/mod.rs");
    let generated = include_str!("../benches/problems/generated.rs");
    for name in ["rosenbrock", "spring_chain", "two_layer_loss"] {
        assert_eq!(
            item_source(generated, "generated.rs", name),
            item_source(primal, "mod.rs", name),
            "generated.rs and mod.rs differ in `{name}`"
        );
    }
}

/// The generated gradients against the hand-written ones at benchmark sizes.
#[test]
fn generated_gradients_match_hand_written() {
    use problems::generated;

    fn close(what: &str, got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{what}: length");
        for i in 0..got.len() {
            assert!(
                (got[i] - want[i]).abs() <= 1e-10 * (want[i].abs() + 1.0),
                "{what}[{i}]: generated {}, hand-written {}",
                got[i],
                want[i]
            );
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(6);

    let n = ROSENBROCK_N;
    let x = uniform(&mut rng, n, -1.5, 1.5);
    let mut dx = vec![0.0; n];
    let value = rosenbrock_adjoint(&x, n, &mut dx, 1.0);
    let (v, g) = generated::rosenbrock_grad(&x, n);
    close("rosenbrock value", &[v], &[value]);
    close("rosenbrock dx", &g.x, &dx);

    let n = SPRING_N;
    let k = uniform(&mut rng, n, 0.5, 1.5);
    let x0 = uniform(&mut rng, n, -0.5, 0.5);
    let v0 = uniform(&mut rng, n, -0.5, 0.5);
    let (mut dk, mut dx0, mut dv0) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let value = spring_chain_adjoint(
        &k,
        &x0,
        &v0,
        SPRING_C,
        SPRING_DT,
        n,
        SPRING_STEPS,
        &mut dk,
        &mut dx0,
        &mut dv0,
        1.0,
    );
    let (v, g) = generated::spring_chain_grad(&k, &x0, &v0, SPRING_C, SPRING_DT, n, SPRING_STEPS);
    close("spring_chain value", &[v], &[value]);
    close("spring_chain dk", &g.k, &dk);
    close("spring_chain dx0", &g.x0, &dx0);
    close("spring_chain dv0", &g.v0, &dv0);

    let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
    let w1 = uniform(&mut rng, h * d, -1.0, 1.0);
    let b1 = uniform(&mut rng, h, -0.5, 0.5);
    let w2 = uniform(&mut rng, o * h, -0.5, 0.5);
    let b2 = uniform(&mut rng, o, -0.5, 0.5);
    let xs = uniform(&mut rng, batch * d, -1.0, 1.0);
    let ys = uniform(&mut rng, batch * o, -1.0, 1.0);
    let (mut dw1, mut db1) = (vec![0.0; h * d], vec![0.0; h]);
    let (mut dw2, mut db2) = (vec![0.0; o * h], vec![0.0; o]);
    let value = two_layer_loss_adjoint(
        &w1, &b1, &w2, &b2, &xs, &ys, d, h, o, batch, &mut dw1, &mut db1, &mut dw2, &mut db2, 1.0,
    );
    let (v, g) = generated::two_layer_loss_grad(&w1, &b1, &w2, &b2, &xs, &ys, d, h, o, batch);
    close("two_layer_loss value", &[v], &[value]);
    close("two_layer_loss dw1", &g.w1, &dw1);
    close("two_layer_loss db1", &g.b1, &db1);
    close("two_layer_loss dw2", &g.w2, &dw2);
    close("two_layer_loss db2", &g.b2, &db2);
}

/// The hand-written tangents against central differences along their own direction, and the
/// generated `_jvp` against them, at benchmark sizes.
#[test]
fn tangents_match_finite_differences_and_generated_jvp() {
    use problems::generated;

    /// `(value, tangent)` of `jvp` against `f` at `p` along `u` (central differences), and against
    /// the generated pair.
    fn check(
        what: &str,
        f: impl Fn(&[f64]) -> f64,
        p: &[f64],
        u: &[f64],
        hand: (f64, f64),
        gen: (f64, f64),
    ) {
        let fd = (f(&axpy(p, FD_STEP, u)) - f(&axpy(p, -FD_STEP, u))) / (2.0 * FD_STEP);
        let scale = hand.1.abs().max(1e-3);
        assert_eq!(hand.0, f(p), "{what}: value of the hand-written tangent");
        assert!(
            (fd - hand.1).abs() <= 1e-6 * scale,
            "{what}: finite differences {fd:e}, hand-written tangent {:e}",
            hand.1
        );
        assert!(
            (gen.0 - hand.0).abs() <= 1e-12 * (hand.0.abs() + 1.0),
            "{what}: generated value {}, hand-written {}",
            gen.0,
            hand.0
        );
        assert!(
            (gen.1 - hand.1).abs() <= 1e-10 * (hand.1.abs() + 1.0),
            "{what}: generated tangent {}, hand-written {}",
            gen.1,
            hand.1
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(7);

    let n = ROSENBROCK_N;
    let x = uniform(&mut rng, n, -1.5, 1.5);
    let u = uniform(&mut rng, n, -1.0, 1.0);
    check(
        "rosenbrock",
        |p| rosenbrock(p, n),
        &x,
        &u,
        rosenbrock_tangent(&x, n, &u),
        generated::rosenbrock_jvp(&x, n, &u),
    );

    let (n, steps) = (SPRING_N, SPRING_STEPS);
    let mut p = uniform(&mut rng, n, 0.5, 1.5);
    p.extend(uniform(&mut rng, 2 * n, -0.5, 0.5));
    let u = uniform(&mut rng, 3 * n, -1.0, 1.0);
    let parts = |q: &[f64]| (q[..n].to_vec(), q[n..2 * n].to_vec(), q[2 * n..].to_vec());
    let ((k, x0, v0), (dk, dx0, dv0)) = (parts(&p), parts(&u));
    let (c, dt) = (SPRING_C, SPRING_DT);
    check(
        "spring_chain",
        |q| {
            let (k, x0, v0) = parts(q);
            spring_chain(&k, &x0, &v0, c, dt, n, steps)
        },
        &p,
        &u,
        spring_chain_tangent(&k, &x0, &v0, c, dt, n, steps, &dk, &dx0, &dv0),
        generated::spring_chain_jvp(&k, &x0, &v0, c, dt, n, steps, &dk, &dx0, &dv0),
    );

    let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
    let (n1, n2, n3) = (h * d, h, o * h);
    let mut p = uniform(&mut rng, n1, -1.0, 1.0);
    p.extend(uniform(&mut rng, n2 + n3 + o, -0.5, 0.5));
    let u = uniform(&mut rng, p.len(), -1.0, 1.0);
    let xs = uniform(&mut rng, batch * d, -1.0, 1.0);
    let ys = uniform(&mut rng, batch * o, -1.0, 1.0);
    let (w1, b1, w2, b2) = net_parts(&p, n1, n2, n3);
    let (dw1, db1, dw2, db2) = net_parts(&u, n1, n2, n3);
    check(
        "two_layer_loss",
        |q| {
            let (w1, b1, w2, b2) = net_parts(q, n1, n2, n3);
            two_layer_loss(w1, b1, w2, b2, &xs, &ys, d, h, o, batch)
        },
        &p,
        &u,
        two_layer_loss_tangent(w1, b1, w2, b2, &xs, &ys, d, h, o, batch, dw1, db1, dw2, db2),
        generated::two_layer_loss_jvp(w1, b1, w2, b2, &xs, &ys, d, h, o, batch, dw1, db1, dw2, db2),
    );
}
