//! Chain consumers and chain loops: takes `sum`, `fold`, `collect`... and `for` over a chain,
//! gives the index loop computing the result; also `split_at` and copies of views.

use super::*;

impl Lowerer<'_> {
    /// The element type of the first sequence variable a chain reads, if it is written down.
    pub(super) fn elem_type(&self, s: &ISeq) -> Option<syn::Type> {
        match s {
            ISeq::Slice { var: v, .. }
            | ISeq::Windows { var: v, .. }
            | ISeq::Chunks { var: v, .. }
            | ISeq::Rows { var: v, .. } => {
                let ty = self.vars[*v].ty.as_ref()?;
                crate::lower::seq_elem(ty)
            }
            ISeq::Range { .. } => None,
            ISeq::Zip(a, _) | ISeq::Chain(a, _) => self.elem_type(a),
            ISeq::Enumerate(a)
            | ISeq::Skip(a, _)
            | ISeq::Take(a, _)
            | ISeq::StepBy(a, _)
            | ISeq::Rev(a)
            | ISeq::Map(a, _)
            | ISeq::Filter(a, _)
            | ISeq::Mut(a) => self.elem_type(a),
        }
    }

    /// A `for` loop over an iterator chain.
    pub(super) fn for_chain(&mut self, f: &syn::ExprForLoop, seq: ISeq, out: &mut Vec<Stmt>) {
        let span = f.expr.span();
        let label = f.label.as_ref().map(|l| l.name.clone());
        let len = self.seq_len(&seq, span);
        let len = self.once(len, out);
        self.with_scope(|cx| {
            let k = cx.loop_index(span);
            let mut body = Body::new();
            let item = match cx.elem(&seq, var(k, span), &mut body) {
                Some(i) => i,
                None => return,
            };
            cx.bind_item(&f.pat, item, body.stmts());
            cx.loop_results
                .push((label.as_ref().map(|l| l.ident.to_string()), None));
            let user = cx.unit_block(&f.body);
            cx.loop_results.pop();
            body.stmts().extend(user.stmts);
            out.push(Stmt::For {
                var: k,
                range: Range::Bounds {
                    start: Box::new(int_lit(0, span)),
                    end: Box::new(len),
                    inclusive: false,
                    rev: false,
                    step: None,
                },
                body: Block {
                    stmts: body.finish(),
                },
                label,
            });
        });
    }

    pub(super) fn loop_index(&mut self, span: Span) -> VarId {
        let k = self.synthetic("k", Shape::Int, span);
        self.vars[k].origin = VarOrigin::LoopIndex;
        self.vars[k].mutable = false;
        k
    }

    /// `chain.consumer(...)`: the loop, and the expression for its result.
    pub(super) fn chain_consumer(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let span = m.span();
        // `.max_by(..).unwrap()` and friends.
        let (m, unwrapped) = match (&*m.receiver, m.method.to_string().as_str()) {
            (syn::Expr::MethodCall(inner), "unwrap") => (inner, true),
            _ => (m, false),
        };
        let name = m.method.to_string();
        if matches!(name.as_str(), "max_by" | "min_by" | "reduce") && !unwrapped {
            return self.poison(
                &m,
                &format!("`{name}` whose `Option` result is used as is"),
                &format!("write `.{name}(..).unwrap()` (or fold with an initial value)"),
            );
        }
        let seq = match self.parse_seq(&m.receiver, out) {
            Some(s) => s,
            None => return Expr::new(ExprKind::Poison, span),
        };
        let len = self.seq_len(&seq, span);
        let len = self.once(len, out);
        let elem_ty = self.elem_type(&seq);
        let first_seq = first_seq_var(&seq);
        let turbofish_ty = m.turbofish.as_ref().and_then(|t| match t.args.first() {
            Some(syn::GenericArgument::Type(ty)) if !matches!(ty, syn::Type::Infer(_)) => {
                Some(ty.clone())
            }
            _ => None,
        });
        let rt = crate::names::rt();
        let typed_const = |what: &str| -> Expr {
            let f = crate::names::existing(what, span);
            let ty = turbofish_ty.clone().or(elem_ty.clone());
            let tokens = match (ty, first_seq) {
                (Some(t), _) => quote!(#rt::#f::<#t>()),
                // Typed like the elements of the sequence iterated.
                (None, Some(seq)) => {
                    let one = what == "one";
                    return Expr::new(ExprKind::ElemConst { seq, one }, span);
                }
                (None, None) if what == "zero" => quote!(0.0),
                (None, None) => quote!(1.0),
            };
            Expr::new(
                ExprKind::Opaque {
                    tokens,
                    shape: Shape::Scalar,
                },
                span,
            )
        };
        // Accumulator and its initial value.
        let (acc_init, start_at_one): (Option<Expr>, bool) = match name.as_str() {
            "sum" => (Some(typed_const("zero")), false),
            "product" => (Some(typed_const("one")), false),
            "fold" => match m.args.first() {
                Some(init) => (Some(self.expr(init, out)), false),
                None => (None, false),
            },
            "count" => (Some(int_lit(0, span)), false),
            "any" => (
                Some(Expr::new(
                    ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(false, span))),
                    span,
                )),
                false,
            ),
            "all" => (
                Some(Expr::new(
                    ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(true, span))),
                    span,
                )),
                false,
            ),
            "collect" => (
                Some(Expr::new(
                    ExprKind::VecNew {
                        capacity: Some(Box::new(len.clone())),
                    },
                    span,
                )),
                false,
            ),
            "max_by" | "min_by" | "reduce" => (None, true),
            _ => (None, false),
        };
        let acc = if name == "for_each" {
            None
        } else {
            let shape = match name.as_str() {
                "count" => Shape::Int,
                "any" | "all" => Shape::Bool,
                "collect" => Shape::Seq(SeqKind::Vec),
                _ => acc_init
                    .as_ref()
                    .map(|e| self.shape_of(e))
                    .unwrap_or(Shape::Scalar),
            };
            let a = self.synthetic("acc", shape, span);
            if start_at_one {
                // The first item starts the accumulator.
                let mut first = Body::new();
                let x = match self.elem(&seq, int_lit(0, span), &mut first) {
                    Some(Item::Val(x)) => x,
                    _ => {
                        return self.poison(
                            &m,
                            &format!("`{name}` over tuples or windows"),
                            "map the items to values first",
                        )
                    }
                };
                let shape = self.shape_of(&x);
                self.vars[a].shape = shape;
                let stmts = first.finish();
                // After `filter`, the first item is not item 0.
                if has_filter(&seq) {
                    return self.poison(
                        &m,
                        &format!("`{name}` after `filter`"),
                        "use `fold` with an initial value",
                    );
                }
                out.extend(stmts);
                out.push(Stmt::Let {
                    pat: Pat::Bind(a),
                    init: Some(x),
                });
            } else {
                out.push(Stmt::Let {
                    pat: Pat::Bind(a),
                    init: acc_init,
                });
            }
            Some(a)
        };
        let closure = match name.as_str() {
            "fold" => m.args.get(1).and_then(|c| self.closure_of(c)),
            "max_by" | "min_by" | "reduce" | "any" | "all" | "for_each" => {
                m.args.first().and_then(|c| self.closure_of(c))
            }
            _ => None,
        };
        self.with_scope(|cx| {
            let k = cx.loop_index(span);
            let mut body = Body::new();
            let item = match cx.elem(&seq, var(k, span), &mut body) {
                Some(i) => i,
                None => return,
            };
            let av = acc.map(|a| var(a, span));
            let set = |value: Expr| Stmt::Assign {
                place: Place::Var(acc.unwrap_or_default()),
                op: None,
                value,
            };
            match name.as_str() {
                "sum" | "product" => {
                    if let (Some(x), Some(a)) = (cx.item_expr(item, span), av) {
                        let op = if name == "sum" {
                            BinOp::Add
                        } else {
                            BinOp::Mul
                        };
                        body.stmts().push(set(bin(op, a, x)));
                    }
                }
                "count" => {
                    if let Some(a) = av {
                        body.stmts().push(set(bin(BinOp::Add, a, int_lit(1, span))));
                    }
                }
                "collect" => {
                    if let Some(x) = cx.item_expr(item, span) {
                        body.stmts().push(Stmt::Push {
                            vec: acc.unwrap_or_default(),
                            value: x,
                        });
                    }
                }
                "fold" | "reduce" => {
                    if let (Some(c), Some(a)) = (&closure, av) {
                        if let Some(r) = cx.apply(c, vec![Item::Val(a), item], &mut body) {
                            body.stmts().push(set(r));
                        }
                    }
                }
                "max_by" | "min_by" => {
                    let swap = match &closure {
                        Some(Closure::Lambda(cl)) => comparator_order(cl),
                        _ => None,
                    };
                    let swap = match swap {
                        Some(s) => s,
                        None => {
                            cx.diag.unsupported_at(
                                &m.args,
                                "this comparator",
                                "compare the two arguments directly: \
                                 `|a, b| a.partial_cmp(b).unwrap()` or `|a, b| a.total_cmp(b)`",
                            );
                            return;
                        }
                    };
                    let want_max = (name == "max_by") != swap;
                    if let (Some(x), Some(a)) = (cx.item_expr(item, span), av) {
                        let x = cx.once(x, body.stmts());
                        // max_by keeps the last of equal maxima, min_by the first of equal minima.
                        let op = if want_max == (name == "max_by") {
                            if want_max {
                                BinOp::Ge
                            } else {
                                BinOp::Lt
                            }
                        } else if want_max {
                            BinOp::Gt
                        } else {
                            BinOp::Le
                        };
                        body.stmts().push(Stmt::If {
                            cond: bin(op, x.clone(), a),
                            then: Block {
                                stmts: vec![set(x)],
                            },
                            els: None,
                        });
                    }
                }
                "any" | "all" => {
                    if let (Some(c), Some(_)) = (&closure, av) {
                        if let Some(cond) = cx.apply(c, vec![item], &mut body) {
                            let hit = if name == "any" {
                                cond
                            } else {
                                Expr::new(
                                    ExprKind::Unary {
                                        op: UnOp::Not,
                                        expr: Box::new(cond),
                                    },
                                    span,
                                )
                            };
                            let val = Expr::new(
                                ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(
                                    name == "any",
                                    span,
                                ))),
                                span,
                            );
                            body.stmts().push(Stmt::If {
                                cond: hit,
                                then: Block {
                                    stmts: vec![set(val), Stmt::Break { label: None, span }],
                                },
                                els: None,
                            });
                        }
                    }
                }
                "for_each" => {
                    if let Some(c) = &closure {
                        if let Some(r) = cx.apply(c, vec![item], &mut body) {
                            if r.has_call() {
                                body.stmts().push(Stmt::Eval(r));
                            }
                        }
                    }
                }
                _ => {}
            }
            let start = if start_at_one { 1 } else { 0 };
            out.push(Stmt::For {
                var: k,
                range: Range::Bounds {
                    start: Box::new(int_lit(start, span)),
                    end: Box::new(len.clone()),
                    inclusive: false,
                    rev: false,
                    step: None,
                },
                body: Block {
                    stmts: body.finish(),
                },
                label: None,
            });
        });
        match acc {
            Some(a) => var(a, span),
            None => Expr::new(ExprKind::Tuple(Vec::new()), span),
        }
    }

    /// `let (head, tail) = v.split_at(k);`: both names become views of `v`. Returns false when
    /// the statement is not of that form.
    pub(super) fn split_at(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let (syn::Pat::Tuple(pt), syn::Expr::MethodCall(m)) = (pat, init) else {
            return false;
        };
        let mutable = m.method == "split_at_mut";
        if !(m.method == "split_at" || mutable) || m.args.len() != 1 || pt.elems.len() != 2 {
            return false;
        }
        let span = m.method.span();
        let Some(ISeq::Slice { var, offset, len }) = self.parse_seq(&m.receiver, out) else {
            self.diag.unsupported_at(
                &m.receiver,
                "`split_at` of this expression",
                "split a sequence variable or a sub-slice `v[a..b]`",
            );
            return true;
        };
        if mutable {
            // The halves are written through: views whose writes land in `var`.
            self.vars[var].mutable = true;
        }
        let k = self.expr(&m.args[0], out);
        let k = self.once(k, out);
        let start = offset.clone().unwrap_or_else(|| int_lit(0, span));
        let head = View {
            base: var,
            offset: start.clone(),
            len: k.clone(),
            mutable,
            row: None,
        };
        let tail = View {
            base: var,
            offset: bin(BinOp::Add, start, k.clone()),
            len: bin(BinOp::Sub, src_len(var, &len, span), k),
            mutable,
            row: None,
        };
        self.bind_item(&pt.elems[0], Item::View(head), out);
        self.bind_item(&pt.elems[1], Item::View(tail), out);
        true
    }

    /// `view.to_vec()`: the elements of a view collected into a `Vec`.
    pub(super) fn view_to_vec(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let recv = &m.receiver;
        let chain: syn::ExprMethodCall = syn::parse_quote_spanned! {m.method.span()=>
            #recv.iter().copied().collect::<::std::vec::Vec<_>>()
        };
        self.chain_consumer(&chain, out)
    }
}
