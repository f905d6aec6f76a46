//! Usefulness: takes the normalised body, gives the variables whose adjoint can be nonzero (the
//! output, the arguments, and active variables read by assignments to useful ones, outside
//! `stop_gradient(..)`).

use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::BTreeSet;

/// One backward step of the usefulness analysis: active variables read by statements that
/// assign a useful variable become useful. The caller repeats it until `acc` stops growing; as
/// `acc` only grows and holds variables, that takes at most `vars + 1` steps.
pub(crate) fn useful(body: &[R], vars: &[Var], acc: &mut BTreeSet<VarId>) {
    let add = |e: &Expr, acc: &mut BTreeSet<VarId>| {
        let mut reads = Vec::new();
        adjoint_reads(e, &mut reads);
        for r in reads {
            if vars[r].active {
                acc.insert(r);
            }
        }
    };
    for s in body.iter().rev() {
        match s {
            // A call writing through `&mut v` into a useful `v` reads all its arguments (`v`
            // included: the callee overwrites what it reads).
            R::Let { init: Some(e), .. } | R::Eval(e)
                if e.mut_borrows().iter().any(|v| acc.contains(v)) =>
            {
                add(e, acc);
            }
            R::Let { pat, init: Some(e) } => {
                for (p, part) in pat.split_let(e) {
                    let mut vs = Vec::new();
                    p.vars(&mut vs);
                    if vs.iter().any(|v| acc.contains(v)) {
                        add(part, acc);
                    }
                }
            }
            R::Assign { place, value } if acc.contains(&place.var()) => {
                add(value, acc);
            }
            R::Push { vec, value } if acc.contains(vec) => {
                add(value, acc);
            }
            R::If { then, els, .. } => {
                useful(then, vars, acc);
                useful(els, vars, acc);
            }
            R::Match { arms, .. } => arms.iter().for_each(|(_, b)| useful(b, vars, acc)),
            R::For { body, .. } | R::While { body, .. } => useful(body, vars, acc),
            // Each buffer's value flows into the other.
            R::Swap(a, b) if acc.contains(a) || acc.contains(b) => {
                for v in [*a, *b] {
                    if vars[v].active {
                        acc.insert(v);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The variables an adjoint of `e` can flow back to: what `e` reads, except under
/// `stop_gradient(..)`, whose value is a constant.
fn adjoint_reads(e: &Expr, out: &mut Vec<VarId>) {
    if matches!(e.kind, ExprKind::StopGradient(_) | ExprKind::Fixed(..)) {
        return;
    }
    out.extend(e.own_read());
    for c in e.children() {
        adjoint_reads(c, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{normalized, var};
    use std::collections::BTreeSet;
    use syn::parse_quote;

    #[test]
    fn only_variables_that_reach_the_output_are_useful() {
        let (f, vars, ret, body) = normalized(parse_quote! {
            fn f(x: f64, y: f64) -> f64 {
                let a = x * 2.0;
                let b = y.sin();
                let c = a + 1.0;
                c * x
            }
        });
        let mut acc: BTreeSet<usize> = [0, 1, ret].into_iter().collect();
        loop {
            let before = acc.len();
            super::useful(&body, &vars, &mut acc);
            if acc.len() == before {
                break;
            }
        }
        assert!(acc.contains(&var(&f, "a")) && acc.contains(&var(&f, "c")));
        // `b` is active but never reaches the output: its adjoint is never needed.
        assert!(!acc.contains(&var(&f, "b")));
    }
}
