//! Calls of differentiated functions that write through `&mut` arguments (issue 9), from
//! differentiated code: ODE integrators calling a right-hand side, a likelihood filling workspace
//! buffers through helpers, in-place steps composed. Both modes against central differences and
//! by the dot-product test.

// The functions are written as people write them (index loops, `&Vec` arguments).
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::useless_vec,
    clippy::redundant_slicing
)]

mod common;
use autodiff_runtime::differentiate;
use common::*;

/// A damped pendulum's right-hand side, filling `dy`.
#[differentiate]
fn rhs(y: &[f64], k: f64, dy: &mut [f64]) {
    dy[0] = y[1];
    dy[1] = -k * y[0].sin() - 0.1 * y[1];
}

/// Explicit Euler steps through `rhs` into a local buffer.
#[differentiate]
fn euler(y0: &[f64], k: f64, steps: usize) -> Vec<f64> {
    let mut y = y0.to_vec();
    let mut dy = vec![0.0; y.len()];
    for _ in 0..steps {
        rhs(&y, k, &mut dy);
        for i in 0..y.len() {
            y[i] += 0.1 * dy[i];
        }
    }
    y
}

/// The same right-hand side on arrays.
#[differentiate]
fn rhs2(y: &[f64; 2], k: f64, dy: &mut [f64; 2]) {
    dy[0] = y[1];
    dy[1] = -k * y[0].sin() - 0.1 * y[1];
}

/// Classic Runge-Kutta 4 in place on the state, with local stage arrays.
#[differentiate]
fn rk4(y: &mut [f64; 2], k: f64, h: f64, steps: usize) {
    let mut k1 = [0.0; 2];
    let mut k2 = [0.0; 2];
    let mut k3 = [0.0; 2];
    let mut k4 = [0.0; 2];
    for _ in 0..steps {
        let y0 = *y;
        rhs2(&y0, k, &mut k1);
        let mut t = [0.0; 2];
        for i in 0..2 {
            t[i] = y0[i] + 0.5 * h * k1[i];
        }
        rhs2(&t, k, &mut k2);
        for i in 0..2 {
            t[i] = y0[i] + 0.5 * h * k2[i];
        }
        rhs2(&t, k, &mut k3);
        for i in 0..2 {
            t[i] = y0[i] + h * k3[i];
        }
        rhs2(&t, k, &mut k4);
        for i in 0..2 {
            y[i] = y0[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
}

/// Log-weights normalised in place.
#[differentiate]
fn log_softmax_in_place(v: &mut [f64]) {
    let mut m = v[0];
    for i in 1..v.len() {
        m = m.max(v[i]);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += (v[i] - m).exp();
    }
    let l = m + s.ln();
    for i in 0..v.len() {
        v[i] -= l;
    }
}

/// Per-component log-densities of one point, written into `out`.
#[differentiate]
fn component_terms(x: f64, means: &[f64], log_w: &[f64], out: &mut [f64]) {
    for j in 0..means.len() {
        out[j] = log_w[j] - 0.5 * (x - means[j]).powi(2);
    }
}

#[differentiate]
fn logsumexp(v: &[f64]) -> f64 {
    let mut m = v[0];
    for i in 1..v.len() {
        m = m.max(v[i]);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += (v[i] - m).exp();
    }
    m + s.ln()
}

/// A mixture-model log-likelihood that fills workspace buffers through three helpers.
#[differentiate(wrt(x, means, weights))]
fn mixture(x: &[f64], means: &[f64], weights: &[f64], lw: &mut [f64], terms: &mut [f64]) -> f64 {
    lw.copy_from_slice(weights);
    log_softmax_in_place(lw);
    let mut total = 0.0;
    for i in 0..x.len() {
        component_terms(x[i], means, lw, terms);
        let l = logsumexp(terms);
        total += l;
    }
    total
}

/// An in-place step composed with itself through a `&mut` argument passed on bare, and a call
/// whose result is used.
#[differentiate]
fn step(s: &mut [f64], dt: f64) -> f64 {
    let e = s[0] * s[1];
    s[0] += dt * s[1];
    s[1] -= dt * s[0].sin();
    e
}

#[differentiate]
fn two_steps(s: &mut [f64], dt: f64) -> f64 {
    let e1 = step(s, dt);
    let e2 = step(s, 0.5 * dt);
    if e1 > e2 {
        step(s, dt);
    }
    e1 + e2 * s[1]
}

/// `copy_from_slice`, `fill` and `swap` on buffers and their sub-slices.
#[differentiate]
fn shuffle_and_copy(x: &[f64], out: &mut [f64]) {
    out[..2].copy_from_slice(&x[1..3]);
    out[2..].fill(x[0] * x[3]);
    out.swap(0, 3);
    let mut t = vec![0.0; 4];
    t.copy_from_slice(out);
    t.swap(1, 2);
    for i in 0..4 {
        out[i] = t[i] * x[i] + out[i].sin();
    }
}

#[differentiate]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[1] + a[1] * b[0]
}

/// A `&mut` argument passed on bare next to a shared re-borrow of itself: the callee reads both.
#[differentiate]
fn reads_twice(r: &mut [f64], x: f64) -> f64 {
    let d = dot2(r, &*r);
    r[0] = d * x;
    d
}

/// `iter_mut` loops: scaling in place, zipped with another sequence, enumerated, on a window.
#[differentiate]
fn iter_mut_forms(x: &[f64], s: f64, out: &mut [f64]) {
    for y in out.iter_mut() {
        *y *= s;
    }
    for (y, &a) in out.iter_mut().zip(x) {
        *y = y.sin() + a * *y;
    }
    for (i, y) in out.iter_mut().enumerate() {
        if i % 2 == 0 {
            *y += x[i] * s;
        }
    }
    for y in out[1..3].iter_mut() {
        *y = (*y).tanh();
    }
    let mut t = vec![1.0; 4];
    for y in &mut t {
        *y = *y * s + 0.5;
    }
    out[0] += t[0] * t[3];
}

/// A recurrent cell updating its state in place: hidden and cell halves by `split_at_mut`.
#[differentiate]
fn rnn_cell(state: &mut [f64], w: &[f64], x: f64) {
    let n = state.len() / 2;
    let (h, c) = state.split_at_mut(n);
    for i in 0..n {
        let g = (w[i] * h[i] + w[n + i] * x).tanh();
        c[i] = 0.5 * c[i] + g;
        let gate = 1.0 / (1.0 + (-w[i] * x).exp());
        h[i] = c[i].tanh() * gate;
    }
}

/// An in-place radix-2 FFT: bit-reversal permutation by `swap`, butterflies over `chunks_mut`.
#[differentiate]
fn fft(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j ^= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let ang = -2.0 * std::f64::consts::PI / len as f64;
        let half = len / 2;
        for (cr, ci) in re.chunks_mut(len).zip(im.chunks_mut(len)) {
            for k in 0..half {
                let (wr, wi) = ((ang * k as f64).cos(), (ang * k as f64).sin());
                let (ur, ui) = (cr[k], ci[k]);
                let vr = cr[k + half] * wr - ci[k + half] * wi;
                let vi = cr[k + half] * wi + ci[k + half] * wr;
                cr[k] = ur + vr;
                ci[k] = ui + vi;
                cr[k + half] = ur - vr;
                ci[k + half] = ui - vi;
            }
        }
        len <<= 1;
    }
}

/// `chunks_exact_mut` (the remainder untouched) and `chunks_exact` reading pairs.
#[differentiate]
fn pairs_in_place(v: &mut [f64], s: f64) -> f64 {
    for c in v.chunks_exact_mut(2) {
        let a = c[0];
        c[0] = a * c[1] * s;
        c[1] = (a - c[1]).sin();
    }
    let mut e = 0.0;
    for c in v.chunks_exact(2) {
        e += c[0] * c[1];
    }
    e
}

#[test]
fn euler_steps_through_a_right_hand_side() {
    for steps in [0usize, 1, 4] {
        Harness::new(3)
            .primal(|p| euler(&p[0..2], p[2], steps))
            .jvp(|p, d| euler_jvp(&p[0..2], p[2], steps, &d[0..2], d[2]))
            .vjp(|p, c, g| {
                let (gy, gk) = g.split_at_mut(2);
                euler_vjp(&p[0..2], p[2], steps, gy, &mut gk[0], c)
            })
            .random(4, -1.0, 1.0);
    }
}

#[test]
fn runge_kutta_in_place_with_stage_arrays() {
    let (h, steps) = (0.2, 3);
    Harness::new(3)
        .primal(|p| {
            let mut y = [p[0], p[1]];
            rk4(&mut y, p[2], h, steps);
            y.to_vec()
        })
        .jvp(|p, d| {
            let mut y = [p[0], p[1]];
            let mut dy = [d[0], d[1]];
            rk4_jvp(&mut y, p[2], h, steps, &mut dy, d[2], 0.0);
            (y.to_vec(), dy.to_vec())
        })
        .vjp(|p, c, g| {
            let mut y = [p[0], p[1]];
            let mut by = [c[0], c[1]];
            let mut gh = 0.0;
            rk4_vjp(&mut y, p[2], h, steps, &mut by, &mut g[2], &mut gh);
            g[0] += by[0];
            g[1] += by[1];
            y.to_vec()
        })
        .random(4, -1.0, 1.0);
    // The step size is active too: d y / d h against central differences.
    let run = |h: f64| {
        let mut y = [0.4, -0.2];
        rk4(&mut y, 1.3, h, steps);
        y
    };
    let e = 1e-6;
    let (a, b) = (run(h + e), run(h - e));
    let mut y = [0.4, -0.2];
    let mut dy = [0.0, 0.0];
    rk4_jvp(&mut y, 1.3, h, steps, &mut dy, 0.0, 1.0);
    for i in 0..2 {
        let fd = (a[i] - b[i]) / (2.0 * e);
        assert!((dy[i] - fd).abs() < 1e-8, "{i}: {} vs {fd}", dy[i]);
    }
}

#[test]
fn mixture_likelihood_fills_workspaces_through_three_helpers() {
    let n = 4;
    Harness::new(n + 4)
        .primal(|p| {
            let (mut lw, mut terms) = ([7.0; 2], [7.0; 2]);
            vec![mixture(
                &p[0..n],
                &p[n..n + 2],
                &p[n + 2..],
                &mut lw,
                &mut terms,
            )]
        })
        .jvp(|p, d| {
            let (mut lw, mut terms) = ([7.0; 2], [7.0; 2]);
            let (v, dv) = mixture_jvp(
                &p[0..n],
                &p[n..n + 2],
                &p[n + 2..],
                &mut lw,
                &mut terms,
                &d[0..n],
                &d[n..n + 2],
                &d[n + 2..],
            );
            (vec![v], vec![dv])
        })
        .vjp(|p, c, g| {
            let (mut lw, mut terms) = ([7.0; 2], [7.0; 2]);
            let (gx, rest) = g.split_at_mut(n);
            let (gm, gw) = rest.split_at_mut(2);
            vec![mixture_vjp(
                &p[0..n],
                &p[n..n + 2],
                &p[n + 2..],
                &mut lw,
                &mut terms,
                gx,
                gm,
                gw,
                c[0],
            )]
        })
        .random(4, -1.0, 1.0);
}

type SliceStep = fn(&mut [f64], f64) -> f64;
type SliceStepJvp = fn(&mut [f64], f64, &mut [f64], f64) -> (f64, f64);
type SliceStepVjp = fn(&mut [f64], f64, &mut [f64], &mut f64, f64) -> f64;

/// A function of a two-element in-out slice and a float, flattened as (s, x) -> (s, value).
fn slice_step_harness(f: SliceStep, jvp: SliceStepJvp, vjp: SliceStepVjp) -> Harness<'static> {
    Harness::new(3)
        .primal(move |p| {
            let mut s = p[0..2].to_vec();
            let v = f(&mut s, p[2]);
            vec![s[0], s[1], v]
        })
        .jvp(move |p, d| {
            let mut s = p[0..2].to_vec();
            let mut ds = d[0..2].to_vec();
            let (v, dv) = jvp(&mut s, p[2], &mut ds, d[2]);
            (vec![s[0], s[1], v], vec![ds[0], ds[1], dv])
        })
        .vjp(move |p, c, g| {
            let mut s = p[0..2].to_vec();
            let mut bs = c[0..2].to_vec();
            let v = vjp(&mut s, p[2], &mut bs, &mut g[2], c[2]);
            g[0] += bs[0];
            g[1] += bs[1];
            vec![s[0], s[1], v]
        })
}

#[test]
fn in_place_steps_composed_through_bare_mut_arguments() {
    slice_step_harness(two_steps, two_steps_jvp, two_steps_vjp).random(6, -1.0, 1.0);
}

#[test]
fn copy_from_slice_fill_and_swap() {
    Harness::new(8)
        .primal(|p| {
            let mut out = p[4..8].to_vec();
            shuffle_and_copy(&p[0..4], &mut out);
            out
        })
        .jvp(|p, d| {
            let mut out = p[4..8].to_vec();
            let mut dout = d[4..8].to_vec();
            shuffle_and_copy_jvp(&p[0..4], &mut out, &d[0..4], &mut dout);
            (out, dout)
        })
        .vjp(|p, c, g| {
            let mut out = p[4..8].to_vec();
            let mut bout = c.to_vec();
            let (gx, gout) = g.split_at_mut(4);
            shuffle_and_copy_vjp(&p[0..4], &mut out, gx, &mut bout);
            for k in 0..4 {
                gout[k] += bout[k];
            }
            out
        })
        .random(4, -1.0, 1.0);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_from_slice_keeps_its_length_check() {
    // `t.copy_from_slice(out)` with `t` of length 4 and `out` of length 5.
    let mut out = vec![0.0; 5];
    let mut dout = vec![0.0; 5];
    shuffle_and_copy_jvp(&[1.0, 2.0, 3.0, 4.0], &mut out, &[0.0; 4], &mut dout);
}

#[test]
fn mut_argument_passed_bare_next_to_a_shared_reborrow() {
    slice_step_harness(reads_twice, reads_twice_jvp, reads_twice_vjp).random(4, -1.0, 1.0);
}

#[test]
fn iter_mut_loops_write_elements_in_place() {
    Harness::new(9)
        .primal(|p| {
            let mut out = p[5..9].to_vec();
            iter_mut_forms(&p[0..4], p[4], &mut out);
            out
        })
        .jvp(|p, d| {
            let mut out = p[5..9].to_vec();
            let mut dout = d[5..9].to_vec();
            iter_mut_forms_jvp(&p[0..4], p[4], &mut out, &d[0..4], d[4], &mut dout);
            (out, dout)
        })
        .vjp(|p, c, g| {
            let mut out = p[5..9].to_vec();
            let mut bout = c.to_vec();
            let (gx, rest) = g.split_at_mut(4);
            let (gs, gout) = rest.split_at_mut(1);
            iter_mut_forms_vjp(&p[0..4], p[4], &mut out, gx, &mut gs[0], &mut bout);
            for k in 0..4 {
                gout[k] += bout[k];
            }
            out
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn recurrent_cell_in_place_with_split_at_mut() {
    Harness::new(9)
        .primal(|p| {
            let mut s = p[0..4].to_vec();
            rnn_cell(&mut s, &p[4..8], p[8]);
            s
        })
        .jvp(|p, d| {
            let mut s = p[0..4].to_vec();
            let mut ds = d[0..4].to_vec();
            rnn_cell_jvp(&mut s, &p[4..8], p[8], &mut ds, &d[4..8], d[8]);
            (s, ds)
        })
        .vjp(|p, c, g| {
            let mut s = p[0..4].to_vec();
            let mut bs = c.to_vec();
            let (gs, rest) = g.split_at_mut(4);
            let (gw, gx) = rest.split_at_mut(4);
            rnn_cell_vjp(&mut s, &p[4..8], p[8], &mut bs, gw, &mut gx[0]);
            for k in 0..4 {
                gs[k] += bs[k];
            }
            s
        })
        .random(4, -1.0, 1.0);
}

#[test]
fn radix_2_fft_in_place_over_chunks_mut() {
    let n = 8;
    // The transform of a delta is flat, and the FFT is linear: its jvp is the FFT of the tangent.
    let (mut re, mut im) = (vec![0.0; n], vec![0.0; n]);
    re[0] = 1.0;
    fft(&mut re, &mut im);
    assert!(re.iter().all(|&x| (x - 1.0).abs() < 1e-12) && im.iter().all(|&x| x.abs() < 1e-12));
    // Against the O(n^2) transform.
    let x: Vec<f64> = (0..n)
        .map(|k| (k as f64 * 0.7).sin() + 0.1 * k as f64)
        .collect();
    let (mut re, mut im) = (x.clone(), vec![0.0; n]);
    fft(&mut re, &mut im);
    for f in 0..n {
        let (mut sr, mut si) = (0.0, 0.0);
        for (k, xk) in x.iter().enumerate() {
            let a = -2.0 * std::f64::consts::PI * (f * k) as f64 / n as f64;
            sr += xk * a.cos();
            si += xk * a.sin();
        }
        assert!(
            (re[f] - sr).abs() < 1e-12 && (im[f] - si).abs() < 1e-12,
            "bin {f}"
        );
    }
    Harness::new(2 * n)
        .primal(|p| {
            let (mut re, mut im) = (p[0..n].to_vec(), p[n..].to_vec());
            fft(&mut re, &mut im);
            re.extend(im);
            re
        })
        .jvp(|p, d| {
            let (mut re, mut im) = (p[0..n].to_vec(), p[n..].to_vec());
            let (mut dre, mut dim) = (d[0..n].to_vec(), d[n..].to_vec());
            fft_jvp(&mut re, &mut im, &mut dre, &mut dim);
            re.extend(im);
            dre.extend(dim);
            (re, dre)
        })
        .vjp(|p, c, g| {
            let (mut re, mut im) = (p[0..n].to_vec(), p[n..].to_vec());
            let (mut bre, mut bim) = (c[0..n].to_vec(), c[n..].to_vec());
            fft_vjp(&mut re, &mut im, &mut bre, &mut bim);
            for k in 0..n {
                g[k] += bre[k];
                g[n + k] += bim[k];
            }
            re.extend(im);
            re
        })
        .random(3, -1.0, 1.0);
}

#[test]
fn chunks_exact_leave_the_remainder() {
    for n in [4usize, 5] {
        Harness::new(n + 1)
            .primal(|p| {
                let mut v = p[0..n].to_vec();
                let e = pairs_in_place(&mut v, p[n]);
                v.push(e);
                v
            })
            .jvp(|p, d| {
                let mut v = p[0..n].to_vec();
                let mut dv = d[0..n].to_vec();
                let (e, de) = pairs_in_place_jvp(&mut v, p[n], &mut dv, d[n]);
                v.push(e);
                dv.push(de);
                (v, dv)
            })
            .vjp(|p, c, g| {
                let mut v = p[0..n].to_vec();
                let mut bv = c[0..n].to_vec();
                let (gv, gs) = g.split_at_mut(n);
                let e = pairs_in_place_vjp(&mut v, p[n], &mut bv, &mut gs[0], c[n]);
                for k in 0..n {
                    gv[k] += bv[k];
                }
                v.push(e);
                v
            })
            .random(3, -1.0, 1.0);
    }
    // The odd element is left as it was.
    let mut v = [1.0, 2.0, 3.0, 4.0, 5.0];
    pairs_in_place(&mut v, 1.0);
    assert_eq!(v[4], 5.0);
}

// ---------------------------------------------------------------------------------------------
// An in-out argument passed on bare to callees that only read it (`&[f64]`, `&[f64; 3]`): was
// `&&mut [f64; 3]` in the generated code (E0308).

#[differentiate]
fn weigh_slice(p: &[f64]) -> f64 {
    p[0] * p[1] + p[2].sin()
}

#[differentiate]
fn weigh_array(p: &[f64; 3]) -> f64 {
    p[0] * p[2] - p[1].cos()
}

#[differentiate]
fn read_through_callees(p: &mut [f64; 3], x: f64) -> f64 {
    p[1] = x * p[0];
    let r = weigh_slice(p) * x + weigh_array(p);
    p[0] = r.tanh();
    r
}

/// The same argument outside `wrt`: a workspace with a tangent and adjoint of its own.
#[differentiate(wrt(x))]
fn read_workspace_through_a_callee(p: &mut [f64; 3], x: f64) -> f64 {
    p[1] = x * x;
    weigh_slice(p) * x
}

#[differentiate]
fn read_vec_through_a_callee(p: &mut Vec<f64>, x: f64) -> f64 {
    p[1] = x * p[0];
    let r = weigh_slice(p) * x;
    p[2] = r;
    r
}

#[test]
fn mut_array_passed_bare_to_read_only_callees() {
    Harness::new(4)
        .primal(|p| {
            let mut y = [p[0], p[1], p[2]];
            let r = read_through_callees(&mut y, p[3]);
            vec![r, y[0], y[1], y[2]]
        })
        .jvp(|p, d| {
            let mut y = [p[0], p[1], p[2]];
            let mut dy = [d[0], d[1], d[2]];
            let (r, dr) = read_through_callees_jvp(&mut y, p[3], &mut dy, d[3]);
            (vec![r, y[0], y[1], y[2]], vec![dr, dy[0], dy[1], dy[2]])
        })
        .vjp(|p, c, g| {
            let mut y = [p[0], p[1], p[2]];
            let mut by = [c[1], c[2], c[3]];
            let r = read_through_callees_vjp(&mut y, p[3], &mut by, &mut g[3], c[0]);
            for i in 0..3 {
                g[i] += by[i];
            }
            vec![r, y[0], y[1], y[2]]
        })
        .random(4, -1.0, 1.0);
    let ws = [0.3, -0.7, 1.1];
    Harness::new(1)
        .primal(|p| vec![read_workspace_through_a_callee(&mut ws.clone(), p[0])])
        .jvp(|p, d| {
            let (r, dr) = read_workspace_through_a_callee_jvp(&mut ws.clone(), p[0], d[0]);
            (vec![r], vec![dr])
        })
        .vjp(|p, c, g| {
            let r = read_workspace_through_a_callee_vjp(&mut ws.clone(), p[0], &mut g[0], c[0]);
            vec![r]
        })
        .random(4, -1.0, 1.0);
    Harness::new(4)
        .primal(|p| {
            let mut y = p[..3].to_vec();
            let r = read_vec_through_a_callee(&mut y, p[3]);
            vec![r, y[0], y[1], y[2]]
        })
        .jvp(|p, d| {
            let mut y = p[..3].to_vec();
            let mut dy = d[..3].to_vec();
            let (r, dr) = read_vec_through_a_callee_jvp(&mut y, p[3], &mut dy, d[3]);
            (vec![r, y[0], y[1], y[2]], vec![dr, dy[0], dy[1], dy[2]])
        })
        .vjp(|p, c, g| {
            let mut y = p[..3].to_vec();
            let mut by = c[1..4].to_vec();
            let r = read_vec_through_a_callee_vjp(&mut y, p[3], &mut by, &mut g[3], c[0]);
            for i in 0..3 {
                g[i] += by[i];
            }
            vec![r, y[0], y[1], y[2]]
        })
        .random(4, -1.0, 1.0);
}
