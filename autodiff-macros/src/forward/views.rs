//! Slice views in forward mode: takes a `for i in a..b` loop of the IR, gives the sequences its
//! body reads or writes only as `arr[e + i + c]` (`e` loop-invariant, `c` an integer literal),
//! each group of accesses with one `e` read through one sub-slice taken before the loop,
//! `&arr[e + a + cmin .. e + b + cmax]`, and the tangent's through the same sub-slice of the
//! tangent, so rustc removes the bounds checks (and can vectorize). A sequence the loop writes
//! gets one `&mut` view (all its accesses with one `e`), one it only reads a view per `e`
//! (`u[(i - 1) * n + j]`, `u[i * n + j]`, `u[(i + 1) * n + j]`: three rows).
//!
//! Taken only when every such access is made on every iteration: accesses at the top level of
//! the body, not under `&&`/`||`, in a body without `break`, `continue` or `return` (anywhere in
//! it); a sequence used any other way in the body (whole, borrowed, its length, inside a nested
//! branch or loop, named by a macro, written by a call: a field of a struct lent to a call)
//! gets no view. The invariant part `e` may only read
//! variables the body does not write or bind, through arithmetic, casts, lengths and element
//! reads (no calls: it is evaluated again before the loop). The bounds are bound once before the
//! views (`let a0 = a; let b0 = b;`, evaluated in the order the loop evaluated them) and the views
//! taken only when the loop runs (`if a0 < b0 { .. } else { &arr[0..0] }`).

use super::program::{Bind, Op, Tan};
use super::Forward;
use crate::analysis::access::add_terms;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// A view in use while the body of its loop is emitted.
pub(super) struct View {
    var: VarId,
    /// The loop's index.
    index: VarId,
    /// The loop's start, bound before the loop: element `e + i + c` is `view[(i - start) + c - lo]`.
    start: syn::Ident,
    inv: Vec<Expr>,
    lo: i64,
    name: syn::Ident,
    /// The view of the tangent, for an active sequence.
    tangent: Option<syn::Ident>,
}

/// An element access through a view: the view, its tangent's view, and the index in both.
pub(super) struct ViewElem {
    pub(super) view: syn::Ident,
    pub(super) tangent: Option<syn::Ident>,
    pub(super) index: TokenStream,
}

/// `(e, c)` of an index `e + i + c`: the terms other than the loop index `i` (which must not read
/// `i`), the literals summed into `c`.
fn split(ix: &Expr, i: VarId) -> Option<(Vec<Expr>, i64)> {
    let mut terms = Vec::new();
    let mut c = 0i64;
    if !add_terms(ix, &mut terms, &mut c) {
        return None;
    }
    let is_i = |t: &Expr| matches!(t.kind, ExprKind::Var(v) if v == i);
    if terms.iter().filter(|t| is_i(t)).count() != 1 {
        return None;
    }
    let rest: Vec<Expr> = terms.into_iter().filter(|t| !is_i(t)).cloned().collect();
    let mut reads = Vec::new();
    rest.iter().for_each(|t| t.reads(&mut reads));
    (!reads.contains(&i)).then_some((rest, c))
}

fn same_terms(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
}

/// The accesses of one sequence with one invariant part.
struct Group {
    inv: Vec<Expr>,
    offsets: Vec<i64>,
}

/// The walk over one loop body.
struct Plan {
    index: VarId,
    /// Per sequence its groups of accesses; `None` once it is used any other way.
    seqs: BTreeMap<VarId, Option<Vec<Group>>>,
    /// Sequences whose elements the body writes.
    written: BTreeSet<VarId>,
    /// Variables the body writes or binds (an invariant part may not read them).
    changed: BTreeSet<VarId>,
    /// The body leaves an iteration early somewhere: no views.
    exits: bool,
}

impl Plan {
    fn disqualify(&mut self, v: VarId) {
        self.seqs.insert(v, None);
    }

    fn access(&mut self, base: VarId, ix: &Expr) {
        let Some((inv, c)) = split(ix, self.index) else {
            return self.disqualify(base);
        };
        let Some(groups) = self.seqs.entry(base).or_insert_with(|| Some(Vec::new())) else {
            return;
        };
        match groups.iter_mut().find(|g| same_terms(&g.inv, &inv)) {
            Some(g) => g.offsets.push(c),
            None => groups.push(Group {
                inv,
                offsets: vec![c],
            }),
        }
    }

    /// The accesses of an expression evaluated on every iteration (`lazy`: under the right
    /// operand of `&&` or `||`, which may not be).
    fn expr(&mut self, vars: &[Var], e: &Expr, lazy: bool) {
        let mut w = Vec::new();
        crate::ir::writes::expr_writes(vars, e, &mut w);
        // What evaluating an expression writes it writes whole (through `&mut` in a call, or as a
        // field of a struct lent to a call, `codegen/lend.rs`, which borrows it again): no view.
        for &v in &w {
            self.disqualify(v);
        }
        self.changed.extend(w);
        self.walk(e, lazy);
    }

    fn walk(&mut self, e: &Expr, lazy: bool) {
        match &e.kind {
            ExprKind::Index { base, index } => {
                if lazy {
                    self.disqualify(*base);
                } else {
                    self.access(*base, index);
                }
                self.walk(index, lazy);
            }
            ExprKind::Binary {
                op: BinOp::And | BinOp::Or,
                lhs,
                rhs,
            } => {
                self.walk(lhs, lazy);
                self.walk(rhs, true);
            }
            _ => {
                if let Some(v) = e.own_read() {
                    self.disqualify(v);
                }
                if let ExprKind::ElemConst { seq, .. } = e.kind {
                    self.disqualify(seq);
                }
                for c in e.children() {
                    self.walk(c, lazy);
                }
            }
        }
    }

    fn stmts(&mut self, vars: &[Var], body: &[Stmt]) {
        for s in body {
            match s {
                Stmt::Let { pat, init } => {
                    if let Some(e) = init {
                        self.expr(vars, e, false);
                    }
                    let mut vs = Vec::new();
                    pat.vars(&mut vs);
                    for v in vs {
                        self.changed.insert(v);
                        self.disqualify(v);
                    }
                }
                Stmt::Assign { place, value, .. } => {
                    self.expr(vars, value, false);
                    match place {
                        Place::Index(w, ix) => {
                            self.expr(vars, ix, false);
                            self.access(*w, ix);
                            self.written.insert(*w);
                        }
                        Place::Var(w) => self.disqualify(*w),
                    }
                    self.changed.insert(place.var());
                }
                Stmt::Push { vec, value } => {
                    self.expr(vars, value, false);
                    self.disqualify(*vec);
                    self.changed.insert(*vec);
                }
                Stmt::Eval(e) => self.expr(vars, e, false),
                nested => self.nested(vars, nested),
            }
        }
    }

    /// A statement with blocks (or a macro): every variable it names gets no view, every one it
    /// may write or bind is changed.
    fn nested(&mut self, vars: &[Var], s: &Stmt) {
        let mut named = Vec::new();
        let mut changed = Vec::new();
        walk_stmt_exprs(s, &mut |e| {
            e.reads(&mut named);
            crate::ir::writes::expr_writes(vars, e, &mut changed);
        });
        let mut exits = false;
        visit_stmt_list(std::slice::from_ref(s), &mut |st| match st {
            Stmt::Let { pat, .. } => pat.vars(&mut changed),
            Stmt::Assign { place, .. } => changed.push(place.var()),
            Stmt::Push { vec, .. } => changed.push(*vec),
            Stmt::For { var, .. } => changed.push(*var),
            Stmt::Macro(_, vis) => changed.extend(vis.iter().copied()),
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Return { .. } => exits = true,
            _ => {}
        });
        self.exits |= exits;
        for v in named.into_iter().chain(changed.iter().copied()) {
            self.disqualify(v);
        }
        self.changed.extend(changed);
    }
}

/// Whether an invariant part can be evaluated again before the loop: no calls, no variable the
/// body changes, not the index.
fn invariant_ok(e: &Expr, plan: &Plan) -> bool {
    let pure = match &e.kind {
        ExprKind::Lit(_) | ExprKind::Index { .. } | ExprKind::Len(_) | ExprKind::Opaque { .. } => {
            true
        }
        ExprKind::Var(v) => *v != plan.index,
        ExprKind::Binary { op, .. } => op.is_arith(),
        ExprKind::Cast { .. } => true,
        _ => false,
    };
    let own = e
        .own_read()
        .is_none_or(|v| v != plan.index && !plan.changed.contains(&v));
    pure && own && e.children().into_iter().all(|c| invariant_ok(c, plan))
}

impl Forward<'_> {
    /// The views of the loop over `index` (range `range`, body `body`), declared by the ops
    /// returned (bounds bound first), with the range the loop then runs over. `None` when the loop
    /// gets no view.
    pub(super) fn plan_views(
        &mut self,
        index: VarId,
        range: &Range,
        body: &Block,
    ) -> Option<(Vec<Op>, TokenStream, Vec<View>)> {
        let Range::Bounds {
            start,
            end,
            inclusive: false,
            rev,
            step: None,
        } = range
        else {
            return None;
        };
        let vars = &self.f.vars;
        let mut plan = Plan {
            index,
            seqs: BTreeMap::new(),
            written: BTreeSet::new(),
            changed: BTreeSet::new(),
            exits: false,
        };
        plan.stmts(vars, &body.stmts);
        if plan.exits {
            return None;
        }
        let mut chosen = Vec::new();
        for (v, groups) in &plan.seqs {
            let Some(groups) = groups else { continue };
            if !matches!(vars[*v].shape, Shape::Seq(_)) || groups.is_empty() {
                continue;
            }
            let written = plan.written.contains(v);
            if written && groups.len() != 1 {
                continue;
            }
            if !groups
                .iter()
                .all(|g| g.inv.iter().all(|t| invariant_ok(t, &plan)))
            {
                continue;
            }
            for g in groups {
                let lo = g.offsets.iter().copied().min().unwrap_or(0);
                let hi = g.offsets.iter().copied().max().unwrap_or(0);
                chosen.push((*v, g.inv.clone(), lo, hi, written));
            }
        }
        if chosen.is_empty() {
            return None;
        }
        let (a, b) = (self.fresh("va"), self.fresh("vb"));
        let mut ops = vec![
            super::let_pair(quote!(#a), self.primal(start), None),
            super::let_pair(quote!(#b), self.primal(end), None),
        ];
        let mut views = Vec::new();
        for (v, inv, lo, hi, written) in chosen {
            let inv_t: Vec<TokenStream> = inv.iter().map(|t| self.primal(t)).collect();
            let bound = |base: &syn::Ident, c: i64| {
                let m = c.unsigned_abs() as usize;
                let at = quote!(#(#inv_t +)* #base);
                if c >= 0 {
                    quote!((#at + #m))
                } else {
                    quote!((#at - #m))
                }
            };
            let (l, h) = (bound(&a, lo), bound(&b, hi));
            let m = written.then(|| quote!(mut));
            let decl =
                |arr: &syn::Ident| quote!(if #a < #b { &#m #arr[#l..#h] } else { &#m #arr[0..0] });
            let name = self.fresh("vw");
            let primal = decl(&self.name(v));
            let tangent = self.var_active(v).then(|| {
                let tn = self.fresh("tvw");
                let init = decl(&self.tangent(v));
                (tn, init)
            });
            ops.push(Op::Let {
                primal: Some(Bind {
                    pat: quote!(#name),
                    init: Some(primal),
                }),
                tangent: tangent.as_ref().map(|(tn, init)| Bind {
                    pat: quote!(#tn),
                    init: Some(Tan::Expr(init.clone())),
                }),
            });
            views.push(View {
                var: v,
                index,
                start: a.clone(),
                inv,
                lo,
                name,
                tangent: tangent.map(|(tn, _)| tn),
            });
        }
        let range =
            crate::codegen::primal::range_tokens(&quote!(#a), &quote!(#b), false, *rev, None);
        Some((ops, range, views))
    }

    /// The element `base[index]` through a view of a loop being emitted, when one covers it.
    pub(super) fn view_elem(&self, base: VarId, index: &Expr) -> Option<ViewElem> {
        self.views.iter().rev().find_map(|w| {
            if w.var != base {
                return None;
            }
            let (inv, c) = split(index, w.index)?;
            if !same_terms(&inv, &w.inv) {
                return None;
            }
            let k = (c - w.lo) as usize;
            let (i, a) = (self.name(w.index), &w.start);
            Some(ViewElem {
                view: w.name.clone(),
                tangent: w.tangent.clone(),
                index: quote!((#i - #a) + #k),
            })
        })
    }
}

impl ViewElem {
    /// The element of the primal view.
    pub(super) fn primal(&self) -> TokenStream {
        let (v, i) = (&self.view, &self.index);
        quote!(#v[#i])
    }
}
