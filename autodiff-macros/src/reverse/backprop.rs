//! Adjoint propagation: takes an expression and its adjoint, gives the code adding the adjoint
//! into the adjoints of the active variables it reads (rules called from the runtime).

use super::*;

impl Emitter<'_> {
    // ------------------------------------------------------------------ adjoint propagation

    /// Adds the adjoint `g` of `e` into the adjoints of the active variables `e` reads.
    pub(super) fn backprop(
        &mut self,
        e: &Expr,
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<Op>,
    ) {
        if !self.active(e) {
            return;
        }
        let rt = names::rt();
        let scale = self.scale.clone();
        let mut dummy = BlockOut::new();
        match &e.kind {
            ExprKind::Var(v) => self.accumulate_var(*v, g, cx, code),
            ExprKind::Index { base, index } => {
                if let Some(slot) = self.window_slot(*base, index) {
                    self.accumulate(Adj::Slot(slot), g, cx, code);
                    return;
                }
                if let Some(t) = self.view_elem(*base, index, true) {
                    self.accumulate(Adj::View(t), g, cx, code);
                    return;
                }
                let i = self.val(index, cx, &mut dummy, code);
                self.flush_dummy(dummy, code);
                let b = self.adj_used(*base);
                self.accumulate(Adj::Elem(b, i), g, cx, code);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                // Activity makes only arithmetic operators active; anything else is a bug.
                let Some(rule) = crate::methods::binop_rule_name(*op) else {
                    self.bug = true;
                    return;
                };
                let rule = names::runtime_item(rule);
                let scale = self.product_for(crate::methods::binop_edge(*op), scale);
                let (la, ra) = (self.active(lhs), self.active(rhs));
                let g = self.bind(g, code);
                // Only the values the needed partials read; zeros (of the adjoint's type) stand
                // in for the rest.
                let [na, nb, ny] = self.binop_needs(*op, lhs, rhs);
                let z = quote!(#rt::zero_like(&#g));
                let a = if na {
                    self.val(lhs, cx, &mut dummy, code)
                } else {
                    z.clone()
                };
                let b = if nb {
                    self.val(rhs, cx, &mut dummy, code)
                } else {
                    z.clone()
                };
                let y = if ny {
                    self.val(e, cx, &mut dummy, code)
                } else {
                    z
                };
                self.flush_dummy(dummy, code);
                let (pa, pb) = (self.fresh("p"), self.fresh("p"));
                code.push(Op::Rule {
                    outs: vec![pa.clone(), pb.clone()],
                    rule,
                    args: vec![a, b, y],
                });
                if la && ra && same_read(lhs, rhs) {
                    // One value on both sides (`u * u`, `x[i] * x[i]`): its two partials are
                    // summed before scaling, so its adjoint is added once (one product and one
                    // addition fewer; for `*` the sum is a doubling, exact).
                    self.backprop(lhs, quote!(#rt::#scale(#g, #pa + #pb)), cx, code);
                    return;
                }
                if la {
                    self.backprop(lhs, quote!(#rt::#scale(#g, #pa)), cx, code);
                }
                if ra {
                    self.backprop(rhs, quote!(#rt::#scale(#g, #pb)), cx, code);
                }
            }
            ExprKind::Unary { expr, .. } => {
                let p = self.fresh("p");
                let g = self.bind(g, code);
                code.push(Op::Rule {
                    outs: vec![p.clone()],
                    rule: names::runtime_item("neg"),
                    args: vec![quote!(#rt::zero_like(&#g)), quote!(#rt::zero_like(&#g))],
                });
                self.backprop(expr, quote!(#rt::#scale(#g, #p)), cx, code);
            }
            ExprKind::Cast { expr, .. } => {
                let x = self.val(expr, cx, &mut dummy, code);
                self.flush_dummy(dummy, code);
                self.backprop(expr, quote!(#rt::cast_like(#g, &#x)), cx, code);
            }
            ExprKind::Method { recv, method, args } => {
                self.backprop_method(e, recv, method, args, g, cx, code)
            }
            ExprKind::Call { func, args, shape } => {
                self.backprop_call(func, args, shape, Some(g), &HashMap::new(), cx, code);
            }
            ExprKind::Tuple(items) => {
                let g = self.bind(g, code);
                for (k, item) in items.iter().enumerate() {
                    let ix = syn::Index::from(k);
                    self.backprop(item, quote!(#g.#ix), cx, code);
                }
            }
            ExprKind::Array(items) | ExprKind::VecList(items) => {
                let g = self.bind(g, code);
                for (k, item) in items.iter().enumerate() {
                    self.backprop(item, quote!(#g[#k]), cx, code);
                }
            }
            ExprKind::ArrayRepeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
                self.backprop(elem, quote!(#rt::sum(&#g[..])), cx, code);
            }
            ExprKind::CopySeq(v, _) => self.accumulate_var(*v, g, cx, code),
            ExprKind::Member { base, members, .. } => {
                let b = self.adj_used(*base);
                self.accumulate(Adj::Member(b, members.clone()), g, cx, code);
            }
            ExprKind::Field { base, index } => {
                if let ExprKind::Var(v) = base.kind {
                    let b = self.adj_used(v);
                    code.push(Op::Acc {
                        place: Adj::Field(b, *index),
                        value: g,
                        first: false,
                    });
                } else {
                    let n = match self.shape(base) {
                        Shape::Tuple(items) => items.len(),
                        _ => 0,
                    };
                    let parts = (0..n).map(|k| {
                        if k == *index as usize {
                            g.clone()
                        } else {
                            quote!(#rt::zero())
                        }
                    });
                    let gt = quote!((#(#parts,)*));
                    self.backprop(base, gt, cx, code);
                }
            }
            ExprKind::Ref(inner) => self.backprop(inner, g, cx, code),
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
                array,
            } => {
                // The adjoint of rows (a temporary buffer of rows), flat.
                let g = match array {
                    Some(crate::ir::Nesting::Rows(_)) => quote!((#g).as_flattened()),
                    _ => g,
                };
                let s = start.as_ref().map(|s| self.val(s, cx, &mut dummy, code));
                let x = end.as_ref().map(|x| self.val(x, cx, &mut dummy, code));
                self.flush_dummy(dummy, code);
                let b = self.adj_used(*base);
                let r = if *inclusive {
                    quote!(#s..=#x)
                } else {
                    quote!(#s..#x)
                };
                code.push(Op::AccSlice {
                    target: quote!(&mut #b[#r]),
                    value: g,
                });
            }
            _ => {}
        }
    }

    /// Values computed through `val` inside `backprop` never need saving (their reads were
    /// prepared); anything it did emit goes with the statement's code.
    pub(super) fn flush_dummy(&mut self, d: BlockOut, code: &mut Vec<Op>) {
        if !d.fwd.is_empty() {
            self.bug = true;
        }
        code.extend(d.pops);
    }

    pub(super) fn bind(&mut self, g: TokenStream, code: &mut Vec<Op>) -> syn::Ident {
        let n = self.fresh("g");
        code.push(Op::Let {
            pat: quote!(#n),
            value: g,
        });
        n
    }

    /// `target += g`, or `target = g` right after the statement zeroed `target`.
    pub(super) fn accumulate(
        &self,
        place: Adj,
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<Op>,
    ) {
        let first = match cx.zeroed.iter().position(|z| z.same_place(&place)) {
            Some(k) => {
                cx.zeroed.remove(k);
                true
            }
            None => false,
        };
        code.push(Op::Acc {
            place,
            value: g,
            first,
        });
    }

    pub(super) fn accumulate_var(
        &mut self,
        v: VarId,
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<Op>,
    ) {
        if !self.vars[v].active {
            return;
        }
        let b = self.adj_used(v);
        match &self.vars[v].shape {
            Shape::Seq(_) => code.push(Op::AccSlice {
                target: quote!(&mut #b[..]),
                value: g,
            }),
            Shape::Tuple(items) => {
                let g = self.bind(g, code);
                for (k, item) in items.iter().enumerate() {
                    if !item.is_float() {
                        continue;
                    }
                    let ix = syn::Index::from(k);
                    code.push(Op::Acc {
                        place: Adj::Field(b.clone(), k as u32),
                        value: quote!(#g.#ix),
                        first: false,
                    });
                }
            }
            _ => self.accumulate(Adj::Var(b), g, cx, code),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn backprop_method(
        &mut self,
        e: &Expr,
        recv: &Expr,
        method: &syn::Ident,
        args: &[Expr],
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<Op>,
    ) {
        let rt = names::rt();
        let scale = self.scale.clone();
        let rule = match methods::float_method(&method.to_string()) {
            Some(r) => r,
            None => return,
        };
        if rule.linearity == Linearity::Zero {
            return;
        }
        let scale = self.product_for(rule.edge, scale);
        let mut dummy = BlockOut::new();
        let lin = rule.linearity == Linearity::Linear;
        let g = self.bind(g, code);
        let (x, y) = if lin {
            (quote!(#rt::zero_like(&#g)), quote!(#rt::zero_like(&#g)))
        } else {
            (
                self.val(recv, cx, &mut dummy, code),
                self.val(e, cx, &mut dummy, code),
            )
        };
        let a: Vec<TokenStream> = args
            .iter()
            .map(|a| self.val(a, cx, &mut dummy, code))
            .collect();
        self.flush_dummy(dummy, code);
        match rule.arity {
            Arity::Unary => {
                let p = self.fresh("p");
                match cx.joint.get(&e.id).cloned() {
                    // Computed by a joint primitive: its rule, reading the outputs kept.
                    Some((joint, outs, k)) => {
                        let ps: Vec<syn::Ident> = (0..outs.len())
                            .map(|j| if j == k { p.clone() } else { self.fresh("p") })
                            .collect();
                        let ps: Vec<&syn::Ident> = ps.iter().collect();
                        code.push(rule_op(&ps, &joint, vec![x, quote!((#(#outs,)*))]));
                    }
                    None => code.push(rule_op(&[&p], method, vec![x, y])),
                }
                self.backprop(recv, quote!(#rt::#scale(#g, #p)), cx, code);
            }
            Arity::PowI => {
                let p = self.fresh("p");
                let n = a[0].clone();
                let powi = names::runtime_item("powi");
                code.push(rule_op(&[&p], &powi, vec![x, n, y]));
                self.backprop(recv, quote!(#rt::#scale(#g, #p)), cx, code);
            }
            Arity::Binary => {
                let (p0, p1) = (self.fresh("p"), self.fresh("p"));
                let a0 = a[0].clone();
                code.push(rule_op(&[&p0, &p1], method, vec![x, a0, y]));
                self.backprop(recv, quote!(#rt::#scale(#g, #p0)), cx, code);
                self.backprop(&args[0], quote!(#rt::#scale(#g, #p1)), cx, code);
            }
            Arity::Ternary => {
                let (p0, p1, p2) = (self.fresh("p"), self.fresh("p"), self.fresh("p"));
                let (a0, a1) = (a[0].clone(), a[1].clone());
                code.push(rule_op(&[&p0, &p1, &p2], method, vec![x, a0, a1, y]));
                self.backprop(recv, quote!(#rt::#scale(#g, #p0)), cx, code);
                self.backprop(&args[0], quote!(#rt::#scale(#g, #p1)), cx, code);
                self.backprop(&args[1], quote!(#rt::#scale(#g, #p2)), cx, code);
            }
            Arity::SinCos => {
                let (p0, p1) = (self.fresh("p"), self.fresh("p"));
                let sin_cos = names::runtime_item("sin_cos");
                code.push(rule_op(&[&p0, &p1], &sin_cos, vec![x, y]));
                self.backprop(
                    recv,
                    quote!(#rt::acc(#rt::#scale(#g.0, #p0), #rt::#scale(#g.1, #p1))),
                    cx,
                    code,
                );
            }
            Arity::Predicate => {}
        }
    }

    /// The reverse of a call: its `_vjp` with the arguments' values and adjoint buffers, and the
    /// seed `g` (none for a function giving `()`). An argument `&mut v` is passed as a fresh copy
    /// of `copies[v]` (`v`'s contents saved before the call) with `v`'s adjoint buffer, which the
    /// callee turns from the adjoint of its contents after the call into that before it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn backprop_call(
        &mut self,
        func: &syn::Path,
        args: &[Expr],
        shape: &Shape,
        g: Option<TokenStream>,
        copies: &HashMap<VarId, syn::Ident>,
        cx: &mut StmtCx,
        code: &mut Vec<Op>,
    ) {
        let rt = names::rt();
        // A nalgebra rule of the runtime is reversed by its `_pullback`: the adjoints without the
        // value, `None` for an argument whose adjoint is not wanted (no buffer, no work).
        let pullback = g.is_some() && crate::ir::is_na_rule(func);
        let mut dummy = BlockOut::new();
        let mut prims = Vec::new();
        let mut adjs = Vec::new();
        let mut after = Vec::new();
        // A sequence passed twice (`g(&v[0..2], &v[1..3])`) cannot lend its adjoint buffer twice:
        // those arguments get temporary buffers added in after the call.
        let mut seen = BTreeSet::new();
        let mut shared = BTreeSet::new();
        for a in args {
            let base = match &a.kind {
                ExprKind::Ref(inner) => match inner.kind {
                    ExprKind::Var(w) => Some(w),
                    _ => None,
                },
                ExprKind::Var(w) if matches!(self.vars[*w].shape, Shape::Seq(_)) => Some(*w),
                ExprKind::SubSlice { base, .. } => Some(*base),
                _ => None,
            };
            if let Some(w) = base {
                if !seen.insert(w) {
                    shared.insert(w);
                }
            }
        }
        for a in args {
            if let ExprKind::MutRef(w, _, range) = &a.kind {
                self.lend_mut(
                    *w,
                    range.as_deref(),
                    copies,
                    cx,
                    &mut dummy,
                    &mut prims,
                    &mut adjs,
                    code,
                );
                continue;
            }
            let v = self.val(a, cx, &mut dummy, code);
            let shape = self.shape(a);
            if !shape.is_float() {
                prims.push(v);
                continue;
            }
            match &a.kind {
                // A clone of a struct passed by value (`g(s.clone())`): the value computed before
                // was moved into the primal call; the `_vjp` gets a clone of its own.
                ExprKind::CopySeq(w, to @ CopyTo::Struct(_)) => {
                    let b = self.uname(*w);
                    prims.push(crate::codegen::primal::copy_seq(&quote!(#b), *to));
                }
                _ => prims.push(v.clone()),
            }
            let active = self.active(a);
            if pullback && !active {
                adjs.push(quote!(::core::option::Option::None));
                continue;
            }
            let lent_before = adjs.len();
            // A sequence passed whole (`g(&v)`, or `g(v)` for a reference or an array) lends its
            // own adjoint buffer: the callee's `_vjp` only adds into it.
            let whole = match &a.kind {
                ExprKind::Ref(inner) => match inner.kind {
                    ExprKind::Var(w) => Some(w),
                    _ => None,
                },
                ExprKind::Var(w) if matches!(shape, Shape::Seq(_)) => Some(*w),
                _ => None,
            };
            let lends = match (&a.kind, whole) {
                (_, Some(w)) => !shared.contains(&w),
                (ExprKind::SubSlice { base, .. }, _) => !shared.contains(base),
                _ => true,
            };
            // An array argument takes its adjoint as `&mut [T; N]`, anything else as a slice.
            let array = matches!(shape, Shape::Seq(SeqKind::Array(_)));
            // A temporary adjoint buffer shaped like the argument, added in after the call.
            let mut temporary = |me: &mut Self, code: &mut Vec<Op>| {
                let t = me.fresh("a");
                let (zero, lend) = if array {
                    (quote!(#rt::zero_tangent(&#v)), quote!(&mut #t))
                } else {
                    (quote!(#rt::zero_tangent(&#v[..])), quote!(&mut #t[..]))
                };
                code.push(Op::Let {
                    pat: quote!(mut #t),
                    value: zero,
                });
                adjs.push(lend);
                after.push((a, quote!(#t)));
            };
            match (&a.kind, &shape) {
                // A float by reference (`g(&y)`): a temporary adjoint lent as `&mut T`, added
                // into `y`'s after the call (never `y`'s own: the statement may have just
                // zeroed it, and its later contributions assign the first).
                (ExprKind::Ref(_), Shape::Scalar) => {
                    let t = self.fresh("a");
                    code.push(Op::Let {
                        pat: quote!(mut #t),
                        value: quote!(#rt::zero_tangent(#v)),
                    });
                    adjs.push(quote!(&mut #t));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
                // A struct passed whole: its adjoint (a local `<S>Tangent`, added into the
                // caller's buffer at the end) is lent to the call.
                (ExprKind::Var(w) | ExprKind::CopySeq(w, CopyTo::Struct(_)), Shape::Struct)
                    if active =>
                {
                    let b = self.adj_used(*w);
                    adjs.push(quote!(&mut #b));
                }
                (ExprKind::Ref(inner), Shape::Struct) if active => {
                    if let ExprKind::Var(w) = inner.kind {
                        let b = self.adj_used(w);
                        adjs.push(quote!(&mut #b));
                    }
                }
                // An inactive struct (left out of `wrt`): a scratch adjoint, dropped.
                (ExprKind::Var(w) | ExprKind::CopySeq(w, CopyTo::Struct(_)), Shape::Struct) => {
                    let (t, x) = (self.fresh("a"), self.uname(*w));
                    code.push(Op::Let {
                        pat: quote!(mut #t),
                        value: quote!(#rt::zero_tangent(&#x)),
                    });
                    adjs.push(quote!(&mut #t));
                }
                (ExprKind::Ref(_) | ExprKind::SubSlice { .. }, _) if active && !lends => {
                    temporary(self, code)
                }
                (ExprKind::Var(_), Shape::Seq(_)) if active && !lends => temporary(self, code),
                (ExprKind::Ref(_), _) | (ExprKind::Var(_), Shape::Seq(_)) if active => {
                    match whole {
                        Some(w) => {
                            let b = self.adj_used(w);
                            // The adjoint of a (non-`mut`) array argument and of an in-out
                            // one is the caller's `&mut [T; N]`; other adjoints are locals.
                            let var = &self.vars[w];
                            // (A workspace, `&mut` outside `wrt`, has a local adjoint.)
                            let lent = self.f.body_params().any(|q| q.var == w && q.active);
                            let aliased = matches!(var.origin, VarOrigin::Param(_))
                                && (!var.mutable || (var.by_mut_ref() && lent));
                            adjs.push(match (array, aliased) {
                                (true, true) => quote!(&mut *#b),
                                (true, false) => quote!(&mut #b),
                                (false, _) => quote!(&mut #b[..]),
                            });
                        }
                        None => temporary(self, code),
                    }
                }
                (
                    ExprKind::SubSlice {
                        base,
                        start,
                        end,
                        inclusive,
                        array,
                    },
                    _,
                ) if active => {
                    let s = start.as_ref().map(|s| self.val(s, cx, &mut dummy, code));
                    let x = end.as_ref().map(|x| self.val(x, cx, &mut dummy, code));
                    let b = self.adj_used(*base);
                    let r = if *inclusive {
                        quote!(#s..=#x)
                    } else {
                        quote!(#s..#x)
                    };
                    adjs.push(crate::codegen::primal::borrowed_row(
                        quote!(&mut #b[#r]),
                        array.as_ref(),
                        true,
                    ));
                }
                (_, Shape::Seq(SeqKind::Array(_))) => {
                    let t = self.fresh("a");
                    code.push(Op::Let {
                        pat: quote!(mut #t),
                        value: quote!(#rt::zero_tangent(&#v)),
                    });
                    adjs.push(quote!(&mut #t));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
                (_, Shape::Seq(_)) => {
                    let t = self.fresh("a");
                    code.push(Op::Let {
                        pat: quote!(mut #t),
                        value: quote!(#rt::zero_tangent(&#v[..])),
                    });
                    adjs.push(quote!(&mut #t[..]));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
                _ => {
                    let t = self.fresh("a");
                    code.push(Op::Let {
                        pat: quote!(mut #t),
                        value: quote!(#rt::zero_tangent(&#v)),
                    });
                    adjs.push(quote!(&mut #t));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
            }
            if pullback && adjs.len() > lent_before {
                if let Some(b) = adjs.pop() {
                    adjs.push(quote!(::core::option::Option::Some(#b)));
                }
            }
        }
        self.flush_dummy(dummy, code);
        // A call statement drops the value, if the callee gives one: `_vjp_dropped` seeds it
        // with zero (the caller cannot see the callee's output type).
        let suffix = match (pullback, g.is_some()) {
            (true, _) => "pullback",
            (false, true) => "vjp",
            (false, false) => "vjp_dropped",
        };
        let vjp = crate::forward::companion_path(func, suffix);
        // The seed of a `Vec` output is passed as a slice.
        let seed = match (shape, g) {
            (_, None) => quote!(),
            (Shape::Seq(SeqKind::Vec) | Shape::Seq(SeqKind::Slice), Some(g)) => quote!(&#g[..]),
            (_, Some(g)) => g,
        };
        prims.extend(adjs);
        let lends_mut = args.iter().any(|a| matches!(a.kind, ExprKind::MutRef(..)));
        match self.zero_seed_guard(func, args.len(), shape, lends_mut || pullback) {
            Some(slice) if !seed.is_empty() => {
                // The strong zero across the call: the callee's own products are plain, so a
                // zero seed meeting an infinite partial inside it would give NaN where the
                // caller's selector made the value finite; a zero seed contributes nothing.
                let s = self.fresh("seed");
                code.push(Op::Let {
                    pat: quote!(#s),
                    value: seed,
                });
                let test = if slice { quote!(#s) } else { quote!(&#s) };
                code.push(Op::If {
                    cond: quote!(!#rt::zero_seed(#test)),
                    then: vec![Op::CallVjp {
                        path: quote!(#vjp),
                        args: prims,
                        seed: quote!(#s),
                    }],
                    els: None,
                });
            }
            _ => code.push(Op::CallVjp {
                path: quote!(#vjp),
                args: prims,
                seed,
            }),
        }
        for (a, t) in after {
            self.backprop(a, t, cx, code);
        }
    }
}

impl Emitter<'_> {
    /// The product for the partials of a primitive with edge `edge`: the function's own
    /// (`scale`), or the strong zero at a pole's where the function asks for it (`pole_strong`).
    fn product_for(&self, edge: crate::primitives::Edge, scale: syn::Ident) -> syn::Ident {
        if self.pole_strong && edge == crate::primitives::Edge::Pole {
            names::runtime_item("scale_strong")
        } else {
            scale
        }
    }

    /// Whether the reverse of a call of `func` (`n` arguments, output shaped `shape`) runs only
    /// for a seed that is not exactly zero, and if so whether the seed is passed as a slice
    /// (`Some(true)`: a `Vec` output's). So when this function multiplies with the strong zero
    /// (`scale_strong`: a selector of its own can make a callee's infinite value finite) and the
    /// callee's `_vjp` multiplies plainly while an infinite partial can arise in it (a pole
    /// without a selector of its own, `registry::edges`; or a callee whose facts are unknown).
    /// Not for calls lending `&mut` buffers (their adjoints must be carried back whatever the
    /// seed) nor for runtime pullbacks; only seeds the runtime can test (floats, arrays, tuples
    /// of them, `Vec`s).
    fn zero_seed_guard(
        &self,
        func: &syn::Path,
        n: usize,
        shape: &Shape,
        lends: bool,
    ) -> Option<bool> {
        if lends || self.scale != "scale_strong" {
            return None;
        }
        let plain_pole = match crate::registry::edges(func, n) {
            Some(e) => e.pole && !e.singular && !e.selects,
            None => true,
        };
        if !plain_pole {
            return None;
        }
        // A seed bound by value must be `Copy` (it may be an adjoint read again later).
        fn copied(s: &Shape) -> bool {
            match s {
                Shape::Scalar | Shape::Seq(SeqKind::Array(_)) => true,
                Shape::Tuple(parts) => parts.iter().all(copied),
                _ => false,
            }
        }
        match shape {
            Shape::Seq(SeqKind::Vec) | Shape::Seq(SeqKind::Slice) => Some(true),
            s if copied(s) => Some(false),
            _ => None,
        }
    }
}

/// Whether `a` and `b` are one read of one value: the same variable, or the same element
/// `v[i]` with an index of variables, literals and arithmetic (no call, nothing evaluated twice
/// that could give two values). The reverse sweep may then add their adjoints as one.
fn same_read(a: &Expr, b: &Expr) -> bool {
    fn plain(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Lit(_) => true,
            ExprKind::Index { index, .. } => plain(index),
            ExprKind::Binary { lhs, rhs, .. } => plain(lhs) && plain(rhs),
            _ => false,
        }
    }
    matches!(a.kind, ExprKind::Var(_) | ExprKind::Index { .. }) && plain(a) && a.same(b)
}

/// `let (p0, ..) = rules::rule(args..);`: the partials of one primitive, bound to `outs`.
fn rule_op(outs: &[&syn::Ident], rule: &syn::Ident, args: Vec<TokenStream>) -> Op {
    Op::Rule {
        outs: outs.iter().map(|o| (*o).clone()).collect(),
        rule: rule.clone(),
        args,
    }
}
