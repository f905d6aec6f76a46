//! Unit tests of the kernels module: the `f64` normal CDF and `gelu_erf` against an mpmath table,
//! the blocking tables' invariants, and the row-wise kernels and losses (forward against scalar
//! references, JVP against central differences, VJP against JVP by the dot-product test), on every
//! path this CPU has. The matrix products and activations are tested in `tests/kernels.rs`.

use super::isa::Unfused;
use super::*;

/// Runs `f` on every available path and checks that it dispatched there.
fn each_isa(mut f: impl FnMut(Isa)) {
    for isa in available_isas() {
        let before = isa_calls(isa);
        with_isa(isa, || f(isa));
        assert!(isa_calls(isa) > before, "nothing ran on {isa:?}");
    }
}

fn ulps(a: f64, b: f64) -> u64 {
    let ord = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    ord(a).abs_diff(ord(b))
}

/// Small deterministic generator (xorshift), values in [-1, 1).
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn vec(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| scale * self.next()).collect()
    }
}

#[test]
fn gelu_erf_and_normal_cdf_f64_against_mpmath() {
    let table = include_str!("testdata/gelu_erf_f64.txt");
    let rows: Vec<[f64; 3]> = table
        .lines()
        .map(|l| {
            let mut it = l
                .split(' ')
                .map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap()));
            [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
        })
        .collect();
    assert!(rows.len() > 1000);
    let xs: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    each_isa(|isa| {
        let mut y = vec![0.0; xs.len()];
        gelu_erf(&xs, &mut y);
        for (r, &v) in rows.iter().zip(&y) {
            let d = ulps(v, r[1]);
            assert!(
                d <= 5,
                "{isa:?}: gelu_erf({:e}) = {v:e}, mpmath {:e} ({d} ulp)",
                r[0],
                r[1]
            );
        }
    });
    for r in &rows {
        let (cdf, _, _) = math::normal_cdf_pdf::<f64, Unfused>(r[0], 1.0);
        let d = ulps(cdf, r[2]);
        assert!(
            d <= 4,
            "Φ({:e}) = {cdf:e}, mpmath {:e} ({d} ulp)",
            r[0],
            r[2]
        );
    }
}

#[test]
fn blocking_tables_are_consistent() {
    for isa in Isa::ALL {
        for (mr, nr, kc, mc, nc) in [
            {
                let k = micro::micro_f64(isa);
                (k.mr, k.nr, k.kc, k.mc, k.nc)
            },
            {
                let k = micro::micro_f32(isa);
                (k.mr, k.nr, k.kc, k.mc, k.nc)
            },
        ] {
            assert!(
                mr * nr <= 8 * 32,
                "{isa:?}: tile larger than the edge buffer"
            );
            assert!(
                mc % mr == 0 && nc % nr == 0 && kc > 0,
                "{isa:?}: blocks not whole panels"
            );
        }
    }
}

fn naive_lse(row: &[f64]) -> f64 {
    let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    m + row.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
}

/// Matrix `rows x cols` with leading dimension `cols + pad`, padding NaN.
fn padded(g: &mut Gen, rows: usize, cols: usize, pad: usize, scale: f64) -> Vec<f64> {
    let mut v = g.vec(rows * (cols + pad), scale);
    for i in 0..rows {
        for j in cols..cols + pad {
            v[i * (cols + pad) + j] = f64::NAN;
        }
    }
    v
}

const SHAPES: [(usize, usize); 6] = [(0, 3), (3, 0), (1, 1), (4, 17), (3, 40), (2, 5)];

#[test]
fn row_kernels_against_references_and_each_other() {
    each_isa(|isa| {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        for (s, &(rows, cols)) in SHAPES.iter().enumerate() {
            let (pad, ld) = (s % 3, cols + s % 3);
            let x = padded(&mut g, rows, cols, pad, 30.0);
            let dx = padded(&mut g, rows, cols, pad, 1.0);
            let c = padded(&mut g, rows, cols, pad, 1.0);
            let xv = MatRef::with_ld(&x, rows, cols, ld);
            let (dxv, cv) = (
                MatRef::with_ld(&dx, rows, cols, ld),
                MatRef::with_ld(&c, rows, cols, ld),
            );
            let at = |m: &[f64], i: usize, j: usize| m[i * ld + j];
            let ctx = format!("{isa:?} {rows}x{cols}");
            // logsumexp
            let (mut out, mut d_out) = (vec![0.0; rows], vec![0.0; rows]);
            logsumexp_jvp(xv, dxv, &mut out, &mut d_out);
            let mut out2 = vec![0.0; rows];
            logsumexp(xv, &mut out2);
            assert_eq!(out, out2, "{ctx}");
            for (i, &o) in out.iter().enumerate() {
                let row: Vec<f64> = (0..cols).map(|j| at(&x, i, j)).collect();
                let want = naive_lse(&row);
                let close = o == want || (o - want).abs() <= 1e-14 * want.abs().max(1.0);
                assert!(close, "{ctx}: lse {o} vs {want}");
            }
            let mut x_bar = padded(&mut g, rows, cols, pad, 1.0);
            let x_bar0 = x_bar.clone();
            logsumexp_vjp(xv, &d_out, MatMut::with_ld(&mut x_bar, rows, cols, ld));
            // <J dx, d_out> = <dx, Jᵀ d_out>
            let lhs: f64 = d_out.iter().map(|v| v * v).sum();
            let rhs: f64 = (0..rows)
                .flat_map(|i| (0..cols).map(move |j| (i, j)))
                .map(|(i, j)| (at(&x_bar, i, j) - at(&x_bar0, i, j)) * at(&dx, i, j))
                .sum();
            assert!(
                (lhs - rhs).abs() <= 1e-12 * (1.0 + lhs.abs()),
                "{ctx}: lse dot test"
            );
            for i in 0..rows {
                for j in cols..ld {
                    assert!(x_bar[i * ld + j].is_nan(), "{ctx}: padding written");
                }
            }
            // softmax and log_softmax: forward vs naive, JVP vs central differences, VJP vs JVP.
            for log in [false, true] {
                let (mut y, mut dy) = (vec![0.0; rows * ld], vec![0.0; rows * ld]);
                let (ym, dym) = (
                    MatMut::with_ld(&mut y, rows, cols, ld),
                    MatMut::with_ld(&mut dy, rows, cols, ld),
                );
                if log {
                    log_softmax_jvp(xv, dxv, ym, dym);
                } else {
                    softmax_jvp(xv, dxv, ym, dym);
                }
                let h = 1e-6;
                for i in 0..rows {
                    let row: Vec<f64> = (0..cols).map(|j| at(&x, i, j)).collect();
                    let f = |r: &[f64], j: usize| {
                        let l = r[j] - naive_lse(r);
                        if log {
                            l
                        } else {
                            l.exp()
                        }
                    };
                    let plus: Vec<f64> = (0..cols).map(|j| row[j] + h * at(&dx, i, j)).collect();
                    let minus: Vec<f64> = (0..cols).map(|j| row[j] - h * at(&dx, i, j)).collect();
                    for j in 0..cols {
                        let want = f(&row, j);
                        assert!(
                            (at(&y, i, j) - want).abs() <= 1e-13 * want.abs().max(1.0),
                            "{ctx}"
                        );
                        let fd = (f(&plus, j) - f(&minus, j)) / (2.0 * h);
                        assert!(
                            (at(&dy, i, j) - fd).abs() <= 1e-6,
                            "{ctx} log={log}: dy {fd}"
                        );
                    }
                }
                let mut x_bar = padded(&mut g, rows, cols, pad, 1.0);
                let x_bar0 = x_bar.clone();
                let xbm = MatMut::with_ld(&mut x_bar, rows, cols, ld);
                if log {
                    log_softmax_vjp(xv, cv, xbm);
                } else {
                    softmax_vjp(xv, cv, xbm);
                }
                let (mut lhs, mut rhs) = (0.0, 0.0);
                for i in 0..rows {
                    for j in 0..cols {
                        lhs += at(&dy, i, j) * at(&c, i, j);
                        rhs += (at(&x_bar, i, j) - at(&x_bar0, i, j)) * at(&dx, i, j);
                    }
                }
                assert!(
                    (lhs - rhs).abs() <= 1e-12 * (1.0 + lhs.abs()),
                    "{ctx}: dot test"
                );
            }
        }
    });
}

#[test]
fn row_kernels_do_not_overflow_and_f32_agrees() {
    each_isa(|_| {
        let x = [1e308, 1e308 - 1e293, -1e308, f64::NEG_INFINITY];
        let mut y = [0.0; 4];
        softmax(MatRef::new(&x, 1, 4), MatMut::new(&mut y, 1, 4));
        assert!(y.iter().all(|v| v.is_finite()) && (y.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        let mut out = [0.0];
        logsumexp(MatRef::new(&[f64::NEG_INFINITY; 3], 1, 3), &mut out);
        assert_eq!(out, [f64::NEG_INFINITY]);
        let x32 = [1.0f32, 2.0, 3.0, 80.0, 85.0, 88.0];
        let x64: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
        let (mut y32, mut y64) = ([0.0f32; 6], [0.0f64; 6]);
        log_softmax(MatRef::new(&x32, 2, 3), MatMut::new(&mut y32, 2, 3));
        log_softmax(MatRef::new(&x64, 2, 3), MatMut::new(&mut y64, 2, 3));
        for (a, b) in y32.iter().zip(&y64) {
            // f32 rounding of the row's logsumexp (about 88) is 4e-6.
            assert!(
                (*a as f64 - b).abs() <= 1e-5 * b.abs().max(1.0),
                "{a} vs {b}"
            );
        }
    });
}

#[test]
fn losses_against_references_and_each_other() {
    each_isa(|isa| {
        let mut g = Gen(42);
        // MSE
        for n in [1, 7, 40] {
            let (p, t, dp) = (g.vec(n, 3.0), g.vec(n, 3.0), g.vec(n, 1.0));
            let want: f64 = p
                .iter()
                .zip(&t)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                / n as f64;
            let (l, dl) = mse_jvp(&p, &t, &dp);
            assert!(
                (l - want).abs() <= 1e-14 * want && l == mse(&p, &t),
                "{isa:?} mse"
            );
            let fd = (mse(&add(&p, &dp, 1e-6), &t) - mse(&add(&p, &dp, -1e-6), &t)) / 2e-6;
            assert!(
                (dl - fd).abs() <= 1e-7 * (1.0 + fd.abs()),
                "{isa:?} mse jvp"
            );
            let mut pb = vec![1.0; n];
            mse_vjp(&p, &t, 0.5, &mut pb);
            let rhs: f64 = pb.iter().zip(&dp).map(|(b, d)| (b - 1.0) * d).sum();
            assert!(
                (0.5 * dl - rhs).abs() <= 1e-12 * (1.0 + rhs.abs()),
                "{isa:?} mse vjp"
            );
        }
        // Cross-entropy, labels and one-hot (the same loss), and soft targets.
        let (rows, cols) = (5, 7);
        let x = g.vec(rows * cols, 4.0);
        let dx = g.vec(rows * cols, 1.0);
        let labels = [0, 6, 3, 3, 1];
        let mut onehot = vec![0.0; rows * cols];
        for (i, &l) in labels.iter().enumerate() {
            onehot[i * cols + l] = 1.0;
        }
        let soft: Vec<f64> = (0..rows * cols)
            .map(|i| ((i * 7 % 5) as f64) / 10.0)
            .collect();
        fn m(v: &[f64]) -> MatRef<'_, f64> {
            MatRef::new(v, 5, 7)
        }
        let want: f64 = (0..rows)
            .map(|i| naive_lse(&x[i * cols..][..cols]) - x[i * cols + labels[i]])
            .sum::<f64>()
            / rows as f64;
        let l1 = cross_entropy_labels(m(&x), &labels);
        let l2 = cross_entropy_onehot(m(&x), m(&onehot));
        assert!((l1 - want).abs() <= 1e-14 * want.abs() && (l2 - want).abs() <= 1e-14 * want.abs());
        type Loss<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;
        let cases: [(Loss, &[f64]); 3] = [
            (Box::new(|v| cross_entropy_labels(m(v), &labels)), &onehot),
            (
                Box::new(|v| cross_entropy_onehot(m(v), m(&onehot))),
                &onehot,
            ),
            (Box::new(|v| cross_entropy_onehot(m(v), m(&soft))), &soft),
        ];
        for (case, (loss, t)) in cases.iter().enumerate() {
            let (l, dl) = if case == 0 {
                cross_entropy_labels_jvp(m(&x), &labels, m(&dx))
            } else {
                cross_entropy_onehot_jvp(m(&x), m(t), m(&dx))
            };
            assert_eq!(l, loss(&x), "{isa:?} case {case}");
            let fd = (loss(&add(&x, &dx, 1e-6)) - loss(&add(&x, &dx, -1e-6))) / 2e-6;
            assert!(
                (dl - fd).abs() <= 1e-7 * (1.0 + fd.abs()),
                "{isa:?} case {case}: {dl} {fd}"
            );
            let mut xb = vec![1.0; rows * cols];
            let xbm = MatMut::new(&mut xb, rows, cols);
            if case == 0 {
                cross_entropy_labels_vjp(m(&x), &labels, 2.0, xbm);
            } else {
                cross_entropy_onehot_vjp(m(&x), m(t), 2.0, xbm);
            }
            let rhs: f64 = xb.iter().zip(&dx).map(|(b, d)| (b - 1.0) * d).sum();
            assert!(
                (2.0 * dl - rhs).abs() <= 1e-12 * (1.0 + rhs.abs()),
                "{isa:?} case {case}"
            );
        }
        // A zero target ignores an infinite logit.
        let l = cross_entropy_onehot(
            MatRef::new(&[0.0, f64::NEG_INFINITY], 1, 2),
            MatRef::new(&[1.0, 0.0], 1, 2),
        );
        assert_eq!(l, 0.0);
    });
}

fn add(a: &[f64], d: &[f64], h: f64) -> Vec<f64> {
    a.iter().zip(d).map(|(x, y)| x + h * y).collect()
}

#[test]
#[should_panic(
    expected = "kernels::cross_entropy_labels: label 3 of row 1 is out of range (3 classes)"
)]
fn label_out_of_range_panics() {
    cross_entropy_labels(MatRef::new(&[0.0; 6], 2, 3), &[0, 3]);
}

#[test]
#[should_panic(expected = "kernels::softmax: x must be a row-major view, not a transposed one")]
fn transposed_softmax_panics() {
    softmax(
        MatRef::new(&[0.0; 6], 2, 3).t(),
        MatMut::new(&mut [0.0; 6], 3, 2),
    );
}
