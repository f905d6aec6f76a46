//! Local closures: takes closures bound with `let`, passed to adaptors or called, gives their
//! bodies inlined with the scopes they captured.

use super::*;

impl Lowerer<'_> {
    pub(super) fn closure_of(&mut self, e: &syn::Expr) -> Option<Closure> {
        match e {
            syn::Expr::Closure(c) => {
                if c.capture.is_some() {
                    self.diag.unsupported_at(
                        &c,
                        "`move` closures",
                        "drop `move`: the closure is inlined where it is used",
                    );
                }
                Some(Closure::Lambda(c.clone()))
            }
            syn::Expr::Path(p) if p.qself.is_none() => {
                if let Some(id) = p.path.get_ident() {
                    if let Some(v) = self.lookup(&id.to_string()) {
                        if self.closures.contains_key(&v) {
                            return Some(Closure::Local(v));
                        }
                        self.diag.unsupported_at(
                            p,
                            &format!("passing `{id}`, a function value, to an iterator adaptor"),
                            "pass a closure `|x| ...`, a closure bound with `let`, or a function path",
                        );
                        return None;
                    }
                }
                Some(Closure::Path(p.path.clone()))
            }
            syn::Expr::Paren(p) => self.closure_of(&p.expr),
            other => {
                self.diag.unsupported_at(
                    &other,
                    "this function argument to an iterator adaptor",
                    "pass a closure `|x| ...` or a function path such as `f64::max`",
                );
                None
            }
        }
    }

    /// Applies a closure inline to items; its statements go into `body`.
    pub(super) fn apply(&mut self, c: &Closure, args: Vec<Item>, body: &mut Body) -> Option<Expr> {
        match c {
            Closure::Path(p) => {
                let span = p.span();
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.item_expr(a, span)?);
                }
                let last = p
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                if crate::methods::float_method(&last).is_some() && !vals.is_empty() {
                    let recv = vals.remove(0);
                    return Some(Expr::new(
                        ExprKind::Method {
                            recv: Box::new(recv),
                            method: crate::names::existing(&last, span),
                            args: vals,
                        },
                        span,
                    ));
                }
                Some(Expr::new(
                    ExprKind::Call {
                        func: p.clone(),
                        args: vals,
                        shape: Shape::Scalar,
                    },
                    span,
                ))
            }
            Closure::Local(v) => {
                let (cl, captured) = self.closures.get(v)?.clone();
                if cl.inputs.len() != args.len() {
                    self.diag.error_at(
                        &cl.inputs,
                        format!(
                            "this closure takes {} arguments but the adaptor gives {}",
                            cl.inputs.len(),
                            args.len()
                        ),
                    );
                    return None;
                }
                let saved = std::mem::replace(&mut self.scopes, captured);
                let r = self.with_scope(|cx| {
                    for (p, item) in cl.inputs.iter().zip(args) {
                        cx.bind_item(p, item, body.stmts());
                    }
                    cx.closure_body(&cl.body, body.stmts())
                });
                self.scopes = saved;
                r
            }
            Closure::Lambda(cl) => {
                if cl.inputs.len() != args.len() {
                    self.diag.error_at(
                        &cl,
                        format!(
                            "this closure takes {} arguments but is given {}",
                            cl.inputs.len(),
                            args.len()
                        ),
                    );
                    return None;
                }
                self.with_scope(|cx| {
                    for (p, item) in cl.inputs.iter().zip(args) {
                        cx.bind_item(p, item, body.stmts());
                    }
                    cx.closure_body(&cl.body, body.stmts())
                })
            }
        }
    }

    pub(super) fn closure_body(&mut self, b: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Expr> {
        let mut bad: Option<syn::ExprReturn> = None;
        struct Finder<'f>(&'f mut Option<syn::ExprReturn>);
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
                if self.0.is_none() {
                    *self.0 = Some(r.clone());
                }
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        syn::visit::Visit::visit_expr(&mut Finder(&mut bad), b);
        if let Some(r) = bad {
            self.diag.unsupported_at(
                &r,
                "`return` inside a closure",
                "make the closure's value its last expression",
            );
            return None;
        }
        match b {
            syn::Expr::Block(blk) if blk.label.is_none() => {
                // The closure's statements run in the current block (names are resolved already).
                let tail = self.block_into(&blk.block, out);
                Some(tail.unwrap_or_else(|| Expr::new(ExprKind::Tuple(Vec::new()), b.span())))
            }
            other if crate::lower::is_unit_stmt_expr(other) => {
                self.expr_stmt(other, out);
                Some(Expr::new(ExprKind::Tuple(Vec::new()), b.span()))
            }
            other => Some(self.expr(other, out)),
        }
    }

    /// `let f = |a| ...;`: remembered with the names it can see, inlined at each call.
    pub(super) fn bind_closure(&mut self, name: &syn::Ident, c: &syn::ExprClosure) {
        if c.capture.is_some() {
            self.diag.unsupported_at(
                &c,
                "`move` closures",
                "drop `move`: the closure is inlined where it is called",
            );
        }
        let v = self.new_var(
            name.clone(),
            false,
            Shape::Other,
            VarOrigin::Synthetic,
            None,
        );
        self.closures.insert(v, (c.clone(), self.scopes.clone()));
        self.bind(name, v);
    }

    /// `f(a, b)` where `f` is a local closure: its body inlined with the names it captured.
    pub(super) fn call_closure(
        &mut self,
        v: VarId,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let (c, captured) = match self.closures.get(&v) {
            Some(x) => x.clone(),
            None => return Expr::new(ExprKind::Poison, span),
        };
        if c.inputs.len() != args.len() {
            return self.poison(
                &args,
                &format!(
                    "calling a closure of {} arguments with {}",
                    c.inputs.len(),
                    args.len()
                ),
                "pass one value per closure parameter",
            );
        }
        let vals: Vec<Expr> = args
            .iter()
            .map(|a| {
                let e = self.expr(a, out);
                self.once(e, out)
            })
            .collect();
        // Evaluate the body where the closure was defined (plus its parameters).
        let saved = std::mem::replace(&mut self.scopes, captured);
        let result = self.with_scope(|cx| {
            for (p, e) in c.inputs.iter().zip(vals) {
                cx.bind_item(p, Item::Val(e), out);
            }
            cx.closure_body(&c.body, out)
        });
        self.scopes = saved;
        let r = result.unwrap_or_else(|| Expr::new(ExprKind::Poison, span));
        self.once(r, out)
    }

    /// Binds a closure or loop pattern to an item.
    pub(super) fn bind_item(&mut self, p: &syn::Pat, item: Item, out: &mut Vec<Stmt>) {
        match (p, item) {
            (syn::Pat::Type(pt), item) => {
                self.bind_item(&pt.pat, item, out);
                // `|t: f64|`: the annotation may be what fixes the type of the value bound.
                if let syn::Pat::Ident(pi) = &*pt.pat {
                    if let Some(v) = self.lookup(&pi.ident.to_string()) {
                        if self.vars[v].origin == VarOrigin::Local {
                            self.vars[v].ty = Some((*pt.ty).clone());
                        }
                    }
                }
            }
            (syn::Pat::Reference(r), item) if r.mutability.is_none() => {
                self.bind_item(&r.pat, item, out)
            }
            (syn::Pat::Paren(pp), item) => self.bind_item(&pp.pat, item, out),
            (syn::Pat::Wild(_), _) => {}
            // `for y in v.iter_mut()`: `y` names the element; `*y` reads and writes `v[k]`.
            (syn::Pat::Ident(pi), Item::Elem { base, index }) if pi.subpat.is_none() => {
                let v = self.new_var(
                    pi.ident.clone(),
                    false,
                    Shape::Scalar,
                    VarOrigin::Synthetic,
                    None,
                );
                self.elem_aliases.insert(v, (base, index));
                self.bind(&pi.ident, v);
            }
            (syn::Pat::Ident(pi), Item::View(view)) if pi.subpat.is_none() => {
                let v = self.new_var(
                    pi.ident.clone(),
                    false,
                    Shape::Seq(SeqKind::Slice),
                    VarOrigin::Synthetic,
                    None,
                );
                self.views.insert(v, view);
                self.bind(&pi.ident, v);
            }
            (syn::Pat::Tuple(pt), Item::Tuple(items)) if pt.elems.len() == items.len() => {
                for (q, it) in pt.elems.iter().zip(items) {
                    self.bind_item(q, it, out);
                }
            }
            (syn::Pat::Tuple(pt), Item::Val(e)) => {
                let e = self.once(e, out);
                for (i, q) in pt.elems.iter().enumerate() {
                    let f = Expr::new(
                        ExprKind::Field {
                            base: Box::new(e.clone()),
                            index: i as u32,
                        },
                        q.span(),
                    );
                    self.bind_item(q, Item::Val(f), out);
                }
            }
            (syn::Pat::Ident(pi), item) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                let e = match self.item_expr(item, pi.span()) {
                    Some(e) => e,
                    None => return,
                };
                let shape = self.shape_of(&e);
                let v = self.new_var(
                    pi.ident.clone(),
                    pi.mutability.is_some(),
                    shape,
                    VarOrigin::Local,
                    None,
                );
                out.push(Stmt::Let {
                    pat: Pat::Bind(v),
                    init: Some(e),
                });
                self.bind(&pi.ident, v);
            }
            (other, _) => {
                self.diag.unsupported_at(
                    &other,
                    "this pattern for an iterator item",
                    "bind names, `&x`, or tuples of them (`|(i, &x)|`)",
                );
            }
        }
    }

    pub(super) fn item_expr(&mut self, item: Item, span: Span) -> Option<Expr> {
        match item {
            Item::Val(e) => Some(e),
            Item::Elem { base, index } => Some(Expr::new(
                ExprKind::Index {
                    base,
                    index: Box::new(index),
                },
                span,
            )),
            Item::Tuple(items) => {
                let mut es = Vec::new();
                for i in items {
                    es.push(self.item_expr(i, span)?);
                }
                Some(Expr::new(ExprKind::Tuple(es), span))
            }
            Item::View(v) => {
                let end = bin(BinOp::Add, v.offset.clone(), v.len.clone());
                Some(Expr::new(
                    ExprKind::SubSlice {
                        base: v.base,
                        start: Some(Box::new(v.offset)),
                        end: Some(Box::new(end)),
                        inclusive: false,
                        array: v.row.map(Nesting::Row),
                    },
                    span,
                ))
            }
        }
    }
}
