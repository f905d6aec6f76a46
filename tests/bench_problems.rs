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
    let generated = include_str!("../benches/problems/generated.rs");
    let sources = [
        ("mod.rs", include_str!("../benches/problems/mod.rs")),
        ("heat.rs", include_str!("../benches/problems/heat.rs")),
        ("rk4.rs", include_str!("../benches/problems/rk4.rs")),
        ("small.rs", include_str!("../benches/problems/small.rs")),
    ];
    let items: [(&str, &[&str]); 4] = [
        ("mod.rs", &["rosenbrock", "spring_chain", "two_layer_loss"]),
        ("heat.rs", &["heat"]),
        ("rk4.rs", &["lotka_volterra", "lv_fit"]),
        (
            "small.rs",
            &["rosenbrock2", "himmelblau", "beale", "ackley"],
        ),
    ];
    for ((file, primal), (file2, names)) in sources.iter().zip(items) {
        assert_eq!(*file, file2);
        for name in names {
            assert_eq!(
                item_source(generated, "generated.rs", name),
                item_source(primal, file, name),
                "generated.rs and {file} differ in `{name}`"
            );
        }
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

/// Parameters `u0`, `alpha` as one vector (`alpha` last); the target stays fixed.
fn check_heat(n: usize, steps: usize, rng: &mut ChaCha8Rng) {
    let what = format!("heat n={n} steps={steps}");
    let nn = n * n;
    let mut p = uniform(rng, nn, 0.0, 1.0);
    p.push(rng.gen_range(0.1..0.25));
    let target = uniform(rng, nn, 0.0, 1.0);
    let f = |p: &[f64]| heat(&p[..nn], p[nn], &target, n, steps);
    let value = f(&p);
    let grad = gradient_and_contract(
        &what,
        nn + 1,
        value,
        |seed, buf| {
            let (du0, dalpha) = buf.split_at_mut(nn);
            heat_adjoint(
                &p[..nn],
                p[nn],
                &target,
                n,
                steps,
                du0,
                &mut dalpha[0],
                seed,
            )
        },
        rng,
    );
    check_gradient(&what, f, &p, &grad, rng);
}

/// Parameters `p`, `y0` as one vector of 6; the observations stay fixed.
fn check_lv_fit(steps: usize, rng: &mut ChaCha8Rng) {
    let what = format!("lv_fit steps={steps}");
    let mut p: Vec<f64> = LV_RATES
        .iter()
        .map(|r| r * rng.gen_range(0.9..1.1))
        .collect();
    p.extend(uniform(rng, 2, 0.8, 1.2));
    let obs = uniform(rng, 2 * steps, 0.3, 2.0);
    let parts = |q: &[f64]| ([q[0], q[1], q[2], q[3]], [q[4], q[5]]);
    let f = |q: &[f64]| {
        let (r, y0) = parts(q);
        lv_fit(&r, &y0, &obs, LV_H, steps)
    };
    let value = f(&p);
    assert!(value.is_finite(), "{what}: value {value}");
    let grad = gradient_and_contract(
        &what,
        6,
        value,
        |seed, buf| {
            let (r, y0) = parts(&p);
            let (mut dr, mut dy0) = parts(buf);
            let v = lv_fit_adjoint(&r, &y0, &obs, LV_H, steps, &mut dr, &mut dy0, seed);
            buf[..4].copy_from_slice(&dr);
            buf[4..].copy_from_slice(&dy0);
            v
        },
        rng,
    );
    check_gradient(&what, f, &p, &grad, rng);
}

#[test]
fn heat_adjoint_matches_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for (n, steps) in [(1, 3), (2, 3), (3, 1), (3, 4), (5, 0), (5, 7), (8, 20)] {
        check_heat(n, steps, &mut rng);
    }
}

#[test]
fn lv_fit_adjoint_matches_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for steps in [0, 1, 2, 17] {
        check_lv_fit(steps, &mut rng);
    }
}

#[test]
fn new_adjoints_at_benchmark_sizes_match_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    check_heat(HEAT_N, HEAT_STEPS, &mut rng);
    check_lv_fit(LV_STEPS, &mut rng);
}

/// A generated `_vjp` of a two-variable function.
type SmallVjp = fn(&[f64; 2], &mut [f64; 2], f64) -> f64;

type SmallForms = (
    &'static str,
    fn(&[f64; 2]) -> f64,
    fn(&[f64; 2]) -> (f64, [f64; 2]),
    fn(&[f64; 2]) -> (f64, [f64; 2]),
);

/// Each two-variable function: its name, primal, hand-written gradient, generated `_grad`.
fn small_functions() -> [SmallForms; 4] {
    use problems::generated as g;
    [
        ("rosenbrock2", rosenbrock2, rosenbrock2_gradient, |p| {
            let (v, d) = g::rosenbrock2_grad(p);
            (v, d.p)
        }),
        ("himmelblau", himmelblau, himmelblau_gradient, |p| {
            let (v, d) = g::himmelblau_grad(p);
            (v, d.p)
        }),
        ("beale", beale, beale_gradient, |p| {
            let (v, d) = g::beale_grad(p);
            (v, d.p)
        }),
        ("ackley", ackley, ackley_gradient, |p| {
            let (v, d) = g::ackley_grad(p);
            (v, d.p)
        }),
    ]
}

/// The hand-written gradients of the two-variable functions against central differences, and
/// the generated `_grad` (an array gradient, no heap) and `_vjp` against them.
#[test]
fn small_function_gradients_match_finite_differences_and_generated() {
    use problems::generated as g;
    let vjps: [SmallVjp; 4] = [
        g::rosenbrock2_vjp,
        g::himmelblau_vjp,
        g::beale_vjp,
        g::ackley_vjp,
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for ((name, f, hand, grad), vjp) in small_functions().into_iter().zip(vjps) {
        for _ in 0..20 {
            let q = uniform(&mut rng, 2, -2.5, 2.5);
            let p = [q[0], q[1]];
            let (v, gh) = hand(&p);
            let value = f(&p);
            assert!(
                (v - value).abs() <= 1e-14 * (value.abs() + 1.0),
                "{name} at {p:?}: hand-written value {v}, primal {value}"
            );
            check_gradient(name, |x| f(&[x[0], x[1]]), &q, &gh, &mut rng);
            let (vg, gg) = grad(&p);
            assert_eq!(vg, value, "{name} at {p:?}: value of _grad");
            let mut gv = [0.25, -0.5];
            assert_eq!(
                vjp(&p, &mut gv, 2.0),
                value,
                "{name} at {p:?}: value of _vjp"
            );
            for i in 0..2 {
                let tol = 1e-12 * (gh[i].abs() + 1.0);
                assert!(
                    (gg[i] - gh[i]).abs() <= tol,
                    "{name} at {p:?}, d/dp[{i}]: _grad {}, hand-written {}",
                    gg[i],
                    gh[i]
                );
                let want = [0.25, -0.5][i] + 2.0 * gh[i];
                assert!(
                    (gv[i] - want).abs() <= 2.0 * tol,
                    "{name} at {p:?}, d/dp[{i}]: _vjp added {}, want {want}",
                    gv[i]
                );
            }
        }
    }
}

/// The generated gradients and tangents of the heat and Runge-Kutta problems against the
/// hand-written ones at benchmark sizes.
#[test]
fn generated_heat_and_rk4_match_hand_written() {
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
    let mut rng = ChaCha8Rng::seed_from_u64(12);

    let (n, steps, alpha) = (HEAT_N, HEAT_STEPS, HEAT_ALPHA);
    let u0 = uniform(&mut rng, n * n, 0.0, 1.0);
    let target = uniform(&mut rng, n * n, 0.0, 1.0);
    let (mut du0, mut dalpha) = (vec![0.0; n * n], 0.0);
    let value = heat_adjoint(&u0, alpha, &target, n, steps, &mut du0, &mut dalpha, 1.0);
    let (v, g) = generated::heat_grad(&u0, alpha, &target, n, steps);
    close("heat value", &[v], &[value]);
    close("heat du0", &g.u0, &du0);
    close("heat dalpha", &[g.alpha], &[dalpha]);
    let t = uniform(&mut rng, n * n + 1, -1.0, 1.0);
    let hand = heat_tangent(&u0, alpha, &target, n, steps, &t[..n * n], t[n * n]);
    let gen = generated::heat_jvp(&u0, alpha, &target, n, steps, &t[..n * n], t[n * n]);
    assert_eq!(
        hand.0,
        heat(&u0, alpha, &target, n, steps),
        "heat tangent's value"
    );
    close("heat jvp", &[gen.0, gen.1], &[hand.0, hand.1]);
    let dot: f64 = du0.iter().zip(&t).map(|(g, u)| g * u).sum::<f64>() + dalpha * t[n * n];
    close("heat <grad, t>", &[hand.1], &[dot]);

    let steps = LV_STEPS;
    let r: [f64; 4] = std::array::from_fn(|i| LV_RATES[i] * rng.gen_range(0.9..1.1));
    let y0 = [rng.gen_range(0.8..1.2), rng.gen_range(0.8..1.2)];
    let obs = uniform(&mut rng, 2 * steps, 0.3, 2.0);
    let (mut dr, mut dy0) = ([0.0; 4], [0.0; 2]);
    let value = lv_fit_adjoint(&r, &y0, &obs, LV_H, steps, &mut dr, &mut dy0, 1.0);
    let (v, g) = generated::lv_fit_grad(&r, &y0, &obs, LV_H, steps);
    close("lv_fit value", &[v], &[value]);
    close("lv_fit dp", &g.p, &dr);
    close("lv_fit dy0", &g.y0, &dy0);
    let (tr, ty0) = ([0.3, -0.7, 0.2, 0.9], [-0.4, 0.6]);
    let hand = lv_fit_tangent(&r, &y0, &obs, LV_H, steps, &tr, &ty0);
    let gen = generated::lv_fit_jvp(&r, &y0, &obs, LV_H, steps, &tr, &ty0);
    assert_eq!(
        hand.0,
        lv_fit(&r, &y0, &obs, LV_H, steps),
        "lv_fit tangent's value"
    );
    close("lv_fit jvp", &[gen.0, gen.1], &[hand.0, hand.1]);
    let dot: f64 = (0..4).map(|i| dr[i] * tr[i]).sum::<f64>() + dy0[0] * ty0[0] + dy0[1] * ty0[1];
    close("lv_fit <grad, t>", &[hand.1], &[dot]);
}
