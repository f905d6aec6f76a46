//! Usefulness: takes the normalised body, gives the variables whose adjoint can be nonzero (the
//! output, the arguments, and active variables read by assignments to useful ones).

use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::BTreeSet;

/// One backward step of the usefulness analysis: active variables read by statements that
/// assign a useful variable become useful.
pub(crate) fn useful(body: &[R], vars: &[Var], acc: &mut BTreeSet<VarId>) {
    let add = |e: &Expr, acc: &mut BTreeSet<VarId>| {
        let mut reads = Vec::new();
        e.reads(&mut reads);
        for r in reads {
            if vars[r].active {
                acc.insert(r);
            }
        }
    };
    for s in body.iter().rev() {
        match s {
            R::Let { pat, init: Some(e) } => {
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                if vs.iter().any(|v| acc.contains(v)) {
                    add(e, acc);
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
            _ => {}
        }
    }
}
