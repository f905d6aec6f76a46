//! Unit tests of loop peeling: the printed IR after the pass.

use crate::testing::normalized;
use std::collections::BTreeMap;
use syn::parse_quote;

/// The body after peeling, printed, and the report lines.
/// The flag every loop gets (`let mut __ad_brk_.. = false;`) and the assignment of the value
/// (`__ad_ret_.. = y[0];`) are left out.
fn peeled(item: syn::ItemFn) -> (String, Vec<String>) {
    let (_, mut vars, _, mut body) = normalized(item);
    let report = super::peel(&mut body, &mut vars, &BTreeMap::new());
    let text = crate::transform::normalize::print(&vars, &body);
    let text: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("let mut __ad_brk") && !l.starts_with("__ad_ret"))
        .collect();
    let text = text.join("\n") + "\n";
    (text.replace(&until_flag(&text), ""), report)
}

/// ` until mut __ad_brk_N#N [bool]` of the printed loops.
fn until_flag(text: &str) -> String {
    match text.find(" until ") {
        Some(i) => {
            let rest = &text[i..];
            rest[..rest.find(" {").unwrap_or(rest.len())].to_string()
        }
        None => "\u{0}".to_string(),
    }
}

#[test]
fn left_neighbour_guard_peels_the_first_iteration() {
    let (text, report) = peeled(parse_quote! {
        fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
            for j in 0..n {
                let mut d = x[j];
                if j > 0 {
                    d = x[j] - x[j - 1];
                }
                y[j] = d * d;
            }
            y[0]
        }
    });
    assert_eq!(report, vec!["loop over `j`: first iteration peeled"]);
    // The copy binds a fresh `d` (#7); the loop left starts at 1 and has no branch.
    assert_eq!(
        text,
        "if (0usize < n#2) {
    let mut d#7 [scalar, active] = x#0[0usize];
    y#1[0usize] = (d#7 * d#7);
} else {
}
for j#3 [int] in (1usize .. n#2) {
    let mut d#4 [scalar, active] = x#0[j#3];
    d#4 = (x#0[j#3] - x#0[(j#3 - 1)]);
    y#1[j#3] = (d#4 * d#4);
}
"
    );
}

#[test]
fn right_neighbour_guard_peels_the_last_iteration() {
    let (text, report) = peeled(parse_quote! {
        fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
            for j in 0..n {
                let mut a = -x[j];
                if j + 1 < n {
                    a += x[j + 1];
                }
                y[j] = a;
            }
            y[0]
        }
    });
    assert_eq!(report, vec!["loop over `j`: last iteration peeled"]);
    assert!(
        text.contains("for j#3 [int] in (0usize .. n#2.saturating_sub(1)) {"),
        "{text}"
    );
    assert!(text.contains("if (0usize < n#2) {"), "{text}");
    // The last copy reads `x[n - 1]` and nothing past it.
    assert!(text.contains("x#0[(n#2 - 1)]"), "{text}");
    assert!(!text.contains("if ((j#3 + 1) < n#2)"), "{text}");
    assert!(!text.contains("((n#2 - 1) + 1)"), "{text}");
}

#[test]
fn both_guards_peel_both_ends() {
    let (text, report) = peeled(parse_quote! {
        fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
            for j in 0..n {
                let mut s = 2.0 * x[j];
                if j > 0 && j + 1 < n {
                    s = s - x[j - 1] - x[j + 1];
                }
                y[j] = s;
            }
            y[0]
        }
    });
    assert_eq!(
        report,
        vec!["loop over `j`: first iteration peeled, last iteration peeled"]
    );
    // The first copy keeps no test (`0 > 0` is false, so `&&` is), the loop is 1..n-1 with no
    // branch, the last copy runs when 1 < n.
    assert!(
        text.starts_with("if (0usize < n#2) {\n    let mut s#"),
        "{text}"
    );
    assert!(
        text.contains("for j#3 [int] in (1usize .. n#2.saturating_sub(1)) {\n    let mut s#4"),
        "{text}"
    );
    assert!(text.contains("if (1usize < n#2) {"), "{text}");
    assert_eq!(text.matches("if ").count(), 2, "{text}");
}

#[test]
fn one_element_loop_keeps_the_dynamic_test_in_the_first_copy() {
    // With only a right-neighbour test against the end and a left one against 0, the first
    // copy is also the last when n == 1: its test of the end stays.
    let (text, _) = peeled(parse_quote! {
        fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
            for j in 0..n {
                let mut s = x[j];
                if j > 0 {
                    s = s + x[j - 1];
                }
                if j + 1 < n {
                    s = s + x[j + 1];
                }
                y[j] = s;
            }
            y[0]
        }
    });
    let first = text.split("for ").next().unwrap();
    assert!(first.contains("if ((0usize + 1) < n#2) {"), "{text}");
}

#[test]
fn loops_that_do_not_qualify_are_left_alone() {
    let cases: Vec<syn::ItemFn> = vec![
        // The end changes in the body.
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                let mut m = n;
                for j in 0..m {
                    if j > 0 { y[j] = x[j - 1]; }
                    m = m - 1;
                }
                y[0]
            }
        },
        // A guard that is no comparison with the bounds (against a mutable variable).
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                let mut k = 1;
                for j in 0..n {
                    if j > k { y[j] = x[j - 1]; }
                    k = k + 1;
                }
                y[0]
            }
        },
        // The index bound by a `let` (a literal in its place would lose its type).
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                for j in 0..n {
                    let k = j;
                    if j > 0 { y[k] = x[k.min(n) - 1]; }
                }
                y[0]
            }
        },
        // A reversed loop.
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                for j in (0..n).rev() {
                    if j > 0 { y[j] = x[j - 1]; }
                }
                y[0]
            }
        },
        // A loop with a break.
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                for j in 0..n {
                    if x[j] > 3.0 { break; }
                    if j > 0 { y[j] = x[j - 1]; }
                }
                y[0]
            }
        },
        // `j - 1 > 0`: the index minus a constant is not read as a guard.
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                for j in 1..n {
                    if j - 1 > 0 { y[j] = x[j - 1]; }
                }
                y[0]
            }
        },
        // A loop with an inner loop (whose guard tests the outer index).
        parse_quote! {
            fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
                for j in 0..n {
                    for i in 0..n {
                        if j > 0 { y[i] = x[j - 1]; }
                    }
                }
                y[0]
            }
        },
    ];
    for (k, item) in cases.into_iter().enumerate() {
        let (text, report) = peeled(item);
        assert!(report.is_empty(), "case {k}: {report:?}\n{text}");
    }
}

#[test]
fn guards_decided_on_the_whole_loop_are_dropped_without_a_copy() {
    let (text, report) = peeled(parse_quote! {
        fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
            for j in 2..n {
                if j >= 1 {
                    y[j] = x[j - 1];
                }
            }
            y[0]
        }
    });
    assert_eq!(
        report,
        vec!["loop over `j`: guards decided on the whole loop"]
    );
    assert_eq!(
        text,
        "for j#3 [int] in (2usize .. n#2) {\n    y#1[j#3] = x#0[(j#3 - 1)];\n}\n"
    );
}

#[test]
fn literal_bounds_and_flipped_comparisons() {
    let (text, report) = peeled(parse_quote! {
        fn f(x: &[f64; 8], y: &mut [f64; 8]) -> f64 {
            for j in 0..8 {
                let mut a = x[j];
                if 0 < j {
                    a = a - x[j - 1];
                }
                if 7 > j {
                    a = a + x[j + 1];
                }
                y[j] = a;
            }
            y[0]
        }
    });
    assert_eq!(
        report,
        vec!["loop over `j`: first iteration peeled, last iteration peeled"]
    );
    assert!(text.contains("in (1usize .. 7usize) {"), "{text}");
    assert!(text.contains("x#0[7usize]"), "{text}");
}

#[test]
fn copies_of_synthetic_variables_get_names_of_their_own() {
    let (_, vars, _, mut body) = normalized(parse_quote! {
        fn f(x: &[f64], y: &mut [f64], n: usize) -> f64 {
            for j in 0..n {
                let d = if j > 0 { x[j] - x[j - 1] } else { x[j] };
                y[j] = d;
            }
            y[0]
        }
    });
    let mut vars = vars;
    let before = vars.len();
    super::peel(&mut body, &mut vars, &BTreeMap::new());
    let mut names: Vec<String> = vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.origin == crate::ir::VarOrigin::Synthetic)
        .map(|(i, v)| crate::names::var(v, i).to_string())
        .collect();
    assert!(vars.len() > before);
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "{names:?}");
}
