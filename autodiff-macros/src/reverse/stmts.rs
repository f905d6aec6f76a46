//! Statements: takes `let`, assignments and pushes, gives their forward code (saving what the
//! reverse sweep will read) and their reverse code.

use super::*;

impl Emitter<'_> {
    /// A value the reverse sweep needs to steer control flow (a condition, a scrutinee, loop
    /// bounds): recomputed or saved, as the saves table says.
    pub(super) fn decision(&mut self, e: &Expr, level: Level, out: &mut BlockOut) -> TokenStream {
        let v = self.fwd_expr(e);
        self.decision_of(e, v, level, out)
    }

    /// [`Self::decision`] of `e`, whose value the forward code holds as `value`.
    pub(super) fn decision_of(
        &mut self,
        e: &Expr,
        value: TokenStream,
        level: Level,
        out: &mut BlockOut,
    ) -> TokenStream {
        // Decided by the saves analysis (`analysis/reads.rs`, `decision_recomputable`).
        let recomputable = match self.saves.decisions.get(&e.id) {
            Some(r) => *r,
            None => {
                self.bug = true;
                false
            }
        };
        if recomputable {
            return self.fwd_expr(e);
        }
        let s = self.save(value, level, out, None);
        quote!(#s)
    }

    /// The forward code of a branch's condition or scrutinee `e`: bound to a local first when it
    /// calls anything (a method may change its receiver, `v.pop()`; a call costs), so that
    /// saving the decision does not evaluate it a second time.
    pub(super) fn evaluated_once(&mut self, e: &Expr, out: &mut BlockOut) -> TokenStream {
        let v = self.fwd_expr(e);
        let mut calls = false;
        e.visit(&mut |n| {
            calls |= matches!(
                n.kind,
                ExprKind::Call { .. } | ExprKind::PlainCall { .. } | ExprKind::PlainMethod { .. }
            )
        });
        if !calls {
            return v;
        }
        let t = self.fresh("cond");
        out.fwd.push(Op::Let {
            pat: quote!(#t),
            value: v,
        });
        quote!(#t)
    }

    // ------------------------------------------------------------------ statements

    pub(super) fn let_stmt(
        &mut self,
        pat: &Pat,
        init: Option<&Expr>,
        level: Level,
        out: &mut BlockOut,
    ) {
        let p = self.fwd_pat(pat);
        let init = match init {
            None => {
                // Exits became flags, so rustc can no longer see that a variable set before
                // every exit is initialised: give it a placeholder of its shape.
                let placeholder = match pat {
                    Pat::Bind(v) => placeholder(&self.vars[*v].shape),
                    _ => None,
                };
                match placeholder {
                    Some(ph) => out.fwd.push(Op::Let { pat: p, value: ph }),
                    None => out.fwd.push(Op::Code(quote!(let #p;))),
                }
                return;
            }
            Some(i) => i,
        };
        let mut cx = StmtCx::new(level);
        let mut vs = Vec::new();
        pat.vars(&mut vs);
        // Nothing flows back through a `let` whose variables no derivative reads.
        let any_active = vs
            .iter()
            .any(|v| self.vars[*v].active && self.acc.contains(v))
            && self.active(init);
        let mut shared = None;
        if any_active {
            self.prepare(init, &mut cx, out);
            // The value of the whole initialiser is the variable's, which the reverse sweep can
            // read by name at the top level and, inside loops and branches, when it is kept
            // (saved or recomputed at the start of the block's reverse): a rule reading its
            // output (`let b = a.exp();`) reads `b` instead of computing it again.
            if let Pat::Bind(var) = pat {
                let kept = !self.vars[*var].mutable
                    && (level == Level::Top || self.saves.needed.contains(var));
                if kept
                    && matches!(init.kind, ExprKind::Method { .. } | ExprKind::Binary { .. })
                    && !cx.snap.contains_key(&init.id)
                {
                    let n = self.uname(*var);
                    cx.snap.insert(init.id, quote!(#n));
                }
            }
            shared = self.share_top(init, &mut cx, out);
        }
        let v = self.fwd_expr(shared.as_ref().unwrap_or(init));
        out.fwd.push(Op::Let {
            pat: p.clone(),
            value: v.clone(),
        });
        // A value defined in a loop or branch that the reverse sweep reads: recompute or save.
        if level != Level::Top {
            if let Pat::Bind(var) = pat {
                if self.saves.needed.contains(var) && !self.vars[*var].mutable {
                    let name = self.uname(*var);
                    let (cheap, kept) = match self.saves.recompute.get(var) {
                        Some((cheap, kept)) => (*cheap, kept.clone()),
                        None => {
                            self.bug = true;
                            (false, Vec::new())
                        }
                    };
                    self.needed_now.extend(kept);
                    if cheap {
                        // `p` keeps the user's annotation, which may fix the float type.
                        out.pops.push(Op::Let { pat: p, value: v });
                    } else {
                        let value = self.fwd_expr(&Expr::new(ExprKind::Var(*var), init.span));
                        let shape = self.vars[*var].shape.clone();
                        self.save_shaped(value, Some(&shape), level, out, Some(name.clone()));
                    }
                }
            } else if let Pat::Tuple(_) = pat {
                let mut vs2 = Vec::new();
                pat.vars(&mut vs2);
                for var in vs2 {
                    if self.saves.needed.contains(&var) && !self.vars[var].mutable {
                        let name = self.uname(var);
                        let value = self.fwd_expr(&Expr::new(ExprKind::Var(var), init.span));
                        let shape = self.vars[var].shape.clone();
                        self.save_shaped(value, Some(&shape), level, out, Some(name.clone()));
                    }
                }
            }
        }
        if !any_active {
            return;
        }
        // `let (p, q) = (a, b);` flows back component by component, so that the adjoint of an
        // inactive component is never built (an unused `zero()` would have no type).
        let mut rev = Vec::new();
        for (p, e) in pat.split_let(init) {
            let mut pvs = Vec::new();
            p.vars(&mut pvs);
            let useful = pvs
                .iter()
                .any(|v| self.vars[*v].active && self.acc.contains(v));
            if !useful || !self.active(e) {
                continue;
            }
            let g = self.pattern_adjoint(p, &self.shape(e));
            let gname = self.fresh("g");
            rev.push(Op::Let {
                pat: quote!(#gname),
                value: g,
            });
            self.backprop(e, quote!(#gname), &mut cx, &mut rev);
        }
        out.rev.push(Op::Block(rev));
    }

    /// The adjoint of a pattern matching a value of shape `shape`, as an expression (zero for
    /// `_` and inactive names).
    pub(super) fn pattern_adjoint(&mut self, pat: &Pat, shape: &Shape) -> TokenStream {
        match pat {
            Pat::Wild => zero_adjoint(shape),
            Pat::Bind(v) => {
                if self.vars[*v].active && self.acc.contains(v) {
                    let b = self.adj(*v);
                    quote!(#b)
                } else {
                    match &self.vars[*v].shape {
                        s if !s.is_float() => quote!(()),
                        s => zero_adjoint(s),
                    }
                }
            }
            Pat::Tuple(ps) => {
                let items: Vec<TokenStream> = ps
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let s = match shape {
                            Shape::Tuple(items) => items.get(i).cloned().unwrap_or(Shape::Scalar),
                            _ => Shape::Scalar,
                        };
                        self.pattern_adjoint(p, &s)
                    })
                    .collect();
                quote!((#(#items,)*))
            }
        }
    }

    pub(super) fn assign(&mut self, place: &Place, value: &Expr, level: Level, out: &mut BlockOut) {
        let v = place.var();
        let name = self.uname(v);
        let rt = names::rt();
        let active = self.vars[v].active;
        // Whether anything flows back through this write (its variable's adjoint can be nonzero).
        let useful = active && self.acc.contains(&v);
        let mut cx = StmtCx::new(level);
        let mut rev = Vec::new();
        let restored = self.scope.restore.contains(&v);
        // The index of an element write locates the element's adjoint (and the restored value).
        let idx = match place {
            Place::Index(_, i) if useful || restored => Some(self.val(i, &mut cx, out, &mut rev)),
            _ => None,
        };
        let mut shared = None;
        if useful && self.active(value) {
            self.prepare(value, &mut cx, out);
            shared = self.share_top(value, &mut cx, out);
        }
        let val = self.fwd_expr(shared.as_ref().unwrap_or(value));
        // A restored sequence: save the element about to be overwritten, put it back in reverse.
        let mut restore_code = None;
        if restored {
            // An element of a restored sequence is a float; the whole sequence is not.
            let (old, target, shape) = match place {
                Place::Var(_) => (
                    quote!(::core::clone::Clone::clone(&#name)),
                    quote!(#name),
                    None,
                ),
                Place::Index(_, i) => {
                    let fi = self.fwd_expr(i);
                    let ri = idx.clone().unwrap_or_default();
                    (quote!(#name[#fi]), quote!(#name[#ri]), Some(Shape::Scalar))
                }
            };
            let s = self.save_shaped(old, shape.as_ref(), level, out, None);
            restore_code = Some(Op::Set {
                place: target,
                value: quote!(#s),
            });
        }
        // A whole `Vec` written may change its length: the adjoint of the value before the
        // write is shaped like that value, so its length is saved (the adjoint held until then
        // is shaped like the value written).
        let old_len = match (place, &self.vars[v].shape) {
            (Place::Var(_), Shape::Seq(k)) if useful && !matches!(k, SeqKind::Array(_)) => {
                Some(self.save(quote!(#name.len()), level, out, None))
            }
            _ => None,
        };
        match place {
            Place::Var(_) => out.fwd.push(Op::Set {
                place: quote!(#name),
                value: val,
            }),
            Place::Index(_, i) => {
                let i = self.fwd_expr(i);
                out.fwd.push(Op::Set {
                    place: quote!(#name[#i]),
                    value: val,
                });
            }
        }
        // A variable whose value no derivative reads has a zero adjoint: nothing to propagate.
        if !useful {
            if let Some(r) = restore_code {
                rev.push(r);
                out.rev.push(Op::Block(rev));
            }
            return;
        }
        // The old value's adjoint is consumed: it flows into `value`, and the variable restarts
        // from zero for the writes before this one.
        let b = self.adj(v);
        let g = self.fresh("g");
        let take = |place: Adj, zero: TokenStream| Op::Take {
            g: g.clone(),
            place,
            zero,
        };
        // The place restarts from a zero shaped like the adjoint it held (rustc picks it).
        let zero = quote!(#rt::zero_tangent(&#g));
        match (place, &self.vars[v].shape) {
            (Place::Index(_, ix), _) => match self
                .window_slot(v, ix)
                .map(Adj::Slot)
                .or_else(|| self.view_elem(v, ix, true).map(Adj::View))
            {
                Some(slot) => {
                    // Window slots and view elements are distinct by offset: exactly zeroed.
                    rev.push(take(slot.clone(), zero));
                    cx.mark_zeroed(slot);
                }
                None => {
                    let i = idx.clone().unwrap_or_default();
                    // Not marked zeroed: another index expression (`b[1]` and `b[i]`) may name
                    // the same element.
                    rev.push(take(Adj::Elem(b, i), zero));
                }
            },
            (Place::Var(_), Shape::Seq(SeqKind::Array(_))) => {
                rev.push(take(Adj::Var(b), zero));
            }
            (Place::Var(_), Shape::Seq(_)) => {
                let zeros = match &old_len {
                    Some(n) => quote!(::std::vec![#rt::zero(); #n]),
                    None => quote!(#rt::zero_tangent(&#b[..])),
                };
                rev.push(Op::Let {
                    pat: quote!(#g),
                    value: zeros,
                });
                rev.push(Op::Let {
                    pat: quote!(#g),
                    value: quote!(::core::mem::replace(&mut #b, #g)),
                });
            }
            (Place::Var(_), s @ Shape::Tuple(_)) => {
                rev.push(take(Adj::Var(b), zero_adjoint(s)));
            }
            // A struct held whole: its adjoint is its tangent type, which has no tangent type
            // of its own to zero by.
            (Place::Var(_), Shape::Struct) => {
                rev.push(take(
                    Adj::Var(b.clone()),
                    quote!(#rt::zero_like_tangent(&#g)),
                ));
                cx.mark_zeroed(Adj::Var(b));
            }
            _ => {
                rev.push(take(Adj::Var(b.clone()), zero));
                cx.mark_zeroed(Adj::Var(b));
            }
        }
        // An element of a restored sequence holds, until its restore, the value written: a rule
        // reading the written value (`tanh`, `exp`, `sqrt` read their output) reads it there
        // instead of computing it again (`val` takes a snapped node as is).
        if let (Some(Op::Set { place: target, .. }), Place::Index(..)) = (&restore_code, place) {
            if self.active(value)
                && cx.needed.contains(&value.id)
                && !cx.snap.contains_key(&value.id)
                && matches!(value.kind, ExprKind::Method { .. })
            {
                let o = self.fresh("o");
                rev.push(Op::Let {
                    pat: quote!(#o),
                    value: target.clone(),
                });
                cx.snap.insert(value.id, quote!(#o));
            }
        }
        // The value is recomputed from the state before the write.
        if let Some(r) = restore_code {
            rev.push(r);
        }
        if self.active(value) {
            self.backprop(value, quote!(#g), &mut cx, &mut rev);
        }
        out.rev.push(Op::Block(rev));
    }
}
