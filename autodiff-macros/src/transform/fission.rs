//! Counter fission for loop fusion (reverse mode, `R` → `R`): a top-level `for` loop that
//! accumulates an inactive sum whose terms depend on nothing the loop computes (a sample count,
//! `count += 1.0`) gets those updates moved into a copy of its loop nest placed just before it:
//!
//! ```text
//! for b in 0..n { ...; for r in 0..o { ...; loss += e * e; count += 1.0; } }
//! ```
//! becomes
//! ```text
//! for b' in 0..n { for r' in 0..o { count += 1.0; } }
//! for b in 0..n { ...; for r in 0..o { ...; loss += e * e; } }
//! ```
//!
//! so the value after the loop (`loss / count`) is known before the main loop runs, and the
//! reverse of the statements after it (whose partials read `count`) can run before it: the main
//! loop can then be fused (`analysis/fusion.rs`, condition "known seed").
//!
//! Exact, by construction: the sum `s` (a scalar or integer declared outside the loop, not
//! active) is written in the loop only by `s = s + e` / `s = e + s` / `s = s - e` and read only
//! by them; each update sits in nested `for` loops only (no branch), every loop on the way has
//! no exit and a call-free range reading only variables the loop body does not write (or indices
//! of the enclosing loops), and `e` is call-free and reads only such variables too. The copy then
//! runs the same iterations, computes the same terms and adds them in the same order, so `s`
//! ends with the same value bit for bit; the loop, which no longer touches `s`, reads nothing
//! the copy writes. Only done when a statement after the loop uses `s` and the loop keeps other
//! work; loops left empty by the move are dropped (call-free invariant ranges: no effect).

use crate::analysis::fusion::{declared, sets};
use crate::analysis::scratch::{has_exit, stmt_mentions};
use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Splits the counters out of the top-level loops of `body`; gives one line per loop split (for
/// the IR dump). The caller renumbers the expressions.
pub(crate) fn split_counters(body: &mut Vec<R>, vars: &mut Vec<Var>) -> Vec<String> {
    let mut report = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let sums = counters(&body[k], &body[k + 1..], vars);
        if sums.is_empty() {
            k += 1;
            continue;
        }
        let pre = extract(std::slice::from_ref(&body[k]), &sums, vars);
        let mut rest = vec![body[k].clone()];
        remove(&mut rest, &sums);
        if rest.is_empty() {
            k += 1;
            continue;
        }
        let names: Vec<String> = sums
            .iter()
            .map(|s| format!("`{}`", vars[*s].name))
            .collect();
        report.push(format!(
            "loop over `{}`: the sums {} computed by a copy of its loops before it",
            loop_name(&body[k], vars),
            names.join(", ")
        ));
        body.splice(k..=k, pre.into_iter().chain(rest));
        k += 2;
    }
    report
}

fn loop_name(s: &R, vars: &[Var]) -> String {
    match s {
        R::For { var, .. } => vars[*var].name.to_string(),
        _ => String::new(),
    }
}

/// The sums of the top-level statement `s` (a `for` loop) that can move before it.
fn counters(s: &R, after: &[R], vars: &[Var]) -> BTreeSet<VarId> {
    let R::For { var, body, brk, .. } = s else {
        return BTreeSet::new();
    };
    if brk.is_some_and(|b| sets(body, b)) || has_exit(body) {
        return BTreeSet::new();
    }
    let mut local = BTreeSet::new();
    local.insert(*var);
    declared(body, &mut local);
    let mut written: Vec<VarId> = local.iter().copied().collect();
    for t in body {
        t.writes(vars, &mut written);
    }
    let mut walk = Walk {
        vars,
        written: &written,
        updates: BTreeMap::new(),
        bad: BTreeSet::new(),
        reads: BTreeMap::new(),
    };
    let mut indices = vec![*var];
    if !range_free(s, &written, &indices) {
        return BTreeSet::new();
    }
    walk.block(body, true, &mut indices);
    walk.updates
        .iter()
        .filter(|(v, n)| {
            let var = &vars[**v];
            !walk.bad.contains(v)
                && !local.contains(v)
                && matches!(var.shape, Shape::Scalar | Shape::Int)
                && var.mutable
                && !var.active
                && walk.reads.get(v).copied().unwrap_or(0) == **n
                && after.iter().any(|t| stmt_mentions(t, **v))
        })
        .map(|(v, _)| *v)
        .collect()
}

/// Whether the loop statement `s`'s range is call-free and reads only variables the outer loop
/// body does not write, or enclosing indices.
fn range_free(s: &R, written: &[VarId], indices: &[VarId]) -> bool {
    let R::For {
        range: Range::Bounds {
            start, end, step, ..
        },
        ..
    } = s
    else {
        return false;
    };
    [Some(start), Some(end), step.as_ref()]
        .into_iter()
        .flatten()
        .all(|e| free(e, written, indices))
}

/// Call-free, reading only variables not in `written` or in `indices`.
fn free(e: &Expr, written: &[VarId], indices: &[VarId]) -> bool {
    let mut rs = Vec::new();
    e.reads(&mut rs);
    !e.has_call()
        && rs
            .iter()
            .all(|v| !written.contains(v) || indices.contains(v))
}

struct Walk<'a> {
    vars: &'a [Var],
    written: &'a [VarId],
    /// Scalar variables updated as sums on a loop-only path with free terms, with the count.
    updates: BTreeMap<VarId, usize>,
    /// Variables written otherwise.
    bad: BTreeSet<VarId>,
    /// Every variable read, with the number of reads.
    reads: BTreeMap<VarId, usize>,
}

impl Walk<'_> {
    fn expr(&mut self, e: &Expr) {
        let mut rs = Vec::new();
        e.reads(&mut rs);
        for v in rs {
            *self.reads.entry(v).or_insert(0) += 1;
        }
    }

    /// `path`: reached through `for` loops with free ranges and no exit only.
    fn block(&mut self, body: &[R], path: bool, indices: &mut Vec<VarId>) {
        for s in body {
            self.stmt(s, path, indices);
        }
    }

    fn stmt(&mut self, s: &R, path: bool, indices: &mut Vec<VarId>) {
        let mut ws = Vec::new();
        match s {
            R::Assign {
                place: Place::Var(v),
                value,
            } => {
                self.expr(value);
                match crate::analysis::fusion::accumulated_term(*v, value) {
                    Some(e) if path && free(e, self.written, indices) => {
                        *self.updates.entry(*v).or_insert(0) += 1;
                    }
                    _ => {
                        self.bad.insert(*v);
                    }
                }
            }
            R::For { var, body, brk, .. } => {
                let Range::Bounds {
                    start, end, step, ..
                } = match s {
                    R::For { range, .. } => range,
                    _ => unreachable!(),
                };
                for e in [Some(start), Some(end), step.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    self.expr(e);
                }
                let inner = path
                    && range_free(s, self.written, indices)
                    && !brk.is_some_and(|b| sets(body, b))
                    && !has_exit(body);
                indices.push(*var);
                self.block(body, inner, indices);
                indices.pop();
            }
            R::If { cond, then, els } => {
                self.expr(cond);
                self.block(then, false, indices);
                self.block(els, false, indices);
            }
            R::Match { scrut, arms } => {
                self.expr(scrut);
                for (_, b) in arms {
                    self.block(b, false, indices);
                }
            }
            R::While { cond, body, .. } => {
                if let Some(c) = cond {
                    self.expr(c);
                }
                self.block(body, false, indices);
            }
            R::Macro(_, vs) => {
                for v in vs {
                    *self.reads.entry(*v).or_insert(0) += 1;
                    self.bad.insert(*v);
                }
            }
            _ => {
                s.writes(self.vars, &mut ws);
                let mut roots = vec![s.clone()];
                crate::transform::normalize::for_each_root_mut(&mut roots, &mut |e| self.expr(e));
                self.bad.extend(ws);
            }
        }
    }
}

/// Whether `s` is an update of one of `sums`.
fn is_update(s: &R, sums: &BTreeSet<VarId>) -> bool {
    matches!(s, R::Assign { place: Place::Var(v), .. } if sums.contains(v))
}

/// The loop nest of `body` reduced to the updates of `sums`, with fresh index variables.
fn extract(body: &[R], sums: &BTreeSet<VarId>, vars: &mut Vec<Var>) -> Vec<R> {
    let mut out = Vec::new();
    for s in body {
        match s {
            _ if is_update(s, sums) => out.push(s.clone()),
            R::For {
                var, range, body, ..
            } => {
                let inner = extract(body, sums, vars);
                if inner.is_empty() {
                    continue;
                }
                let fresh = vars.len();
                vars.push(vars[*var].clone());
                let map: HashMap<VarId, VarId> = [(*var, fresh)].into_iter().collect();
                let mut copy = R::For {
                    var: fresh,
                    range: range.clone(),
                    body: inner,
                    brk: None,
                };
                rename(&mut copy, &map);
                out.push(copy);
            }
            _ => {}
        }
    }
    out
}

/// Replaces the variables of `map` in every expression of `s`.
fn rename(s: &mut R, map: &HashMap<VarId, VarId>) {
    let roots = std::slice::from_mut(s);
    crate::transform::normalize::for_each_root_mut(roots, &mut |e| {
        e.visit_mut(&mut |n| {
            if let ExprKind::Var(v) = &mut n.kind {
                if let Some(m) = map.get(v) {
                    *v = *m;
                }
            }
        })
    });
}

/// `body` without the updates of `sums`, and without the `for` loops left empty.
fn remove(body: &mut Vec<R>, sums: &BTreeSet<VarId>) {
    body.retain_mut(|s| {
        if is_update(s, sums) {
            return false;
        }
        if let R::For { body, .. } = s {
            let before = body.len();
            remove(body, sums);
            return !(body.is_empty() && before > 0);
        }
        true
    });
}
