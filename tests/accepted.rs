//! Constructs that look unusual but are accepted, in both modes.
// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]
mod common;
use autodiff_runtime::differentiate;
use common::*;

#[differentiate]
fn shifted(x: f64, n: u32) -> f64 {
    let mut k = n;
    k <<= 1;
    k |= 1;
    x * k as f64
}

#[differentiate]
fn local_closure_in_map(v: &[f64]) -> f64 {
    let sq = |a: f64| a * a;
    v.iter().copied().map(sq).sum()
}

#[differentiate]
fn with_panic(x: f64) -> f64 {
    if x < 0.0 {
        panic!("negative input");
    }
    x.sqrt()
}

#[differentiate(wrt(x))]
fn option_constant(x: f64, bias: Option<f64>) -> f64 {
    x * bias.unwrap_or(1.0)
}

#[differentiate]
fn widen(x: f32) -> f64 {
    f64::from(x) * 2.0 + f64::from(x * x)
}

#[test]
fn integer_compound_assignment() {
    Harness::new(1)
        .primal(|p| vec![shifted(p[0], 3)])
        .jvp(|p, t| {
            let (v, d) = shifted_jvp(p[0], 3, t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![shifted_vjp(p[0], 3, &mut g[0], c[0])])
        .at(&[&[0.5], &[-1.5]]);
}

#[test]
fn closure_name_passed_to_map() {
    Harness::new(3)
        .primal(|p| vec![local_closure_in_map(p)])
        .jvp(|p, t| {
            let (v, d) = local_closure_in_map_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![local_closure_in_map_vjp(p, g, c[0])])
        .random(3, -1.0, 1.0);
}

#[test]
fn panic_statement_passes_through() {
    Harness::new(1)
        .primal(|p| vec![with_panic(p[0])])
        .jvp(|p, t| {
            let (v, d) = with_panic_jvp(p[0], t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![with_panic_vjp(p[0], &mut g[0], c[0])])
        .at(&[&[0.5], &[2.0]]);
    assert!(std::panic::catch_unwind(|| with_panic_grad(-1.0)).is_err());
}

#[test]
fn inactive_option_argument() {
    for bias in [Some(3.0), None] {
        Harness::new(1)
            .primal(|p| vec![option_constant(p[0], bias)])
            .jvp(|p, t| {
                let (v, d) = option_constant_jvp(p[0], bias, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![option_constant_vjp(p[0], bias, &mut g[0], c[0])])
            .at(&[&[0.7]]);
    }
}

#[test]
fn f64_from_f32() {
    let (v, d) = widen_jvp(1.5, 1.0);
    assert_eq!(v, widen(1.5));
    assert_eq!(v, 3.0 + 2.25);
    assert_eq!(d, 2.0 + 3.0);
    let mut g = 0.0f32;
    widen_vjp(1.5, &mut g, 1.0);
    assert_eq!(g, 5.0);
}

#[differentiate]
fn sum_of_tail(v: &[f64]) -> f64 {
    v[1..].iter().sum::<f64>() * v[0] + v[..2].iter().map(|x| x * x).sum::<f64>()
}

#[test]
fn iterating_a_sub_slice() {
    Harness::new(4)
        .primal(|p| vec![sum_of_tail(p)])
        .jvp(|p, t| {
            let (v, d) = sum_of_tail_jvp(p, t);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![sum_of_tail_vjp(p, g, c[0])])
        .random(3, -1.0, 1.0);
}

#[differentiate]
fn let_else_slice(x: f64, v: &[f64]) -> f64 {
    let [a, b] = v else {
        return x;
    };
    a * b * x
}

#[test]
fn let_else_with_slice_pattern() {
    for len in [2usize, 3] {
        Harness::new(1 + len)
            .primal(|p| vec![let_else_slice(p[0], &p[1..])])
            .jvp(|p, t| {
                let (v, d) = let_else_slice_jvp(p[0], &p[1..], t[0], &t[1..]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(1);
                vec![let_else_slice_vjp(p[0], &p[1..], &mut a[0], b, c[0])]
            })
            .random(2, -1.0, 1.0);
    }
}

#[differentiate]
fn twice(a: f64, u: &[f64]) -> f64 {
    a * u[0] + u[u.len() - 1]
}

/// A variable declared before it is given a value, then passed to calls (directly and through a
/// `Vec` built from it).
#[differentiate]
fn late_init_into_calls(x: f64, n: usize) -> f64 {
    let t;
    if x > 0.0 {
        t = x * x;
    } else {
        t = x.sin();
    }
    let w = vec![t; n];
    twice(t, &w) + twice(x, &w[1..])
}

#[test]
fn late_initialised_values_in_calls() {
    Harness::new(1)
        .primal(|p| vec![late_init_into_calls(p[0], 3)])
        .jvp(|p, t| {
            let (v, d) = late_init_into_calls_jvp(p[0], 3, t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![late_init_into_calls_vjp(p[0], 3, &mut g[0], c[0])])
        .at(&[&[0.7], &[-0.4]]);
}

#[differentiate]
fn with_items(x: f64, v: &[f64]) -> f64 {
    const SCALE: f64 = 0.5;
    static OFFSET: f64 = 1.0;
    use std::f64::consts::PI;
    fn count(n: usize) -> f64 {
        n as f64
    }
    let mut s = OFFSET;
    for &e in v {
        s += SCALE * (PI * e * x).sin();
    }
    s / count(v.len())
}

#[test]
fn items_inside_the_body() {
    Harness::new(3)
        .primal(|p| vec![with_items(p[0], &p[1..])])
        .jvp(|p, t| {
            let (v, d) = with_items_jvp(p[0], &p[1..], t[0], &t[1..]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![with_items_vjp(p[0], &p[1..], &mut a[0], b, c[0])]
        })
        .random(3, -1.0, 1.0);
}
