//! Values in the reverse sweep: takes the expressions a statement's rules read, gives them
//! saved before the statement or recomputed once from what is still there.

use super::*;

impl Emitter<'_> {
    // ------------------------------------------------------------------ values in the reverse

    /// Saves, before the statement, every read whose value may change later; the reverse code of
    /// the statement then reads the saved copies (`cx.snap`).
    pub(super) fn prepare(&mut self, e: &Expr, cx: &mut StmtCx, out: &mut BlockOut) {
        // Walk in the same order as `val` would: every leaf under a node whose value is needed.
        self.mark(e, false, cx);
        let mut snaps = Vec::new();
        self.collect_snaps(e, cx, &mut snaps);
        let mut sub_slices = BTreeSet::new();
        e.visit(&mut |n| {
            if matches!(n.kind, ExprKind::SubSlice { .. }) {
                sub_slices.insert(n.id);
            }
        });
        // One saved copy per distinct read (`s * s` saves `s` once).
        let mut saved: Vec<(&Expr, bool, TokenStream)> = Vec::new();
        for Snap {
            key,
            read,
            owned,
            value,
        } in snaps
        {
            let earlier = saved
                .iter()
                .find(|(r, o, _)| *o == owned && r.same(read))
                .map(|(_, _, n)| n.clone());
            let name = match earlier {
                Some(n) => n,
                None => {
                    let s = self.save(value, cx.level, out, None);
                    saved.push((read, owned, quote!(#s)));
                    quote!(#s)
                }
            };
            // A saved sub-slice is an owned copy; the expression it stands for is a borrow.
            let name = if sub_slices.contains(&key) {
                quote!(&#name[..])
            } else {
                name
            };
            cx.snap.insert(key, name);
        }
    }

    /// Marks which nodes' values the reverse code of this expression computes: everything under
    /// a node whose rule reads values, index expressions, call arguments.
    pub(super) fn mark(&self, e: &Expr, needed: bool, cx: &mut StmtCx) {
        if needed {
            e.visit(&mut |n| {
                cx.needed.insert(n.id);
            });
            return;
        }
        if !self.active(e) {
            return;
        }
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } => {
                let [a, b, y] = self.binop_needs(*op, lhs, rhs);
                if y {
                    self.mark(e, true, cx);
                } else {
                    self.mark(lhs, a, cx);
                    self.mark(rhs, b, cx);
                }
            }
            ExprKind::Unary { expr, .. } => self.mark(expr, false, cx),
            ExprKind::Cast { expr, .. } => self.mark(expr, true, cx),
            ExprKind::Method { recv, method, .. } => {
                match methods::float_method(&method.to_string()).map(|r| r.linearity) {
                    Some(Linearity::Linear) => self.mark(recv, false, cx),
                    Some(Linearity::Zero) => {}
                    _ => self.mark(e, true, cx),
                }
            }
            ExprKind::Call { args, .. } => {
                for a in args {
                    self.mark(a, true, cx);
                }
            }
            ExprKind::Index { index, .. } => self.mark(index, true, cx),
            ExprKind::SubSlice { start, end, .. } => {
                if let Some(s) = start {
                    self.mark(s, true, cx)
                }
                if let Some(x) = end {
                    self.mark(x, true, cx)
                }
            }
            _ => {
                let kids = e.children();
                for k in kids {
                    self.mark(k, false, cx);
                }
            }
        }
    }

    /// Which of `(lhs, rhs, result)` the partials of the active operands read.
    pub(super) fn binop_needs(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> [bool; 3] {
        let (da, db) = methods::binop_reads(op);
        let (la, ra) = (self.active(lhs), self.active(rhs));
        let mut need = [false; 3];
        for k in 0..3 {
            need[k] = (la && da[k]) || (ra && db[k]);
        }
        need
    }

    /// Leaves under needed nodes whose value the reverse sweep cannot find by name.
    pub(super) fn collect_snaps<'e>(
        &mut self,
        e: &'e Expr,
        cx: &StmtCx,
        snaps: &mut Vec<Snap<'e>>,
    ) {
        let key = e.id;
        let needed = cx.needed.contains(&key);
        match &e.kind {
            ExprKind::Var(v) if needed => {
                if !self.stable_at_stmt(*v) {
                    if self.vars[*v].mutable {
                        let t = self.fwd_expr(e);
                        self.count_read(*v);
                        snaps.push(Snap::new(e, false, t));
                    } else {
                        self.needed_now.insert(*v);
                    }
                }
            }
            ExprKind::Index { base, index } if needed => {
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    self.count_read(*base);
                    snaps.push(Snap::new(e, false, t));
                }
                // The index also locates the element's adjoint.
                self.collect_snaps(index, cx, snaps);
            }
            ExprKind::Len(v) if needed && !self.stable_at_stmt(*v) => {
                let t = self.fwd_expr(e);
                snaps.push(Snap::new(e, false, t));
            }
            ExprKind::Ref(inner) if needed => {
                if let ExprKind::Var(v) = inner.kind {
                    if !self.stable_at_stmt(v) {
                        // Saved under the variable's node: `val` then borrows the copy, which
                        // has the variable's own type (an array stays an array).
                        let n = self.uname(v);
                        self.count_read(v);
                        snaps.push(Snap::new(
                            inner,
                            true,
                            quote!(::core::clone::Clone::clone(&#n)),
                        ));
                        return;
                    }
                }
                self.collect_snaps(inner, cx, snaps);
            }
            ExprKind::SubSlice {
                base, start, end, ..
            } if needed => {
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    snaps.push(Snap::new(
                        e,
                        true,
                        quote!(::std::borrow::ToOwned::to_owned(#t)),
                    ));
                }
                if let Some(s) = start {
                    self.collect_snaps(s, cx, snaps)
                }
                if let Some(x) = end {
                    self.collect_snaps(x, cx, snaps)
                }
            }
            ExprKind::CopySeq(v, _) if needed && !self.stable_at_stmt(*v) => {
                let t = self.fwd_expr(e);
                snaps.push(Snap::new(e, false, t));
            }
            _ => {
                let kids = e.children();
                for k in kids {
                    self.collect_snaps(k, cx, snaps);
                }
            }
        }
    }

    /// Saves the value of the read `e` before its statement; the reverse reads the copy.
    pub(super) fn save_read(
        &mut self,
        e: &Expr,
        cx: &mut StmtCx,
        out: &mut BlockOut,
    ) -> TokenStream {
        let s = self.save(self.fwd_expr(e), cx.level, out, None);
        cx.snap.insert(e.id, quote!(#s));
        quote!(#s)
    }

    /// The value of `e` in the reverse sweep (children computed once, into locals).
    pub(super) fn val(
        &mut self,
        e: &Expr,
        cx: &mut StmtCx,
        out: &mut BlockOut,
        code: &mut Vec<Op>,
    ) -> TokenStream {
        let key = e.id;
        // Every node the sweep computes was numbered with the statement list (two nodes
        // sharing `NONE` would share a table entry).
        if key == ExprId::NONE {
            self.bug = true;
        }
        if let Some(t) = cx.snap.get(&key) {
            return t.clone();
        }
        if let Some(t) = cx.vals.get(&key) {
            return t.clone();
        }
        let span = e.span;
        let t = match &e.kind {
            ExprKind::Lit(l) => return l.to_token_stream(),
            ExprKind::Opaque { tokens, .. } => return quote_spanned!(span=> (#tokens)),
            ExprKind::Var(v) => {
                if !self.stable_at_stmt(*v) {
                    if self.vars[*v].mutable {
                        // Index expressions and decisions reached without `prepare`.
                        return self.save_read(e, cx, out);
                    }
                    self.needed_now.insert(*v);
                }
                let n = self.uname(*v);
                return quote!(#n);
            }
            ExprKind::Index { base, index } => {
                if !self.stable_at_stmt(*base) {
                    return self.save_read(e, cx, out);
                }
                if let Some(t) = self.view_access(*base, index, false) {
                    let name = self.fresh("v");
                    code.push(Op::Let {
                        pat: quote!(#name),
                        value: t,
                    });
                    cx.vals.insert(key, quote!(#name));
                    return quote!(#name);
                }
                let i = self.val(index, cx, out, code);
                let b = self.uname(*base);
                quote_spanned!(span=> #b[#i])
            }
            ExprKind::ElemConst { .. } => self.fwd_expr(e),
            ExprKind::Len(v) => {
                if !self.stable_at_stmt(*v) {
                    return self.save_read(e, cx, out);
                }
                let b = self.uname(*v);
                quote!(#b.len())
            }
            ExprKind::CopySeq(v, to) => {
                if !self.stable_at_stmt(*v) {
                    return self.save_read(e, cx, out);
                }
                let b = self.uname(*v);
                crate::codegen::primal::copy_seq(&quote!(#b), *to)
            }
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
            } => {
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    let s = self.save(
                        quote!(::std::borrow::ToOwned::to_owned(#t)),
                        cx.level,
                        out,
                        None,
                    );
                    cx.snap.insert(key, quote!(&#s[..]));
                    return quote!(&#s[..]);
                }
                let b = self.uname(*base);
                let s = start.as_ref().map(|s| self.val(s, cx, out, code));
                let x = end.as_ref().map(|x| self.val(x, cx, out, code));
                if *inclusive {
                    quote!(&#b[#s..=#x])
                } else {
                    quote!(&#b[#s..#x])
                }
            }
            ExprKind::Poison => quote!(()),
            _ => {
                let kids: Vec<TokenStream> = e
                    .children()
                    .into_iter()
                    .map(|c| self.val(c, cx, out, code))
                    .collect();
                crate::codegen::primal::compose(e, &kids)
            }
        };
        let name = self.fresh("v");
        code.push(Op::Let {
            pat: quote!(#name),
            value: t,
        });
        cx.vals.insert(key, quote!(#name));
        quote!(#name)
    }
}

/// A read saved before its statement: the node (`key` is its id), whether the copy is an owned
/// copy of a borrowed sequence, and the forward-sweep code of the value.
pub(super) struct Snap<'e> {
    key: ExprId,
    read: &'e Expr,
    owned: bool,
    value: TokenStream,
}

impl<'e> Snap<'e> {
    fn new(read: &'e Expr, owned: bool, value: TokenStream) -> Self {
        Snap {
            key: read.id,
            read,
            owned,
            value,
        }
    }
}

/// Per-statement state: which nodes' values are needed, which were saved, which computed.
pub(super) struct StmtCx {
    pub(super) level: Level,
    pub(super) needed: BTreeSet<ExprId>,
    pub(super) snap: HashMap<ExprId, TokenStream>,
    pub(super) vals: HashMap<ExprId, TokenStream>,
    /// Adjoint places just set to zero by this statement's reverse (variables, window slots, view
    /// elements: places no other spelling can alias): the first contribution is assigned, not
    /// added (`0.0 + g` is not `g` in IEEE arithmetic, so rustc could not drop the addition, and
    /// in a loop it would chain every iteration to the previous one).
    pub(super) zeroed: Vec<Adj>,
}

impl StmtCx {
    /// Notes that the statement's reverse just set `place` to zero, where no other spelling can
    /// name it (an element `b[i]` may also be `b[1]`: never noted).
    pub(super) fn mark_zeroed(&mut self, place: Adj) {
        if place.unaliased() {
            self.zeroed.push(place);
        }
    }

    pub(super) fn new(level: Level) -> Self {
        StmtCx {
            level,
            needed: BTreeSet::new(),
            snap: HashMap::new(),
            vals: HashMap::new(),
            zeroed: Vec::new(),
        }
    }
}
