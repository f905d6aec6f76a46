//! Loop peeling in forward mode: takes the function's IR, gives a copy with the innermost `for`
//! loops peeled by `transform/peel.rs` (the pass the reverse sweep runs on its normalised
//! statements), so that the forward loops lose their index tests as the reverse loops do
//! (`if j > 0 { .. x[j - 1] .. }` written out for the first iteration, the loop left over
//! `1..n` straight-line code, which slice views then cover).
//!
//! Only a loop whose body converts exactly to the normalised form is offered to the pass:
//! `let`s, assignments, pushes, evaluated expressions and `if`s, nothing that leaves the loop, no
//! nested loop, block or macro. A compound assignment `p op= v` becomes `p = p op v` (the same
//! value and, on `Dual`, the same tangent); one to an element whose index calls anything is not
//! converted (the index would be evaluated twice), and its loop is left as it is. The pass
//! checks its own conditions (ARCHITECTURE.md, "Loop peeling") and leaves a loop it cannot peel.

use crate::ir::*;
use crate::transform::normalize::R;
use crate::transform::peel::peel;
use std::collections::BTreeMap;

/// `f` with its qualifying loops peeled, and one line per peeled loop; `None` when none is.
pub(super) fn peeled(f: &Function) -> Option<(Function, Vec<String>)> {
    if !has_for(&f.body.stmts) {
        return None;
    }
    let mut g = f.clone();
    let mut report = Vec::new();
    let body = std::mem::take(&mut g.body.stmts);
    g.body.stmts = peel_list(body, &mut g.vars, &f.checkpoints, &mut report);
    (!report.is_empty()).then_some((g, report))
}

fn has_for(stmts: &[Stmt]) -> bool {
    let mut found = false;
    visit_stmt_list(stmts, &mut |s| found |= matches!(s, Stmt::For { .. }));
    found
}

fn block(stmts: Vec<Stmt>) -> Block {
    Block { stmts }
}

fn peel_list(
    list: Vec<Stmt>,
    vars: &mut Vec<Var>,
    cps: &BTreeMap<VarId, Checkpoint>,
    report: &mut Vec<String>,
) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(list.len());
    let sub = |b: Block, vars: &mut Vec<Var>, report: &mut Vec<String>| {
        block(peel_list(b.stmts, vars, cps, report))
    };
    for s in list {
        match s {
            Stmt::For {
                var,
                range,
                body,
                label,
            } => {
                let body = sub(body, vars, report);
                if let Some(r) = to_r(&body.stmts) {
                    let mut rs = vec![R::For {
                        var,
                        range: range.clone(),
                        body: r,
                        brk: None,
                    }];
                    let lines = peel(&mut rs, vars, cps);
                    if !lines.is_empty() {
                        if let Some(stmts) = from_r(rs) {
                            report.extend(lines);
                            out.extend(stmts);
                            continue;
                        }
                    }
                }
                out.push(Stmt::For {
                    var,
                    range,
                    body,
                    label,
                });
            }
            Stmt::If { cond, then, els } => out.push(Stmt::If {
                cond,
                then: sub(then, vars, report),
                els: els.map(|e| sub(e, vars, report)),
            }),
            Stmt::Match { scrut, arms } => out.push(Stmt::Match {
                scrut,
                arms: arms
                    .into_iter()
                    .map(|a| Arm {
                        pat: a.pat,
                        body: sub(a.body, vars, report),
                    })
                    .collect(),
            }),
            Stmt::While { cond, body, label } => out.push(Stmt::While {
                cond,
                body: sub(body, vars, report),
                label,
            }),
            Stmt::Loop { body, label } => out.push(Stmt::Loop {
                body: sub(body, vars, report),
                label,
            }),
            Stmt::Block(b) => out.push(Stmt::Block(sub(b, vars, report))),
            other => out.push(other),
        }
    }
    out
}

/// The normalised form of an innermost loop body, when it has one exactly.
fn to_r(stmts: &[Stmt]) -> Option<Vec<R>> {
    stmts
        .iter()
        .map(|s| {
            Some(match s {
                Stmt::Let { pat, init } => R::Let {
                    pat: pat.clone(),
                    init: init.clone(),
                },
                Stmt::Assign { place, op, value } => R::Assign {
                    place: place.clone(),
                    value: match op {
                        None => value.clone(),
                        Some(op) => {
                            let current = match place {
                                Place::Var(v) => ExprKind::Var(*v),
                                Place::Index(w, ix) if !calls(ix) => ExprKind::Index {
                                    base: *w,
                                    index: ix.clone(),
                                },
                                Place::Index(..) => return None,
                            };
                            let span = value.span;
                            Expr::new(
                                ExprKind::Binary {
                                    op: *op,
                                    lhs: Box::new(Expr::new(current, span)),
                                    rhs: Box::new(value.clone()),
                                },
                                span,
                            )
                        }
                    },
                },
                Stmt::Push { vec, value } => R::Push {
                    vec: *vec,
                    value: value.clone(),
                },
                Stmt::Eval(e) => R::Eval(e.clone()),
                Stmt::If { cond, then, els } => R::If {
                    cond: cond.clone(),
                    then: to_r(&then.stmts)?,
                    els: match els {
                        Some(e) => to_r(&e.stmts)?,
                        None => Vec::new(),
                    },
                },
                _ => return None,
            })
        })
        .collect()
}

/// Whether evaluating `e` may call anything beyond float methods.
fn calls(e: &Expr) -> bool {
    let mut found = false;
    e.visit(&mut |n| {
        found |= matches!(
            n.kind,
            ExprKind::Call { .. } | ExprKind::PlainCall { .. } | ExprKind::PlainMethod { .. }
        )
    });
    found
}

/// The statements of the peeled form (`None` for a form forward mode does not take back).
fn from_r(rs: Vec<R>) -> Option<Vec<Stmt>> {
    rs.into_iter()
        .map(|r| {
            Some(match r {
                R::Let { pat, init } => Stmt::Let { pat, init },
                R::Assign { place, value } => Stmt::Assign {
                    place,
                    op: None,
                    value,
                },
                R::Push { vec, value } => Stmt::Push { vec, value },
                R::Eval(e) => Stmt::Eval(e),
                R::If { cond, then, els } => Stmt::If {
                    cond,
                    then: block(from_r(then)?),
                    els: if els.is_empty() {
                        None
                    } else {
                        Some(block(from_r(els)?))
                    },
                },
                R::For {
                    var,
                    range,
                    body,
                    brk: None,
                } => Stmt::For {
                    var,
                    range,
                    body: block(from_r(body)?),
                    label: None,
                },
                _ => return None,
            })
        })
        .collect()
}
