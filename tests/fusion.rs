//! Loop fusion for reductions (issue 12, item 1): takes functions whose loops meet only in sums
//! (and some that must not fuse: sums used non-linearly after the loop, loops reading an earlier
//! sum, loops writing arrays), gives checks of their `_vjp` against central differences (through
//! `_jvp`) and the dot-product test, the value, and accumulation into the adjoint buffers. Which
//! loops fuse is tested in the macro crate (`analysis/fusion.rs`); here the gradients must be
//! right whichever way each function is emitted. f64 and f32.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

/// `f(x: &[f64]) -> f64` in both modes.
macro_rules! chk_slice {
    ($n:expr, $f:ident, $fj:ident, $fv:ident) => {
        Harness::new($n)
            .primal(|p| vec![$f(p)])
            .jvp(|p, t| {
                let (v, d) = $fj(p, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![$fv(p, g, c[0])])
    };
}

/// `f(x: &[f32]) -> f32` in both modes.
macro_rules! chk_slice32 {
    ($n:expr, $f:ident, $fj:ident, $fv:ident) => {
        Harness::new($n)
            .f32()
            .primal(|p| vec![$f(&to32(p)) as f64])
            .jvp(|p, t| {
                let (v, d) = $fj(&to32(p), &to32(t));
                (vec![v as f64], vec![d as f64])
            })
            .vjp(|p, c, g| {
                let mut g32 = to32(g);
                let v = $fv(&to32(p), &mut g32, c[0] as f32);
                g.copy_from_slice(&to64(&g32));
                vec![v as f64]
            })
    };
}

// ---------------------------------------------------------------------------------------------
// 1. A sum returned directly: the extended Rosenbrock sum (fused, with its adjoint window)

#[differentiate]
fn rosen(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
    }
    s
}

#[differentiate]
fn rosen32(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
    }
    s
}

/// The same sum walked downwards, with `-=`: the fused loop's window moves down.
#[differentiate]
fn rosen_down(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (1..x.len()).rev() {
        let t = x[i] - x[i - 1] * x[i - 1];
        s -= 0.5 * t * t - x[i].sin();
    }
    -s
}

#[test]
fn rosenbrock_sums() {
    chk_slice!(6, rosen, rosen_jvp, rosen_vjp).random(4, -1.5, 1.5);
    chk_slice32!(5, rosen32, rosen32_jvp, rosen32_vjp).random(3, -1.0, 1.0);
    chk_slice!(7, rosen_down, rosen_down_jvp, rosen_down_vjp).random(4, -1.5, 1.5);
    // The gradient itself, against the closed form.
    let x = [0.3, -1.2, 0.7, 2.0];
    let mut g = [0.0; 4];
    rosen_vjp(&x, &mut g, 1.0);
    let mut want = [0.0; 4];
    for i in 0..3 {
        let t = x[i + 1] - x[i] * x[i];
        want[i] += -400.0 * x[i] * t - 2.0 * (1.0 - x[i]);
        want[i + 1] += 200.0 * t;
    }
    for k in 0..4 {
        assert!(
            (g[k] - want[k]).abs() < 1e-12 * (1.0 + want[k].abs()),
            "{g:?} {want:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Loops reading locals computed before them; accumulators used after the loop

#[differentiate]
fn reads_locals(x: &[f64]) -> f64 {
    let c = x[0] * x[1];
    let d = c.sin() + x[2];
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = c * x[i];
        s += a * a + d * x[i].cos();
    }
    2.0 * s - c
}

/// The sum squared after the loop: its adjoint needs its value (not fused; still right).
#[differentiate]
fn sum_then_square(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i].exp();
    }
    s * s
}

/// The sum reassigned after the loop, linearly and not.
#[differentiate]
fn sum_reassigned(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    s = s + 1.0;
    let t = 3.0 * s - x[0];
    s = t * s;
    s + t
}

/// The sum read by a later loop (the first loop cannot know its adjoint before the second).
#[differentiate]
fn sum_feeds_loop(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        a += x[i] * x[i];
    }
    let mut b = 0.0;
    for j in 0..x.len() {
        b += a * x[j].sin();
    }
    b
}

/// An array written by one loop, summed by the next.
#[differentiate]
fn array_then_sum(x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = x[i] * x[(i + 1) % n];
    }
    let mut s = 0.0;
    for j in 0..n {
        s += y[j] * y[j] + x[j];
    }
    s
}

#[test]
fn locals_and_uses_after_the_loop() {
    chk_slice!(5, reads_locals, reads_locals_jvp, reads_locals_vjp).random(4, -1.0, 1.0);
    chk_slice!(4, sum_then_square, sum_then_square_jvp, sum_then_square_vjp).random(4, -1.0, 1.0);
    chk_slice!(4, sum_reassigned, sum_reassigned_jvp, sum_reassigned_vjp).random(4, -1.0, 1.0);
    chk_slice!(4, sum_feeds_loop, sum_feeds_loop_jvp, sum_feeds_loop_vjp).random(4, -1.0, 1.0);
    chk_slice!(5, array_then_sum, array_then_sum_jvp, array_then_sum_vjp).random(4, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// 3. Two accumulators, branches, chains of loops, a tuple output

#[differentiate]
fn two_sums(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    let mut q = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += c * x[i] * x[i];
        } else {
            q -= (c * x[i]).sin();
        }
        s += 0.1 * x[i];
    }
    let m = 0.5 * s - q;
    m + s * 2.0
}

#[differentiate]
fn chain(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        a += x[i] * x[i];
    }
    let mut b = 0.0;
    let k = x[0] * 3.0;
    for j in 0..x.len() {
        b += (k * x[j]).cos();
    }
    let mut e = 0.0;
    for i in (0..x.len()).step_by(2) {
        e -= x[i].exp();
    }
    a + 3.0 * b - e
}

#[differentiate]
fn sums_out(x: &[f64]) -> (f64, f64) {
    let mut s = 0.0;
    let mut p = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
        p += x[i] * x[i];
    }
    (s, p - s)
}

#[test]
fn two_accumulators_and_chains() {
    Harness::new(5)
        .primal(|p| vec![two_sums(&p[..4], p[4])])
        .jvp(|p, t| {
            let (v, d) = two_sums_jvp(&p[..4], p[4], &t[..4], t[4]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (gx, gc) = g.split_at_mut(4);
            vec![two_sums_vjp(&p[..4], p[4], gx, &mut gc[0], c[0])]
        })
        .random(6, -1.0, 1.0);
    chk_slice!(5, chain, chain_jvp, chain_vjp).random(4, -1.0, 1.0);
    Harness::new(4)
        .primal(|p| {
            let (a, b) = sums_out(p);
            vec![a, b]
        })
        .jvp(|p, t| {
            let ((a, b), (da, db)) = sums_out_jvp(p, t);
            (vec![a, b], vec![da, db])
        })
        .vjp(|p, c, g| {
            let (a, b) = sums_out_vjp(p, g, (c[0], c[1]));
            vec![a, b]
        })
        .random(4, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// 4. Iterator chains, nested inner loops, calls, values saved in the body

#[differentiate]
fn iter_sum(x: &[f64], y: &[f64]) -> f64 {
    let a: f64 = x.iter().map(|v| v * v.sin()).sum();
    let b: f64 = x.iter().zip(y.iter()).map(|(p, q)| p * q).sum();
    a + b
}

#[differentiate]
fn iter_sum32(x: &[f32]) -> f32 {
    x.iter().map(|v| v * v.cos()).sum::<f32>()
}

#[differentiate]
fn nested(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let mut inner = 0.0;
        for j in 0..i {
            inner += x[j] * x[i];
        }
        let mut w = vec![0.0; 3];
        for k in 0..3 {
            w[k] = x[i] * (k as f64 + 1.0);
        }
        s += inner.tanh() + w[0] * w[2];
    }
    s
}

#[differentiate]
fn sq(v: f64) -> f64 {
    v * v.sin()
}

#[differentiate]
fn calls_in_body(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let a = sq(x[i]);
        if x[i] > 0.0 {
            let b = sq(a + x[i]);
            s += b * a;
        } else {
            s += a.exp();
        }
    }
    s
}

#[test]
fn iterators_nested_loops_and_calls() {
    Harness::new(6)
        .primal(|p| vec![iter_sum(&p[..3], &p[3..])])
        .jvp(|p, t| {
            let (v, d) = iter_sum_jvp(&p[..3], &p[3..], &t[..3], &t[3..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (gx, gy) = g.split_at_mut(3);
            vec![iter_sum_vjp(&p[..3], &p[3..], gx, gy, c[0])]
        })
        .random(4, -1.0, 1.0);
    chk_slice32!(4, iter_sum32, iter_sum32_jvp, iter_sum32_vjp).random(3, -1.0, 1.0);
    chk_slice!(5, nested, nested_jvp, nested_vjp).random(4, -1.0, 1.0);
    chk_slice!(5, calls_in_body, calls_in_body_jvp, calls_in_body_vjp).random(6, -1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// 5. Scratch sequences (filled by each iteration before it reads them), counters split out of
//    the loop (`transform/fission.rs`), written values read back from a restored element

/// A two-layer network's loss: `hidden` is filled by each sample before it is read; `count`
/// is split out so the loss's seed is known before the fused loop.
#[differentiate(wrt(w1, w2))]
#[allow(clippy::too_many_arguments)]
fn mlp(w1: &[f64], w2: &[f64], xs: &[f64], ys: &[f64], d: usize, h: usize, o: usize) -> f64 {
    let batch = xs.len() / d;
    let mut hidden = vec![0.0; h];
    let mut loss = 0.0;
    let mut count = 0.0;
    for b in 0..batch {
        for i in 0..h {
            let mut z = 0.1 * i as f64;
            for j in 0..d {
                z += w1[i * d + j] * xs[b * d + j];
            }
            hidden[i] = z.tanh();
        }
        for r in 0..o {
            let mut y = 0.0;
            for i in 0..h {
                y += w2[r * h + i] * hidden[i];
            }
            let e = y - ys[b * o + r];
            loss += e * e;
            count += 1.0;
        }
    }
    loss / count
}

#[differentiate(wrt(w1, w2))]
fn mlp32(w1: &[f32], w2: &[f32], xs: &[f32], d: usize, h: usize) -> f32 {
    let batch = xs.len() / d;
    let mut hidden = vec![0.0f32; h];
    let mut loss = 0.0f32;
    let mut n = 0;
    for b in 0..batch {
        for i in 0..h {
            let mut z = 0.0f32;
            for j in 0..d {
                z += w1[i * d + j] * xs[b * d + j];
            }
            hidden[i] = z.sin();
        }
        let mut y = 0.0f32;
        for i in 0..h {
            y += w2[i] * hidden[i] * hidden[i];
        }
        loss += y.exp();
        n += 1;
    }
    loss * 0.5 / n as f32
}

/// Two scratch sequences, one filled over two ranges, read in nested loops and under a
/// branch; an integer counter and a `-=` counter; the sums used non-linearly after the loop.
#[differentiate]
fn scratch_two(x: &[f64], c: f64) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    let mut t = vec![0.0; 3];
    let mut s = 0.0;
    let mut m = 0;
    let mut neg: f64 = 0.0;
    for k in 0..4 {
        for i in 0..n {
            a[i] = (x[i] * (k as f64 + c)).exp();
        }
        for q in 0..3 {
            t[q] = x[q].cos() * c;
        }
        for r in 0..2 {
            for i in 0..n {
                if x[i] > 0.0 {
                    s += a[i] * x[(i + r) % n];
                }
                m += 1;
                neg -= 2.0;
            }
        }
        for q in 0..3 {
            s += t[q] * t[q];
        }
    }
    s / (m as f64) + neg.abs().ln() * c
}

/// A scratch sequence read after the loop does not fuse; written values of a restored sequence
/// are still read back for their rules (`exp`, `sqrt`).
#[differentiate]
fn scratch_read_after(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    let mut s = 0.0;
    for k in 0..3 {
        for i in 0..n {
            a[i] = (x[i] * k as f64).exp();
        }
        for i in 0..n {
            s += a[i] * x[i];
        }
    }
    for i in 1..n {
        a[i] = (a[i - 1] * a[i] + 1.0).sqrt();
    }
    s + a[n - 1]
}

const XS: [f64; 6] = [0.5, -1.0, 0.25, 0.75, -0.5, 1.5];
const YS: [f64; 6] = [0.3, -0.2, 0.1, 0.4, -0.6, 0.05];

#[test]
fn scratch_sequences_and_counters() {
    // w1: 3 x 2, w2: 2 x 3; three samples.
    Harness::new(12)
        .primal(|p| vec![mlp(&p[..6], &p[6..], &XS, &YS, 2, 3, 2)])
        .jvp(|p, t| {
            let (v, d) = mlp_jvp(&p[..6], &p[6..], &XS, &YS, 2, 3, 2, &t[..6], &t[6..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (g1, g2) = g.split_at_mut(6);
            vec![mlp_vjp(&p[..6], &p[6..], &XS, &YS, 2, 3, 2, g1, g2, c[0])]
        })
        .random(5, -1.0, 1.0);
    let xs32: Vec<f32> = XS.iter().map(|v| *v as f32).collect();
    Harness::new(9)
        .f32()
        .primal(|p| vec![mlp32(&to32(&p[..6]), &to32(&p[6..]), &xs32, 2, 3) as f64])
        .jvp(|p, t| {
            let (v, d) = mlp32_jvp(
                &to32(&p[..6]),
                &to32(&p[6..]),
                &xs32,
                2,
                3,
                &to32(&t[..6]),
                &to32(&t[6..]),
            );
            (vec![v as f64], vec![d as f64])
        })
        .vjp(|p, c, g| {
            let (mut g1, mut g2) = (to32(&g[..6]), to32(&g[6..]));
            let v = mlp32_vjp(
                &to32(&p[..6]),
                &to32(&p[6..]),
                &xs32,
                2,
                3,
                &mut g1,
                &mut g2,
                c[0] as f32,
            );
            g[..6].copy_from_slice(&to64(&g1));
            g[6..].copy_from_slice(&to64(&g2));
            vec![v as f64]
        })
        .random(3, -0.8, 0.8);
    Harness::new(6)
        .primal(|p| vec![scratch_two(&p[..5], p[5])])
        .jvp(|p, t| {
            let (v, d) = scratch_two_jvp(&p[..5], p[5], &t[..5], t[5]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (gx, gc) = g.split_at_mut(5);
            vec![scratch_two_vjp(&p[..5], p[5], gx, &mut gc[0], c[0])]
        })
        .random(5, -1.0, 1.0);
    chk_slice!(
        5,
        scratch_read_after,
        scratch_read_after_jvp,
        scratch_read_after_vjp
    )
    .random(5, 0.1, 1.0);
}
