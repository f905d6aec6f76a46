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
            Op::Zero { .. } => "zero",
            Op::Set { .. } => "set",
            Op::Save {
                site: Site::Tape(_),
                ..
            } => "push",
            Op::Save { .. } => "set-slot",
            Op::SaveAt { .. } => "save-at",
            Op::Restore {
                site: Site::Tape(_),
                ..
            } => "pop",
            Op::Restore { .. } => "take-slot",
            Op::RestoreTuple { .. } => "pop",
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
    // At the top level `sin` is computed by `sin_cos`, whose rule gives its partial.
    assert!(k.iter().any(|o| o == "rule sin_cos"), "{k:?}");
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
    // The old `s` that `mul`'s partial reads: saved once an iteration in the forward loop, by
    // index into a region of the tape sized before the loop (`regions.rs`), read back by index
    // in the reverse: no push, no pop.
    assert_eq!(k.iter().filter(|o| *o == "save-at").count(), 1, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "push").count(), 0, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "pop").count(), 0, "{k:?}");
    let push = k.iter().position(|o| o == "save-at").unwrap();
    // `s`'s adjoint is taken (read and zeroed) before it flows into `s` and `x` again; the
    // first contribution to the zeroed adjoint is assigned, not added.
    let body = &k[push..];
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

/// The adjoint program as tokens, printed.
fn text(item: syn::ItemFn) -> String {
    let ops = program(item);
    quote::quote!(#(#ops)*).to_string()
}

#[test]
fn a_loop_body_saves_on_one_tape_of_tuples() {
    let k = kinds(parse_quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = 1.0;
            let mut t = 2.0;
            for _ in 0..n {
                s = s * x;
                t = t.sin() * s;
                let u = (s * t).exp();
                s = s + u;
            }
            s + t
        }
    });
    // The old `s` of `s * x`, the old `t` of `t.sin()`, `s` read by `* s`: three values an
    // iteration, saved as one tuple and read back as one (by index into a region of the tape:
    // every value is a float, `regions.rs`).
    assert_eq!(k.iter().filter(|o| *o == "save-at").count(), 1, "{k:?}");
    assert_eq!(k.iter().filter(|o| *o == "push").count(), 0, "{k:?}");
    let t = text(parse_quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = 1.0;
            let mut t = 2.0;
            for _ in 0..n {
                s = s * x;
                t = t.sin() * s;
            }
            s + t
        }
    });
    assert!(t.contains("as usize] = (__ad_k"), "{t}");
    assert!(t.contains("let (__ad_s"), "{t}");
    assert!(
        t.contains(". resize (") && t.contains(". truncate ("),
        "{t}"
    );
}

#[test]
fn elements_of_a_whole_copy_are_not_saved_again() {
    // In a branch outside loops every save is a slot of its own: `y` is saved whole for the
    // call, `y[0]` and `y[1]` in `b` are read from that copy, `a` (a call's value) is kept;
    // after `y[0] = b` the copy is stale: `out`'s product saves `y[0]` and `y[1]` again.
    let k = kinds(parse_quote! {
        fn f(x: f64, c: bool) -> f64 {
            let mut y = [x, x * 2.0];
            let mut out = 0.0;
            if c {
                let a = g(&y);
                let b = y[0] * y[1] * a;
                y[0] = b;
                out = y[0] * y[1];
            }
            out
        }
    });
    assert_eq!(k.iter().filter(|o| *o == "set-slot").count(), 4, "{k:?}");
    // Without the call (no whole copy), `b`'s product saves its reads itself.
    let k = kinds(parse_quote! {
        fn f(x: f64, c: bool) -> f64 {
            let mut y = [x, x * 2.0];
            let mut out = 0.0;
            if c {
                let b = y[0] * y[1];
                y[0] = b;
                out = y[0] * y[1];
            }
            out
        }
    });
    assert_eq!(k.iter().filter(|o| *o == "set-slot").count(), 4, "{k:?}");
}

#[test]
fn nested_tapes_are_reserved_at_the_outermost_loop() {
    let t = text(parse_quote! {
        fn f(x: &[f64], n: usize, m: usize) -> f64 {
            let mut s = 0.0;
            for i in 0..n {
                for j in 0..m {
                    s = s * x[j] + x[i];
                }
            }
            s
        }
    });
    assert!(t.contains("saturating_mul"), "{t}");
    // Bounds reading the outer index, or a loop under a branch: not evaluated early.
    for item in [
        parse_quote! {
            fn f(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..i {
                        s = s * x[j];
                    }
                }
                s
            }
        },
        parse_quote! {
            fn f(x: &[f64], n: usize, m: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    if x[i] > 0.0 {
                        for j in 0..m - 1 {
                            s = s * x[j];
                        }
                    }
                }
                s
            }
        },
    ] {
        let t = text(item);
        assert!(!t.contains("saturating_mul"), "{t}");
    }
}

#[test]
fn top_level_sin_cos_and_exp_are_computed_once() {
    let t = text(parse_quote! {
        fn f(x: f64, y: f64) -> f64 {
            let c = (2.0 * x).cos() + y.sin();
            c.exp() * y
        }
    });
    // The forward sweep computes both of `sin_cos`'s outputs; the reverse takes `cos`'s and
    // `sin`'s partials from `sin_cos`'s rule and reads `exp` from the forward sweep's local.
    assert_eq!(t.matches("Float :: sin_cos").count(), 2, "{t}");
    assert_eq!(t.matches("rules :: sin_cos").count(), 2, "{t}");
    assert!(
        !t.contains("Float :: cos") && !t.contains("Float :: sin ("),
        "{t}"
    );
    assert_eq!(t.matches("Float :: exp").count(), 1, "{t}");
    // Inside a loop nothing is shared this way (values there are saved or recomputed).
    let t = text(parse_quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = 0.0;
            for _ in 0..n {
                s = s + (s * x).cos();
            }
            s
        }
    });
    assert!(!t.contains("sin_cos"), "{t}");
}

#[test]
fn a_costly_let_is_saved_and_a_cheap_one_recomputed() {
    let body = |m: syn::Ident| -> syn::ItemFn {
        parse_quote! {
            fn f(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    let a = x[i] * 2.0;
                    let b = a.#m();
                    s = s + b.sin();
                }
                s
            }
        }
    };
    // `exp` is a library call: `b` is saved (one push an iteration), and the reverse of its
    // `let` reads it for `exp`'s rule instead of computing `exp` again.
    let t = text(body(parse_quote!(exp)));
    assert_eq!(t.matches("as usize] = ").count(), 1, "{t}");
    assert_eq!(t.matches("Float :: exp").count(), 1, "{t}");
    // `sqrt` is one instruction: `b` is recomputed from `a` in the reverse, nothing is saved.
    let t = text(body(parse_quote!(sqrt)));
    assert_eq!(t.matches("as usize] = ").count(), 0, "{t}");
    assert_eq!(t.matches(". push (").count(), 0, "{t}");
    assert_eq!(t.matches("Float :: sqrt").count(), 2, "{t}");
}

#[test]
fn a_name_restored_twice_is_bound_once_in_the_tuple() {
    // Two sites saving one immutable value under its variable's name (a `#[checkpoint]` loop's
    // input and a kept `let`, found by the random programs): the tuple pattern binds it once.
    use super::program::combine_tapes;
    use quote::format_ident;
    let (t1, t2, x) = (format_ident!("t1"), format_ident!("t2"), format_ident!("x"));
    let mut fwd = vec![
        Op::Save {
            site: Site::Tape(t1.clone()),
            value: quote::quote!(x),
            fill: None,
        },
        Op::Save {
            site: Site::Tape(t2.clone()),
            value: quote::quote!(x),
            fill: None,
        },
    ];
    let mut pops = vec![
        Op::Restore {
            name: x.clone(),
            site: Site::Tape(t1),
        },
        Op::Restore {
            name: x.clone(),
            site: Site::Tape(t2.clone()),
        },
    ];
    let mut n = 0;
    let unused = combine_tapes(&mut fwd, &mut pops, || {
        n += 1;
        format_ident!("k{n}")
    });
    assert_eq!(unused, vec![t2]);
    match pops.as_slice() {
        [Op::RestoreTuple { names, .. }] => {
            assert_eq!(names.len(), 2);
            assert_ne!(names[0], names[1]);
            assert_eq!(names[1], x);
        }
        _ => panic!("one tuple restored"),
    }
}

/// Every accumulation of `ops` in order, nested ones included: the place printed, and whether
/// it assigns (`first`).
fn accs(ops: &[Op], out: &mut Vec<(String, bool)>) {
    for op in ops {
        match op {
            Op::Acc { place, first, .. } => {
                out.push((quote::ToTokens::to_token_stream(place).to_string(), *first))
            }
            Op::Block(b) | Op::Loop { body: b, .. } | Op::For { body: b, .. } => accs(b, out),
            Op::If { then, els, .. } => {
                accs(then, out);
                if let Some(e) = els {
                    accs(e, out);
                }
            }
            Op::Match { arms, .. } => arms.iter().for_each(|(_, b)| accs(b, out)),
            _ => {}
        }
    }
}

/// The accumulations into the adjoint of the local named `name` (`__ad_b<k>_<name>`).
fn accs_into(item: syn::ItemFn, name: &str) -> Vec<bool> {
    let mut out = Vec::new();
    accs(&program(item), &mut out);
    let suffix = format!("_{name}");
    out.into_iter()
        .filter(|(p, _)| p.starts_with("__ad_b") && p.ends_with(&suffix))
        .map(|(_, first)| first)
        .collect()
}

#[test]
fn a_scalar_adjoint_declared_zero_takes_its_first_contribution_by_assignment() {
    // `t`'s adjoint is declared zero at the start of the body's reverse; the reverse of
    // `s += 3.0 * t + t.sin()` adds into it twice (through `3.0 * t` and `sin`), then the
    // reverse of `let t` takes it. The first addition is an assignment, the second adds.
    let firsts = accs_into(
        parse_quote! {
            fn f(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    let t = x[i] * x[i];
                    s += 3.0 * t + t.sin();
                }
                s
            }
        },
        "t",
    );
    assert_eq!(firsts, vec![true, false], "{firsts:?}");
}

#[test]
fn a_first_contribution_under_a_branch_keeps_adding() {
    // The reverse of the `if` runs first and may not run: the contribution inside it adds, and
    // so does the later one (the adjoint may still be zero there, or may not).
    let firsts = accs_into(
        parse_quote! {
            fn f(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    let t = x[i] * 2.0;
                    s += t * 3.0;
                    if x[i] > 0.0 {
                        s += t;
                    }
                }
                s
            }
        },
        "t",
    );
    assert_eq!(firsts, vec![false, false], "{firsts:?}");
}

#[test]
fn tapes_of_floats_are_written_by_index_and_others_pushed() {
    // The body saves `d` (a float, read by `d * d` after `d` changes) once an iteration: a
    // region of the tape sized before the loop, written and read by index. In a nested loop the
    // inner loop's region is sized by each of its runs. Saves inside a branch (not once an
    // iteration) keep their pushes.
    let t = text(parse_quote! {
        fn f(x: &[f64], n: usize, m: usize) -> f64 {
            let mut s = 0.0;
            for k in 0..m {
                for i in 0..n {
                    let mut d = x[i];
                    d = d * s + 1.0;
                    s += d * d;
                }
            }
            s
        }
    });
    assert_eq!(t.matches(". resize (").count(), 1, "{t}");
    assert_eq!(t.matches(". truncate (").count(), 1, "{t}");
    assert_eq!(t.matches(". push (").count(), 0, "{t}");
    let t = text(parse_quote! {
        fn f(x: &[f64], n: usize) -> f64 {
            let mut s = 0.0;
            for i in 0..n {
                let mut d = x[i];
                if d > 0.0 {
                    d = d * s;
                    s += d * d;
                }
            }
            s
        }
    });
    assert_eq!(t.matches(". resize (").count(), 0, "{t}");
    assert!(t.matches(". push (").count() >= 1, "{t}");
}

#[test]
fn a_window_over_a_sequence_the_loop_does_not_write_adds_into_it() {
    // `x` is only read in the loop: its adjoint's window (offsets -1 and 0) starts its slots at
    // zero and adds each into the element leaving it (`addwin.rs`), with no load of `x̄`.
    let t = text(parse_quote! {
        fn f(x: &[f64], n: usize) -> f64 {
            let mut y = vec![0.0; n];
            for i in 1..n {
                let d = x[i] - x[i - 1];
                y[i] = d * d * d;
            }
            let mut s = 0.0;
            for i in 0..n {
                s += y[i] * x[i];
            }
            s
        }
    });
    // The element leaving the window (offset 0) and, after the loop, the last one left.
    let adds: Vec<&str> = t
        .match_indices("accumulate (& mut __ad_vw")
        .map(|(k, _)| {
            let rest = &t[k + "accumulate (& mut ".len()..];
            &rest[..rest.find(' ').unwrap_or(rest.len())]
        })
        .collect();
    assert_eq!(adds.len(), 2, "{t}");
    assert_eq!(adds[0], adds[1], "{t}");
    assert!(!t.contains(&format!("= {} [", adds[0])), "{t}");
    // A sequence the loop writes keeps its window's loads and stores.
    let t = text(parse_quote! {
        fn f(x: &[f64], n: usize) -> f64 {
            let mut z = x.to_vec();
            for i in 1..n {
                z[i] = z[i] + 0.5 * z[i - 1] * z[i - 1];
            }
            let mut s = 0.0;
            for i in 0..n {
                s += z[i];
            }
            s
        }
    });
    assert!(!t.contains("accumulate (& mut __ad_vw"), "{t}");
}

/// Buffer rotation (`transform/rotate.rs`): the copy ending each step is an exchange in the
/// forward sweep and an exchange of the adjoints in the reverse sweep (no copy loop, no saved
/// length); when the reverse sweep reads the old grid, both buffers are restored and the
/// exchange is undone by exchanging the values back too.
#[test]
fn a_double_buffer_is_exchanged_in_both_sweeps() {
    let text = |item: syn::ItemFn| super::program::print(&program(item));
    let linear = text(parse_quote! {
        fn f(u0: &[f64], a: f64, n: usize) -> f64 {
            let mut u = u0.to_vec();
            let mut next = u0.to_vec();
            for _s in 0..3 {
                for i in 1..n {
                    next[i] = u[i] + 0.5 * u[i - 1];
                }
                u.copy_from_slice(&next);
            }
            (u[0] + u[1]) * a
        }
    });
    assert_eq!(linear.matches("swap").count(), 2, "{linear}");
    assert!(!linear.contains("__ad_k"), "a copy loop is left: {linear}");
    let nonlinear = text(parse_quote! {
        fn f(u0: &[f64], a: f64, n: usize) -> f64 {
            let mut u = u0.to_vec();
            let mut next = u0.to_vec();
            for _s in 0..3 {
                for i in 1..n {
                    next[i] = u[i] * u[i - 1] * a;
                }
                u.copy_from_slice(&next);
            }
            u[0] + u[1]
        }
    });
    // Forward; reverse: the values back, the adjoints.
    assert_eq!(nonlinear.matches("swap").count(), 3, "{nonlinear}");
}
