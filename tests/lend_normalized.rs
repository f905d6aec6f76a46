//! A regression: a call lending `&mut` buffers, in a loop under a branch, in a function whose
//! reverse sweep's normalized copy has more variables than the function (temporaries of the
//! closure call and the helpers' array output): `codegen::lend::lent_by` indexed the function's
//! own variable table with the copy's ids and the macro panicked ("index out of bounds"; random
//! program p203 of seed 77301). The gradient is checked against the tangent (dot-product test)
//! and against central differences in the scalars.
#![allow(unused, clippy::all)]
use autodiff_runtime::differentiate;

#[differentiate]
fn ha2(p: f64, q: f64) -> [f64; 2] {
    [q + p, p * q]
}

#[differentiate]
fn hm1(p: f64, u: &[f64], io: &mut [f64], is: &mut f64) {
    *is *= p.cos();
    io[0] = *is + 0.25 * io[u.len() / 2];
}

#[differentiate]
fn hm2(p: f64, u: &[f64], io: &mut [f64], is: &mut f64) -> f64 {
    *is *= p.cos();
    io[0] = *is + 0.25 * io[u.len() / 2];
    p * io[0]
}

#[differentiate]
fn hr1(p: f64, q: f64, r: &[f64; 3]) -> f64 {
    p * q + r[1]
}

#[differentiate]
fn h3(p: f64) -> f64 {
    p.sin()
}

#[differentiate]
fn hc0<T: num_traits::Float + Into<f64> + num_traits::FromPrimitive>(p: T, w: &[T]) -> T {
    p * w[0]
}

#[differentiate]
fn p203(a: f64, b: f64, rp: &[Vec<f64>], c: f64, v: &[f64], n: usize, q: [f64; 3]) -> f64 {
    let mut w0: Vec<f64> = vec![0.0; n];
    let [t1, t2, ..]: [f64; 2] = ha2(
        0.5 * (b.powi(2) + 0.5).powf(0.25 * (n as f64)),
        0.02 * w0[3],
    );
    if a.sin() < 0.75 {
        for i in (0..n).rev() {
            let t3 = hr1(a, 0.1 * t2, &q);
            let t4 = f64::powf(0.5, f64::sin(0.1 * t2));
            let mut t5: f64 = 0.25 * (n as f64);
            hm1(t4, &v[..n], &mut w0, &mut t5);
            w0[i] = (0.2 * (0.25 * w0[(i + 1) % n] - t5)).atan();
            w0[i] = (0.2 * (0.25 * w0[i / 2] - t4)).tanh();
            w0[i] = (0.25 * (0.25 * w0[v.len() - 1 - i] - f64::cos(t4))).sin();
        }
        for i in (0..n).rev() {
            let t6 = 0.1 * (0.5 * (t1 + 1.5) + (c - rp[2][0]));
            let mut t7: f64 = t6;
            hm2(t6, &v[0..][..n], &mut w0, &mut t7);
            if rp[2][1] < t6 || i > 1 {
                let mut s8 = t2;
                t7 *= f64::sin(0.05 * s8);
            } else {
                let i9 = (((0.05 * w0[i]).sin().abs() * 2.5) as usize).min(3);
                let t10 = hc0(0.5 * f64::cosh(rp[2][i % rp[2].len()]), v);
                t7 *= (0.25 * t10).cos();
            }
            let f11 = |t12: f64| t12 * (0.05 * t12) * t6.cos();
            let t12 = t6.atan() / ((0.25 * t2).powi(2) + 0.5).sqrt();
            let t13 = f11(t7 / (a * a + 0.5));
            w0[(i + 1) % n] += 0.5 * t13;
            w0[i] += 0.1 * t12;
            w0[v.len() / 2] -= 0.02 * t7;
        }
        for i in 1..v.len() {
            if 0.6 + c < (0.5 * (i as f64)).tanh() || i < 2 {
                let t14 = 0.1 * t2;
                let mut t15: f64 = 0.5 * (b + -2.0);
                hm1(t14, &v[0..][..n], &mut w0, &mut t15);
                t15 = 0.5 * (t15 - v[i]);
                w0[i] = (0.25 * (0.25 * w0[i] * (0.5 * t15))).sin();
                w0[i - 1] = 0.25 * (0.25 * w0[i] + t14);
            }
            let t16 = v[(i + 1) % n].powi(3).exp().log2();
            let t1 = t1 - 0.5 * (t1 / v[2].hypot(0.5));
            w0[i] = f64::sin(0.1 * (0.25 * w0[i] - 0.5 * t1));
            w0[(i + 1) % n] = (0.2 * (0.25 * w0[(i + 1) % n] + t16)).sin();
            w0[i] = (a * (v[n - 1 - i] * b)).atan();
        }
        let t17 = h3(c.atan2(2.0));
        w0[2] = (0.1 * (0.25 * w0[2] - t17)).cos();
    }
    let t18 = c;
    let mut t19: f64 = v[v.len() / 2].cos();
    let t20 = hm2(t18, &v[..], &mut w0, &mut t19);
    let t21 = t19.exp();
    t18 + 3.0 * (0.1 * t20) + 3.0 * (0.5 * t21) + 0.25 * w0[n - 1]
}

fn value(s: &[f64; 3], rp: &[Vec<f64>], v: &[f64], q: [f64; 3]) -> f64 {
    p203(s[0], s[1], rp, s[2], v, v.len(), q)
}

#[test]
fn lending_calls_in_a_normalized_copy_compile_and_agree() {
    let rp = vec![vec![], vec![0.3], vec![0.2, -0.4, 0.7]];
    let v = [0.4, -0.3, 0.8, 0.1, -0.6];
    let q = [0.5, -0.2, 0.9];
    for s in [[0.3, 0.7, -0.2], [2.0, -0.5, 0.4]] {
        let n = v.len();
        // Reverse: the gradient in the three scalars, `rp`, `v` and `q`.
        let (mut ga, mut gb, mut gc) = (0.0, 0.0, 0.0);
        let mut grp: Vec<Vec<f64>> = rp.iter().map(|r| vec![0.0; r.len()]).collect();
        let (mut gv, mut gq) = (vec![0.0; n], [0.0; 3]);
        let y = p203_vjp(
            s[0], s[1], &rp, s[2], &v, n, q, &mut ga, &mut gb, &mut grp, &mut gc, &mut gv, &mut gq,
            1.0,
        );
        assert_eq!(y, value(&s, &rp, &v, q));
        // Forward along a direction in every argument; dot-product test against the gradient.
        let (ta, tb, tc) = (0.3, -0.7, 0.5);
        let trp: Vec<Vec<f64>> = rp
            .iter()
            .enumerate()
            .map(|(i, r)| (0..r.len()).map(|j| 0.1 * (i + j) as f64 - 0.2).collect())
            .collect();
        let tv: Vec<f64> = (0..n).map(|k| 0.2 * k as f64 - 0.3).collect();
        let tq = [0.4, 0.1, -0.6];
        let (y2, dy) = p203_jvp(s[0], s[1], &rp, s[2], &v, n, q, ta, tb, &trp, tc, &tv, tq);
        assert_eq!(y2, y);
        let mut dot = ga * ta + gb * tb + gc * tc;
        for (g, t) in grp.iter().flatten().zip(trp.iter().flatten()) {
            dot += g * t;
        }
        for (g, t) in gv.iter().zip(&tv).chain(gq.iter().zip(&tq)) {
            dot += g * t;
        }
        assert!(
            (dot - dy).abs() <= 1e-12 * (1.0 + dy.abs()),
            "{dot} vs {dy}"
        );
        // Central differences in the three scalars.
        for (k, g) in [(0, ga), (1, gb), (2, gc)] {
            let h = 1e-6;
            let (mut up, mut dn) = (s, s);
            up[k] += h;
            dn[k] -= h;
            let fd = (value(&up, &rp, &v, q) - value(&dn, &rp, &v, q)) / (2.0 * h);
            assert!(
                (fd - g).abs() <= 1e-6 * (1.0 + g.abs()),
                "d/ds{k}: {fd} vs {g}"
            );
        }
    }
}
