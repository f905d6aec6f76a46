//! Loop peeling: takes the normalised statement list of the reverse sweep (`R`), gives it with
//! the first and/or last iteration of innermost `for` loops written out on their own where the
//! body tests the index against the loop's bounds (`if j > 0 { .. x[j - 1] .. }`,
//! `if j + 1 < n { .. x[j + 1] .. }`), so that the loop that is left has no such branch: its
//! body is straight-line code whose neighbour reads are made on every iteration (slice views and
//! adjoint windows apply, and LLVM can vectorize it). The conditions, in ARCHITECTURE.md ("Loop
//! peeling"), are checked here; a loop that does not meet them is left as it is.
//!
//! `for j in a..b { body }` with a first peel and a last peel becomes
//!
//! ```text
//! if a < b { body[j := a, guards at j = a] }
//! for j in a + 1..b.saturating_sub(1) { body[guards in the middle] }
//! if a + 1 < b { body[j := b - 1, guards at j = b - 1] }
//! ```
//!
//! Each copy binds fresh variables (the table grows), so every binding stays unique.

use crate::ir::*;
use crate::transform::normalize::R;
use proc_macro2::Span;
use std::collections::{BTreeMap, HashMap};

#[path = "peel_guards.rs"]
mod guards;
use guards::{decide, guards, value, At, Lp};

/// Peels the loops of `body` that qualify; gives one line per peeled loop for the IR dump.
pub(crate) fn peel(
    body: &mut Vec<R>,
    vars: &mut Vec<Var>,
    checkpoints: &BTreeMap<VarId, Checkpoint>,
) -> Vec<String> {
    let mut report = Vec::new();
    let old = std::mem::take(body);
    *body = peel_list(old, vars, checkpoints, &mut report);
    report
}

fn peel_list(
    list: Vec<R>,
    vars: &mut Vec<Var>,
    cps: &BTreeMap<VarId, Checkpoint>,
    report: &mut Vec<String>,
) -> Vec<R> {
    let mut out = Vec::with_capacity(list.len());
    for s in list {
        match s {
            R::For {
                var,
                range,
                body,
                brk,
            } => {
                let body = peel_list(body, vars, cps, report);
                let looped = R::For {
                    var,
                    range,
                    body,
                    brk,
                };
                match peel_loop(&looped, vars, cps) {
                    Some((stmts, what)) => {
                        report.push(format!("loop over `{}`: {what}", vars[var].name));
                        out.extend(stmts);
                    }
                    None => out.push(looped),
                }
            }
            R::While { cond, body, brk } => out.push(R::While {
                cond,
                body: peel_list(body, vars, cps, report),
                brk,
            }),
            R::If { cond, then, els } => out.push(R::If {
                cond,
                then: peel_list(then, vars, cps, report),
                els: peel_list(els, vars, cps, report),
            }),
            R::Match { scrut, arms } => out.push(R::Match {
                scrut,
                arms: arms
                    .into_iter()
                    .map(|(p, b)| (p, peel_list(b, vars, cps, report)))
                    .collect(),
            }),
            other => out.push(other),
        }
    }
    out
}

/// An integer literal's value.
fn lit_value(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Lit(syn::Lit::Int(i)) => i.base10_parse::<i128>().ok(),
        _ => None,
    }
}

fn int_lit(n: i128) -> Expr {
    typed_lit(n, "")
}

/// The literal `n` with a type suffix (`usize`, or none).
fn typed_lit(n: i128, suffix: &str) -> Expr {
    Expr::new(
        ExprKind::Lit(syn::Lit::Int(syn::LitInt::new(
            &format!("{n}{suffix}"),
            Span::call_site(),
        ))),
        Span::call_site(),
    )
}

/// The type suffix of the literals that replace the index and the bounds: the one a literal
/// bound is written with, else `usize` when the body indexes with the index (which then is a
/// `usize`), else none. Generated code that reads untyped literal bounds (adjoint windows) then
/// still knows their type.
fn suffix_of(start: &Expr, end: &Expr, body: &[R], j: VarId) -> String {
    for e in [start, end] {
        if let ExprKind::Lit(syn::Lit::Int(i)) = &e.kind {
            if !i.suffix().is_empty() {
                return i.suffix().to_string();
            }
        }
    }
    let mut indexes = false;
    let mut look = |e: &mut Expr| {
        e.visit(&mut |n| {
            if let ExprKind::Index { index, .. } = &n.kind {
                index.visit(&mut |m| indexes |= matches!(m.kind, ExprKind::Var(v) if v == j));
            }
        })
    };
    let mut copy = body.to_vec();
    crate::transform::normalize::for_each_root_mut(&mut copy, &mut look);
    let mut places = Vec::new();
    index_places(body, &mut places);
    if indexes
        || places.iter().any(|i| {
            let mut found = false;
            i.visit(&mut |m| found |= matches!(m.kind, ExprKind::Var(v) if v == j));
            found
        })
    {
        "usize".into()
    } else {
        String::new()
    }
}

/// The index expressions of the element writes in `body`.
fn index_places(body: &[R], out: &mut Vec<Expr>) {
    for s in body {
        match s {
            R::Assign {
                place: Place::Index(_, i),
                ..
            } => out.push((**i).clone()),
            R::If { then, els, .. } => {
                index_places(then, out);
                index_places(els, out);
            }
            _ => {}
        }
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::new(
        ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        Span::call_site(),
    )
}

/// Whether `e` has the same value wherever the loop body runs: literals, immutable variables
/// and lengths of immutable sequences combined by `+ - *`.
fn invariant(e: &Expr, vars: &[Var]) -> bool {
    match &e.kind {
        ExprKind::Lit(syn::Lit::Int(_)) => true,
        ExprKind::Var(v) | ExprKind::Len(v) => !vars[*v].mutable,
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                && invariant(lhs, vars)
                && invariant(rhs, vars)
        }
        _ => false,
    }
}

/// Whether the body can be copied: straight-line statements and `if`s only (an innermost loop
/// with no exit, no `match` whose patterns name variables, no macro whose tokens do).
fn copyable(body: &[R]) -> bool {
    body.iter().all(|s| match s {
        R::Let { .. } | R::Assign { .. } | R::Push { .. } | R::Eval(_) => true,
        R::If { then, els, .. } => copyable(then) && copyable(els),
        R::Match { .. }
        | R::Macro(..)
        | R::For { .. }
        | R::While { .. }
        | R::Exit(_)
        | R::Swap(..) => false,
    })
}

/// Whether the index `j` is used only where a literal in its place keeps its type known to
/// rustc: inside an element index, a cast, or arithmetic and comparisons with other operands;
/// not bound by a `let`, not a receiver or argument of a call or method.
fn index_uses_typed(body: &[R], j: VarId) -> bool {
    // `e` is evaluated where its type is fixed by its context (an operand of arithmetic with
    // a typed operand is not enough in general: `let k = j + 1;`), so only the forms below.
    fn ok(e: &Expr, j: VarId, typed_context: bool) -> bool {
        match &e.kind {
            ExprKind::Var(v) if *v == j => typed_context,
            ExprKind::Index { index, .. } => ok(index, j, true),
            ExprKind::Cast { expr, .. } => ok(expr, j, true),
            ExprKind::Binary { op, lhs, rhs } => {
                let cmp = matches!(
                    op,
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
                );
                // A comparison types both operands alike; arithmetic passes its context down.
                let t = typed_context || cmp;
                ok(lhs, j, t) && ok(rhs, j, t)
            }
            // Calls and methods: the index itself as a receiver or argument is refused below.
            _ => e.children().into_iter().all(|c| ok(c, j, false)),
        }
    }
    body.iter().all(|s| match s {
        R::Let { init, .. } => init.as_ref().is_none_or(|e| ok(e, j, false)),
        R::Assign { place, value } => {
            let idx = match place {
                Place::Index(_, i) => ok(i, j, true),
                Place::Var(_) => true,
            };
            // An assignment's target has a declared type.
            idx && ok(value, j, true)
        }
        R::Push { value, .. } | R::Eval(value) => ok(value, j, false),
        R::If { cond, then, els } => {
            ok(cond, j, true) && index_uses_typed(then, j) && index_uses_typed(els, j)
        }
        _ => false,
    })
}

/// Variables written by `body` (assigned, pushed to, lent by `&mut`).
fn written(body: &[R], out: &mut Vec<VarId>) {
    for s in body {
        match s {
            R::Assign { place, value } => {
                out.push(place.var());
                value.visit(&mut |e| out.extend(e.mut_borrows()));
            }
            R::Push { vec, .. } => out.push(*vec),
            R::Let { init: Some(e), .. } | R::Eval(e) => {
                e.visit(&mut |n| out.extend(n.mut_borrows()))
            }
            R::If { then, els, .. } => {
                written(then, out);
                written(els, out);
            }
            _ => {}
        }
    }
}

/// A copy of `body` for one iteration: the index replaced by `at_index`, every variable the
/// body binds replaced by a fresh one.
fn copy_iteration(body: &[R], j: VarId, at_index: &Expr, vars: &mut Vec<Var>) -> Vec<R> {
    let mut bound = Vec::new();
    bound_vars(body, &mut bound);
    let mut map: HashMap<VarId, VarId> = HashMap::new();
    for v in bound {
        if map.contains_key(&v) {
            continue;
        }
        let fresh = vars.len();
        let mut var = vars[v].clone();
        if var.origin == VarOrigin::Synthetic {
            var.name = crate::names::synthetic_renumbered(&var.name, fresh);
        }
        vars.push(var);
        map.insert(v, fresh);
    }
    let mut out = body.to_vec();
    rename(&mut out, &map, j, at_index);
    out
}

fn bound_vars(body: &[R], out: &mut Vec<VarId>) {
    for s in body {
        match s {
            R::Let { pat, .. } => pat.vars(out),
            R::If { then, els, .. } => {
                bound_vars(then, out);
                bound_vars(els, out);
            }
            _ => {}
        }
    }
}

fn rename(body: &mut [R], map: &HashMap<VarId, VarId>, j: VarId, at: &Expr) {
    let re = |v: &mut VarId| {
        if let Some(n) = map.get(v) {
            *v = *n;
        }
    };
    let expr = |e: &mut Expr| {
        e.visit_mut(&mut |n| {
            if matches!(n.kind, ExprKind::Var(v) if v == j) {
                let span = n.span;
                *n = at.clone();
                n.span = span;
                return;
            }
            match &mut n.kind {
                ExprKind::Var(v)
                | ExprKind::Index { base: v, .. }
                | ExprKind::Len(v)
                | ExprKind::ElemConst { seq: v, .. }
                | ExprKind::CopySeq(v, _)
                | ExprKind::MutRef(v, ..)
                | ExprKind::SubSlice { base: v, .. } => re(v),
                _ => {}
            }
        })
    };
    for s in body {
        match s {
            R::Let { pat, init } => {
                if let Some(e) = init {
                    expr(e);
                }
                rename_pat(pat, map);
            }
            R::Assign { place, value } => {
                match place {
                    Place::Var(v) => re(v),
                    Place::Index(v, i) => {
                        re(v);
                        expr(i);
                    }
                }
                expr(value);
            }
            R::Push { vec, value } => {
                re(vec);
                expr(value);
            }
            R::Eval(e) => expr(e),
            R::If { cond, then, els } => {
                expr(cond);
                rename(then, map, j, at);
                rename(els, map, j, at);
            }
            _ => {}
        }
    }
}

fn rename_pat(p: &mut Pat, map: &HashMap<VarId, VarId>) {
    match p {
        Pat::Bind(v) => {
            if let Some(n) = map.get(v) {
                *v = *n;
            }
        }
        Pat::Tuple(ps) => ps.iter_mut().for_each(|p| rename_pat(p, map)),
        Pat::Wild => {}
    }
}

/// Whether an integer literal subtraction in `body` would go below zero (a copy at a literal
/// index making `0 - 1` visible to rustc, which refuses to compile it).
fn negative_literal_sub(body: &[R]) -> bool {
    let mut bad = false;
    let mut check = |e: &mut Expr| {
        e.visit(&mut |n| {
            if let ExprKind::Binary {
                op: BinOp::Sub,
                lhs,
                rhs,
            } = &n.kind
            {
                if let (Some(a), Some(b)) = (lit_value(lhs), lit_value(rhs)) {
                    bad |= a < b;
                }
            }
        })
    };
    let mut copy = body.to_vec();
    crate::transform::normalize::for_each_root_mut(&mut copy, &mut check);
    bad
}

/// The peeled form of one loop, if it qualifies and a guard is decided by peeling.
fn peel_loop(
    s: &R,
    vars: &mut Vec<Var>,
    cps: &BTreeMap<VarId, Checkpoint>,
) -> Option<(Vec<R>, String)> {
    let R::For {
        var: j,
        range,
        body,
        brk,
    } = s
    else {
        return None;
    };
    let Range::Bounds {
        start,
        end,
        inclusive,
        rev,
        step,
    } = range;
    if *inclusive
        || *rev
        || step.is_some()
        || cps.contains_key(j)
        || vars[*j].mutable
        || !copyable(body)
    {
        return None;
    }
    let mut w = Vec::new();
    written(body, &mut w);
    // Every loop has a flag that stops it; the body must never set it (no `break`).
    if brk.is_some_and(|b| w.contains(&b)) {
        return None;
    }
    // The bounds are evaluated again after a copy runs: they must not change.
    let unchanged = |e: &Expr| {
        let mut reads = Vec::new();
        e.reads(&mut reads);
        invariant(e, vars) && !reads.iter().any(|v| w.contains(v))
    };
    let end_ok = unchanged(end);
    let start_ok = unchanged(start);
    let lp = Lp {
        j: *j,
        start: lit_value(start),
        end,
        end_ok,
    };
    let mut gs = Vec::new();
    guards(body, &lp, &mut gs);
    if gs.is_empty() {
        return None;
    }
    let a = lp.start;
    let whole = At::Run(a, -1);
    // Peel the first iteration when a guard against a literal is decided from the second one on
    // (and not already on the whole loop); the last when a guard against the end is decided up
    // to the one before last.
    let end_lit = lit_value(end);
    let value = |op, t, at| value(op, t, at, end_lit);
    let first = a.is_some()
        && end_ok
        && gs.iter().any(|&(op, t)| {
            value(op, t, whole).is_none() && value(op, t, At::Run(a.map(|a| a + 1), -1)).is_some()
        });
    let pf = i128::from(first);
    let last = end_ok
        && start_ok
        && gs.iter().any(|&(op, t)| {
            value(op, t, At::Run(a.map(|a| a + pf), -1)).is_none()
                && value(op, t, At::Run(a.map(|a| a + pf), -2)).is_some()
        });
    let decided_whole = gs.iter().any(|&(op, t)| value(op, t, whole).is_some());
    if !first && !last && !decided_whole {
        return None;
    }
    // A literal index in a copy must keep a type rustc knows.
    if first && !index_uses_typed(body, *j) {
        return None;
    }
    if last && end_lit.is_some() && !index_uses_typed(body, *j) {
        return None;
    }
    if end_lit.is_some_and(|e| a.is_some_and(|a| e <= a + pf)) {
        // The loop has no iteration left to peel (or none at all): leave it.
        return None;
    }
    let sfx = suffix_of(start, end, body, *j);
    let mut out = Vec::new();
    let mut what = Vec::new();
    if first {
        let a = a.unwrap_or_default();
        // Guards against the end are decided over the whole loop (the first index is in it).
        let decided = decide(&decide(body, &lp, At::Point(a)), &lp, whole);
        let copy = copy_iteration(&decided, *j, &typed_lit(a, &sfx), vars);
        if negative_literal_sub(&copy) {
            return None;
        }
        out.push(R::If {
            cond: binary(BinOp::Lt, typed_lit(a, &sfx), (**end).clone()),
            then: copy,
            els: Vec::new(),
        });
        what.push("first iteration peeled");
    }
    let lo = a.map(|a| a + pf);
    let new_start = match a {
        Some(a) => Box::new(typed_lit(a + pf, &sfx)),
        None => start.clone(),
    };
    let new_end = if last {
        Box::new(match end_lit {
            Some(e) => typed_lit(e - 1, &sfx),
            None => Expr::new(
                ExprKind::PlainMethod {
                    recv: end.clone(),
                    method: syn::Ident::new("saturating_sub", Span::call_site()),
                    turbofish: Default::default(),
                    args: vec![int_lit(1)],
                    shape: Shape::Int,
                },
                Span::call_site(),
            ),
        })
    } else {
        end.clone()
    };
    let hi = if last { -2 } else { -1 };
    out.push(R::For {
        var: *j,
        range: Range::Bounds {
            start: new_start.clone(),
            end: new_end,
            inclusive: false,
            rev: false,
            step: None,
        },
        body: decide(body, &lp, At::Run(lo, hi)),
        brk: *brk,
    });
    if !first && !last {
        what.push("guards decided on the whole loop");
    }
    if last {
        let at_index = match end_lit {
            Some(e) => typed_lit(e - 1, &sfx),
            None => binary(BinOp::Sub, (**end).clone(), int_lit(1)),
        };
        // Guards against a literal are decided over the run (the last index is in it).
        let decided = decide(&decide(body, &lp, At::EndPoint(-1)), &lp, At::Run(lo, -1));
        let copy = copy_iteration(&decided, *j, &at_index, vars);
        if negative_literal_sub(&copy) {
            return None;
        }
        out.push(R::If {
            cond: binary(BinOp::Lt, (*new_start).clone(), (**end).clone()),
            then: copy,
            els: Vec::new(),
        });
        what.push("last iteration peeled");
    }
    Some((out, what.join(", ")))
}

#[cfg(test)]
#[path = "peel_tests.rs"]
mod tests;
