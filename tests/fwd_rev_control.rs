// The `ad_bug_*` cfgs gate constructs the macro rejects at compile time (see the ignored tests).
#![allow(unexpected_cfgs)]
// The functions under test are written the way users write them (index loops, casts, edge
// cases such as empty ranges), not the way clippy prefers.
#![allow(clippy::all)]

#[macro_use]
mod common;
use autodiff_runtime::differentiate;
use common::*;

// ---------------------------------------------------------------------------------------------
// if / else if / else
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn if_stmt(x: f64, y: f64) -> f64 {
    let mut s = x * y;
    if x > 0.5 {
        s = s.sin() + x;
    } else if x < -0.5 {
        s *= y;
        s += 1.0;
    } else {
        s = s - x * x;
    }
    if s > y {
        s -= y; // no else
    }
    if x > 0.0 && y < 1.0 || !(y > -1.0) {
        let t = s * x;
        s = t + s;
    }
    s
}

/// Points inside each branch of `if_stmt`, away from x = ±0.5, s = y, x = 0, y = 1, y = -1.
const IF_POINTS: &[&[f64]] = &[
    &[0.9, 0.3],
    &[1.7, -0.6],
    &[1.2, 1.8],
    &[-0.8, 0.4],
    &[-1.6, -1.7],
    &[-1.1, 2.0],
    &[0.1, 0.2],
    &[-0.3, -0.4],
    &[0.2, -1.5],
];

#[test]
fn if_else_statements() {
    chk!(if_stmt, if_stmt_jvp, if_stmt_vjp; 0, 1).at(IF_POINTS);
}

#[differentiate]
fn if_expr(x: f64, y: f64) -> f64 {
    let a = if x > y {
        x * x
    } else if x < -y {
        y.exp()
    } else {
        let t = x + y;
        t * t.cos()
    };
    let b = 2.0 * if a > 1.0 { a.sqrt() } else { a * 0.5 };
    let c = if y > 0.0 {
        if x > 0.0 {
            x * y
        } else {
            y - x
        }
    } else {
        -y
    };
    a + b + c + (if x * y > 0.25 { x } else { y })
}

#[test]
fn if_else_expressions() {
    chk!(if_expr, if_expr_jvp, if_expr_vjp; 0, 1).at(IF_POINTS);
}

#[differentiate]
fn if_tail(x: f64, y: f64) -> f64 {
    let s = x.sin() * y;
    if s > 0.3 {
        s * x
    } else if s < -0.3 {
        let u = s * s;
        u + y
    } else {
        s.exp()
    }
}

#[test]
fn if_else_as_tail_expression() {
    chk!(if_tail, if_tail_jvp, if_tail_vjp; 0, 1).at(IF_POINTS);
}

#[differentiate]
fn if_expr32(x: f32, y: f32) -> f32 {
    let a = if x > y {
        x * x
    } else if x < -y {
        y.exp()
    } else {
        x + y
    };
    let mut s = a;
    if s > 1.0 {
        s = s.sqrt();
    } else {
        s *= y;
    }
    if x > 0.0 {
        s * x
    } else {
        s - x
    }
}

#[test]
fn if_else_f32() {
    chk32!(if_expr32, if_expr32_jvp, if_expr32_vjp; 0, 1).at(IF_POINTS);
}

// ---------------------------------------------------------------------------------------------
// return
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn early_ret(x: f64, v: &[f64]) -> f64 {
    if x > 2.0 {
        return x * x;
    }
    let a = if x < -2.0 {
        return x.exp();
    } else {
        x * 0.5
    };
    let n = v.len();
    let mut s = a;
    for i in 0..n {
        for j in 0..n {
            s += v[i] * v[j] * x;
            if s > 3.0 {
                return s.ln() + x; // from the inner loop
            }
        }
        if s < -3.0 {
            return -s * x; // from the outer loop
        }
    }
    let mut k = 0;
    while k < 3 {
        s = s * 1.5 + v[k];
        if s > 4.0 {
            return s.sqrt() * x;
        }
        k += 1;
    }
    let mut m = 0;
    loop {
        s = s * 0.5 + x;
        m += 1;
        if s.abs() < 0.5 {
            return s * v[0];
        }
        if m == 6 {
            break;
        }
    }
    return s;
}

#[test]
fn return_anywhere() {
    chk_xv!(early_ret, early_ret_jvp, early_ret_vjp; 3).random(12, -1.5, 1.5);
    chk_xv!(early_ret, early_ret_jvp, early_ret_vjp; 3).at(&[
        &[2.5, 0.1, 0.2, 0.3],  // first return
        &[-2.5, 0.1, 0.2, 0.3], // return inside an if expression
        &[1.5, 1.0, 1.2, 0.8],  // inner loop
        &[1.5, -1.0, 1.2, 0.8], // outer loop
        &[0.3, 0.2, -0.1, 0.3], // loop at the end
    ]);
}

#[differentiate]
fn ret_in_match(x: f64, k: usize) -> f64 {
    let y = match k {
        0 => return x.sin(),
        1 => x * 2.0,
        _ => {
            if x > 0.0 {
                return x.sqrt() * (k as f64);
            }
            x * x
        }
    };
    y + x
}

#[test]
fn return_in_match_arms() {
    for k in 0..4 {
        Harness::new(1)
            .primal(|p| vec![ret_in_match(p[0], k)])
            .jvp(|p, t| {
                let (v, d) = ret_in_match_jvp(p[0], k, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![ret_in_match_vjp(p[0], k, &mut g[0], c[0])])
            .at(&[&[0.7], &[-0.4], &[1.9], &[-2.2]]);
    }
}

#[differentiate]
fn early_ret32(x: f32, v: &[f32]) -> f32 {
    let mut s = x;
    for i in 0..v.len() {
        for j in 0..v.len() {
            s += v[i] * v[j];
            if s > 3.0 {
                return s.ln() * x;
            }
        }
    }
    s * s
}

#[test]
fn return_in_nested_loops_f32() {
    chk32_xv!(early_ret32, early_ret32_jvp, early_ret32_vjp; 3).at(&[
        &[0.3, 0.2, -0.1, 0.3],
        &[1.5, 1.0, 1.2, 0.8],
        &[0.9, 0.6, 0.7, -0.5],
    ]);
}

// ---------------------------------------------------------------------------------------------
// match on integers
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn matcher(x: f64, y: f64, k: usize) -> f64 {
    let mut s = x;
    match k {
        0 => s *= 2.0,
        1 | 2 => {
            s = s.sin() * y;
        }
        3..=5 => s += x * y,
        _ => {}
    }
    let m = match k % 3 {
        0 => x.exp(),
        1 => x * s,
        _ => s - y,
    };
    let g = match k {
        0 | 4 => s * (k as f64),
        5..=6 => s + y,
        _ => {
            if x > 0.0 {
                s * s
            } else {
                s - y
            }
        }
    };
    m + s + g
}

#[test]
fn match_on_integers() {
    for k in 0..8 {
        Harness::new(2)
            .primal(|p| vec![matcher(p[0], p[1], k)])
            .jvp(|p, t| {
                let (v, d) = matcher_jvp(p[0], p[1], k, t[0], t[1]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| {
                let (a, b) = g.split_at_mut(1);
                vec![matcher_vjp(p[0], p[1], k, &mut a[0], &mut b[0], c[0])]
            })
            .at(&[&[0.7, 0.3], &[-0.4, 1.1], &[1.9, -0.8], &[-1.2, -0.5]]);
    }
}

#[differentiate]
fn match_in_loop(x: f64, v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s = match i {
            0 => v[0] * x,
            1 => s + v[1].sin(),
            _ => s * v[i] + x,
        };
    }
    match v.len() {
        0 => x,
        _ => s / (v.len() as f64),
    }
}

#[test]
fn match_as_expression_in_loop() {
    chk_xv!(match_in_loop, match_in_loop_jvp, match_in_loop_vjp; 4).random(6, -1.5, 1.5);
}

#[differentiate]
fn matcher32(x: f32, k: usize) -> f32 {
    let m = match k % 3 {
        0 => x.exp(),
        1 => x * x,
        _ => x.sin(),
    };
    match k {
        0..=1 => m * 2.0,
        _ => m + x,
    }
}

#[test]
fn match_f32() {
    for k in 0..4 {
        Check32 {
            n: 1,
            primal: |p: &[f64]| vec![matcher32(p[0] as f32, k) as f64],
            jvp: |p: &[f64], t: &[f64]| {
                let (v, d) = matcher32_jvp(p[0] as f32, k, t[0] as f32);
                (vec![v as f64], vec![d as f64])
            },
            vjp: |p: &[f64], c: &[f64], g: &mut [f64]| {
                let mut a = g[0] as f32;
                let v = matcher32_vjp(p[0] as f32, k, &mut a, c[0] as f32);
                g[0] = a as f64;
                vec![v as f64]
            },
        }
        .at(&[&[0.7], &[-0.4], &[1.9]]);
    }
}

// ---------------------------------------------------------------------------------------------
// for over ranges
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn ranges(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i..n {
            s += v[i] * v[j] * x;
        }
    }
    for i in (0..n).rev() {
        s = s * 0.5 + v[i] * x;
    }
    for i in (0..n).step_by(2) {
        s += v[i].sin() * s;
    }
    for i in (1..n).step_by(3) {
        s -= v[i] * 0.25;
    }
    for i in 1..=n - 1 {
        s += v[i] * v[i - 1];
    }
    for i in (1..=n).rev() {
        s = s * 0.9 + v[i - 1];
    }
    for k in 2..=4 {
        s += x.powi(k) / (k as f64);
    }
    for _ in 0..0 {
        s = 1e9; // never runs
    }
    s
}

#[test]
fn for_over_ranges() {
    chk_xv!(ranges, ranges_jvp, ranges_vjp; 5).random(6, -1.5, 1.5);
}

#[differentiate]
fn nested3(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        for j in 0..i {
            for k in (j..=i).rev() {
                s = s * 0.9 + x * ((i + j + k) as f64) * 0.01;
            }
        }
    }
    s
}

#[test]
fn for_nested_three_deep() {
    Harness::new(1)
        .primal(|p| vec![nested3(p[0], 4)])
        .jvp(|p, t| {
            let (v, d) = nested3_jvp(p[0], 4, t[0]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| vec![nested3_vjp(p[0], 4, &mut g[0], c[0])])
        .random(5, -2.0, 2.0);
}

#[differentiate]
fn ranges32(x: f32, v: &[f32]) -> f32 {
    let n = v.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in (i..n).rev() {
            s += v[i] * v[j] * x;
        }
    }
    for i in (0..n).step_by(2) {
        s = s * 0.5 + v[i];
    }
    for i in 1..=n - 1 {
        s += v[i] * v[i - 1];
    }
    s
}

#[test]
fn for_over_ranges_f32() {
    chk32_xv!(ranges32, ranges32_jvp, ranges32_vjp; 4).random(5, -1.5, 1.5);
}

// ---------------------------------------------------------------------------------------------
// for over slices
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn iters(x: f64, v: &[f64]) -> f64 {
    let mut s = 0.0;
    for &e in v.iter() {
        s += e * x;
    }
    for e in v.iter() {
        s += *e * *e;
    }
    for e in v {
        s = s * 0.5 + e * x;
    }
    for &e in v {
        s += e.sin();
    }
    for (i, &e) in v.iter().enumerate() {
        s += e * (i as f64) * x;
    }
    for (i, e) in v.iter().enumerate() {
        if i % 2 == 0 {
            s += *e * s * 0.1;
        }
    }
    for &e in v.iter().rev() {
        s = s * 0.8 + e;
    }
    s
}

#[test]
fn for_over_slice_iterators() {
    chk_xv!(iters, iters_jvp, iters_vjp; 4).random(6, -1.5, 1.5);
}

#[differentiate]
fn iter_local(x: f64, v: &[f64]) -> f64 {
    let w = v.to_vec();
    let mut s = x;
    for e in &w {
        s += e * s * 0.5;
    }
    for (i, &e) in w.iter().enumerate().rev() {
        s = s * 0.5 + e * (i as f64);
    }
    s
}

#[test]
fn for_over_local_vec_references() {
    chk_xv!(iter_local, iter_local_jvp, iter_local_vjp; 3).random(6, -1.5, 1.5);
}

#[differentiate]
fn iters32(x: f32, v: &[f32]) -> f32 {
    let mut s = 0.0;
    for &e in v.iter() {
        s += e * x;
    }
    for (i, &e) in v.iter().enumerate() {
        s = s * 0.5 + e * (i as f32);
    }
    for &e in v.iter().rev() {
        s = s * e + x;
    }
    for e in v {
        s += e * e;
    }
    s
}

#[test]
fn for_over_slice_iterators_f32() {
    chk32_xv!(iters32, iters32_jvp, iters32_vjp; 3).random(5, -1.2, 1.2);
}

// ---------------------------------------------------------------------------------------------
// while, loop, break, continue, labels, break with a value
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn whiles(x: f64, y: f64) -> f64 {
    let mut s = x;
    // The number of iterations depends on the active values.
    while s < 10.0 {
        s = s * 1.5 + y * y + 0.5;
    }
    let mut i = 0;
    let mut t = y;
    while i < 6 && t.abs() < 100.0 {
        t = t * x + 1.0;
        i += 1;
    }
    let mut k = 10;
    while k > 0 {
        k -= 3;
        if k == 4 {
            continue;
        }
        t += x * (k as f64);
        if k < 3 {
            break;
        }
    }
    s + t
}

#[test]
fn while_loops() {
    chk!(whiles, whiles_jvp, whiles_vjp; 0, 1).random(8, 0.3, 1.7);
}

#[differentiate]
fn loops(x: f64, y: f64) -> f64 {
    let mut i = 0;
    let mut s = x;
    loop {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        s = s * y + 0.1;
        if i > 7 {
            break;
        }
    }
    let mut t = 0.0;
    for j in 0..10 {
        if j == 3 {
            continue;
        }
        if j == 7 {
            break;
        }
        t += s * (j as f64) + x;
    }
    // Exit decided by an active value.
    let mut u = y;
    loop {
        u = u * 1.3 + x;
        if u > 5.0 {
            break;
        }
    }
    s + t + u
}

#[test]
fn loop_break_continue() {
    chk!(loops, loops_jvp, loops_vjp; 0, 1).random(8, 0.2, 1.1);
}

#[differentiate]
fn labeled(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut s = x;
    'outer: for i in 0..n {
        for j in 0..n {
            if j > i {
                continue 'outer;
            }
            s += v[i] * v[j];
            if s > 50.0 {
                break 'outer;
            }
        }
        s *= 0.9;
    }
    let mut i = 0;
    'a: loop {
        i += 1;
        let mut j = 0;
        'b: while j < 4 {
            j += 1;
            if j == 2 {
                continue 'b;
            }
            if i * j > 6 {
                break 'a;
            }
            if j == 3 {
                continue 'a;
            }
            s = s * 0.8 + x * (j as f64);
        }
    }
    s
}

#[test]
fn labeled_break_continue() {
    chk_xv!(labeled, labeled_jvp, labeled_vjp; 4).random(6, -1.0, 1.0);
    // Large values leave the first loop through `break 'outer`.
    chk_xv!(labeled, labeled_jvp, labeled_vjp; 4).at(&[&[45.0, 2.0, 3.0, 1.0, 2.0]]);
}

#[differentiate]
fn labeled_continue(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut s = x;
    'outer: for i in 0..n {
        for j in 0..n {
            if j > i {
                continue 'outer;
            }
            s += v[i] * v[j] * x;
        }
        s *= 0.9;
    }
    s
}

#[test]
fn labeled_continue_outer_for() {
    chk_xv!(labeled_continue, labeled_continue_jvp, labeled_continue_vjp; 4).random(6, -1.0, 1.0);
}

#[differentiate]
fn labeled_break(x: f64, v: &[f64]) -> f64 {
    let n = v.len();
    let mut s = x;
    'outer: for i in 0..n {
        for j in 0..n {
            s += v[i] * v[j];
            if s > 1.5 {
                break 'outer;
            }
        }
        s *= 0.9;
    }
    s * x
}

#[test]
fn labeled_break_outer_for() {
    chk_xv!(labeled_break, labeled_break_jvp, labeled_break_vjp; 4).random(6, -1.0, 1.0);
    chk_xv!(labeled_break, labeled_break_jvp, labeled_break_vjp; 4)
        .at(&[&[1.0, 1.1, 0.9, 1.0, 1.3]]);
}

#[differentiate]
fn labeled_loops(x: f64) -> f64 {
    let mut s = x;
    let mut i = 0;
    'a: loop {
        i += 1;
        let mut j = 0;
        'b: while j < 4 {
            j += 1;
            if j == 2 {
                continue 'b;
            }
            if i * j > 6 {
                break 'a;
            }
            if j == 3 {
                continue 'a;
            }
            s = s * 0.8 + x * (j as f64);
        }
    }
    s
}

#[test]
fn labeled_loop_and_while() {
    chk!(labeled_loops, labeled_loops_jvp, labeled_loops_vjp; 0).random(6, -2.0, 2.0);
}

#[differentiate]
fn labeled_min(x: f64) -> f64 {
    let mut s = x;
    'outer: for i in 0..2 {
        for j in 0..2 {
            if j > i {
                continue 'outer;
            }
            if s > 50.0 {
                break 'outer;
            }
            s += x;
        }
        s *= 0.5;
    }
    s
}

#[test]
fn labeled_continue_and_break_outer_minimal() {
    assert_eq!(labeled_min(1.0), 2.0);
    assert_eq!(labeled_min_jvp(1.0, 1.0), (2.0, 2.0));
    chk!(labeled_min, labeled_min_jvp, labeled_min_vjp; 0).at(&[&[1.0], &[0.3], &[-2.0]]);
}

#[differentiate]
fn loops32(x: f32, y: f32) -> f32 {
    let mut s = x;
    while s < 10.0 {
        s = s * 1.5 + y * y + 0.5;
    }
    let mut i = 0;
    loop {
        i += 1;
        if i == 2 {
            continue;
        }
        s = s * 0.5 + y;
        if i == 5 {
            break;
        }
    }
    let r = s * x;
    let mut t = 0.0;
    'outer: for a in 0..4 {
        for b in 0..4 {
            if b > a {
                continue 'outer;
            }
            if a == 3 {
                break 'outer;
            }
            t += x * y * ((a + b) as f32);
        }
    }
    r + t
}

#[test]
fn loops_f32() {
    chk32!(loops32, loops32_jvp, loops32_vjp; 0, 1).random(6, 0.3, 1.7);
}

#[differentiate]
fn break_value(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut i = 0;
    let r = loop {
        s = s * 0.5 + y;
        i += 1;
        if i == 5 {
            break s * 2.0;
        }
    };
    let mut t = y;
    let q = loop {
        t = t * 1.2 + x;
        if t > 4.0 {
            break t.ln();
        }
        if t < -4.0 {
            break -t;
        }
    };
    let w = 'outer: loop {
        let mut k = 0;
        loop {
            k += 1;
            if k == 3 {
                break 'outer r * q;
            }
        }
    };
    r + q + w
}

#[test]
fn break_with_value() {
    chk!(break_value, break_value_jvp, break_value_vjp; 0, 1).random(8, 0.3, 1.5);
    chk!(break_value, break_value_jvp, break_value_vjp; 0, 1).at(&[&[-2.0, -1.0], &[-0.5, -3.0]]);
}

#[differentiate]
fn loop_tail(x: f64) -> f64 {
    let mut s = x;
    let mut i = 0;
    loop {
        i += 1;
        s = s.sin() + x;
        if i == 4 {
            break s * x;
        }
    }
}

#[test]
fn loop_as_tail_expression() {
    chk!(loop_tail, loop_tail_jvp, loop_tail_vjp; 0).random(6, -2.0, 2.0);
}

#[differentiate]
fn loop_value32(x: f32, y: f32) -> f32 {
    let mut s = x;
    let mut i = 0;
    let r = loop {
        i += 1;
        if i == 2 {
            continue;
        }
        s = s * 0.5 + y;
        if i == 5 {
            break s * x;
        }
    };
    r + s
}

#[test]
fn break_with_value_f32() {
    chk32!(loop_value32, loop_value32_jvp, loop_value32_vjp; 0, 1).random(6, 0.3, 1.7);
}

// ---------------------------------------------------------------------------------------------
// More control-flow forms
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn cond_method(x: f64) -> f64 {
    if x.abs() > 1.0 && x.sin() < 0.9 {
        x * 2.0
    } else {
        x.cos()
    }
}

#[test]
fn conditions_with_method_calls() {
    chk!(cond_method, cond_method_jvp, cond_method_vjp; 0).at(&[
        &[0.5],
        &[-0.5],
        &[1.5],
        &[-1.5],
        &[1.2],
    ]);
}

#[differentiate]
fn neg_match(x: f64, k: i32) -> f64 {
    match k {
        -1 => x,
        0 => x * x,
        i32::MIN..=-2 => x.sin(),
        _ => -x,
    }
}

#[test]
fn match_on_signed_integers() {
    for k in [-5, -1, 0, 3] {
        Harness::new(1)
            .primal(|p| vec![neg_match(p[0], k)])
            .jvp(|p, t| {
                let (v, d) = neg_match_jvp(p[0], k, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![neg_match_vjp(p[0], k, &mut g[0], c[0])])
            .at(&[&[0.7], &[-1.3]]);
    }
}

#[differentiate]
fn rev_step(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in (0..n).rev().step_by(2) {
        s = s * x + i as f64;
    }
    for i in 0..n {
        s += x.powi(i as i32) * 0.1;
    }
    s
}

#[test]
fn rev_then_step_by_and_loop_counter_exponents() {
    for n in [0, 1, 4, 5] {
        Harness::new(1)
            .primal(|p| vec![rev_step(p[0], n)])
            .jvp(|p, t| {
                let (v, d) = rev_step_jvp(p[0], n, t[0]);
                (vec![v], vec![d])
            })
            .vjp(|p, c, g| vec![rev_step_vjp(p[0], n, &mut g[0], c[0])])
            .random(4, -1.5, 1.5);
    }
}

mod subslice_iter_case {
    use super::*;

    #[differentiate]
    pub fn subslice_iter(x: f64, v: &[f64]) -> f64 {
        let mut s = 0.0;
        for &e in &v[1..] {
            s += e * x;
        }
        for e in v[..2].iter() {
            s += e * s;
        }
        s
    }

    pub fn check() {
        chk_xv!(subslice_iter, subslice_iter_jvp, subslice_iter_vjp; 3).random(6, -1.5, 1.5);
    }
}

#[test]
fn for_over_sub_slice() {
    subslice_iter_case::check();
}

// ---------------------------------------------------------------------------------------------
// Shadowing and temporaries in loops; returns reading local Vecs
// ---------------------------------------------------------------------------------------------

#[differentiate]
fn shadow_in_loop(x: f64, v: &[f64]) -> f64 {
    let mut s = x;
    let mut acc = 0.0;
    for i in 0..v.len() {
        let t = s * v[i];
        let s = t.sin() + x; // shadows the outer mut s inside the body
        acc += s;
    }
    s = s * 2.0;
    let i = x * 3.0;
    for i in 0..2 {
        acc += (i as f64) * x;
    }
    acc + s + i
}

#[test]
fn shadowing_inside_loop_bodies() {
    chk_xv!(shadow_in_loop, shadow_in_loop_jvp, shadow_in_loop_vjp; 3).random(5, -1.5, 1.5);
}

#[differentiate]
fn swap_vals(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..3 {
        let t = a;
        a = b * x;
        b = t + a;
    }
    a * b
}

#[test]
fn rotating_values_through_temporaries() {
    Harness::new(2)
        .primal(|p| vec![swap_vals(p[0], p[1])])
        .jvp(|p, t| {
            let (v, d) = swap_vals_jvp(p[0], p[1], t[0], t[1]);
            (vec![v], vec![d])
        })
        .vjp(|p, c, g| {
            let (a, b) = g.split_at_mut(1);
            vec![swap_vals_vjp(p[0], p[1], &mut a[0], &mut b[0], c[0])]
        })
        .random(5, -1.0, 1.0);
}

#[differentiate]
fn return_from_loop_with_vec(x: f64, v: &[f64]) -> f64 {
    let mut w = vec![0.0; v.len()];
    for i in 0..v.len() {
        w[i] = v[i] * x;
        for j in 0..i {
            w[i] += w[j] * 0.5;
            if w[i] > 2.0 {
                return w[i] * w[j];
            }
        }
    }
    w[0]
}

#[test]
fn return_from_nested_loop_reading_local_vec() {
    chk_xv!(return_from_loop_with_vec, return_from_loop_with_vec_jvp, return_from_loop_with_vec_vjp; 4).random(8, -1.0, 2.0);
}
