//! What a statement writes: takes an expression or a statement (with the `Var` table), gives the
//! variables it may modify. The one query lowering (which changing methods it evaluates once,
//! `lower/calls.rs`) and the reverse sweep (which saved copies a statement makes stale,
//! `analysis/saves.rs`, `forget_copies`) ask. A variable may be modified by
//! - an assignment to it or to one of its elements (`v = e`, `v[i] = e`, `v += e`; a float
//!   field of a `&mut` struct is a field argument of its own, written the same way),
//! - `v.push(e)`,
//! - a call it is lent to by `&mut` (`g(&mut v)`, `&mut v[a..b]`, split parts: `MutRef`),
//! - a method of plain code that may change its receiver (`rng.next()`, `v.sort()`, `v.pop()`
//!   with `v` a mutable variable of a type the macro does not know; not the `READ_ONLY_METHODS`),
//! - a call it is passed to as a mutable variable of a type the macro does not know (`g(x, rng)`
//!   with `rng: &mut Lcg`, passed on bare: the macro cannot see what the callee does with it).
//!
//! Bindings (`let`, a `for` loop's index) declare, they do not modify. Over statements the query
//! is `R::writes` (`transform/normalize.rs`), on the normalised statements the reverse sweep
//! reads; its unit tests are here.

use super::*;

/// Methods that never change their receiver, kept in place when the receiver is a variable that
/// changes (see `lower/calls.rs`, `method_call`).
pub const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "get",
    "contains",
    "first",
    "last",
    "clone",
    "to_vec",
    "to_owned",
    "iter",
    "capacity",
    "is_some",
    "is_none",
    "unwrap",
    "as_slice",
    "binary_search",
    "starts_with",
    "ends_with",
    "min",
    "max",
    "abs",
    "count_ones",
];

/// Whether `v` is a mutable variable of a type the macro does not know (a generator, a
/// `Vec<usize>`, `&mut` some user type): plain code the macro cannot see may change it.
fn opaque_mutable(vars: &[Var], v: VarId) -> bool {
    vars[v].mutable && vars[v].shape == Shape::Other
}

/// The variable the method `method` of plain code called on `recv` may change: `recv` itself
/// when it is a mutable variable of a type the macro does not know and the method is not one of
/// the `READ_ONLY_METHODS`.
pub fn method_changes(vars: &[Var], recv: &Expr, method: &str) -> Option<VarId> {
    match recv.kind {
        ExprKind::Var(v) if opaque_mutable(vars, v) && !READ_ONLY_METHODS.contains(&method) => {
            Some(v)
        }
        _ => None,
    }
}

/// What a call lending struct argument `v` whole (`MutRef(v)`, `lower/struct_mut.rs`) writes
/// besides it: the fields of it the body uses are arguments of their own, which the callee may
/// change; taken as every mutable float or sequence argument (a field argument of a lent struct
/// is mutable, `codegen/lend.rs`).
pub fn lent_fields(vars: &[Var], v: VarId) -> Vec<VarId> {
    if vars[v].shape != Shape::Struct || !vars[v].in_out_ref() {
        return Vec::new();
    }
    (0..vars.len())
        .filter(|&w| {
            let var = &vars[w];
            matches!(var.origin, VarOrigin::Param(_))
                && var.mutable
                && matches!(var.shape, Shape::Scalar | Shape::Seq(_))
        })
        .collect()
}

/// The variables evaluating `e` may modify (see the module comment), each once, in the order
/// found.
pub fn expr_writes(vars: &[Var], e: &Expr, out: &mut Vec<VarId>) {
    let add = |v: VarId, out: &mut Vec<VarId>| {
        if !out.contains(&v) {
            out.push(v)
        }
    };
    // Mutable variables of unknown types read anywhere in `e`: what a call or a changing
    // method is handed (bare, or inside another argument: conservatively all of them).
    let opaque_reads = |e: &Expr| {
        let mut reads = Vec::new();
        e.reads(&mut reads);
        reads.retain(|v| opaque_mutable(vars, *v));
        reads
    };
    e.visit(&mut |n| match &n.kind {
        ExprKind::MutRef(v, ..) => {
            add(*v, out);
            lent_fields(vars, *v).into_iter().for_each(|w| add(w, out));
        }
        ExprKind::Call { args, .. } | ExprKind::PlainCall { args, .. } => {
            for a in args {
                opaque_reads(a).into_iter().for_each(|v| add(v, out));
            }
        }
        ExprKind::PlainMethod {
            recv, method, args, ..
        } => {
            if !READ_ONLY_METHODS.contains(&method.to_string().as_str()) {
                opaque_reads(recv).into_iter().for_each(|v| add(v, out));
            }
            for a in args {
                opaque_reads(a).into_iter().for_each(|v| add(v, out));
            }
        }
        _ => {}
    });
}

#[cfg(test)]
mod tests {
    use crate::testing::normalized;
    use syn::parse_quote;

    /// The names of the variables each top-level statement of `item`'s normalised body may
    /// modify, for the statements that modify any.
    fn writes(item: syn::ItemFn) -> Vec<Vec<String>> {
        let (_, vars, _, body) = normalized(item);
        body.iter()
            .map(|s| {
                let mut out = Vec::new();
                s.writes(&vars, &mut out);
                out.iter().map(|v| vars[*v].name.to_string()).collect()
            })
            .filter(|w: &Vec<String>| !w.is_empty())
            .collect()
    }

    #[test]
    fn assignments_pushes_and_mut_borrows() {
        let w = writes(parse_quote! {
            fn f(x: f64, v: &mut [f64], n: usize) -> f64 {
                let mut s = x;
                s += 1.0;
                let mut w = vec![x; n];
                w[0] = s;
                w.push(s);
                g(&mut w, x);
                g(&mut v[1..], s);
                if s > 0.0 {
                    for i in 0..n {
                        s = s * w[i];
                    }
                }
                s
            }
        });
        // The last statement is the normalised exit's write of the value.
        let want: Vec<Vec<&str>> = vec![
            vec!["s"],
            vec!["w"],
            vec!["w"],
            vec!["w"],
            vec!["v"],
            vec!["s"],
            vec!["__ad_ret_6"],
        ];
        assert_eq!(w, want);
    }

    #[test]
    fn changing_methods_and_opaque_arguments() {
        let w = writes(parse_quote! {
            fn f(x: f64, seen: &mut Vec<usize>) -> f64 {
                let mut rng = Lcg::new(7);
                rng.advance();
                let k = seen.len();
                let j = seen.pop().unwrap();
                let y = step(x, seen);
                let c = ((k + j) as f64) * x + rng.next_f64();
                c + y
            }
        });
        // `rng.advance()`; `seen.pop()` (evaluated once into a local of its own); `seen` passed
        // on bare; `rng.next_f64()` (likewise); the value. `seen.len()` writes nothing.
        let want: Vec<Vec<&str>> = vec![
            vec!["rng"],
            vec!["seen"],
            vec!["seen"],
            vec!["rng"],
            vec!["__ad_ret_10"],
        ];
        assert_eq!(w, want);
    }
}
