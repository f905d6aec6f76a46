//! Unit tests of forward mode: takes small functions written with `parse_quote!`, lowered and
//! analysed (`crate::testing`), gives checks on their forward programs (which ops are emitted,
//! which tangent places are written, the text printed for the dump).

use super::program::{print, DualExpr, Op, Tan};
use crate::testing::analysed;
use syn::parse_quote;

fn program(item: syn::ItemFn) -> Vec<Op> {
    super::forward_program(&analysed(item))
}

/// One word per op, nested ops included, in order.
fn kinds(ops: &[Op], out: &mut Vec<String>) {
    for op in ops {
        let kind = match op {
            Op::Code(_) => "code",
            Op::Let {
                primal: None,
                tangent: Some(_),
            } => "tangent",
            Op::Let { tangent: None, .. } => "let",
            Op::Let { .. } => "let+tangent",
            Op::Set { .. } => "set",
            Op::Assign { .. } => "assign",
            Op::Update { .. } => "update",
            Op::Dual { .. } => "dual",
            Op::CallJvp { .. } => "jvp",
            Op::Push { tangent: None, .. } => "push",
            Op::Push { .. } => "push+tangent",
            Op::Block(b) | Op::For { body: b, .. } | Op::While { body: b, .. } => {
                out.push("{".into());
                kinds(b, out);
                out.push("}".into());
                continue;
            }
            Op::Loop { body, .. } => {
                kinds(body, out);
                continue;
            }
            Op::If { then, els, .. } => {
                kinds(then, out);
                if let Some(e) = els {
                    kinds(e, out);
                }
                continue;
            }
            Op::Match { arms, .. } => {
                for (_, b) in arms {
                    kinds(b, out);
                }
                continue;
            }
            Op::Return {
                output: Some(o), ..
            }
            | Op::Output(o) => {
                kinds(&o.pre, out);
                "output"
            }
            Op::Return { output: None, .. } => "return",
        };
        out.push(kind.to_string());
    }
}

fn kinds_of(ops: &[Op]) -> Vec<String> {
    let mut out = Vec::new();
    kinds(ops, &mut out);
    out
}

#[test]
fn active_scalars_are_evaluated_on_dual_and_bound_with_their_tangents() {
    let p = program(parse_quote! {
        fn f(x: f64, y: f64) -> f64 {
            let z = x * y;
            let c = 2.0;
            z.sin() + c
        }
    });
    assert_eq!(
        kinds_of(&p),
        [
            "tangent",
            "tangent",
            "dual",
            "let+tangent",
            "let",
            "dual",
            "output"
        ]
    );
    // `x * y` on two active values: both carry their tangents into `Dual::new`.
    let Op::Dual {
        expr: DualExpr::Binary { lhs, rhs, .. },
        ..
    } = &p[2]
    else {
        panic!("x * y is not a Dual product");
    };
    assert!(matches!(**lhs, DualExpr::New { .. }) && matches!(**rhs, DualExpr::New { .. }));
    // The tail `z.sin() + c`: the inactive `c` is an operand as it is, not lifted.
    let Some(Op::Output(out)) = p.last() else {
        panic!("no output")
    };
    let Op::Dual {
        expr: DualExpr::Binary { lhs, rhs, .. },
        ..
    } = &out.pre[0]
    else {
        panic!("the tail is not a Dual sum");
    };
    assert!(matches!(**lhs, DualExpr::Method { .. }) && matches!(**rhs, DualExpr::Plain(_)));
    let text = print(&p);
    assert!(
        text.contains("__ad_f1 = (dual(x, __ad_d_x) * dual(y, __ad_d_y))"),
        "{text}"
    );
    assert!(text.contains(".sin()"), "{text}");
}

#[test]
fn writes_name_their_tangent_places() {
    let p = program(parse_quote! {
        fn f(v: &[f64], c: f64) -> Vec<f64> {
            let mut out = vec![0.0; v.len()];
            let mut n = 0usize;
            for i in 0..v.len() {
                out[i] = v[i] * c;
                out[i] += c;
                n += 1;
            }
            out[0] = 1.0;
            out
        }
    });
    let k = kinds_of(&p);
    // The loop in a block of its own after its bounds and the slice views of `v` and `out`
    // (value and tangent each).
    assert_eq!(
        k,
        [
            "tangent",
            "tangent",
            "let+tangent",
            "let",
            "{",
            "let",
            "let",
            "let+tangent",
            "let+tangent",
            "{",
            "let",
            "let",
            "dual",
            "let+tangent",
            "set",
            "let",
            "update",
            "assign",
            "}",
            "}",
            "let",
            "set",
            "output"
        ]
    );
    let views = p.iter().find_map(|op| match op {
        Op::Block(b) => Some(b),
        _ => None,
    });
    let views = views.expect("a block with the loop's views");
    let text = print(views);
    assert!(text.contains("& mut out__"), "{text}");
    assert!(text.contains("& mut __ad_d_out__"), "{text}");
    let body = views.iter().find_map(|op| match op {
        Op::For { body, .. } => Some(body),
        _ => None,
    });
    let body = body.expect("a loop");
    // `out[i] = v[i] * c`: the element of the tangent buffer at the same index.
    let Op::Set { slot, tangent, .. } = &body[4] else {
        panic!("no element write")
    };
    assert!(slot.index.is_some() && matches!(tangent, Tan::Expr(_)));
    assert!(slot.var.to_string().starts_with("__ad_vw"));
    assert!(slot.tangent.to_string().starts_with("__ad_tvw"));
    // `out[i] += c`: on `Dual`, at the element.
    assert!(matches!(&body[6], Op::Update { slot, .. } if slot.index.is_some()));
    // `n += 1` has no tangent.
    assert!(matches!(&body[7], Op::Assign { op: Some(_), .. }));
    // `out[0] = 1.0`: a constant gives a zero tangent.
    assert!(
        p.iter().any(|op| matches!(
            op,
            Op::Set {
                tangent: Tan::Zeros { .. },
                ..
            }
        )),
        "{}",
        print(&p)
    );
}

#[test]
fn calls_of_differentiated_functions_go_through_their_jvp() {
    let p = program(parse_quote! {
        fn f(x: f64, w: &[f64]) -> f64 {
            g(x, &w[1..]) * 2.0
        }
    });
    let Some(Op::Output(out)) = p.last() else {
        panic!("no output")
    };
    let call = out.pre.iter().find_map(|op| match op {
        Op::CallJvp {
            path,
            primals,
            tangents,
            ..
        } => Some((path.to_string(), primals.len(), tangents.len())),
        _ => None,
    });
    assert_eq!(call, Some(("g_jvp".to_string(), 2, 2)));
    assert!(print(&p).contains("jvp g_jvp("), "{}", print(&p));
}

#[test]
fn the_lanes_program_is_the_same_program_on_dual_n() {
    let f = analysed(parse_quote! {
        fn f<T: Float>(x: T, v: &[T], y: f32) -> T {
            let mut s = x;
            s += g::<T>(x, v) * T::from(y).unwrap();
            let mut z = T::zero();
            z += s;
            s * v[0].sin() + z
        }
    });
    let n = syn::Ident::new("N", proc_macro2::Span::call_site());
    let one = super::forward_program(&f);
    let many = super::forward_program_in(&f, Some(&n)).0;
    // The same ops, one per op.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    kinds(&one, &mut a);
    kinds(&many, &mut b);
    assert_eq!(a, b);
    let text = super::program::tokens(&many, super::program::Lanes::Many(&n)).to_string();
    assert!(!text.contains(":: Dual ::"), "{text}");
    for want in [
        ":: DualN :: < _ , N > :: new",
        ":: zero_lanes :: < _ , N > (",
        "g_jvpn :: < T , N > (",
        ". map (|",
    ] {
        assert!(text.contains(want), "`{want}` missing from {text}");
    }
    assert!(!text.contains("zero_tangent"), "{text}");
}

#[test]
fn products_get_a_fast_path_sums_do_not() {
    let p = program(parse_quote! {
        fn f(x: f64, y: f64) -> f64 {
            let a = x + y * 2.0;
            let b = x * y;
            a + b
        }
    });
    let text = print(&p);
    // `x + y * 2.0` tests nothing once the literal's partial folds; `x * y` tests its tangent.
    assert!(
        text.contains("dual __ad_f1 = (dual(x, __ad_d_x) + "),
        "{text}"
    );
    assert!(text.contains("dual (fast path first) __ad_f"), "{text}");
    assert_eq!(text.matches("fast path first").count(), 1, "{text}");
}

#[test]
fn a_loop_that_breaks_gets_no_views() {
    let p = program(parse_quote! {
        fn f(v: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..v.len() {
                if s > 1.0 {
                    break;
                }
                s += v[i];
            }
            s
        }
    });
    let text = print(&p);
    assert!(!text.contains("__ad_vw"), "{text}");
    assert!(
        text.contains("v[__ad_i") || text.contains("v [__ad_i"),
        "{text}"
    );
}

#[test]
fn peeled_bounds_and_length_checks_leave_a_body_pure() {
    // Peeling writes `n.saturating_sub(1)` as the loop's end; `copy_from_slice` lowers to a
    // runtime length check: neither keeps the body off the whole-body fast path (`whole.rs`).
    let f = analysed(parse_quote! {
        fn f(x: &[f64], n: usize) -> f64 {
            let mut u = x.to_vec();
            let mut w = x.to_vec();
            let mut s = 0.0;
            for j in 0..n {
                let mut a = u[j];
                if j + 1 < n {
                    a += u[j + 1];
                }
                w[j] = a * a;
                s += a * u[j];
            }
            u.copy_from_slice(&w);
            s + u[0].min(n as f64)
        }
    });
    let (_, peeled, impure) = super::forward_program_peeled(&f, None);
    assert!(!peeled.is_empty(), "the guarded loop is peeled");
    assert!(!impure);
    // A method of an inactive value that is not one of the known pure ones still counts.
    let g = analysed(parse_quote! {
        fn g(x: f64, n: usize) -> f64 {
            let k = n.saturating_sub(2).min(3).pow_mod(7);
            x * x * (k as f64)
        }
    });
    assert!(super::forward_program_peeled(&g, None).2);
}
