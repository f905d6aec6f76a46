//! Loop access patterns: takes the normalised statements, the `Scope` and the variables with an
//! adjoint, gives per simple `for` loop (keyed by its index variable) the sequences whose
//! adjoints get a window (every access `b[i + c]`, offsets within 8) and those read or
//! accumulated through a slice view (every access `arr[e + i + c]`, one invariant `e`): the
//! table `reverse/loops.rs` names and prints. Also the affine queries on one access
//! (`affine_offset`, `affine_split`) the emitter asks when it prints an access.

use crate::analysis::scope::{simple_for, Scope};
use crate::ir::*;
use crate::transform::normalize::R;
use std::collections::{BTreeSet, HashMap};

/// `c` when `e` is `i`, `i + c`, `c + i` or `i - c` for the loop index `i` and an integer literal.
pub(crate) fn affine_offset(e: &Expr, i: VarId) -> Option<i64> {
    let lit = |x: &Expr| -> Option<i64> {
        match &x.kind {
            ExprKind::Lit(syn::Lit::Int(l)) => l.base10_parse::<i64>().ok(),
            _ => None,
        }
    };
    let is_i = |x: &Expr| matches!(x.kind, ExprKind::Var(v) if v == i);
    match &e.kind {
        ExprKind::Var(v) if *v == i => Some(0),
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if is_i(lhs) => lit(rhs),
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if is_i(rhs) => lit(lhs),
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } if is_i(lhs) => lit(rhs).map(|c| -c),
        _ => None,
    }
}

/// The loop-invariant terms `e` of an index `e + i + c`, in the order written.
#[derive(Clone)]
pub(crate) struct Invariant(Vec<Expr>);

impl Invariant {
    /// The same terms in the same order (so the same value at every iteration).
    pub(crate) fn same(&self, other: &Invariant) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|(a, b)| a.same(b))
    }
}

/// Splits `e + i + c` into (the invariant terms `e`, `c`): terms added together, exactly one
/// of them the loop index `i`, integer literals summed into `c`, the rest (which must not read `i`
/// or anything not stable) forming `e`. `None` for any other shape.
pub(crate) fn affine_split(ix: &Expr, i: VarId, scope: &Scope) -> Option<(Invariant, i64)> {
    let mut terms = Vec::new();
    let mut c = 0i64;
    if !add_terms(ix, &mut terms, &mut c) {
        return None;
    }
    let (idx, rest): (Vec<&Expr>, Vec<&Expr>) = terms
        .into_iter()
        .partition(|t| matches!(t.kind, ExprKind::Var(v) if v == i));
    if idx.len() != 1 {
        return None;
    }
    let mut reads = Vec::new();
    for t in &rest {
        t.reads(&mut reads);
    }
    if reads.iter().any(|r| *r == i || !scope.stable(*r)) {
        return None;
    }
    Some((Invariant(rest.into_iter().cloned().collect()), c))
}

pub(crate) fn add_terms<'e>(e: &'e Expr, terms: &mut Vec<&'e Expr>, c: &mut i64) -> bool {
    match &e.kind {
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => add_terms(lhs, terms, c) && add_terms(rhs, terms, c),
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => match &rhs.kind {
            ExprKind::Lit(syn::Lit::Int(l)) => match l.base10_parse::<i64>() {
                Ok(v) => {
                    *c -= v;
                    add_terms(lhs, terms, c)
                }
                Err(_) => false,
            },
            _ => false,
        },
        ExprKind::Lit(syn::Lit::Int(l)) => match l.base10_parse::<i64>() {
            Ok(v) => {
                *c += v;
                true
            }
            Err(_) => false,
        },
        _ => {
            terms.push(e);
            true
        }
    }
}

/// The invariant terms of `e + i + c` as one expression (`None` when there are none).
pub(crate) fn invariant_part(ix: &Expr, i: VarId) -> Option<Expr> {
    let mut terms = Vec::new();
    let mut c = 0i64;
    if !add_terms(ix, &mut terms, &mut c) {
        return None;
    }
    let rest: Vec<&Expr> = terms
        .into_iter()
        .filter(|t| !matches!(t.kind, ExprKind::Var(v) if v == i))
        .collect();
    let mut it = rest.into_iter();
    let first = it.next()?.clone();
    Some(it.fold(first, |acc, t| {
        let span = acc.span;
        Expr::new(
            ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(acc),
                rhs: Box::new(t.clone()),
            },
            span,
        )
    }))
}

/// The adjoint accesses of one loop body, for `plan_windows`: per sequence the offsets `c` of
/// its accesses `b[i + c]`; sequences used any other way are `bad`; those accessed inside a branch
/// are `guarded`.
struct WindowPlan<'a> {
    pub(crate) index: VarId,
    pub(crate) vars: &'a [Var],
    pub(crate) offsets: HashMap<VarId, Vec<i64>>,
    pub(crate) bad: BTreeSet<VarId>,
    pub(crate) guarded: BTreeSet<VarId>,
}

impl WindowPlan<'_> {
    pub(crate) fn access(&mut self, base: VarId, ix: &Expr, nested: bool) {
        match affine_offset(ix, self.index) {
            Some(c) => {
                self.offsets.entry(base).or_default().push(c);
                if nested {
                    self.guarded.insert(base);
                }
            }
            None => {
                self.bad.insert(base);
            }
        }
    }

    pub(crate) fn expr(&mut self, e: &Expr, nested: bool) {
        let vars = self.vars;
        let mut found = Vec::new();
        e.visit(&mut |n| match &n.kind {
            ExprKind::Index { base, index } if vars[*base].active => {
                found.push((*base, Some((**index).clone())))
            }
            ExprKind::Var(v)
            | ExprKind::CopySeq(v, _)
            | ExprKind::MutRef(v, ..)
            | ExprKind::SubSlice { base: v, .. }
                if vars[*v].active && matches!(vars[*v].shape, Shape::Seq(_)) =>
            {
                found.push((*v, None))
            }
            // A struct lent whole: its field arguments change with it.
            ExprKind::MutRef(v, ..) => {
                let fields = crate::ir::writes::lent_fields(vars, *v);
                found.extend(fields.into_iter().map(|w| (w, None)));
            }
            _ => {}
        });
        for (base, ix) in found {
            match ix {
                Some(ix) => self.access(base, &ix, nested),
                None => {
                    self.bad.insert(base);
                }
            }
        }
    }

    pub(crate) fn stmts(&mut self, stmts: &[R], nested: bool) {
        for st in stmts {
            if let R::Let { pat, .. } = st {
                // Declared inside the loop: its adjoint does not exist before the loop.
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                self.bad.extend(vs);
            }
            match st {
                R::Let { init: Some(e), .. } | R::Eval(e) => self.expr(e, nested),
                R::Let { .. } | R::Macro(..) | R::Exit(_) => {}
                // Whole buffers exchanged: no window of either.
                R::Swap(a, b) => {
                    self.bad.insert(*a);
                    self.bad.insert(*b);
                }
                R::Assign { place, value } => {
                    self.expr(value, nested);
                    match place {
                        Place::Index(w, ix) => {
                            self.expr(ix, nested);
                            if self.vars[*w].active {
                                self.access(*w, ix, nested);
                            }
                        }
                        Place::Var(w) => {
                            self.bad.insert(*w);
                        }
                    }
                }
                R::Push { vec, value } => {
                    self.expr(value, nested);
                    self.bad.insert(*vec);
                }
                R::If { cond, then, els } => {
                    self.expr(cond, nested);
                    self.stmts(then, true);
                    self.stmts(els, true);
                }
                R::Match { scrut, arms } => {
                    self.expr(scrut, nested);
                    for (_, b) in arms {
                        self.stmts(b, true);
                    }
                }
                // Inner loops run under their own index.
                R::For { .. } | R::While { .. } => {
                    let mut inner = Vec::new();
                    collect_seq_uses(st, &mut inner);
                    self.bad.extend(inner);
                }
            }
        }
    }
}

/// The accesses `arr[e + i + c]` of one sequence in a loop body (one invariant `e`).
#[derive(Clone)]
pub(crate) struct ViewAccesses {
    pub(crate) inv: Invariant,
    pub(crate) inv_expr: Option<Expr>,
    pub(crate) offsets: Vec<i64>,
}

/// Walks a loop body for `plan_views`: per sequence its accesses, or `None` once it is used in
/// any other way (whole, with another invariant, under control flow).
struct ViewPlan<'e, 'a> {
    pub(crate) scope: &'e Scope<'a>,
    pub(crate) index: VarId,
    pub(crate) seqs: HashMap<VarId, Option<ViewAccesses>>,
    pub(crate) written: BTreeSet<VarId>,
}

impl ViewPlan<'_, '_> {
    pub(crate) fn access(&mut self, base: VarId, ix: &Expr) {
        let split = affine_split(ix, self.index, self.scope);
        let index = self.index;
        let entry = self.seqs.entry(base).or_insert_with(|| {
            split.as_ref().map(|(inv, _)| ViewAccesses {
                inv: inv.clone(),
                inv_expr: invariant_part(ix, index),
                offsets: Vec::new(),
            })
        });
        match (entry.as_mut(), split) {
            (Some(acc), Some((inv, c))) if acc.inv.same(&inv) => acc.offsets.push(c),
            _ => *entry = None,
        }
    }

    pub(crate) fn disqualify(&mut self, v: VarId) {
        self.seqs.insert(v, None);
    }

    pub(crate) fn expr(&mut self, e: &Expr) {
        let mut found: Vec<(VarId, Option<Expr>)> = Vec::new();
        e.visit(&mut |n| match &n.kind {
            ExprKind::Index { base, index } => found.push((*base, Some((**index).clone()))),
            ExprKind::Var(v)
            | ExprKind::CopySeq(v, _)
            | ExprKind::MutRef(v, ..)
            | ExprKind::SubSlice { base: v, .. }
            | ExprKind::Len(v)
            | ExprKind::Member { base: v, .. } => found.push((*v, None)),
            _ => {}
        });
        // A struct lent whole: its field arguments change with it.
        for v in e.mut_borrows() {
            let fields = crate::ir::writes::lent_fields(self.scope.vars, v);
            found.extend(fields.into_iter().map(|w| (w, None)));
        }
        for (v, ix) in found {
            match ix {
                Some(ix) => self.access(v, &ix),
                None => self.disqualify(v),
            }
        }
    }

    pub(crate) fn stmts(&mut self, body: &[R]) {
        for st in body {
            if let R::Let { pat, .. } = st {
                // Declared inside the loop: it does not exist before the loop.
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                vs.into_iter().for_each(|v| self.disqualify(v));
            }
            match st {
                R::Let { init: Some(e), .. } | R::Eval(e) => self.expr(e),
                R::Let { .. } | R::Exit(_) => {}
                R::Macro(_, vis) => vis.iter().for_each(|v| self.disqualify(*v)),
                R::Assign { place, value } => {
                    self.expr(value);
                    match place {
                        Place::Index(w, ix) => {
                            self.expr(ix);
                            self.access(*w, ix);
                            self.written.insert(*w);
                        }
                        Place::Var(w) => self.disqualify(*w),
                    }
                }
                R::Push { vec, value } => {
                    self.expr(value);
                    self.disqualify(*vec);
                }
                // Accesses under control flow might not happen on every iteration.
                _ => {
                    let mut inner = Vec::new();
                    collect_seq_uses(st, &mut inner);
                    inner.into_iter().for_each(|v| self.disqualify(v));
                }
            }
        }
    }
}

/// What the reverse sweep of one simple `for` loop plans from its accesses.
#[derive(Default)]
pub(crate) struct LoopAccess {
    /// Sequences whose adjoint lives in a window, by variable.
    pub(crate) windows: Vec<WindowAccess>,
    /// Sequences accessed as `arr[e + i + c]` only, by variable: each with a primal view, an
    /// adjoint view, or both.
    pub(crate) views: Vec<ViewAccess>,
}

/// An adjoint window over `var[i + lo ..= i + hi]`; `guarded` when some access is conditional.
pub(crate) struct WindowAccess {
    pub(crate) var: VarId,
    pub(crate) lo: i64,
    pub(crate) hi: i64,
    pub(crate) guarded: bool,
}

/// The accesses `var[e + i + c]` of a loop, `c` in `lo..=hi`; `prim`: read through a view in
/// both sweeps (the loop does not write it, and the reverse sweep can name it); `adj`: its
/// adjoint accumulated through a view (it has an adjoint and is not restored).
pub(crate) struct ViewAccess {
    pub(crate) var: VarId,
    pub(crate) acc: ViewAccesses,
    pub(crate) lo: i64,
    pub(crate) hi: i64,
    pub(crate) prim: bool,
    pub(crate) adj: bool,
}

/// The access table of every simple `for` loop in `body` (keyed by its index variable), with
/// `scope` knowing the restored sequences and `acc` the variables with an adjoint: windows for
/// loops without a step, views for those that are also not inclusive.
pub(crate) fn loop_access(
    body: &[R],
    scope: &Scope,
    acc: &BTreeSet<VarId>,
) -> HashMap<VarId, LoopAccess> {
    let mut out = HashMap::new();
    loop_access_into(body, scope, acc, &mut out);
    out
}

fn loop_access_into(
    body: &[R],
    scope: &Scope,
    acc: &BTreeSet<VarId>,
    out: &mut HashMap<VarId, LoopAccess>,
) {
    for s in body {
        match s {
            R::For {
                var,
                range,
                body,
                brk,
            } => {
                let Range::Bounds {
                    inclusive, step, ..
                } = range;
                if simple_for(range, body, *brk) && step.is_none() {
                    let views = if *inclusive {
                        Vec::new()
                    } else {
                        plan_views(*var, body, scope, acc)
                    };
                    let windows = plan_windows(*var, body, scope.vars, acc);
                    out.insert(*var, LoopAccess { windows, views });
                }
                loop_access_into(body, scope, acc, out);
            }
            R::While { body, .. } => loop_access_into(body, scope, acc, out),
            R::If { then, els, .. } => {
                loop_access_into(then, scope, acc, out);
                loop_access_into(els, scope, acc, out);
            }
            R::Match { arms, .. } => {
                for (_, b) in arms {
                    loop_access_into(b, scope, acc, out);
                }
            }
            _ => {}
        }
    }
}

/// Sequences whose adjoint accesses in the body of the loop over `index` are all `b[i + c]`
/// with constant `c` (spanning at most 9 elements), in statements that run on every iteration.
fn plan_windows(
    index: VarId,
    body: &[R],
    vars: &[Var],
    acc: &BTreeSet<VarId>,
) -> Vec<WindowAccess> {
    let mut plan = WindowPlan {
        index,
        vars,
        offsets: HashMap::new(),
        bad: BTreeSet::new(),
        guarded: BTreeSet::new(),
    };
    plan.stmts(body, false);
    let WindowPlan {
        offsets,
        bad,
        guarded,
        ..
    } = plan;
    let mut out = Vec::new();
    let mut offsets: Vec<(VarId, Vec<i64>)> = offsets.into_iter().collect();
    offsets.sort_by_key(|(w, _)| *w);
    for (w, cs) in offsets {
        if bad.contains(&w) || !acc.contains(&w) {
            continue;
        }
        let lo = cs.iter().copied().min().unwrap_or(0);
        let hi = cs.iter().copied().max().unwrap_or(0);
        if hi - lo > 8 {
            continue;
        }
        out.push(WindowAccess {
            var: w,
            lo,
            hi,
            guarded: guarded.contains(&w),
        });
    }
    out
}

/// Sequences whose every access in the body of the loop over `index` is `arr[e + i + c]` (one
/// invariant `e` per sequence), in statements that run on every iteration. Primal views only
/// for sequences the loop does not write.
fn plan_views(index: VarId, body: &[R], scope: &Scope, acc: &BTreeSet<VarId>) -> Vec<ViewAccess> {
    let mut plan = ViewPlan {
        scope,
        index,
        seqs: HashMap::new(),
        written: BTreeSet::new(),
    };
    plan.stmts(body);
    let ViewPlan { seqs, written, .. } = plan;
    let mut seqs: Vec<(VarId, Option<ViewAccesses>)> = seqs.into_iter().collect();
    seqs.sort_by_key(|(v, _)| *v);
    let mut out = Vec::new();
    for (v, a) in seqs {
        let Some(a) = a else {
            continue;
        };
        if a.offsets.is_empty() || !matches!(scope.vars[v].shape, Shape::Seq(_)) {
            continue;
        }
        let lo = a.offsets.iter().copied().min().unwrap_or(0);
        let hi = a.offsets.iter().copied().max().unwrap_or(0);
        // Primal reads: sequences the loop does not write, readable by name in both sweeps.
        let prim = !written.contains(&v) && scope.stable(v);
        let adj = scope.vars[v].active && acc.contains(&v) && !scope.restore.contains(&v);
        if prim || adj {
            out.push(ViewAccess {
                var: v,
                acc: a,
                lo,
                hi,
                prim,
                adj,
            });
        }
    }
    out
}

/// Every sequence variable read or written anywhere inside a statement.
pub(crate) fn collect_seq_uses(s: &R, out: &mut Vec<VarId>) {
    let on_expr = |e: &Expr, out: &mut Vec<VarId>| e.reads(out);
    match s {
        R::Let { init: Some(e), .. } | R::Eval(e) => on_expr(e, out),
        R::Let { .. } | R::Macro(..) | R::Exit(_) => {}
        R::Swap(a, b) => out.extend([*a, *b]),
        R::Assign { place, value } => {
            on_expr(value, out);
            out.push(place.var());
            if let Place::Index(_, ix) = place {
                on_expr(ix, out);
            }
        }
        R::Push { vec, value } => {
            on_expr(value, out);
            out.push(*vec);
        }
        R::If { cond, then, els } => {
            on_expr(cond, out);
            then.iter()
                .chain(els)
                .for_each(|x| collect_seq_uses(x, out));
        }
        R::Match { scrut, arms } => {
            on_expr(scrut, out);
            arms.iter()
                .flat_map(|(_, b)| b)
                .for_each(|x| collect_seq_uses(x, out));
        }
        R::For { range, body, .. } => {
            let Range::Bounds {
                start, end, step, ..
            } = range;
            on_expr(start, out);
            on_expr(end, out);
            if let Some(st) = step {
                on_expr(st, out);
            }
            body.iter().for_each(|x| collect_seq_uses(x, out));
        }
        R::While { cond, body, .. } => {
            if let Some(c) = cond {
                on_expr(c, out);
            }
            body.iter().for_each(|x| collect_seq_uses(x, out));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::scope::{scope_of, Scope};
    use crate::testing::normalized;
    use syn::parse_quote;

    /// The windows (`name lo..=hi`, `?` when guarded) and views (`name lo..=hi prim adj`) of
    /// the loop over the variable named `index` in `item`.
    fn access(item: syn::ItemFn, index: &str) -> (Vec<String>, Vec<String>) {
        let (f, vars, ret, body) = normalized(item);
        let (scope, acc) = scope_of(&f, &vars, ret, &body);
        let saves = crate::analysis::saves::saves(&body, &scope, &acc, &f.checkpoints);
        let scope = Scope {
            restore: saves.restore.clone(),
            ..scope
        };
        let table = super::loop_access(&body, &scope, &acc);
        let i = (0..vars.len())
            .find(|v| vars[*v].name == index)
            .expect("no such index");
        let name = |v: usize| vars[v].name.to_string();
        let a = &table[&i];
        let windows = a
            .windows
            .iter()
            .map(|w| {
                let g = if w.guarded { "?" } else { "" };
                format!("{}{g} {}..={}", name(w.var), w.lo, w.hi)
            })
            .collect();
        let views = a
            .views
            .iter()
            .map(|v| format!("{} {}..={} {} {}", name(v.var), v.lo, v.hi, v.prim, v.adj))
            .collect();
        (windows, views)
    }

    #[test]
    fn a_stencil_gets_windows_and_views() {
        let (windows, views) = access(
            parse_quote! {
                fn f(x: &[f64], w: &[f64], n: usize) -> f64 {
                    let mut s = 0.0;
                    for i in 1..n {
                        s = s + x[i - 1] * x[i + 1] * w[3 + i];
                        if i > 2 {
                            s = s + x[i];
                        }
                    }
                    s
                }
            },
            "i",
        );
        // `x` is also read under a branch: its window checks that each element exists, and it
        // gets no view. `w[3 + i]` is `w[i + 3]`: a window, and a view of its values and of its
        // adjoint.
        assert_eq!(windows, ["x? -1..=1", "w 3..=3"]);
        assert_eq!(views, ["w 3..=3 true true"]);
    }

    #[test]
    fn an_invariant_offset_gets_a_view_not_a_window() {
        let (windows, views) = access(
            parse_quote! {
                fn f(x: &[f64], k: usize, n: usize) -> f64 {
                    let mut s = 0.0;
                    for j in 0..n {
                        s = s + x[k + j] * x[k + j + 1];
                    }
                    s
                }
            },
            "j",
        );
        assert!(windows.is_empty(), "{windows:?}");
        assert_eq!(views, ["x 0..=1 true true"]);
    }
}
