//! Buffer rotation (both modes): takes the function's IR, gives a copy in which a loop that
//! copies one `Vec` into another at the end of every iteration (`u.copy_from_slice(&next);`,
//! lowered to a length check and an element loop) exchanges the two buffers instead
//! (`let t = u; u = next; next = t;`, three moves, which forward mode prints as moves of the
//! values and of their tangents, and reverse mode folds into one `R::Swap` once normalised:
//! `fold_exchanges`), so that a double-buffered time loop (a stencil writing `next` from `u`)
//! does not copy its grid and the grid's tangent every step, nor move the grid's adjoint back
//! in a loop of its own in the reverse sweep.
//!
//! The exchange leaves `u` as the copy would (`next`'s contents) and `next` holding what `u`
//! held. That differs from the copy only where `next` was written since `u` and `next` last
//! agreed, and the conditions below make those elements be written again before anything reads
//! them, and nothing read `next` after the loop. Done only when all of these hold (checked
//! here; ARCHITECTURE.md, "Buffer rotation"):
//!
//! 1. The copy is the lowered `u.copy_from_slice(&next)` (or `clone_from_slice`) of two whole
//!    variables: `let c = u.len(); let d = next.len(); check_same_len(c, d);` then
//!    `for k in 0..c { u[k] = next[k]; }`, at the top level of the body of a `for` loop `L`.
//!    `u` and `next` are different local `Vec`s (not arguments), both active or both not.
//! 2. They agree when `L` starts: both are declared by `let` in the statement list holding `L`,
//!    before it, from the same copy of an immutable sequence (`x.to_vec()` twice, no call), and
//!    no statement between the declarations and `L` mentions either.
//! 3. Every iteration of `L` runs its body to the end: no `break`, `continue` or `return`
//!    anywhere in it.
//! 4. In `L`'s body, `u` is written by the copy only (no assignment, push, `&mut` borrow, call
//!    or method that may change it, macro naming it); it may be read anywhere.
//! 5. In `L`'s body, `next` is mentioned only by the copy, the two lengths and element writes
//!    `next[e] = v` made before the copy on every iteration: reached from the body's top level
//!    through `for` loops and plain blocks only (no branch), where `e` and the bounds of those
//!    loops read, without calls, only their indices and variables `L`'s body does not write or
//!    bind (not `L`'s index). So every iteration writes the same elements `W` of `next`, all of
//!    them before the copy reads `next`, and `u`, never written but by the copy, agrees with
//!    `next` outside `W` at every copy: after the exchange, `next` differs from the copied
//!    program's only in `W`, which the next iteration writes again before reading.
//! 6. Nothing after `L` in its statement list mentions `next` (whose scope ends there), nor does
//!    the function's value, so the last exchange's `next` is never read.
//!
//! The tangents follow the same statements (declared from the same copy of the same tangent,
//! written at the same elements), so the exchange is exact for them too.
//!
//! Reverse mode differentiates the rotated program, which computes the same function: the
//! exchange is linear and its own transpose, so its reverse exchanges the two adjoints (no saved
//! copy, no loop), and every value the reverse sweep reads is one the rotated program computed,
//! equal to the copying program's (only `next` differs, and only where nothing reads it). The
//! saves analysis sees `R::Swap` as a write of both buffers (`R::writes`: saved copies of either
//! go stale) that saves nothing: both buffers are kept in restore mode or neither
//! (`analysis/saves.rs`, `restore_set`), and when they are, the reverse also exchanges the values
//! back, so each element restore lands in the buffer it was saved from. Adjoints are summed in
//! another order than the copying program's (the elements outside `W`, the boundary of a
//! stencil, collect theirs alternately in the two adjoint buffers, added into the source's
//! adjoint at the two declarations): the same sums up to the last bits.

use crate::ir::*;
use crate::transform::normalize::R;

/// A function with buffers exchanged (`rotated`).
pub struct Rotated {
    /// The function, each qualifying copy replaced by `let t = u; u = next; next = t;`.
    pub f: Function,
    /// One line per exchange, for the IR dump.
    pub lines: Vec<String>,
    /// The temporaries `t` of the exchanges, which identify them after exit normalisation
    /// (`fold_exchanges`).
    pub temps: Vec<VarId>,
}

/// `f` with its qualifying copies turned into exchanges; `None` when there is none.
pub fn rotated(f: &Function) -> Option<Rotated> {
    let mut g = f.clone();
    let mut report = Vec::new();
    let mut body = std::mem::take(&mut g.body.stmts);
    let mut tail_reads = Vec::new();
    if let Some(t) = &f.tail {
        t.reads(&mut tail_reads);
    }
    let first_new = g.vars.len();
    rotate_list(&mut body, &mut g.vars, &tail_reads, &mut report);
    g.body.stmts = body;
    let temps = (first_new..g.vars.len()).collect();
    (!report.is_empty()).then_some(Rotated {
        f: g,
        lines: report,
        temps,
    })
}

/// Reverse mode: each exchange `let t = u; u = next; next = t;` of `rotated` (found by its
/// temporary `t` among `temps`; normalisation keeps the three statements as they are) becomes
/// one `R::Swap(u, next)`, which the reverse sweep undoes by exchanging the adjoints (and the
/// values, when they are restored) instead of saving the moved buffers. Gives how many were
/// folded.
pub(crate) fn fold_exchanges(body: &mut Vec<R>, temps: &[VarId]) -> usize {
    let mut folded = 0;
    for s in body.iter_mut() {
        match s {
            R::If { then, els, .. } => {
                folded += fold_exchanges(then, temps) + fold_exchanges(els, temps);
            }
            R::Match { arms, .. } => {
                for (_, b) in arms {
                    folded += fold_exchanges(b, temps);
                }
            }
            R::For { body, .. } | R::While { body, .. } => folded += fold_exchanges(body, temps),
            _ => {}
        }
    }
    let mut at = 0;
    while at + 3 <= body.len() {
        if let Some((u, v)) = exchange_at(&body[at..at + 3], temps) {
            body.splice(at..at + 3, [R::Swap(u, v)]);
            folded += 1;
        }
        at += 1;
    }
    folded
}

/// `let t = u; u = v; v = t;` with `t` in `temps`: `(u, v)`.
fn exchange_at(s: &[R], temps: &[VarId]) -> Option<(VarId, VarId)> {
    let var = |e: &Expr| match e.kind {
        ExprKind::Var(x) => Some(x),
        _ => None,
    };
    let [R::Let {
        pat: Pat::Bind(t),
        init: Some(a),
    }, R::Assign {
        place: Place::Var(u),
        value: b,
    }, R::Assign {
        place: Place::Var(v),
        value: c,
    }] = s
    else {
        return None;
    };
    (temps.contains(t) && var(a) == Some(*u) && var(b) == Some(*v) && var(c) == Some(*t))
        .then_some((*u, *v))
}

/// `tail_reads`: the variables the function's value reads (conservatively, after every list).
fn rotate_list(
    list: &mut [Stmt],
    vars: &mut Vec<Var>,
    tail_reads: &[VarId],
    report: &mut Vec<String>,
) {
    for s in list.iter_mut() {
        match s {
            Stmt::If { then, els, .. } => {
                rotate_list(&mut then.stmts, vars, tail_reads, report);
                if let Some(e) = els {
                    rotate_list(&mut e.stmts, vars, tail_reads, report);
                }
            }
            Stmt::Match { arms, .. } => {
                for a in arms {
                    rotate_list(&mut a.body.stmts, vars, tail_reads, report);
                }
            }
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::Block(body) => rotate_list(&mut body.stmts, vars, tail_reads, report),
            _ => {}
        }
    }
    for at in 0..list.len() {
        while let Some((copy, u, v)) =
            candidate(list, at, vars).filter(|c| !tail_reads.contains(&c.2))
        {
            let Stmt::For { var: l, body, .. } = &mut list[at] else {
                break;
            };
            let t = vars.len();
            let mut tv = vars[u].clone();
            tv.origin = VarOrigin::Synthetic;
            tv.name = crate::names::synthetic("rotate", t);
            tv.mutable = false;
            tv.ty = None;
            vars.push(tv);
            report.push(format!(
                "loop over {}: `{}.copy_from_slice(&{})` exchanges the buffers",
                vars[*l].name, vars[u].name, vars[v].name
            ));
            let span = match &body.stmts[copy] {
                Stmt::For { range, .. } => {
                    let Range::Bounds { end, .. } = range;
                    end.span
                }
                _ => proc_macro2::Span::call_site(),
            };
            let var = |x: VarId| Expr::new(ExprKind::Var(x), span);
            let swap = [
                Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(var(u)),
                },
                Stmt::Assign {
                    place: Place::Var(u),
                    op: None,
                    value: var(v),
                },
                Stmt::Assign {
                    place: Place::Var(v),
                    op: None,
                    value: var(t),
                },
            ];
            body.stmts.splice(copy..copy + 1, swap);
        }
    }
}

/// For the `for` loop `list[at]`: the position in its body of a copy that may become an
/// exchange, with the copied-into and copied-from variables.
fn candidate(list: &[Stmt], at: usize, vars: &[Var]) -> Option<(usize, VarId, VarId)> {
    let Stmt::For { var: l, body, .. } = &list[at] else {
        return None;
    };
    let stmts = &body.stmts;
    // (3) every iteration runs to its end.
    let mut exits = false;
    visit_stmt_list(stmts, &mut |s| {
        exits |= matches!(
            s,
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Return { .. }
        )
    });
    if exits {
        return None;
    }
    (0..stmts.len()).find_map(|c| {
        let (u, v, k) = copy_loop(&stmts[c])?;
        let (lu, lv) = len_check(&stmts[..c], u, v, k)?;
        let legal = locals_alike(vars, u, v)
            && agree_at_entry(list, at, u, v, vars)
            && u_written_by_copy_only(stmts, c, u, vars)
            && next_uses(stmts, c, v, [lu, lv], *l, vars)
            && !list[at + 1..].iter().any(|s| mentions(s, v));
        legal.then_some((c, u, v))
    })
}

/// `for k in 0..c { u[k] = v[k]; }`: `(u, v, c)`.
fn copy_loop(s: &Stmt) -> Option<(VarId, VarId, VarId)> {
    let Stmt::For {
        var: k,
        range:
            Range::Bounds {
                start,
                end,
                inclusive: false,
                rev: false,
                step: None,
            },
        body,
        ..
    } = s
    else {
        return None;
    };
    let zero = matches!(&start.kind, ExprKind::Lit(syn::Lit::Int(i)) if i.base10_digits() == "0");
    let ExprKind::Var(c) = end.kind else {
        return None;
    };
    let [Stmt::Assign {
        place: Place::Index(u, ui),
        op: None,
        value,
    }] = &body.stmts[..]
    else {
        return None;
    };
    let ExprKind::Index { base: v, index: vi } = &value.kind else {
        return None;
    };
    let at_k = |e: &Expr| matches!(e.kind, ExprKind::Var(x) if x == *k);
    (zero && at_k(ui) && at_k(vi) && u != v).then_some((*u, *v, c))
}

/// Before the copy, at the top level of the body: `let c = u.len(); let d = v.len();` and
/// `check_same_len(c, d);` (the copy's length check, which stays): the two length variables.
fn len_check(before: &[Stmt], u: VarId, v: VarId, c: VarId) -> Option<(VarId, VarId)> {
    let len_of = |x: VarId| {
        before.iter().find_map(|s| match s {
            Stmt::Let {
                pat: Pat::Bind(b),
                init: Some(e),
            } if matches!(e.kind, ExprKind::Len(y) if y == x) => Some(*b),
            _ => None,
        })
    };
    let (lu, lv) = (len_of(u)?, len_of(v)?);
    let checked = before.iter().any(|s| match s {
        Stmt::Eval(Expr {
            kind: ExprKind::PlainCall { func, args, .. },
            ..
        }) => {
            func.to_string()
                .replace(' ', "")
                .ends_with("::check_same_len")
                && matches!(&args[..], [a, b]
                    if matches!(a.kind, ExprKind::Var(x) if x == lu)
                        && matches!(b.kind, ExprKind::Var(y) if y == lv))
        }
        _ => false,
    });
    (checked && lu == c).then_some((lu, lv))
}

/// (1) Two local `Vec`s, both active or both not.
fn locals_alike(vars: &[Var], u: VarId, v: VarId) -> bool {
    let local = |x: VarId| {
        matches!(vars[x].origin, VarOrigin::Local | VarOrigin::Synthetic)
            && vars[x].shape == Shape::Seq(SeqKind::Vec)
            && vars[x].row.is_none()
    };
    local(u) && local(v) && vars[u].active == vars[v].active
}

/// (2) `u` and `v` declared before `list[at]` from the same copy of an immutable sequence, and
/// not mentioned between their declarations and the loop.
fn agree_at_entry(list: &[Stmt], at: usize, u: VarId, v: VarId, vars: &[Var]) -> bool {
    let decl = |x: VarId| {
        list[..at]
            .iter()
            .position(|s| matches!(s, Stmt::Let { pat: Pat::Bind(b), init: Some(_) } if *b == x))
    };
    let (Some(pu), Some(pv)) = (decl(u), decl(v)) else {
        return false;
    };
    let init = |p: usize| match &list[p] {
        Stmt::Let { init: Some(e), .. } => Some(e),
        _ => None,
    };
    let (Some(a), Some(b)) = (init(pu), init(pv)) else {
        return false;
    };
    let ExprKind::CopySeq(src, CopyTo::Vec) = a.kind else {
        return false;
    };
    let from_immutable = !vars[src].mutable && !vars[src].in_out_ref();
    let between = (pu.min(pv) + 1..at).filter(|p| *p != pu.max(pv));
    a.same(b)
        && from_immutable
        && !between
            .into_iter()
            .any(|p| mentions(&list[p], u) || mentions(&list[p], v))
}

/// (4) In the loop body, nothing but the copy at `copy` may change `u`.
fn u_written_by_copy_only(stmts: &[Stmt], copy: usize, u: VarId, vars: &[Var]) -> bool {
    stmts
        .iter()
        .enumerate()
        .all(|(p, s)| p == copy || !writes(s, u, vars))
}

/// Whether `s` (or a statement nested in it) may change `x`, or names it in a macro.
fn writes(s: &Stmt, x: VarId, vars: &[Var]) -> bool {
    touches(s, x, &mut |e, out| {
        crate::ir::writes::expr_writes(vars, e, out)
    })
}

/// Whether `s` (or a statement nested in it) mentions `x` at all.
fn mentions(s: &Stmt, x: VarId) -> bool {
    touches(s, x, &mut |e, out| e.reads(out))
}

/// Whether a statement in `s` assigns, pushes to, binds or names in a macro `x`, or one of its
/// expressions gives `x` by `of` (its writes, or its reads).
fn touches(s: &Stmt, x: VarId, of: &mut dyn FnMut(&Expr, &mut Vec<VarId>)) -> bool {
    let mut hit = false;
    visit_stmt_list(std::slice::from_ref(s), &mut |s| match s {
        Stmt::Assign { place, .. } => hit |= place.var() == x,
        Stmt::Push { vec, .. } => hit |= *vec == x,
        Stmt::Let { pat, .. } => {
            let mut bound = Vec::new();
            pat.vars(&mut bound);
            hit |= bound.contains(&x);
        }
        Stmt::Macro(_, named) => hit |= named.contains(&x),
        _ => {}
    });
    walk_stmt_exprs(s, &mut |e| {
        let mut out = Vec::new();
        of(e, &mut out);
        hit |= out.contains(&x);
    });
    hit
}

/// (5) In the loop body (index `l`), `v` is mentioned only by the copy at `copy`, the length
/// lets `lens`, and element writes before the copy at the same elements every iteration.
fn next_uses(
    stmts: &[Stmt],
    copy: usize,
    v: VarId,
    lens: [VarId; 2],
    l: VarId,
    vars: &[Var],
) -> bool {
    // Variables the body may change or binds, and the loop's own index.
    let mut variant = vec![l];
    for s in stmts {
        visit_stmt_list(std::slice::from_ref(s), &mut |s| match s {
            Stmt::Assign { place, .. } => variant.push(place.var()),
            Stmt::Push { vec, .. } => variant.push(*vec),
            Stmt::Let { pat, .. } => pat.vars(&mut variant),
            Stmt::For { var, .. } => variant.push(*var),
            _ => {}
        });
        walk_stmt_exprs(s, &mut |e| {
            crate::ir::writes::expr_writes(vars, e, &mut variant)
        });
    }
    let mut writes_seen = false;
    for (p, s) in stmts.iter().enumerate() {
        if p == copy {
            continue;
        }
        let is_len = matches!(s, Stmt::Let { pat: Pat::Bind(b), .. } if lens.contains(b));
        if is_len || !mentions(s, v) {
            continue;
        }
        if p > copy || !element_writes_only(s, v, &[], &variant, &mut writes_seen) {
            return false;
        }
    }
    true
}

/// Whether every mention of `v` in `s` is an element write `v[e] = x` on a path of `for` loops
/// (indices `indices`) and plain blocks, whose index and bounds read only those indices and
/// variables outside `variant`, without calls.
fn element_writes_only(
    s: &Stmt,
    v: VarId,
    indices: &[VarId],
    variant: &[VarId],
    seen: &mut bool,
) -> bool {
    let invariant = |e: &Expr, indices: &[VarId]| {
        let mut reads = Vec::new();
        e.reads(&mut reads);
        !e.has_call()
            && reads
                .iter()
                .all(|r| indices.contains(r) || !variant.contains(r))
    };
    match s {
        Stmt::Assign {
            place: Place::Index(w, index),
            op: None,
            value,
        } if *w == v => {
            let mut reads = Vec::new();
            value.reads(&mut reads);
            *seen = true;
            !reads.contains(&v) && invariant(index, indices)
        }
        Stmt::For {
            var, range, body, ..
        } => {
            let Range::Bounds {
                start, end, step, ..
            } = range;
            let bounds_ok = invariant(start, indices)
                && invariant(end, indices)
                && step.as_ref().is_none_or(|s| invariant(s, indices));
            let mut inner = indices.to_vec();
            inner.push(*var);
            bounds_ok
                && body
                    .stmts
                    .iter()
                    .all(|s| !mentions(s, v) || element_writes_only(s, v, &inner, variant, seen))
        }
        Stmt::Block(b) => b
            .stmts
            .iter()
            .all(|s| !mentions(s, v) || element_writes_only(s, v, indices, variant, seen)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::rotated;
    use crate::testing::analysed;
    use syn::parse_quote;

    /// The dump lines of the exchanges made in `item`.
    fn exchanges(item: syn::ItemFn) -> Vec<String> {
        rotated(&analysed(item)).map_or(Vec::new(), |r| r.lines)
    }

    #[test]
    fn a_double_buffered_stencil_exchanges_its_buffers() {
        let lines = exchanges(parse_quote! {
            fn f(u0: &[f64], a: f64, n: usize, steps: usize) -> f64 {
                let mut u = u0.to_vec();
                let mut next = u0.to_vec();
                for _s in 0..steps {
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            next[i * n + j] = u[i * n + j] + a * (u[i * n + j - 1] - u[(i - 1) * n + j]);
                        }
                    }
                    u.copy_from_slice(&next);
                }
                u[0] + u[1]
            }
        });
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("u.copy_from_slice(&next)"), "{lines:?}");
    }

    /// The random-program generator's form (`tests/gen/buffers.rs`), inside a `loop` that exits.
    #[test]
    fn a_double_buffer_inside_another_loop_is_exchanged() {
        let lines = exchanges(parse_quote! {
            fn f(b: f64, v: &[f64], n: usize) -> f64 {
                let mut s0 = 0.0;
                let mut k = 0;
                loop {
                    let t7 = b * 2.0;
                    let mut g: f64 = 0.0;
                    let mut ua = v.to_vec();
                    let mut ub = v.to_vec();
                    for j in 0..2 {
                        for l in 1..n {
                            ub[l] = 0.5 * ua[l] + 0.25 * ua[l - 1] + 0.25 * (0.5 * t7);
                        }
                        ua.copy_from_slice(&ub);
                    }
                    for k19 in 0..n {
                        g += ua[k19];
                    }
                    s0 += g;
                    k += 1;
                    if k >= v.len() {
                        break;
                    }
                }
                s0
            }
        });
        assert_eq!(lines.len(), 1, "{lines:?}");
    }

    /// Each of these breaks one condition of the module comment.
    #[test]
    fn copies_whose_exchange_could_differ_stay_copies() {
        let cases: Vec<syn::ItemFn> = vec![
            // (6) `next` read after the loop.
            parse_quote! {
                fn f(u0: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = u0.to_vec();
                    for _s in 0..3 {
                        for i in 1..n { next[i] = u[i] * a + u[i - 1]; }
                        u.copy_from_slice(&next);
                    }
                    u[0] + next[0]
                }
            },
            // (5) written under a branch.
            parse_quote! {
                fn f(u0: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = u0.to_vec();
                    for _s in 0..3 {
                        for i in 1..n { if i % 2 == 1 { next[i] = u[i] * a + u[i - 1]; } }
                        u.copy_from_slice(&next);
                    }
                    u[0]
                }
            },
            // (5) read by its own update.
            parse_quote! {
                fn f(u0: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = u0.to_vec();
                    for _s in 0..3 {
                        for i in 1..n { next[i] = next[i] * a + u[i - 1]; }
                        u.copy_from_slice(&next);
                    }
                    u[0]
                }
            },
            // (5) the elements written depend on the time step.
            parse_quote! {
                fn f(u0: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = u0.to_vec();
                    for s in 0..3 {
                        for i in s..n { next[i] = u[i] * a; }
                        u.copy_from_slice(&next);
                    }
                    u[0]
                }
            },
            // (2) the buffers start different.
            parse_quote! {
                fn f(u0: &[f64], w: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = w.to_vec();
                    for _s in 0..3 {
                        for i in 1..n { next[i] = u[i] * a; }
                        u.copy_from_slice(&next);
                    }
                    u[0]
                }
            },
            // (4) `u` written elsewhere in the body.
            parse_quote! {
                fn f(u0: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = u0.to_vec();
                    for _s in 0..3 {
                        for i in 1..n { next[i] = u[i] * a; }
                        u[0] = a;
                        u.copy_from_slice(&next);
                    }
                    u[0]
                }
            },
            // (3) an iteration may end early.
            parse_quote! {
                fn f(u0: &[f64], a: f64, n: usize) -> f64 {
                    let mut u = u0.to_vec();
                    let mut next = u0.to_vec();
                    for _s in 0..3 {
                        for i in 1..n { next[i] = u[i] * a; }
                        if u[0] > 1.0 { break; }
                        u.copy_from_slice(&next);
                    }
                    u[0]
                }
            },
        ];
        for (k, item) in cases.into_iter().enumerate() {
            assert_eq!(exchanges(item), Vec::<String>::new(), "case {k}");
        }
    }
}
