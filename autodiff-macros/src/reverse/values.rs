//! Values in the reverse sweep: takes the expressions a statement's rules read, gives them
//! saved before the statement or recomputed once from what is still there.

use super::*;

impl Emitter<'_> {
    // ------------------------------------------------------------------ values in the reverse

    /// Saves, before the statement, every read whose value may change later; the reverse code of
    /// the statement then reads the saved copies (`cx.snap`).
    pub(super) fn prepare(&mut self, e: &Expr, cx: &mut StmtCx, out: &mut BlockOut) {
        // The analysis found, in the order `val` walks, every leaf under a node whose value is
        // needed and the reads among them to copy.
        let saves = self.saves;
        let Some(reads) = saves.reads.get(&e.id) else {
            self.bug = true;
            return;
        };
        cx.needed.extend(reads.nodes.iter().copied());
        let mut sub_slices = std::collections::BTreeMap::new();
        e.visit(&mut |n| {
            if let ExprKind::SubSlice { array, .. } = &n.kind {
                sub_slices.insert(n.id, array.clone());
            }
        });
        for (site, from) in reads.sites.iter().zip(&reads.from) {
            let Some(Snap { key, read, value }) = self.snap_of(*site) else {
                continue;
            };
            // Where the copy comes from was decided by the analysis (`CopyFrom`).
            let name = match *from {
                CopyFrom::Saved => {
                    let shape = self.shape(read);
                    let s = self.save_shaped(value, Some(&shape), cx.level, out, None);
                    self.copy_names.insert(read.id, quote!(#s));
                    quote!(#s)
                }
                CopyFrom::Copy(id) => match self.copy_names.get(&id) {
                    Some(n) => n.clone(),
                    None => {
                        self.bug = true;
                        continue;
                    }
                },
                CopyFrom::Element(id, index) => match self.copy_names.get(&id) {
                    Some(n) => {
                        let (n, ix) = (n.clone(), self.fwd_expr(index));
                        quote!(#n[#ix])
                    }
                    None => {
                        self.bug = true;
                        continue;
                    }
                },
            };
            // A saved sub-slice is an owned copy; the expression it stands for is a borrow (a
            // row of a nested array borrowed as an array again; a copy of rows is rows).
            let name = match sub_slices.get(&key) {
                Some(Some(crate::ir::Nesting::Row(n))) => crate::codegen::primal::borrowed_row(
                    quote!(&#name[..]),
                    Some(&crate::ir::Nesting::Row(n.clone())),
                    false,
                ),
                Some(_) => quote!(&#name[..]),
                // A copy of an argument of a type the macro does not know, taken by `&mut` and
                // passed on (`g(x, rng)`): lent again as `&mut`, a copy of the copy (the
                // reverse sweep may lend it more than once).
                None if matches!(read.kind, ExprKind::Var(v)
                    if self.vars[v].shape == Shape::Other && self.vars[v].in_out_ref()) =>
                {
                    quote!(&mut ::std::clone::Clone::clone(&#name))
                }
                None => name,
            };
            cx.snap.insert(key, name);
        }
    }

    /// At the top level, where the reverse sweep can read the forward sweep's locals: the
    /// float-method nodes of `e` whose rules the reverse sweep calls (needed, with partials
    /// reading values) are computed once by the forward sweep into locals that the reverse sweep
    /// reads instead of evaluating them again (`exp(x)`, whose rule reads its output; `sqrt`);
    /// a method the primitive table computes jointly with others (`cos` as `sin_cos(x).1`) is
    /// computed by the joint method, whose other outputs its rule then reads. Returns `e` with
    /// those nodes replaced by their locals, for the forward sweep to print (`None`: nothing
    /// shared). Nodes under `&&`/`||` are left alone: they may not be evaluated.
    pub(super) fn share_top(
        &mut self,
        e: &Expr,
        cx: &mut StmtCx,
        out: &mut BlockOut,
    ) -> Option<Expr> {
        if cx.level != Level::Top {
            return None;
        }
        let mut shared = false;
        let e = self.share(e, cx, out, &mut shared);
        shared.then_some(e)
    }

    fn share(&mut self, e: &Expr, cx: &mut StmtCx, out: &mut BlockOut, shared: &mut bool) -> Expr {
        let mut copy = e.clone();
        match &e.kind {
            ExprKind::Binary {
                op: BinOp::And | BinOp::Or,
                ..
            }
            | ExprKind::StopGradient(_) => return copy,
            ExprKind::Method { method, .. }
                if cx.needed.contains(&e.id)
                    && !cx.snap.contains_key(&e.id)
                    && self.active(e)
                    && methods::float_method(&method.to_string())
                        .is_some_and(|r| r.linearity == Linearity::General) =>
            {
                let ExprKind::Method { recv, args, .. } = &mut copy.kind else {
                    return copy;
                };
                **recv = self.share(recv, cx, out, shared);
                for a in args.iter_mut() {
                    *a = self.share(a, cx, out, shared);
                }
                let name = self.fresh("h");
                let value = match crate::primitives::joint(&method.to_string()) {
                    Some((jp, k)) if jp.outputs.len() > k => {
                        let rt = names::rt();
                        let r = self.fwd_expr(recv);
                        let j = syn::Ident::new(jp.name, proc_macro2::Span::call_site());
                        let outs: Vec<syn::Ident> =
                            (0..jp.outputs.len()).map(|_| self.fresh("h")).collect();
                        out.fwd.push(Op::Let {
                            pat: quote!((#(#outs,)*)),
                            value: quote!(#rt::Float::#j(#r)),
                        });
                        let o = outs[k].clone();
                        cx.joint
                            .insert(e.id, (names::runtime_item(jp.name), outs, k));
                        quote!(#o)
                    }
                    _ => self.fwd_expr(&copy),
                };
                out.fwd.push(Op::Let {
                    pat: quote!(#name),
                    value,
                });
                cx.snap.insert(e.id, quote!(#name));
                *shared = true;
                return Expr::new(
                    ExprKind::Opaque {
                        tokens: quote!(#name),
                        shape: Shape::Scalar,
                    },
                    e.span,
                );
            }
            _ => {}
        }
        let kids: Vec<Expr> = e
            .children()
            .into_iter()
            .map(|k| self.share(k, cx, out, shared))
            .collect();
        for (slot, k) in copy.children_mut().into_iter().zip(kids) {
            *slot = k;
        }
        copy
    }

    /// Which of `(lhs, rhs, result)` the partials of the active operands read.
    pub(super) fn binop_needs(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> [bool; 3] {
        binop_needs(self.vars, op, lhs, rhs)
    }

    /// What the reverse sweep does about one site the analysis listed: a copy of the read,
    /// taken before the statement (`Some`), or the immutable variable noted as named (`None`).
    fn snap_of<'e>(&mut self, site: SnapSite<'e>) -> Option<Snap<'e>> {
        Some(match site {
            SnapSite::Needed(v) => {
                self.needed_now.insert(v);
                return None;
            }
            SnapSite::Copy { read, .. } => {
                let t = self.fwd_expr(read);
                // A variable of a type the macro does not know (`v: &mut Vec<i32>`, a user
                // type) is copied by `clone` (a move would end it).
                let t = match read.kind {
                    ExprKind::Var(v) if self.vars[v].shape == Shape::Other => {
                        quote!((#t).clone())
                    }
                    _ => t,
                };
                Snap::new(read, t)
            }
            // The copy has the variable's own type (an array stays an array); `val` then
            // borrows it.
            SnapSite::OwnedVar { read, var } => Snap::new(read, self.owned_copy(var)),
            SnapSite::OwnedSlice(read) => {
                let t = self.fwd_expr(read);
                Snap::new(read, quote!(::std::borrow::ToOwned::to_owned(#t)))
            }
        })
    }

    /// Saves the value of the read `e` before its statement; the reverse reads the copy.
    pub(super) fn save_read(
        &mut self,
        e: &Expr,
        cx: &mut StmtCx,
        out: &mut BlockOut,
    ) -> TokenStream {
        let shape = self.shape(e);
        let s = self.save_shaped(self.fwd_expr(e), Some(&shape), cx.level, out, None);
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
        // An owned copy (a `Vec`, a struct) is made anew at each use, or its saved value cloned:
        // a call taking it by value moves it, and the reverse of that call passes it again.
        let owned = matches!(&e.kind, ExprKind::CopySeq(_, to) if !matches!(to, CopyTo::Array));
        let clone = |t: &TokenStream| match owned {
            true => quote!(::core::clone::Clone::clone(&#t)),
            false => t.clone(),
        };
        if let Some(t) = cx.snap.get(&key) {
            return clone(t);
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
            // A field of a struct held whole: like a variable, copied before its statement when
            // the struct may change (a `mut` one), else read by name (kept by its `let`).
            ExprKind::Member { base, .. } => {
                if !self.stable_at_stmt(*base) {
                    if self.vars[*base].mutable {
                        return self.save_read(e, cx, out);
                    }
                    self.needed_now.insert(*base);
                }
                return self.fwd_expr(e);
            }
            ExprKind::Len(v) => {
                if !self.stable_at_stmt(*v) {
                    return self.save_read(e, cx, out);
                }
                let b = self.uname(*v);
                quote!(#b.len())
            }
            ExprKind::CopySeq(v, to) => {
                if !self.stable_at_stmt(*v) {
                    let s = self.save_read(e, cx, out);
                    return clone(&s);
                }
                let b = self.uname(*v);
                let copy = crate::codegen::primal::copy_seq(&quote!(#b), *to);
                // An owned copy is not bound to a name shared by its uses (`clone` above).
                if owned {
                    return copy;
                }
                copy
            }
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
                array,
            } => {
                let row = |b| crate::codegen::primal::borrowed_row(b, array.as_ref(), false);
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    let s = self.save(
                        quote!(::std::borrow::ToOwned::to_owned(#t)),
                        cx.level,
                        out,
                        None,
                    );
                    // A copy of rows is rows already.
                    let whole = match array {
                        Some(crate::ir::Nesting::Rows(_)) => quote!(&#s[..]),
                        _ => row(quote!(&#s[..])),
                    };
                    cx.snap.insert(key, whole.clone());
                    return whole;
                }
                let b = self.uname(*base);
                let s = start.as_ref().map(|s| self.val(s, cx, out, code));
                let x = end.as_ref().map(|x| self.val(x, cx, out, code));
                if *inclusive {
                    row(quote!(&#b[#s..=#x]))
                } else {
                    row(quote!(&#b[#s..#x]))
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

/// A read whose copy the reverse of a statement reads: the node (`key` is its id) and the
/// forward-sweep code of the copy.
pub(super) struct Snap<'e> {
    key: ExprId,
    read: &'e Expr,
    value: TokenStream,
}

impl<'e> Snap<'e> {
    fn new(read: &'e Expr, value: TokenStream) -> Self {
        Snap {
            key: read.id,
            read,
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
    /// Method nodes the forward sweep computed by a joint primitive (`share_top`): the joint
    /// rule, the locals holding its outputs, and which output is the node.
    pub(super) joint: HashMap<ExprId, (syn::Ident, Vec<syn::Ident>, usize)>,
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
            joint: HashMap::new(),
        }
    }
}
