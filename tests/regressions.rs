//! Regressions: functions whose derivatives were wrong, or whose generated code rustc rejected
//! (issue 7), each checked in both modes: value, JVP against central differences, dot-product
//! test between JVP and VJP, accumulation; f32 where the float type is what went wrong.
// Written the way the bug reports wrote them (unused loop variables included).
#![allow(clippy::all, unused_variables, unused_assignments)]
#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn clo(a: f64, b: f64) -> f64 {
    let k = |t: f64| t * 2.0;
    let t = a * 5.0;
    let r = k(b);
    r + t
}

#[differentiate]
fn sh(a: f64, b: f64) -> f64 {
    let k = |t: f64| t * a;
    let a = a * 3.0;
    k(b) + a
}

#[differentiate]
fn sz(x: f64) -> f64 {
    let z = 0.0 * x;
    (z * z).sqrt() + x
}

#[differentiate]
fn nz(x: f64, s: &[f64]) -> f64 {
    let w: Vec<f64> = s.iter().map(|&t| t * (x * 0.0).sin()).collect();
    let nrm = w.iter().map(|&t| t * t).sum::<f64>().sqrt() + 0.5;
    x / nrm
}

#[differentiate]
fn pmin(a: f64) -> f64 {
    f64::min(0.5, a)
}

#[differentiate]
fn gsum<T: num_traits::Float + std::iter::Sum>(w: &[T]) -> T {
    let work = w.to_vec();
    let r: T = work.iter().copied().sum();
    r
}

#[differentiate]
fn vret(a: f64, n: usize) -> Vec<f64> {
    if n == 0 {
        return vec![0.0; 3];
    }
    vec![a; 3]
}

#[differentiate]
fn colloop(v: &[f64]) -> f64 {
    let mut acc = 0.0;
    for i in 0..v.len() {
        let ys = v.to_vec();
        acc += ys[i];
    }
    acc
}

#[differentiate]
fn lp(x: f64, s: &[f64]) -> f64 {
    let mut acc1: f64 = 0.5;
    for it in 0..3 {
        let ys: Vec<f64> = s.iter().map(|&t| t * x).collect();
        for &t in ys.iter() {
            acc1 += t * acc1.tanh();
        }
    }
    acc1
}

#[differentiate]
fn tl(x: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..3 {
        let g: f64 = 0.36 - 1.2;
        acc += x * g.sin();
    }
    acc
}

#[differentiate]
fn tt(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for l in 0..2 {
        let (p, q): (f64, f64) = (0.5, x);
        if q > -5.0 {
            s += q;
        }
    }
    s
}

#[differentiate]
fn h(p: &[f64], x: f64) -> f64 {
    p[0] * x
}

#[differentiate(wrt(a))]
fn fw(a: f64, v: &[f64]) -> f64 {
    h(v, a)
}

#[differentiate]
fn ar(a: f64, q: [f64; 3]) -> f64 {
    let u = q.to_vec();
    u[0] * a
}

#[differentiate]
fn hh(x: f64, s: &[f64]) -> f64 {
    x * s[0]
}

#[differentiate]
fn cst(a: f64, w: &[f64]) -> f64 {
    const DAMP: f64 = 1.01;
    hh(DAMP, w) * a
}

#[differentiate]
fn rows(a: f64, v: &[f64]) -> f64 {
    let mut acc = 0.0;
    for row in v.chunks(3) {
        acc += row.windows(2).map(|p| (p[1] - p[0]) * a).sum::<f64>();
    }
    acc
}

#[differentiate]
fn cl(a: f64) -> f64 {
    let g = |t: f64| t.sin() * a;
    g(0.5)
}

// f32 twins of the cases where the float type of a literal was lost.

#[differentiate]
fn pmin32(a: f32) -> f32 {
    f32::min(0.5, a) + f32::hypot(1.5, a) + f32::powf(1.5, a)
}

#[differentiate]
fn tl32(x: f32) -> f32 {
    let mut acc = 0.0;
    for i in 0..3 {
        let g: f32 = 0.36 - 1.2;
        acc += x * g.sin();
    }
    acc
}

#[differentiate]
fn cl32(a: f32) -> f32 {
    let g = |t: f32| t.sin() * a;
    g(0.5)
}

#[differentiate]
fn sz32(x: f32) -> f32 {
    let z = 0.0 * x;
    (z * z).sqrt() + x
}

/// `Float::min(0.5, a)` in generic code: the literal takes its type from `a`.
#[differentiate]
fn pmin_generic<T: num_traits::Float>(a: T) -> T {
    num_traits::Float::min(T::from(0.5).unwrap(), a) + a.min(T::one())
}

/// A module-level constant whose type the macro can see through a typed local.
const SCALE: f64 = 1.5;

#[differentiate]
fn typed_module_const(a: f64, w: &[f64]) -> f64 {
    let scale: f64 = SCALE;
    hh(scale, w) * a
}

/// Windows of a sub-slice, chunks of a chunk.
#[differentiate]
fn sub_slice_windows(a: f64, v: &[f64]) -> f64 {
    let mut acc = v[1..].windows(2).map(|p| p[0] * p[1]).sum::<f64>() * a;
    for c in v.chunks(4) {
        for d in c.chunks(2) {
            acc += d[0] * a;
        }
    }
    acc
}

#[test]
fn closure_parameter_does_not_rebind_a_later_local() {
    let (v, d) = clo_jvp(0.7, 1.3, 1.0, 0.0);
    assert_eq!(v, 2.0 * 1.3 + 5.0 * 0.7);
    assert_eq!(d, 5.0);
    chk!(clo, clo_jvp, clo_vjp; 0, 1).random(4, -2.0, 2.0);
}

#[test]
fn closure_keeps_the_binding_it_captured() {
    let (v, d) = sh_jvp(0.7, 1.3, 1.0, 0.0);
    assert_eq!(v, 1.3 * 0.7 + 0.7 * 3.0);
    assert_eq!(d, 1.3 + 3.0);
    chk!(sh, sh_jvp, sh_vjp; 0, 1).random(4, -2.0, 2.0);
}

#[test]
fn strong_zero_in_reverse_mode() {
    for x in [0.5, -1.5, 0.0] {
        let (v, g) = sz_grad(x);
        assert_eq!(v, x);
        assert_eq!(g.x, 1.0, "d/dx of sqrt((0 x)^2) + x at {x}");
        assert_eq!(sz_jvp(x, 1.0), (x, 1.0));
    }
    chk!(sz, sz_jvp, sz_vjp; 0).random(4, -2.0, 2.0);
    chk32!(sz32, sz32_jvp, sz32_vjp; 0).random(4, -2.0, 2.0);
}

#[test]
fn strong_zero_through_a_norm() {
    let s = [0.3, -1.2, 2.0];
    for x in [0.5, -1.5] {
        let (v, g) = nz_grad(x, &s);
        assert_eq!(v, x / 0.5);
        assert_eq!(g.x, 2.0);
        assert!(g.s.iter().all(|&d| d == 0.0), "{:?}", g.s);
    }
    chk_xv!(nz, nz_jvp, nz_vjp; 3).random(4, -2.0, 2.0);
}

#[test]
fn path_call_with_a_literal_receiver() {
    assert_eq!(pmin_grad(0.2), (0.2, PminGrad { a: 1.0 }));
    assert_eq!(pmin_grad(0.9), (0.5, PminGrad { a: 0.0 }));
    chk!(pmin, pmin_jvp, pmin_vjp; 0).at(&[&[0.2], &[0.9], &[-3.0]]);
    chk32!(pmin32, pmin32_jvp, pmin32_vjp; 0).at(&[&[0.2], &[0.9], &[-1.0]]);
    chk!(pmin_generic, pmin_generic_jvp, pmin_generic_vjp; 0).at(&[&[0.2], &[0.9], &[1.7]]);
}

#[test]
fn generic_sum_over_a_local_vec() {
    Harness::new(3)
        .primal(|p| vec![gsum(p)])
        .jvp(|p, t| {
            let (v, d) = gsum_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![gsum_vjp(p, g, c[0])])
        .random(3, -2.0, 2.0);
    let w = [0.5f32, 1.5, -2.0];
    let (v, g) = gsum_grad(&w);
    assert_eq!(v, 0.0f32);
    assert_eq!(g.w, vec![1.0f32; 3]);
}

#[test]
fn vec_output_constant_on_one_path() {
    for n in [0usize, 2] {
        Harness::new(1)
            .primal(|p| vret(p[0], n))
            .jvp(|p, t| vret_jvp(p[0], n, t[0]))
            .vjp(|p, c, g| vret_vjp(p[0], n, &mut g[0], c))
            .random(3, -2.0, 2.0);
    }
}

#[test]
fn vec_local_declared_inside_a_loop() {
    Harness::new(4)
        .primal(|p| vec![colloop(p)])
        .jvp(|p, t| {
            let (v, d) = colloop_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![colloop_vjp(p, g, c[0])])
        .random(3, -2.0, 2.0);
    chk_xv!(lp, lp_jvp, lp_vjp; 3).random(4, -1.0, 1.0);
}

#[test]
fn typed_constant_let_inside_a_loop() {
    chk!(tl, tl_jvp, tl_vjp; 0).random(3, -2.0, 2.0);
    chk32!(tl32, tl32_jvp, tl32_vjp; 0).random(3, -2.0, 2.0);
}

#[test]
fn typed_tuple_let_inside_a_loop() {
    assert_eq!(tt_grad(0.5, 2.0).1, TtGrad { x: 2.0, y: 0.0 });
    assert_eq!(tt_grad(-6.0, 2.0).1, TtGrad { x: 0.0, y: 0.0 });
    chk!(tt, tt_jvp, tt_vjp; 0, 1).at(&[&[0.5, 2.0], &[-6.0, 1.0]]);
}

#[test]
fn non_wrt_slice_passed_to_a_helper() {
    let v = [1.5, -0.5];
    Harness::new(1)
        .primal(|p| vec![fw(p[0], &v)])
        .jvp(|p, t| {
            let (r, d) = fw_jvp(p[0], &v, t[0]);
            (vec![r], vec![d])
        })
        .vjp(|p, c, g| vec![fw_vjp(p[0], &v, &mut g[0], c[0])])
        .random(3, -2.0, 2.0);
}

#[test]
fn to_vec_of_an_array_taken_by_value() {
    Harness::new(4)
        .primal(|p| vec![ar(p[0], [p[1], p[2], p[3]])])
        .jvp(|p, t| {
            let (v, d) = ar_jvp(p[0], [p[1], p[2], p[3]], t[0], [t[1], t[2], t[3]]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (mut a, mut q) = (0.0, [0.0; 3]);
            let v = ar_vjp(p[0], [p[1], p[2], p[3]], &mut a, &mut q, c[0]);
            g[0] += a;
            g[1..].iter_mut().zip(q).for_each(|(x, y)| *x += y);
            vec![v]
        })
        .random(3, -2.0, 2.0);
}

#[test]
fn const_items_passed_to_differentiated_calls() {
    chk_xv!(cst, cst_jvp, cst_vjp; 2).random(3, -2.0, 2.0);
    chk_xv!(typed_module_const, typed_module_const_jvp, typed_module_const_vjp; 2)
        .random(3, -2.0, 2.0);
}

#[test]
fn chains_over_the_items_of_a_chunks_loop() {
    chk_xv!(rows, rows_jvp, rows_vjp; 7).random(3, -2.0, 2.0);
    chk_xv!(sub_slice_windows, sub_slice_windows_jvp, sub_slice_windows_vjp; 7)
        .random(3, -2.0, 2.0);
}

#[test]
fn closure_with_a_typed_parameter_called_with_a_literal() {
    chk!(cl, cl_jvp, cl_vjp; 0).random(3, -2.0, 2.0);
    chk32!(cl32, cl32_jvp, cl32_vjp; 0).random(3, -2.0, 2.0);
}

/// `split_at` gives two views; `len`, indexing, `to_vec` and iteration work on them.
#[differentiate]
fn split_halves(v: &[f64], k: usize) -> f64 {
    let (h, t) = v.split_at(k);
    let tv = t.to_vec();
    h.len() as f64 * tv[0] + h[0] * h.iter().sum::<f64>() + t.iter().map(|x| x * x).sum::<f64>()
}

#[differentiate]
fn max_of_chain(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .chain(b.iter())
        .copied()
        .max_by(|x, y| x.total_cmp(y))
        .unwrap()
}

#[differentiate]
fn reduce_chain(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .chain(b.iter())
        .copied()
        .reduce(|x, y| x * y)
        .unwrap()
}

#[test]
fn split_at_gives_two_views() {
    for k in [1usize, 2, 3] {
        Harness::new(4)
            .primal(|p| vec![split_halves(p, k)])
            .jvp(|p, t| {
                let (v, d) = split_halves_jvp(p, k, t);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![split_halves_vjp(p, k, g, c[0])])
            .random(3, -2.0, 2.0);
    }
}

#[test]
fn max_by_and_reduce_after_chain() {
    for f in [
        (
            max_of_chain as fn(&[f64], &[f64]) -> f64,
            max_of_chain_jvp as fn(&[f64], &[f64], &[f64], &[f64]) -> (f64, f64),
            max_of_chain_vjp as fn(&[f64], &[f64], &mut [f64], &mut [f64], f64) -> f64,
        ),
        (reduce_chain, reduce_chain_jvp, reduce_chain_vjp),
    ] {
        let (p, j, r) = f;
        Harness::new(5)
            .primal(|x| vec![p(&x[..2], &x[2..])])
            .jvp(|x, t| {
                let (v, d) = j(&x[..2], &x[2..], &t[..2], &t[2..]);
                (vec![v], vec![d])
            })
            .vjp(|x, c, g| {
                let (ga, gb) = g.split_at_mut(2);
                vec![r(&x[..2], &x[2..], ga, gb, c[0])]
            })
            .random(3, -2.0, 2.0);
    }
}

type Real = f64;

/// An annotation with a float alias the macro cannot read: the value's shape decides.
#[differentiate]
fn float_alias_lets(a: f64) -> f64 {
    let y: Real = a * 2.0;
    let mut z: Real = 0.0;
    z = a.sin();
    a + z * y
}

#[test]
fn annotations_with_a_float_alias() {
    chk!(float_alias_lets, float_alias_lets_jvp, float_alias_lets_vjp; 0).random(4, -2.0, 2.0);
}

/// A pole (`ln` at 0) whose infinite value a selector turns finite: the strong zero applies.
#[differentiate]
fn clamped_log(x: f64) -> f64 {
    x.ln().max(-10.0) + x
}

#[test]
fn strong_zero_behind_a_selector() {
    assert_eq!(clamped_log_grad(0.0), (-10.0, ClampedLogGrad { x: 1.0 }));
    assert_eq!(clamped_log_jvp(0.0, 1.0), (-10.0, 1.0));
    chk!(clamped_log, clamped_log_jvp, clamped_log_vjp; 0).at(&[&[0.5], &[2.0], &[1e-6]]);
}

// Found by the random-program generator's new constructs (issue 7, item 4).

/// Negative literals as the first argument of path calls.
#[differentiate]
fn neg_lit_first(a: f64) -> f64 {
    f64::hypot(-1.0, a) + f64::max(-0.5, a) + f64::mul_add(-0.25, a, a) + f64::atan2(-0.75, a)
}

/// A typed tuple `let` none of whose parts is active.
#[differentiate]
fn const_tuple(x: f64) -> f64 {
    let (p, q): (f64, f64) = (0.75, 2.0);
    x * p.exp() + q + f64::sin(p)
}

/// A typed tuple `let` with one constant part read only by an unused name.
#[differentiate]
fn tuple_of_const_from_tuple(b: f64) -> f64 {
    let (p, q): (f64, f64) = (b, 2.0);
    let (r, s): (f64, f64) = (0.75, q);
    b * r + p
}

#[differentiate]
fn hw(p: f64, w: &[f64]) -> f64 {
    p * w[0]
}

/// Closures around a differentiated call on a local `Vec`, then a write the output never reads.
#[differentiate]
fn dead_write_after_closures(a: f64, n: usize) -> f64 {
    let mut w0: Vec<f64> = vec![1.0; n];
    if n > 4 {
        let f4 = |t5: f64| t5 * 0.5;
        let t6 = f4(hw(a, &w0));
        let f7 = |t8: f64| t8 * 2.0;
        let t9 = f7(t6.sin());
        w0[1] = t9.cos();
    }
    a
}

#[test]
fn generator_findings() {
    chk!(neg_lit_first, neg_lit_first_jvp, neg_lit_first_vjp; 0).at(&[&[0.3], &[-1.2], &[2.0]]);
    chk!(const_tuple, const_tuple_jvp, const_tuple_vjp; 0).random(3, -2.0, 2.0);
    chk!(tuple_of_const_from_tuple, tuple_of_const_from_tuple_jvp, tuple_of_const_from_tuple_vjp; 0)
        .random(3, -2.0, 2.0);
    for n in [3usize, 6] {
        Harness::new(1)
            .primal(|p| vec![dead_write_after_closures(p[0], n)])
            .jvp(|p, t| {
                let (v, d) = dead_write_after_closures_jvp(p[0], n, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![dead_write_after_closures_vjp(p[0], n, &mut g[0], c[0])])
            .random(3, -2.0, 2.0);
    }
}

/// A chain of values recomputed in the reverse sweep, longer than the analysis's old fixed
/// bound of eight rounds.
#[differentiate]
fn long_recompute_chain(a: f64, n: usize) -> f64 {
    let mut s = a;
    if n > 1 {
        let t1 = a.sin();
        let t2 = t1 * 2.0;
        let t3 = t2.cos();
        let t4 = t3 * t1;
        let t5 = t4.tanh();
        let t6 = t5 * 0.5;
        let t7 = t6.exp();
        let t8 = t7 * t2;
        let t9 = t8.sin();
        let t10 = t9 * 1.5;
        let t11 = t10.cos();
        let t12 = t11 * t3;
        s = t12.sin() * s;
    }
    s
}

#[test]
fn long_recompute_chains_converge() {
    for n in [1usize, 2] {
        Harness::new(1)
            .primal(|p| vec![long_recompute_chain(p[0], n)])
            .jvp(|p, t| {
                let (v, d) = long_recompute_chain_jvp(p[0], n, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![long_recompute_chain_vjp(p[0], n, &mut g[0], c[0])])
            .random(3, -1.0, 1.0);
    }
}

/// The argument `x__2` is spelt like the generated name of local `x` (variable 2): their
/// tangents must still be two variables.
#[differentiate]
#[allow(non_snake_case)]
fn twin(x__2: f64) -> f64 {
    let a = x__2 * 3.0;
    let x = a * a;
    x__2 * x
}

#[test]
fn argument_spelt_like_a_generated_local_keeps_its_own_tangent() {
    let (v, d) = twin_jvp(0.5, 1.0);
    assert_eq!(v, 0.5 * 9.0 * 0.25);
    // d/dx (9 x^3) = 27 x^2
    assert!((d - 27.0 * 0.25).abs() < 1e-12, "{d}");
    chk!(twin, twin_jvp, twin_vjp; 0).random(4, -2.0, 2.0);
}

// rustc errors in generated code for constructs accepted before (issue 9, item 3): a re-borrow
// `&*v` of a local `Vec` was passed as the `Vec` itself (E0308), and an array passed by reference
// to a differentiated call lent its adjoint as a slice where the callee takes `&mut [T; N]`
// (E0308), or, when saved for the reverse sweep, was saved as a `Vec`.

#[differentiate]
fn sq_first(x: &[f64]) -> f64 {
    x[0] * x[0] + x[1]
}

#[differentiate]
fn reborrowed_vec(a: f64) -> f64 {
    let v = vec![a, 2.0 * a];
    sq_first(&*v)
}

#[differentiate]
fn sq_first32(x: &[f32]) -> f32 {
    x[0] * x[1].sin()
}

#[differentiate]
fn reborrowed_vec32(a: f32) -> f32 {
    let v = vec![a, 2.0 * a];
    sq_first32(&*v) + sq_first32(&v)
}

#[differentiate]
fn cross3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The annotation README recommends for an array-returning call, on local arrays.
#[differentiate]
fn cross_of_locals(x: f64) -> f64 {
    let a = [x, 1.0, 2.0];
    let b = [0.5, x * x, 3.0];
    let c: [f64; 3] = cross3(&a, &b);
    c[0] + c[1] * c[2]
}

/// Arrays by reference, by value, a `mut` array overwritten before the call (saved for the
/// reverse sweep), one array passed twice.
#[differentiate]
fn cross_of_arguments(a: &[f64; 3], mut q: [f64; 3], w: [f64; 3]) -> f64 {
    q[0] = q[0] * q[1];
    let c: [f64; 3] = cross3(a, &q);
    let d: [f64; 3] = cross3(&q, &w);
    let e: [f64; 3] = cross3(&w, &w);
    c[0] + c[1] * c[2] + d[2] * q[0] + e[1]
}

#[test]
fn reborrow_of_a_local_vec_passed_to_a_call() {
    chk!(reborrowed_vec, reborrowed_vec_jvp, reborrowed_vec_vjp; 0).random(3, -2.0, 2.0);
    chk32!(reborrowed_vec32, reborrowed_vec32_jvp, reborrowed_vec32_vjp; 0).random(3, -2.0, 2.0);
}

#[test]
fn arrays_passed_by_reference_to_an_array_returning_call() {
    chk!(cross_of_locals, cross_of_locals_jvp, cross_of_locals_vjp; 0).random(3, -2.0, 2.0);
    let a3 = |p: &[f64], k: usize| -> [f64; 3] { [p[k], p[k + 1], p[k + 2]] };
    Harness::new(9)
        .primal(|p| vec![cross_of_arguments(&a3(p, 0), a3(p, 3), a3(p, 6))])
        .jvp(|p, t| {
            let (v, d) = cross_of_arguments_jvp(
                &a3(p, 0),
                a3(p, 3),
                a3(p, 6),
                &a3(t, 0),
                a3(t, 3),
                a3(t, 6),
            );
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (mut da, mut dq, mut dw) = (a3(g, 0), a3(g, 3), a3(g, 6));
            let v = cross_of_arguments_vjp(
                &a3(p, 0),
                a3(p, 3),
                a3(p, 6),
                &mut da,
                &mut dq,
                &mut dw,
                c[0],
            );
            g[..3].copy_from_slice(&da);
            g[3..6].copy_from_slice(&dq);
            g[6..].copy_from_slice(&dw);
            vec![v]
        })
        .random(3, -2.0, 2.0);
}

// An argument left out of `wrt(...)` and assigned values that depend on the active ones
// (rustc rejected the generated code: its tangent and adjoint were never declared).

#[differentiate(wrt(x))]
fn mut_arg_outside_wrt(x: f64, mut y: f64, mut q: [f64; 2]) -> f64 {
    y = y * x.sin();
    q[1] = q[0] * y + x;
    y * x + q[1] * q[1]
}

#[test]
fn mut_argument_left_out_of_wrt_becomes_active() {
    let (y, q) = (0.7, [1.5, -0.25]);
    Harness::new(1)
        .primal(|p| vec![mut_arg_outside_wrt(p[0], y, q)])
        .jvp(|p, t| {
            let (v, d) = mut_arg_outside_wrt_jvp(p[0], y, q, t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![mut_arg_outside_wrt_vjp(p[0], y, q, &mut g[0], c[0])])
        .random(3, -2.0, 2.0);
}

/// `f64::atan(k)` with `k` bound to an unsuffixed literal: the path fixes `k`'s type in the
/// original; the generated code must not turn it into `k.atan()` on an ambiguous float (found by
/// the random programs, seed 9301).
#[differentiate]
fn ufcs_on_untyped_local(x: f64) -> f64 {
    let k = -0.75;
    let mut s = x;
    s += f64::atan(k) * x + f64::max(k, x).sin();
    s
}

#[test]
fn ufcs_call_on_a_local_bound_to_a_literal() {
    chk!(ufcs_on_untyped_local, ufcs_on_untyped_local_jvp, ufcs_on_untyped_local_vjp; 0)
        .random(4, -2.0, 2.0);
}

#[differentiate]
fn pair_of(p: f64, u: &[f64]) -> [f64; 2] {
    [p * u[0], p.sin() + u[1]]
}

/// An in-out slice passed bare to a call whose array result is destructured with `..` and read
/// only in a condition: the reverse sweep runs the call's `_vjp` for the slice, seeding the
/// inactive result with a zero array (was `zero()`: E0277 in generated code; found by the random
/// programs, seed 10001).
#[differentiate]
fn destructured_call_on_inout(a: f64, io: &mut [f64]) -> f64 {
    io[0] *= a;
    let [t, ..]: [f64; 2] = pair_of(a, io);
    let [.., s]: [f64; 2] = pair_of(a, io);
    io[1] += a * s;
    if t > 0.0 {
        a * io[0]
    } else {
        s
    }
}

#[test]
fn array_pattern_with_rest_over_a_call_on_an_inout_argument() {
    Harness::new(3)
        .primal(|p| {
            let mut io = [p[1], p[2]];
            let v = destructured_call_on_inout(p[0], &mut io);
            vec![v, io[0], io[1]]
        })
        .jvp(|p, t| {
            let (mut io, mut dio) = ([p[1], p[2]], [t[1], t[2]]);
            let (v, dv) = destructured_call_on_inout_jvp(p[0], &mut io, t[0], &mut dio);
            (vec![v, io[0], io[1]], vec![dv, dio[0], dio[1]])
        })
        .vjp(|p, c, g| {
            let (mut io, mut bio) = ([p[1], p[2]], [c[1], c[2]]);
            let v = destructured_call_on_inout_vjp(p[0], &mut io, &mut g[0], &mut bio, c[0]);
            g[1] += bio[0];
            g[2] += bio[1];
            vec![v, io[0], io[1]]
        })
        .random(4, -1.0, 1.0);
}

// An `if` whose value is a call's result in one branch and an array in the other: the call
// gives an array too (was E0277 in the generated code, the call assumed to give one float;
// found by the ADBench bundle-adjustment objective).
#[differentiate]
fn swapped_pair(v: &[f64; 2]) -> [f64; 2] {
    [v[1] * v[0], v[0]]
}

#[differentiate]
fn branch_of_call(v: &[f64; 2]) -> [f64; 2] {
    if v[0] > 0.0 {
        swapped_pair(v)
    } else {
        [v[0] * v[1], v[1]]
    }
}

#[test]
fn if_value_from_a_call_takes_the_other_branch_shape() {
    Harness::new(2)
        .primal(|p| branch_of_call(&[p[0], p[1]]).to_vec())
        .jvp(|p, t| {
            let (y, dy) = branch_of_call_jvp(&[p[0], p[1]], &[t[0], t[1]]);
            (y.to_vec(), dy.to_vec())
        })
        .vjp(|p, c, g| {
            let mut b = [0.0; 2];
            let y = branch_of_call_vjp(&[p[0], p[1]], &mut b, [c[0], c[1]]);
            g[0] += b[0];
            g[1] += b[1];
            y.to_vec()
        })
        .at(&[&[0.7, -0.4], &[-0.6, 0.9]]);
}
