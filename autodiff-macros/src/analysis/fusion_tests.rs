//! Unit tests of loop fusion's legality: which top-level loops fuse, why the others do not,
//! and the one commutation test.

use crate::testing::normalized;
use syn::parse_quote;

/// For each top-level loop (by index name), `None` when it fuses, else why not.
fn fused(item: syn::ItemFn) -> Vec<(String, Option<String>)> {
    let (f, vars, ret, body) = normalized(item);
    super::plan(&body, &vars, ret, &f.checkpoints, 0).1
}

fn is_fused(r: &[(String, Option<String>)], name: &str) -> bool {
    r.iter().any(|(n, w)| n == name && w.is_none())
}

fn why<'a>(r: &'a [(String, Option<String>)], name: &str) -> &'a str {
    r.iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, w)| w.as_deref())
        .unwrap_or("")
}

#[test]
fn a_sum_returned_fuses() {
    let r = fused(parse_quote! {
        fn f(x: &[f64], n: usize) -> f64 {
            let mut s = 0.0;
            for i in 0..n - 1 {
                let t = x[i + 1] - x[i] * x[i];
                let u = 1.0 - x[i];
                s += 100.0 * t * t + u * u;
            }
            s
        }
    });
    assert!(is_fused(&r, "i"), "{r:?}");
}

#[test]
fn two_sums_and_a_linear_tail_fuse() {
    let r = fused(parse_quote! {
        fn f(x: &[f64], c: f64) -> f64 {
            let k = c * 2.0;
            let mut s = 0.0;
            let mut q = 0.0;
            for i in 0..x.len() {
                if x[i] > 0.0 {
                    s += k * x[i];
                } else {
                    q -= x[i].sin();
                }
                for j in 0..i {
                    s += x[j] * x[i];
                }
            }
            let m = 0.5 * s - q;
            m + s
        }
    });
    assert!(is_fused(&r, "i"), "{r:?}");
}

#[test]
fn a_chain_of_sum_loops_fuses() {
    let r = fused(parse_quote! {
        fn f(x: &[f64]) -> f64 {
            let mut a = 0.0;
            for i in 0..x.len() {
                a += x[i] * x[i];
            }
            let mut b = 0.0;
            for j in 0..x.len() {
                b += x[j].cos();
            }
            a + 3.0 * b
        }
    });
    assert!(is_fused(&r, "i") && is_fused(&r, "j"), "{r:?}");
}

#[test]
fn a_loop_reading_an_earlier_sum_splits_the_chain() {
    let r = fused(parse_quote! {
        fn f(x: &[f64]) -> f64 {
            let mut a = 0.0;
            for i in 0..x.len() {
                a += x[i] * x[i];
            }
            let mut b = 0.0;
            for j in 0..x.len() {
                b += a * x[j];
            }
            b
        }
    });
    // `j` reads `a`: `a`'s adjoint is only known after `j`'s reverse, so `i` runs unfused.
    assert!(is_fused(&r, "j"), "{r:?}");
    assert!(why(&r, "i").contains("reads the sum"), "{r:?}");
}

#[test]
fn loops_writing_outside_or_exiting_or_reading_their_sum_do_not_fuse() {
    let r = fused(parse_quote! {
        fn f(x: &[f64], y: &mut [f64]) -> f64 {
            for i in 0..x.len() {
                y[i] = x[i] * 2.0;
            }
            let mut s = 0.0;
            for j in 0..x.len() {
                s += x[j];
                if s > 3.0 {
                    break;
                }
            }
            let mut p = 0.0;
            for k in 0..x.len() {
                p = p * x[k];
            }
            s + p
        }
    });
    assert!(why(&r, "i").contains("writes `y`"), "{r:?}");
    assert!(why(&r, "j").contains("exit early"), "{r:?}");
    assert!(why(&r, "k").contains("writes `p`"), "{r:?}");
}

#[test]
fn a_loop_followed_by_a_loop_that_is_not_a_reduction_does_not_fuse() {
    let r = fused(parse_quote! {
        fn f(x: &[f64], y: &mut [f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                s += x[i];
            }
            for j in 0..y.len() {
                y[j] = s * x[j];
            }
            s
        }
    });
    assert!(why(&r, "i").contains("not in a fusible region"), "{r:?}");
}

#[test]
fn a_statement_between_loops_reading_the_first_sum_splits_the_chain() {
    let r = fused(parse_quote! {
        fn f(x: &[f64]) -> f64 {
            let mut a = 0.0;
            for i in 0..x.len() {
                a += x[i];
            }
            let c = a * a;
            let mut b = 0.0;
            for j in 0..x.len() {
                b += x[j];
            }
            b + c
        }
    });
    // `c = a * a` cannot run after `i`'s reverse (which needs `a`'s adjoint), so it is
    // planned before the region; its reverse reads `a`, which the emitter finds on the code
    // and then asks for a region from `j` on (`reverse/fuse.rs` tests that).
    assert!(is_fused(&r, "i") && is_fused(&r, "j"), "{r:?}");
}

#[test]
fn a_statement_between_loops_is_deferred_when_it_can_be() {
    let (f, vars, ret, body) = normalized(parse_quote! {
        fn f(x: &[f64]) -> f64 {
            let mut a = 0.0;
            for i in 0..x.len() {
                a += x[i];
            }
            let c = x[0] * x[1];
            let mut b = 0.0;
            for j in 0..x.len() {
                b += c * x[j];
            }
            a + b
        }
    });
    let plan = super::plan(&body, &vars, ret, &f.checkpoints, 0)
        .0
        .expect("a plan");
    // `let c` commutes with `i` (deferred); `let mut b = 0.0` too; the tail is hoisted.
    assert_eq!(plan.loops.len(), 2);
    assert_eq!(plan.hoisted.len(), 1, "{plan:?}");
}

#[test]
fn commute_allows_reads_with_reads_and_additions_with_additions_only() {
    use super::{commute, LoopFx, StmtFx};
    use std::collections::BTreeSet;
    let (f, vars, _, _) = normalized(parse_quote! {
        fn f(a: f64, b: f64, c: f64) -> f64 { a + b + c }
    });
    let _ = f;
    let set = |vs: &[usize]| -> BTreeSet<usize> { vs.iter().copied().collect() };
    let ok = |r: Result<(), String>| r.is_ok();
    // Two loops summing into different variables and reading the same one: commute.
    let l1 = LoopFx {
        sums: set(&[0]),
        reads: set(&[2]),
        scratch: set(&[]),
    };
    let l2 = LoopFx {
        sums: set(&[1]),
        reads: set(&[2]),
        scratch: set(&[]),
    };
    assert!(ok(commute(l1.adj(), l2.adj(), &vars, |n| n)));
    // A loop reading the sum of another: its additions meet the other's read.
    let l3 = LoopFx {
        sums: set(&[1]),
        reads: set(&[0]),
        scratch: set(&[]),
    };
    assert!(!ok(commute(l1.adj(), l3.adj(), &vars, |n| n)));
    assert!(!ok(commute(l3.adj(), l1.adj(), &vars, |n| n)));
    // Two loops summing into the same variable: both read its adjoint, which commutes.
    let l4 = LoopFx {
        sums: set(&[0]),
        reads: set(&[1]),
        scratch: set(&[]),
    };
    assert!(ok(commute(l1.adj(), l4.adj(), &vars, |n| n)));
    // A statement writing what a loop reads (zeroes an adjoint the loop adds into), or
    // reading a loop's sum (adds into the adjoint the loop reads): no.
    let s1 = StmtFx {
        writes: set(&[2]),
        reads: set(&[]),
    };
    let s2 = StmtFx {
        writes: set(&[1]),
        reads: set(&[0]),
    };
    let s3 = StmtFx {
        writes: set(&[1]),
        reads: set(&[2]),
    };
    assert!(!ok(commute(s1.adj(), l1.adj(), &vars, |n| n)));
    assert!(!ok(commute(s2.adj(), l1.adj(), &vars, |n| n)));
    assert!(ok(commute(s3.adj(), l1.adj(), &vars, |n| n)));
    // Two statements: a write meets any use of the other; reads with reads commute.
    let s4 = StmtFx {
        writes: set(&[0]),
        reads: set(&[2]),
    };
    assert!(ok(commute(s3.adj(), s4.adj(), &vars, |n| n)));
    assert!(!ok(commute(s2.adj(), s4.adj(), &vars, |n| n)));
    assert!(!ok(commute(s3.adj(), s3.adj(), &vars, |n| n)));
}

/// A layer's activations filled by each iteration before it reads them: fused.
#[test]
fn a_scratch_sequence_filled_then_read_fuses() {
    let r = fused(parse_quote! {
        fn f(w: &[f64], xs: &[f64], h: usize, batch: usize) -> f64 {
            let mut hid = vec![0.0; h];
            let mut s = 0.0;
            for b in 0..batch {
                for i in 0..h {
                    hid[i] = (w[i] * xs[b]).tanh();
                }
                for r in 0..2 {
                    for i in 0..h {
                        s += w[i] * hid[i];
                    }
                }
            }
            s
        }
    });
    assert!(is_fused(&r, "b"), "{r:?}");
}

/// What a scratch sequence may not do: be read before it is filled, at another index, over
/// another range, after the loop, or be filled under a branch or by an argument.
#[test]
fn scratch_sequences_that_do_not_fuse() {
    let cases: Vec<syn::ItemFn> = vec![
        // Read before filling: the previous iteration's values.
        parse_quote! {
            fn f(w: &[f64], h: usize, n: usize) -> f64 {
                let mut a = vec![0.0; h];
                let mut s = 0.0;
                for b in 0..n {
                    for i in 0..h { s += a[i]; }
                    for i in 0..h { a[i] = w[i] * (b as f64); }
                }
                s
            }
        },
        // Read at a neighbour index.
        parse_quote! {
            fn f(w: &[f64], h: usize, n: usize) -> f64 {
                let mut a = vec![0.0; h];
                let mut s = 0.0;
                for b in 0..n {
                    for i in 0..h { a[i] = w[i].sin(); }
                    for i in 1..h { s += a[i - 1]; }
                }
                s
            }
        },
        // Read over another range.
        parse_quote! {
            fn f(w: &[f64], h: usize, n: usize) -> f64 {
                let mut a = vec![0.0; h + 1];
                let mut s = 0.0;
                for b in 0..n {
                    for i in 0..h { a[i] = w[i].sin(); }
                    for i in 0..h + 1 { s += a[i]; }
                }
                s
            }
        },
        // Filled under a branch.
        parse_quote! {
            fn f(w: &[f64], h: usize, n: usize) -> f64 {
                let mut a = vec![0.0; h];
                let mut s = 0.0;
                for b in 0..n {
                    for i in 0..h { if w[i] > 0.0 { a[i] = w[i].sin(); } }
                    for i in 0..h { s += a[i]; }
                }
                s
            }
        },
        // Used after the loop.
        parse_quote! {
            fn f(w: &[f64], h: usize, n: usize) -> f64 {
                let mut a = vec![0.0; h];
                let mut s = 0.0;
                for b in 0..n {
                    for i in 0..h { a[i] = w[i].sin(); }
                    for i in 0..h { s += a[i]; }
                }
                s + a[0]
            }
        },
        // An argument: its final value is seen by the caller.
        parse_quote! {
            fn f(w: &[f64], a: &mut [f64], h: usize, n: usize) -> f64 {
                let mut s = 0.0;
                for b in 0..n {
                    for i in 0..h { a[i] = w[i].sin(); }
                    for i in 0..h { s += a[i]; }
                }
                s
            }
        },
        // The range's bound changes in the body.
        parse_quote! {
            fn f(w: &[f64], h: usize, n: usize) -> f64 {
                let mut a = vec![0.0; h];
                let mut s = 0.0;
                let mut m = h;
                for b in 0..n {
                    for i in 0..m { a[i] = w[i].sin(); }
                    m -= 1;
                    for i in 0..m { s += a[i]; }
                }
                s
            }
        },
    ];
    for (k, item) in cases.into_iter().enumerate() {
        let r = fused(item);
        assert!(!is_fused(&r, "b"), "case {k}: {r:?}");
    }
}
