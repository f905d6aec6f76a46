//! Unit tests of the adjoint program: takes small functions through the reverse emitter, checks
//! the kinds of ops it gives (saves, restores, takes, rule calls) and their order.

use super::program::{Op, Site};
use crate::testing::analysed;
use syn::parse_quote;

fn program(item: syn::ItemFn) -> Vec<Op> {
    let f = analysed(item);
    let mut diag = crate::diag::Diag::default();
    let mut dump = crate::codegen::dump::IrDump::default();
    // Unfused: these tests look at the two sweeps (`fuse.rs` tests the fused ones).
    let s = super::adjoint_program(&f, &mut diag, &mut dump, false).expect("an adjoint program");
    let mut ops = s.fwd;
    ops.extend(s.rev);
    ops.push(Op::Code(s.ret));
    ops
}

/// Every op of `ops`, nested ones included, in order.
fn flat(ops: &[Op], out: &mut Vec<String>) {
    for op in ops {
        let kind = match op {
            Op::Code(_) => "code",
            Op::Let { .. } => "let",
            Op::Set { .. } => "set",
            Op::Save {
                site: Site::Tape(_),
                ..
            } => "push",
            Op::Save { .. } => "set-slot",
            Op::Restore {
                site: Site::Tape(_),
                ..
            } => "pop",
            Op::Restore { .. } => "take-slot",
            Op::Take { .. } => "take",
            Op::Acc { first: true, .. } => "acc-first",
            Op::Acc { .. } => "acc",
            Op::AccSlice { .. } => "acc-slice",
            Op::Rule { rule, .. } => {
                out.push(format!("rule {rule}"));
                continue;
            }
            Op::CallVjp { .. } => "vjp",
            Op::Block(b) | Op::Loop { body: b, .. } | Op::For { body: b, .. } => {
                flat(b, out);
                continue;
            }
            Op::If { then, els, .. } => {
                flat(then, out);
                if let Some(e) = els {
                    flat(e, out);
                }
                continue;
            }
            Op::Match { arms, .. } => {
                for (_, b) in arms {
                    flat(b, out);
                }
                continue;
            }
        };
        out.push(kind.to_string());
    }
}

fn kinds(item: syn::ItemFn) -> Vec<String> {
    let mut out = Vec::new();
    flat(&program(item), &mut out);
    out
}

#[test]
fn straight_line_code_saves_nothing() {
    let k = kinds(parse_quote! {
        fn f(x: f64, y: f64) -> f64 {
            let z = x * y;
            z.sin()
        }
    });
    assert!(!k.iter().any(|o| o == "push" || o == "pop"), "{k:?}");
    assert!(k.iter().any(|o| o == "rule mul"), "{k:?}");
    assert!(k.iter().any(|o| o == "rule sin"), "{k:?}");
}

#[test]
fn a_product_overwritten_in_a_loop_is_saved_once_per_iteration() {
    let k = kinds(parse_quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = 1.0;
            for _ in 0..n {
                s = s * x;
            }
            s
        }
    });
    // The old `s` that `mul`'s partial reads: pushed in the forward loop, popped in the reverse.
    assert_eq!(k.iter().filter(|o| *o == "push").count(), 1, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "pop").count(), 1, "{k:?}");
    let push = k.iter().position(|o| o == "push").unwrap();
    let pop = k.iter().position(|o| o == "pop").unwrap();
    assert!(push < pop, "{k:?}");
    // `s`'s adjoint is taken (read and zeroed) before it flows into `s` and `x` again; the
    // first contribution to the zeroed adjoint is assigned, not added.
    let body = &k[pop..];
    let take = body.iter().position(|o| o == "take").expect("a take");
    let mul = body
        .iter()
        .position(|o| o == "rule mul")
        .expect("mul's partials");
    assert!(take < mul, "{k:?}");
    assert!(body[mul..].iter().any(|o| o == "acc-first"), "{k:?}");
}

#[test]
fn values_saved_in_a_branch_outside_loops_go_to_slots() {
    let k = kinds(parse_quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut y = x;
            if x != 0.0 {
                let (s, c) = x.sin_cos();
                y = s * c;
                match n {
                    0 => y = y * y,
                    _ => {}
                }
            }
            for _ in 0..n {
                if y > 0.0 {
                    y = y * x;
                }
            }
            y
        }
    });
    // `s`, `c` and the old `y` of `y * y`, in branches outside the loop: slots, set and taken
    // once each. Inside the loop, the decision `y > 0.0` and the old `y` of `y * x`: tapes.
    assert_eq!(k.iter().filter(|o| *o == "set-slot").count(), 3, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "take-slot").count(), 3, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "push").count(), 2, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "pop").count(), 2, "{k:?}");
}

#[test]
fn a_call_reverses_through_its_vjp() {
    let k = kinds(parse_quote! {
        fn f(x: f64) -> f64 {
            g(x) * 2.0
        }
    });
    assert!(k.iter().any(|o| o == "vjp"), "{k:?}");
}
