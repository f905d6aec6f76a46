//! Loop access patterns: takes a loop body, gives the affine accesses `b[i + c]` per sequence
//! that adjoint windows and slice views are planned from.

use super::*;

/// `c` when `e` is `i`, `i + c`, `c + i` or `i - c` for the loop index `i` and an integer literal.
pub(super) fn affine_offset(e: &Expr, i: VarId) -> Option<i64> {
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
pub(super) struct Invariant(Vec<Expr>);

impl Invariant {
    /// The same terms in the same order (so the same value at every iteration).
    pub(super) fn same(&self, other: &Invariant) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|(a, b)| a.same(b))
    }
}

/// Splits `e + i + c` into (the invariant terms `e`, `c`): terms added together, exactly one
/// of them the loop index `i`, integer literals summed into `c`, the rest (which must not read `i`
/// or anything not stable) forming `e`. `None` for any other shape.
pub(super) fn affine_split(ix: &Expr, i: VarId, em: &Emitter) -> Option<(Invariant, i64)> {
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
    if reads.iter().any(|r| *r == i || !em.stable(*r)) {
        return None;
    }
    Some((Invariant(rest.into_iter().cloned().collect()), c))
}

pub(super) fn add_terms<'e>(e: &'e Expr, terms: &mut Vec<&'e Expr>, c: &mut i64) -> bool {
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
pub(super) fn invariant_part(ix: &Expr, i: VarId) -> Option<Expr> {
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
pub(super) struct WindowPlan<'a> {
    pub(super) index: VarId,
    pub(super) vars: &'a [Var],
    pub(super) offsets: HashMap<VarId, Vec<i64>>,
    pub(super) bad: BTreeSet<VarId>,
    pub(super) guarded: BTreeSet<VarId>,
}

impl WindowPlan<'_> {
    pub(super) fn access(&mut self, base: VarId, ix: &Expr, nested: bool) {
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

    pub(super) fn expr(&mut self, e: &Expr, nested: bool) {
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

    pub(super) fn stmts(&mut self, stmts: &[R], nested: bool) {
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
pub(super) struct ViewAccesses {
    pub(super) inv: Invariant,
    pub(super) inv_expr: Option<Expr>,
    pub(super) offsets: Vec<i64>,
}

/// Walks a loop body for `plan_views`: per sequence its accesses, or `None` once it is used in
/// any other way (whole, with another invariant, under control flow).
pub(super) struct ViewPlan<'e, 'a> {
    pub(super) em: &'e Emitter<'a>,
    pub(super) index: VarId,
    pub(super) seqs: HashMap<VarId, Option<ViewAccesses>>,
    pub(super) written: BTreeSet<VarId>,
}

impl ViewPlan<'_, '_> {
    pub(super) fn access(&mut self, base: VarId, ix: &Expr) {
        let split = affine_split(ix, self.index, self.em);
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

    pub(super) fn disqualify(&mut self, v: VarId) {
        self.seqs.insert(v, None);
    }

    pub(super) fn expr(&mut self, e: &Expr) {
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
        for (v, ix) in found {
            match ix {
                Some(ix) => self.access(v, &ix),
                None => self.disqualify(v),
            }
        }
    }

    pub(super) fn stmts(&mut self, body: &[R]) {
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

/// Every sequence variable read or written anywhere inside a statement.
pub(super) fn collect_seq_uses(s: &R, out: &mut Vec<VarId>) {
    let on_expr = |e: &Expr, out: &mut Vec<VarId>| e.reads(out);
    match s {
        R::Let { init: Some(e), .. } | R::Eval(e) => on_expr(e, out),
        R::Let { .. } | R::Macro(..) | R::Exit(_) => {}
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
