// The `ad_bug_*` cfgs gate constructs the macro rejects at compile time (see the ignored tests).
#![allow(unexpected_cfgs)]
// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

use num_traits::Float;

// ---------------------------------------------------------------------------------------------
// Functions under test
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn f(x: f64) -> f64 {
    x.sin() * x
}

#[differentiate]
fn my_loss(x: f64, v: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += (v[i] - x).powi(2);
    }
    s / (n as f64)
}

#[differentiate]
fn loss2d(p: [f64; 2], w: &[f64; 3], data: &Vec<f64>) -> f64 {
    let mut s = w[0] * p[0] + w[1] * p[1] + w[2];
    for &d in data.iter() {
        s += (d * p[0]).tanh() * w[1];
    }
    s * s
}

#[differentiate]
fn a_b_c(a: f64, b: f32) -> f64 {
    a * (b as f64)
}

#[differentiate]
fn gen_loss<T: Float>(x: T, v: &[T]) -> T {
    let mut s = T::zero();
    for &e in v {
        s = s + (e * x).sin();
    }
    s
}

#[differentiate(wrt(b))]
fn partial(a: f64, b: f64, c: f64) -> f64 {
    a * b.exp() + c
}

/// Argument names that collide with the generated `d<arg>` and `seed` names.
#[differentiate]
fn collide(x: f64, dx: f64, seed: f64) -> f64 {
    x * dx + seed.sin()
}

#[differentiate]
fn multi_out(x: f64, v: &[f64]) -> (f64, f64, f64) {
    (x * v[0], v[1] * v[1], x.exp())
}

#[differentiate]
fn arr_out(x: f64, v: &[f64]) -> [f64; 3] {
    [x * v[0], v[1] * v[1], x.exp()]
}

#[differentiate]
fn vec_out(v: &[f64], a: f64) -> Vec<f64> {
    let mut o = v.to_vec();
    for i in 0..o.len() {
        o[i] = o[i].sin() * a;
    }
    o
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-13 * (1.0 + a.abs().max(b.abs()))
}

fn all_close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y))
}

// ---------------------------------------------------------------------------------------------
// Names, fields and field types of the gradient struct
// ---------------------------------------------------------------------------------------------

#[test]
fn struct_names_and_field_types() {
    // The bindings spell out the struct names and field types.
    let (_, g): (f64, FGrad) = f_grad(0.3);
    let _: f64 = g.x;

    let (_, g): (f64, MyLossGrad) = my_loss_grad(0.3, &[1.0, 2.0, 3.0], 3);
    let _: f64 = g.x;
    let _: Vec<f64> = g.v.clone();
    assert_eq!(g.v.len(), 3);

    let data = vec![0.5, -0.25];
    let (_, g): (f64, Loss2dGrad) = loss2d_grad([0.1, 0.2], &[1.0, 2.0, 3.0], &data);
    let _: [f64; 2] = g.p;
    let _: [f64; 3] = g.w;
    let _: Vec<f64> = g.data.clone();
    assert_eq!(g.data.len(), 2);

    let (_, g): (f64, ABCGrad) = a_b_c_grad(1.5, 2.0f32);
    let _: f64 = g.a;
    let _: f32 = g.b;

    let (_, g): (f64, GenLossGrad<f64>) = gen_loss_grad(0.5, &[1.0, 2.0]);
    let _: f64 = g.x;
    let _: Vec<f64> = g.v.clone();
    let (_, g): (f32, GenLossGrad<f32>) = gen_loss_grad(0.5f32, &[1.0f32, 2.0]);
    let _: f32 = g.x;
    let _: Vec<f32> = g.v.clone();

    // wrt(b): only that field.
    let (val, g): (f64, PartialGrad) = partial_grad(1.0, 2.0, 3.0);
    assert_eq!(val, partial(1.0, 2.0, 3.0));
    assert_eq!(g, PartialGrad { b: 2.0f64.exp() });

    let (_, g): (f64, CollideGrad) = collide_grad(2.0, 3.0, 0.5);
    assert_eq!(
        g,
        CollideGrad {
            x: 3.0,
            dx: 2.0,
            seed: 0.5f64.cos()
        }
    );
}

#[test]
fn struct_derives_clone_debug_partialeq() {
    let (_, g) = my_loss_grad(0.3, &[1.0, 2.0], 2);
    let h = g.clone();
    assert_eq!(g, h);
    let text = format!("{g:?}");
    assert!(
        text.contains("MyLossGrad") && text.contains('x') && text.contains('v'),
        "{text}"
    );
    let mut k = h.clone();
    k.x += 1.0;
    assert_ne!(g, k);
}

// ---------------------------------------------------------------------------------------------
// _grad agrees with _vjp at seed 1 and with the function's value
// ---------------------------------------------------------------------------------------------

#[test]
fn grad_matches_vjp_seed_one_scalar() {
    for &x in &[-1.3, 0.2, 0.9, 2.5] {
        let (val, g) = f_grad(x);
        assert_eq!(val, f(x));
        let mut dx = 0.0;
        assert_eq!(f_vjp(x, &mut dx, 1.0), val);
        assert_eq!(g, FGrad { x: dx });
        // d/dx x sin x = sin x + x cos x.
        assert!(
            close(g.x, x.sin() + x * x.cos()),
            "{} vs {}",
            g.x,
            x.sin() + x * x.cos()
        );
    }
}

#[test]
fn grad_matches_vjp_seed_one_slices() {
    let v = [0.4, -1.1, 2.0, 0.7];
    for &x in &[-0.5, 0.3, 1.7] {
        for n in 1..=4 {
            let (val, g) = my_loss_grad(x, &v, n);
            assert_eq!(val, my_loss(x, &v, n));
            let mut dx = 0.0;
            let mut dv = vec![0.0; 4];
            assert_eq!(my_loss_vjp(x, &v, n, &mut dx, &mut dv, 1.0), val);
            assert_eq!(
                g,
                MyLossGrad {
                    x: dx,
                    v: dv.clone()
                }
            );
            // Analytic: dx = -2/n Σ (v_i - x), dv_i = 2/n (v_i - x) for i < n, 0 beyond.
            let nf = n as f64;
            let ex: f64 = -2.0 / nf * v[..n].iter().map(|e| e - x).sum::<f64>();
            assert!(close(g.x, ex), "{} vs {ex}", g.x);
            for i in 0..4 {
                let e = if i < n { 2.0 / nf * (v[i] - x) } else { 0.0 };
                assert!(close(g.v[i], e), "v[{i}]: {} vs {e}", g.v[i]);
            }
        }
    }
}

#[test]
fn grad_matches_vjp_seed_one_arrays_vec() {
    let data = vec![0.5, -0.25, 1.5];
    let w = [0.3, -0.7, 1.1];
    for p in [[0.1, 0.2], [-1.0, 0.5], [2.0, -0.3]] {
        let (val, g) = loss2d_grad(p, &w, &data);
        assert_eq!(val, loss2d(p, &w, &data));
        let mut dp = [0.0; 2];
        let mut dw = [0.0; 3];
        let mut dd = vec![0.0; 3];
        assert_eq!(
            loss2d_vjp(p, &w, &data, &mut dp, &mut dw, &mut dd, 1.0),
            val
        );
        assert_eq!(
            g,
            Loss2dGrad {
                p: dp,
                w: dw,
                data: dd
            }
        );
        // And the harness on the same function: each gradient entry against central differences.
        let (_, gj) = loss2d_jvp(p, &w, &data, [1.0, 0.0], &[0.0; 3], &[0.0; 3]);
        assert!(close(gj, g.p[0]) || (gj - g.p[0]).abs() < 1e-12);
    }
    Harness::new(8)
        .primal(|q| vec![loss2d([q[0], q[1]], &[q[2], q[3], q[4]], &q[5..].to_vec())])
        .jvp(|q, t| {
            let (v, d) = loss2d_jvp(
                [q[0], q[1]],
                &[q[2], q[3], q[4]],
                &q[5..].to_vec(),
                [t[0], t[1]],
                &[t[2], t[3], t[4]],
                &t[5..],
            );
            (vec![v], vec![d])
        })
        .vjp(|q, c, g| {
            let (val, gr) = loss2d_grad([q[0], q[1]], &[q[2], q[3], q[4]], &q[5..].to_vec());
            // _grad is _vjp at seed 1: scaling by the seed gives seed^T J.
            for (k, e) in gr.p.iter().chain(&gr.w).chain(&gr.data).enumerate() {
                g[k] += c[0] * e;
            }
            vec![val]
        })
        .random(5, -1.0, 1.0);
}

#[test]
fn grad_generic_f64_and_f32() {
    let v = [0.4, -1.1, 2.0];
    let (val, g) = gen_loss_grad(0.7, &v);
    assert_eq!(val, gen_loss(0.7, &v));
    let mut dx = 0.0;
    let mut dv = [0.0; 3];
    assert_eq!(gen_loss_vjp(0.7, &v, &mut dx, &mut dv, 1.0), val);
    assert_eq!(
        g,
        GenLossGrad {
            x: dx,
            v: dv.to_vec()
        }
    );

    let v32 = [0.4f32, -1.1, 2.0];
    let (val, g) = gen_loss_grad(0.7f32, &v32);
    let mut dx = 0.0f32;
    let mut dv = [0.0f32; 3];
    assert_eq!(gen_loss_vjp(0.7f32, &v32, &mut dx, &mut dv, 1.0), val);
    assert_eq!(
        g,
        GenLossGrad {
            x: dx,
            v: dv.to_vec()
        }
    );
    // Against the f64 gradient, to f32 accuracy.
    let (_, g64) = gen_loss_grad(0.7f32 as f64, &to64(&v32));
    assert!((g.x as f64 - g64.x).abs() < 1e-5 * (1.0 + g64.x.abs()));
    for i in 0..3 {
        assert!((g.v[i] as f64 - g64.v[i]).abs() < 1e-5 * (1.0 + g64.v[i].abs()));
    }
}

#[test]
fn grad_with_mixed_float_types() {
    for &(a, b) in &[(1.5, 2.0f32), (-0.3, 0.25f32)] {
        let (val, g) = a_b_c_grad(a, b);
        assert_eq!(val, a_b_c(a, b));
        let mut da = 0.0;
        let mut db = 0.0f32;
        assert_eq!(a_b_c_vjp(a, b, &mut da, &mut db, 1.0), val);
        assert_eq!(g, ABCGrad { a: da, b: db });
        assert_eq!(g.a, b as f64);
        assert_eq!(g.b, a as f32);
    }
}

#[test]
fn grad_of_argument_names_that_collide() {
    // The companions still take their arguments by position.
    Harness::new(3)
        .primal(|p| vec![collide(p[0], p[1], p[2])])
        .jvp(|p, t| {
            let (v, d) = collide_jvp(p[0], p[1], p[2], t[0], t[1], t[2]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let mut it = g.iter_mut();
            let (a, b, s) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            vec![collide_vjp(p[0], p[1], p[2], a, b, s, c[0])]
        })
        .random(5, -2.0, 2.0);
}

// ---------------------------------------------------------------------------------------------
// _vjp accumulates into its buffers
// ---------------------------------------------------------------------------------------------

#[test]
fn vjp_adds_into_nonzero_buffers() {
    let v = [0.4, -1.1, 2.0];
    let (_, g) = my_loss_grad(0.3, &v, 3);
    let mut dx = 10.0;
    let mut dv = [1.0, -2.0, 3.0];
    my_loss_vjp(0.3, &v, 3, &mut dx, &mut dv, 1.0);
    assert!(close(dx, 10.0 + g.x));
    assert!(all_close(&dv, &[1.0 + g.v[0], -2.0 + g.v[1], 3.0 + g.v[2]]));
    // A second call adds again.
    my_loss_vjp(0.3, &v, 3, &mut dx, &mut dv, 1.0);
    assert!(close(dx, 10.0 + 2.0 * g.x));
    assert!(all_close(
        &dv,
        &[1.0 + 2.0 * g.v[0], -2.0 + 2.0 * g.v[1], 3.0 + 2.0 * g.v[2]]
    ));
    // Elements the function does not read stay as they were.
    let mut dx = 0.0;
    let mut dv = [7.0, 8.0, 9.0];
    my_loss_vjp(0.3, &v, 1, &mut dx, &mut dv, 1.0);
    assert_eq!(dv[1..], [8.0, 9.0]);
    assert!(close(dv[0], 7.0 + 2.0 * (v[0] - 0.3)));
}

#[test]
fn vjp_adds_into_nonzero_array_and_vec_buffers() {
    let data = vec![0.5, -0.25];
    let w = [0.3, -0.7, 1.1];
    let p = [0.1, 0.2];
    let (_, g) = loss2d_grad(p, &w, &data);
    let mut dp = [1.0, 2.0];
    let mut dw = [-1.0, 0.0, 1.0];
    let mut dd = vec![100.0, -100.0];
    loss2d_vjp(p, &w, &data, &mut dp, &mut dw, &mut dd, 1.0);
    assert!(all_close(&dp, &[1.0 + g.p[0], 2.0 + g.p[1]]));
    assert!(all_close(&dw, &[-1.0 + g.w[0], g.w[1], 1.0 + g.w[2]]));
    assert!(all_close(&dd, &[100.0 + g.data[0], -100.0 + g.data[1]]));
}

#[test]
fn vjp_adds_into_nonzero_buffers_f32() {
    let v = [0.4f32, -1.1];
    let (_, g) = gen_loss_grad(0.3f32, &v);
    let mut dx = 5.0f32;
    let mut dv = [1.0f32, -1.0];
    gen_loss_vjp(0.3f32, &v, &mut dx, &mut dv, 1.0);
    assert_eq!(dx, 5.0 + g.x);
    assert_eq!(dv, [1.0 + g.v[0], -1.0 + g.v[1]]);
}

#[test]
fn vjp_accumulates_across_different_functions() {
    // One buffer shared by two functions: the total is the sum of both gradients.
    let v = [0.4, -1.1, 2.0];
    let mut dx = 0.0;
    let mut dv = [0.0; 3];
    my_loss_vjp(0.3, &v, 3, &mut dx, &mut dv, 1.0);
    gen_loss_vjp(0.3, &v, &mut dx, &mut dv, 1.0);
    let (_, g1) = my_loss_grad(0.3, &v, 3);
    let (_, g2) = gen_loss_grad(0.3, &v);
    assert!(close(dx, g1.x + g2.x));
    for i in 0..3 {
        assert!(close(dv[i], g1.v[i] + g2.v[i]));
    }
}

#[test]
fn vjp_accumulates_with_wrt_and_collisions() {
    let mut db = 1.0;
    partial_vjp(1.0, 2.0, 3.0, &mut db, 1.0);
    assert!(close(db, 1.0 + 2.0f64.exp()));
    let (mut a, mut b, mut s) = (1.0, 2.0, 3.0);
    collide_vjp(2.0, 3.0, 0.5, &mut a, &mut b, &mut s, 1.0);
    assert!(close(a, 4.0) && close(b, 4.0) && close(s, 3.0 + 0.5f64.cos()));
}

// ---------------------------------------------------------------------------------------------
// Seed scaling
// ---------------------------------------------------------------------------------------------

#[test]
fn seed_scales_the_gradient() {
    let v = [0.4, -1.1, 2.0];
    let (_, g) = my_loss_grad(0.3, &v, 3);
    for &s in &[2.0, 0.5, -1.0, -4.0] {
        // Powers of two: the scaling is exact.
        let mut dx = 0.0;
        let mut dv = [0.0; 3];
        let val = my_loss_vjp(0.3, &v, 3, &mut dx, &mut dv, s);
        assert_eq!(
            val,
            my_loss(0.3, &v, 3),
            "the value does not depend on the seed"
        );
        assert_eq!(dx, s * g.x);
        assert_eq!(dv.to_vec(), g.v.iter().map(|e| s * e).collect::<Vec<_>>());
    }
    for &s in &[3.0, -0.3, 1e-3, 7.25e4] {
        let mut dx = 0.0;
        let mut dv = [0.0; 3];
        my_loss_vjp(0.3, &v, 3, &mut dx, &mut dv, s);
        assert!(close(dx, s * g.x), "seed {s}: {dx} vs {}", s * g.x);
        for i in 0..3 {
            assert!(
                close(dv[i], s * g.v[i]),
                "seed {s}: {} vs {}",
                dv[i],
                s * g.v[i]
            );
        }
    }
    // Seed zero adds nothing.
    let mut dx = 1.5;
    let mut dv = [1.0, 2.0, 3.0];
    my_loss_vjp(0.3, &v, 3, &mut dx, &mut dv, 0.0);
    assert_eq!(dx, 1.5);
    assert_eq!(dv, [1.0, 2.0, 3.0]);
}

#[test]
fn seed_scaling_tuple_and_array_outputs() {
    let v = [0.4, -1.1];
    let x = 0.6;
    // One output component at a time: the sum of the pieces is the whole.
    let seeds = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut rows = Vec::new();
    for s in seeds {
        let mut dx = 0.0;
        let mut dv = [0.0; 2];
        let val = multi_out_vjp(x, &v, &mut dx, &mut dv, (s[0], s[1], s[2]));
        assert_eq!(val, multi_out(x, &v));
        let mut ax = 0.0;
        let mut av = [0.0; 2];
        let val = arr_out_vjp(x, &v, &mut ax, &mut av, s);
        assert_eq!(val, arr_out(x, &v));
        assert_eq!((ax, av), (dx, dv));
        rows.push((dx, dv));
    }
    // Analytic rows: y0 = x v0, y1 = v1^2, y2 = e^x.
    assert!(close(rows[0].0, v[0]) && close(rows[0].1[0], x) && rows[0].1[1] == 0.0);
    assert!(rows[1].0 == 0.0 && rows[1].1[0] == 0.0 && close(rows[1].1[1], 2.0 * v[1]));
    assert!(close(rows[2].0, x.exp()) && rows[2].1 == [0.0, 0.0]);
    let (a, b, c) = (0.5, -2.0, 3.0);
    let mut dx = 0.0;
    let mut dv = [0.0; 2];
    multi_out_vjp(x, &v, &mut dx, &mut dv, (a, b, c));
    assert!(close(dx, a * rows[0].0 + c * rows[2].0));
    assert!(close(dv[0], a * rows[0].1[0]));
    assert!(close(dv[1], b * rows[1].1[1]));
    let mut ax = 0.0;
    let mut av = [0.0; 2];
    arr_out_vjp(x, &v, &mut ax, &mut av, [a, b, c]);
    assert!(close(ax, dx) && close(av[0], dv[0]) && close(av[1], dv[1]));
    // Exact scaling by a power of two.
    let mut sx = 0.0;
    let mut sv = [0.0; 2];
    multi_out_vjp(x, &v, &mut sx, &mut sv, (2.0 * a, 2.0 * b, 2.0 * c));
    assert_eq!((sx, sv), (2.0 * dx, [2.0 * dv[0], 2.0 * dv[1]]));
    // And the whole thing through the harness.
    Harness::new(3)
        .primal(|p| {
            let (s, t, u) = multi_out(p[0], &p[1..]);
            vec![s, t, u]
        })
        .jvp(|p, t| {
            let ((s, a, b), (ds, da, db)) = multi_out_jvp(p[0], &p[1..], t[0], &t[1..]);
            (vec![s, a, b], vec![ds, da, db])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            let (s, t, u) = multi_out_vjp(p[0], &p[1..], &mut a[0], b, (c[0], c[1], c[2]));
            vec![s, t, u]
        })
        .random(5, -1.5, 1.5);
    Harness::new(3)
        .primal(|p| arr_out(p[0], &p[1..]).to_vec())
        .jvp(|p, t| {
            let (v, d) = arr_out_jvp(p[0], &p[1..], t[0], &t[1..]);
            (v.to_vec(), d.to_vec())
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            arr_out_vjp(p[0], &p[1..], &mut a[0], b, [c[0], c[1], c[2]]).to_vec()
        })
        .random(5, -1.5, 1.5);
}

#[test]
fn seed_scaling_vec_output() {
    let v = [0.4, -1.1, 2.0];
    let a = 1.7;
    let mut base_v = [0.0; 3];
    let mut base_a = 0.0;
    let seed = [1.0, -0.5, 2.0];
    vec_out_vjp(&v, a, &mut base_v, &mut base_a, &seed);
    for &s in &[2.0, -0.25] {
        let scaled: Vec<f64> = seed.iter().map(|e| s * e).collect();
        let mut dv = [0.0; 3];
        let mut da = 0.0;
        let val = vec_out_vjp(&v, a, &mut dv, &mut da, &scaled);
        assert_eq!(val, vec_out(&v, a));
        assert_eq!(da, s * base_a);
        assert_eq!(dv, [s * base_v[0], s * base_v[1], s * base_v[2]]);
    }
    // Analytic: o_i = sin(v_i) a.
    for i in 0..3 {
        assert!(close(base_v[i], seed[i] * v[i].cos() * a));
    }
    let ea: f64 = (0..3).map(|i| seed[i] * v[i].sin()).sum();
    assert!(close(base_a, ea));
}

#[test]
fn seed_scaling_f32() {
    let v = [0.4f32, -1.1];
    let (_, g) = gen_loss_grad(0.3f32, &v);
    let mut dx = 0.0f32;
    let mut dv = [0.0f32; 2];
    gen_loss_vjp(0.3f32, &v, &mut dx, &mut dv, -2.0);
    assert_eq!(dx, -2.0 * g.x);
    assert_eq!(dv, [-2.0 * g.v[0], -2.0 * g.v[1]]);
}

/// A generic differentiated function, and the companions called from the user's own generic
/// code: there the float type is bounded by `Scalar` (what the generated companions require).
#[differentiate]
fn generic_energy<T: num_traits::Float>(k: T, x: &[T]) -> T {
    let mut e = T::zero();
    for i in 0..x.len() {
        e = e + k * x[i] * x[i];
    }
    e
}

fn gradient_from_generic_code<T: autodiff_runtime::Scalar>(k: T, x: &[T]) -> (T, T, Vec<T>) {
    let (value, g) = generic_energy_grad(k, x);
    let mut dk = T::zero();
    let mut dx = vec![T::zero(); x.len()];
    let again = generic_energy_vjp(k, x, &mut dk, &mut dx, T::one());
    assert!(again == value && value == generic_energy(k, x) && dk == g.k && dx == g.x);
    (value, g.k, g.x)
}

#[test]
fn companions_called_from_generic_code_bounded_by_scalar() {
    let (v, dk, dx) = gradient_from_generic_code(0.5_f64, &[1.0, -2.0, 3.0]);
    assert_eq!(v, 7.0);
    assert_eq!(dk, 14.0);
    assert_eq!(dx, vec![1.0, -2.0, 3.0]);
    let (v32, dk32, dx32) = gradient_from_generic_code(2.0_f32, &[1.5, 0.5]);
    assert_eq!(v32, 5.0);
    assert_eq!(dk32, 2.5);
    assert_eq!(dx32, vec![6.0, 2.0]);
}
