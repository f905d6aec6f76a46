//! Regression: random program p478 of seed 0x105b9 (after loop fusion and the reuse of saved
//! copies met): the fused region's statements did not drop the saved copies they made stale, so
//! the tail's reverse read a copy of `s6` taken before a loop changed it (wrong gradient). Checked
//! against the dot-product test and central differences.
#![allow(unused, clippy::all)]
use autodiff_runtime::differentiate;
#[differentiate(split, hvp)]
fn hg3<T: num_traits::Float + std::iter::Sum>(p: T, w: &[T], r: T) -> T {
    let mut work = w.to_vec();
    for i in 0..work.len() {
        work[i] = (work[i] * T::from(0.05).unwrap()).sin() * p;
    }
    let r0: T = work.iter().map(|&t| t).sum();
    let m0: T = work.iter().map(|&t| t * t).sum();
    let m1 = r0 / T::from(work.len()).unwrap();
    (r0 * T::from(0.25).unwrap()).sin() + (m0 * T::from(0.1).unwrap() + T::one()).sqrt() + m1
}
#[differentiate(split, hvp)]
fn p478(a: f64, c: f64, n: usize, b: f64, v: &[f64]) -> (f64, f64) {
    let (mut s0, t1) = (b.tanh(), a);
    let mut r2: [f64; 3] = [0.0; 3];
    s0 *= 0.25 * v[n / 2].exp_m1();
    let f3 = |t4: f64| t4 * a;
    let a = a - (v[v.len() - 1] + a / t1.exp());
    let t5 = f3((t1 + t1).exp().ln()) * (0.2 * a);
    let (mut s6, mut s7) = (a, t1);
    let mut s8: f64 = 0.0;
    s8 += r2[2];
    let t9 = match n % 3 {
        0 => r2[0] * (0.05 * s7),
        1 => v[2] * (0.5 * s7),
        _ => (0.05 * (0.5 * s6 + 0.5 * s6)).exp().ln_1p(),
    };
    let mut nm10 = [[0.5 * s8 + (n as f64), 2.0], [v[n / 2], v[2]]];
    let t11 = 0.5 * f64::ln_1p(2.0 + (0.25 * t9).tanh());
    for q12 in nm10.iter_mut() {
        q12[0] = (0.02 * q12[0] + 0.02 * q12[1] + t11).tanh();
    }
    let mut w13: Vec<f64> = vec![0.5; n];
    let mut w14: Vec<f64> = vec![0.0; n];
    let mut s15: f64 = 0.0;
    let mut s16: f64 = 0.0;
    for i in 1..n {
        let t17 = (0.1 * (0.5 * nm10[i % 2][0] + 0.5 * s8)).atan();
        let t18 = (0.5 * s6).hypot(1.0).cbrt();
        if f64::cbrt(v[n - 1 - i].exp()) > v[i] {
            s15 += (0.25 * a).sinh().hypot(2.0).ln();
        } else {
            s16 -= 0.1 * (0.5 * nm10[i % 2][1] + 2.0);
        }
        s15 += 0.5 * t18;
        s16 -= f64::sqrt(f64::hypot(0.5 * nm10[i % 2][0], 0.5)).log2();
    }
    let rw19 = nm10[1];
    for i in 0..2 {
        w13[v.len() - 1 - i] *= v[i];
        s6 /= 0.25 * s16 * (0.25 * s16) + 1.0;
    }
    let t20 = hg3(0.5 * w13[n / 2], &w13, 0.1 * w14[2]);
    let mut nm21 = vec![[1.0_f64; 3]; n];
    let a = a - c.exp();
    let mut s22: f64 = 0.0;
    let mut s23: f64 = 0.0;
    for i in 1..n {
        let t24 = 0.5
            * s15
            * (0.5 * (1.25 - 0.6))
            * (0.25
                * hg3(
                    0.2 * (a * (0.25 * (i as f64))),
                    &*w14,
                    0.5 * (w13[i - 1] * v[1]),
                ));
        let t25 = v[i].hypot(1.5 + (0.2 * t24).tanh());
        s22 += 0.25 * f64::powf((0.5 * rw19[i % 2]).hypot(0.5), 0.05 * t5);
        s23 -= 0.25 * t20;
    }
    (
        0.5 * s22 + t11 + 0.5 * s0 + 0.5 * s0 * (0.25 * a),
        0.5 * s6 + 0.5 * s23,
    )
}
#[test]
fn fused_region_drops_stale_copies() {
    let v = [0.3, -0.2, 0.5, 0.7];
    let n = 4;
    let (a, c, b) = (0.4, -0.3, 0.6);
    let (ta, tc, tb) = (0.3, -0.7, 0.2);
    let tv = [0.1, 0.2, -0.3, 0.4];
    let ((y0, y1), (d0, d1)) = p478_jvp(a, c, n, b, &v, ta, tc, tb, &tv);
    let (c0, c1) = (0.8, -0.5);
    let (mut ga, mut gc, mut gb) = (0.0, 0.0, 0.0);
    let mut gv = [0.0; 4];
    let _ = p478_vjp(a, c, n, b, &v, &mut ga, &mut gc, &mut gb, &mut gv, (c0, c1));
    let lhs = d0 * c0 + d1 * c1;
    let rhs = ga * ta + gc * tc + gb * tb + gv.iter().zip(&tv).map(|(g, t)| g * t).sum::<f64>();
    assert!(
        (lhs - rhs).abs() < 1e-9 * (1.0 + lhs.abs()),
        "{lhs} vs {rhs}"
    );
    // Central differences along the same direction.
    let h = 1e-6;
    let at = |s: f64| {
        let w: Vec<f64> = v.iter().zip(&tv).map(|(x, t)| x + s * t).collect();
        p478(a + s * ta, c + s * tc, n, b + s * tb, &w)
    };
    let (p, m) = (at(h), at(-h));
    let fd = ((p.0 - m.0) * c0 + (p.1 - m.1) * c1) / (2.0 * h);
    assert!((fd - lhs).abs() < 1e-6 * (1.0 + fd.abs()), "{fd} vs {lhs}");
}
