//! Scratch sequences of a reduction loop (loop fusion, `analysis/fusion.rs`): a sequence declared
//! outside a loop that each iteration fills before it reads it, so no iteration reads what
//! another wrote, e.g. a layer's activations in a batch loop:
//!
//! ```text
//! for b in 0..batch {
//!     for i in 0..h { hidden[i] = ...; }                 // fills hidden[0..h]
//!     for r in 0..o { for i in 0..h { y += w[..] * hidden[i]; } }  // reads hidden[0..h]
//! }
//! ```
//!
//! `check` proves it on the loop body: every write of the sequence is `a[k] = v`, a top-level
//! statement of a *filling loop* `for k in A..B` (itself a top-level statement of the body,
//! without step, exit or any read of `a`; `A` and `B` call-free and reading nothing the body
//! writes, so they have one value per iteration); every read is `a[k2]` with `k2` the index of an
//! enclosing loop over the same range (`A..B`, same inclusiveness, no step) inside a top-level
//! statement after a filling loop of that range. Then every element an iteration reads was
//! written earlier in the same iteration: the iterations do not meet through `a`, and in reverse
//! each iteration's adjoint of `a` is zero when it starts and when it ends (every element read
//! was written, and a write's reverse takes the adjoint and zeroes it). The fusion analysis adds
//! that nothing after the loop mentions `a` (the fused iterations' reverse restores it).

use crate::ir::*;
use crate::transform::normalize::R;

/// One filled range: `start`, `end`, inclusive.
type Filled<'a> = (&'a Expr, &'a Expr, bool);

/// Whether `a` is a scratch sequence of the loop body `body`, or why not.
pub(crate) fn check(a: VarId, body: &[R], vars: &[Var]) -> Result<(), String> {
    let name = vars[a].name.to_string();
    if matches!(vars[a].origin, VarOrigin::Param(_)) {
        return Err(format!(
            "the body writes `{name}`, an argument (the caller sees its final value)"
        ));
    }
    let mut written = Vec::new();
    for s in body {
        s.writes(vars, &mut written);
        if let R::Let { pat, .. } = s {
            pat.vars(&mut written);
        }
    }
    let not_scratch = |why: &str| {
        Err(format!(
            "the body writes `{name}`, declared outside it, and {why} (a sequence each \
             iteration fills over a range before reading it there is fine)"
        ))
    };
    let mut filled: Vec<Filled<'_>> = Vec::new();
    for s in body {
        if let Some(f) = filling(a, s, &written) {
            match f {
                Some(range) => filled.push(range),
                None => return not_scratch("a loop writing it is not a filling loop"),
            }
            continue;
        }
        let mut stack = Vec::new();
        if !reads_ok(a, s, &filled, &mut stack) {
            return not_scratch(
                "reads it other than at the index of a loop over a range filled before",
            );
        }
    }
    Ok(())
}

/// `None` when `s` writes no element of `a`; `Some(None)` when it does but is not a filling
/// loop; `Some(Some(range))` for a filling loop.
fn filling<'a>(a: VarId, s: &'a R, written: &[VarId]) -> Option<Option<Filled<'a>>> {
    if !writes_seq(std::slice::from_ref(s), a) {
        return None;
    }
    let R::For {
        var: k,
        range:
            Range::Bounds {
                start,
                end,
                inclusive,
                step: None,
                ..
            },
        body,
        brk,
    } = s
    else {
        return Some(None);
    };
    let invariant = |e: &Expr| {
        let mut rs = Vec::new();
        e.reads(&mut rs);
        !e.has_call() && rs.iter().all(|v| !written.contains(v))
    };
    let exits = brk.is_some_and(|b| super::fusion::sets(body, b)) || has_exit(body);
    let writes_ok = body.iter().all(|t| match t {
        R::Assign {
            place: Place::Index(v, ix),
            value,
        } if *v == a => matches!(ix.kind, ExprKind::Var(x) if x == *k) && !mentions(value, a),
        t => !writes_seq(std::slice::from_ref(t), a) && !stmt_mentions(t, a),
    });
    let ok = !exits && writes_ok && invariant(start) && invariant(end);
    Some(ok.then_some((&**start, &**end, *inclusive)))
}

pub(crate) fn has_exit(body: &[R]) -> bool {
    body.iter().any(|s| match s {
        R::Exit(_) => true,
        R::If { then, els, .. } => has_exit(then) || has_exit(els),
        R::Match { arms, .. } => arms.iter().any(|(_, b)| has_exit(b)),
        R::For { body, .. } | R::While { body, .. } => has_exit(body),
        _ => false,
    })
}

/// Whether `body` writes `a`: an element or the whole, a push, a `&mut` borrow.
fn writes_seq(body: &[R], a: VarId) -> bool {
    body.iter().any(|s| match s {
        R::Assign { place, value } => place.var() == a || borrows(value, a),
        R::Push { vec, value } => *vec == a || borrows(value, a),
        R::Let { init: Some(e), .. } | R::Eval(e) => borrows(e, a),
        R::Let { init: None, .. } | R::Macro(..) | R::Exit(_) => false,
        R::Swap(x, y) => *x == a || *y == a,
        R::If { cond, then, els } => borrows(cond, a) || writes_seq(then, a) || writes_seq(els, a),
        R::Match { scrut, arms } => borrows(scrut, a) || arms.iter().any(|(_, b)| writes_seq(b, a)),
        R::For { body, .. } | R::While { body, .. } => writes_seq(body, a),
    })
}

fn borrows(e: &Expr, a: VarId) -> bool {
    let mut found = false;
    e.visit(&mut |n| found |= matches!(n.kind, ExprKind::MutRef(v, ..) if v == a));
    found
}

fn mentions(e: &Expr, a: VarId) -> bool {
    let mut rs = Vec::new();
    e.reads(&mut rs);
    rs.contains(&a)
}

/// Whether statement `s` mentions `a` anywhere (read, written, lent, named by a macro).
pub(crate) fn stmt_mentions(s: &R, a: VarId) -> bool {
    let mut found = false;
    let mut roots = vec![s.clone()];
    crate::transform::normalize::for_each_root_mut(&mut roots, &mut |e| found |= mentions(e, a));
    found || writes_seq(std::slice::from_ref(s), a) || names_in_macros(s, a)
}

fn names_in_macros(s: &R, a: VarId) -> bool {
    match s {
        R::Macro(_, vs) => vs.contains(&a),
        R::If { then, els, .. } => {
            then.iter().any(|t| names_in_macros(t, a)) || els.iter().any(|t| names_in_macros(t, a))
        }
        R::Match { arms, .. } => arms
            .iter()
            .any(|(_, b)| b.iter().any(|t| names_in_macros(t, a))),
        R::For { body, .. } | R::While { body, .. } => body.iter().any(|t| names_in_macros(t, a)),
        _ => false,
    }
}

/// Whether every read of `a` in `s` is `a[k]` with `k` the index of an enclosing loop (on
/// `stack`, innermost last) over a range in `filled`; no write of `a`.
fn reads_ok<'a>(
    a: VarId,
    s: &'a R,
    filled: &[Filled<'_>],
    stack: &mut Vec<(VarId, Option<Filled<'a>>)>,
) -> bool {
    let expr_ok = |e: &Expr, stack: &[(VarId, Option<Filled<'a>>)]| {
        let mut ok = true;
        e.visit(&mut |n| match &n.kind {
            ExprKind::Index { base, index } if *base == a => {
                let in_filled = match index.kind {
                    ExprKind::Var(k) => stack
                        .iter()
                        .rev()
                        .find(|(v, _)| *v == k)
                        .and_then(|(_, r)| *r)
                        .is_some_and(|r| filled.iter().any(|f| same_range(*f, r))),
                    _ => false,
                };
                ok &= in_filled && !mentions(index, a);
            }
            ExprKind::Index { .. } => {}
            _ => ok &= n.own_read() != Some(a),
        });
        ok
    };
    let block = |b: &'a [R], stack: &mut Vec<(VarId, Option<Filled<'a>>)>| {
        b.iter().all(|t| reads_ok(a, t, filled, stack))
    };
    match s {
        R::Let { init, .. } => init.as_ref().is_none_or(|e| expr_ok(e, stack)),
        R::Assign { place, value } => {
            let place_ok = match place {
                Place::Var(v) => *v != a,
                Place::Index(v, ix) => *v != a && expr_ok(ix, stack),
            };
            place_ok && expr_ok(value, stack)
        }
        R::Push { vec, value } => *vec != a && expr_ok(value, stack),
        R::Eval(e) => expr_ok(e, stack),
        R::Macro(_, vs) => !vs.contains(&a),
        R::Exit(_) => true,
        R::Swap(x, y) => *x != a && *y != a,
        R::If { cond, then, els } => {
            expr_ok(cond, stack) && block(then, stack) && block(els, stack)
        }
        R::Match { scrut, arms } => {
            expr_ok(scrut, stack) && arms.iter().all(|(_, b)| block(b, stack))
        }
        R::While { cond, body, .. } => {
            cond.as_ref().is_none_or(|c| expr_ok(c, stack)) && block(body, stack)
        }
        R::For {
            var, range, body, ..
        } => {
            let Range::Bounds {
                start,
                end,
                inclusive,
                step,
                ..
            } = range;
            if !expr_ok(start, stack)
                || !expr_ok(end, stack)
                || step.as_ref().is_some_and(|st| !expr_ok(st, stack))
            {
                return false;
            }
            let r = step.is_none().then_some((&**start, &**end, *inclusive));
            stack.push((*var, r));
            let ok = block(body, stack);
            stack.pop();
            ok
        }
    }
}

fn same_range(a: Filled<'_>, b: Filled<'_>) -> bool {
    a.0.same(b.0) && a.1.same(b.1) && a.2 == b.2
}
