//! Calls that write through `&mut`: takes a statement `f(.., &mut v);` or `let y = f(.., &mut v);`
//! (`f` differentiated, so its `_vjp` follows the in-out convention), gives its forward code (a
//! copy of `v` saved before the call, then the call) and its reverse code (`f_vjp` on a fresh
//! copy of the saved contents, with `v`'s adjoint buffer, which it turns from the adjoint of `v`
//! after the call into the adjoint of `v` before it).
//!
//! A sequence written by a call is never kept in restore mode (`saves.rs`): the reverse sweep
//! reads the copies, never the sequence itself.

use super::*;

impl Emitter<'_> {
    /// `pat` is the `let` pattern binding the call's result, `None` for a call statement (which
    /// drops the value, if the callee gives one: its `_vjp_dropped` is called, with no seed).
    pub(super) fn mut_call_stmt(
        &mut self,
        pat: Option<&Pat>,
        e: &Expr,
        level: Level,
        out: &mut BlockOut,
    ) {
        let ExprKind::Call { func, args, shape } = &e.kind else {
            self.bug = true;
            return;
        };
        let mut bound = Vec::new();
        if let Some(p) = pat {
            p.vars(&mut bound);
        }
        let live = call_live(self.vars, &self.acc, &bound, e);
        let mut cx = StmtCx::new(level);
        let mut copies = HashMap::new();
        // A struct lent whole whose float fields the body uses: they are written into it before
        // the call (and before its clone is saved) and read from it after (`codegen/lend.rs`).
        let lent = crate::codegen::lend::lent_by(self.f, self.vars, e);
        if let Some(s) = lent {
            let sync = crate::codegen::lend::primal_sync(self.f, s, true);
            out.fwd.push(Op::Code(sync));
        }
        if live {
            self.prepare(e, &mut cx, out);
            for a in args {
                let ExprKind::MutRef(v, _, range) = &a.kind else {
                    continue;
                };
                let copy = match range {
                    None => self.owned_copy(*v),
                    // `&mut v[a..b]`: a copy of the sub-slice only.
                    Some(_) => {
                        let slice = self.fwd_expr(a);
                        quote!(::std::borrow::ToOwned::to_owned(&*#slice))
                    }
                };
                let s = self.save(copy, level, out, None);
                copies.insert(*v, s);
            }
        }
        let call = self.fwd_expr(e);
        match pat {
            None => out.fwd.push(Op::Let {
                pat: quote!(_),
                value: call,
            }),
            Some(p) => {
                let pt = self.fwd_pat(p);
                out.fwd.push(Op::Let {
                    pat: pt,
                    value: call,
                });
                // A result the reverse sweep reads, bound in a loop or branch: saved.
                if level != Level::Top {
                    for v in &bound {
                        if self.saves.needed.contains(v) && !self.vars[*v].mutable {
                            let name = self.uname(*v);
                            let value = self.fwd_expr(&Expr::new(ExprKind::Var(*v), e.span));
                            self.save(value, level, out, Some(name));
                        }
                    }
                }
            }
        }
        if let Some(s) = lent {
            let sync = crate::codegen::lend::primal_sync(self.f, s, false);
            out.fwd.push(Op::Code(sync));
        }
        if !live {
            return;
        }
        let mut rev = Vec::new();
        // The float fields' adjoints moved into the struct's adjoint for the callee's `_vjp`,
        // and the fields' adjoint bindings taken from it again after.
        let lent = lent.filter(|s| self.vars[*s].active && self.acc.contains(s));
        let adjoint_sync = |me: &mut Self, s: VarId, before: bool| {
            let base = me.adj_used(s).to_token_stream();
            let name = |p: &Param| me.adj(p.var);
            Op::Code(crate::codegen::lend::shadow_sync(
                me.f, s, &base, &name, before,
            ))
        };
        if let Some(s) = lent {
            rev.push(adjoint_sync(self, s, true));
        }
        let g = match pat {
            Some(p) => {
                let g = self.pattern_adjoint(p, shape);
                let name = self.fresh("g");
                rev.push(Op::Let {
                    pat: quote!(#name),
                    value: g,
                });
                Some(quote!(#name))
            }
            None => None,
        };
        self.backprop_call(func, args, shape, g, &copies, &mut cx, &mut rev);
        if let Some(s) = lent {
            rev.push(adjoint_sync(self, s, false));
        }
        out.rev.push(Op::Block(rev));
    }

    /// The primal and adjoint arguments of the callee's `_vjp` for an argument `&mut w` (or
    /// `&mut w[range]`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lend_mut(
        &mut self,
        w: VarId,
        range: Option<&SubRange>,
        copies: &HashMap<VarId, syn::Ident>,
        cx: &mut StmtCx,
        dummy: &mut BlockOut,
        prims: &mut Vec<TokenStream>,
        adjs: &mut Vec<TokenStream>,
        code: &mut Vec<Op>,
    ) {
        let rt = names::rt();
        if self.in_place == Some(w) && range.is_none() {
            // A `#[checkpoint]` loop's state: the call runs on `w` itself (its adjoint is `w`'s
            // buffer, below).
            let n = self.uname(w);
            prims.push(if self.vars[w].by_mut_ref() {
                quote!(&mut *#n)
            } else {
                quote!(&mut #n)
            });
            return self.lend_adjoint(w, adjs);
        }
        let Some(copy) = copies.get(&w) else {
            self.bug = true;
            return;
        };
        let t = self.fresh("m");
        code.push(Op::Let {
            pat: quote!(mut #t),
            value: quote!(#copy),
        });
        if let Some(r) = range {
            // The copy of the sub-slice is a `Vec` (an array for a row of a nested array); the
            // adjoint, the same range of `w`'s.
            let row = |b| crate::codegen::primal::borrowed_row(b, r.array.as_ref(), true);
            // The copy of a whole nested array is rows already.
            let copied = |b| match &r.array {
                Some(crate::ir::Nesting::Rows(_)) => b,
                _ => row(b),
            };
            prims.push(copied(quote!(&mut #t[..])));
            if self.vars[w].active && self.acc.contains(&w) {
                let s = r.start.as_ref().map(|s| self.val(s, cx, dummy, code));
                let x = r.end.as_ref().map(|x| self.val(x, cx, dummy, code));
                let b = self.adj_used(w);
                adjs.push(row(if r.inclusive {
                    quote!(&mut #b[#s..=#x])
                } else {
                    quote!(&mut #b[#s..#x])
                }));
            } else {
                let z = self.fresh("a");
                code.push(Op::Let {
                    pat: quote!(mut #z),
                    value: quote!(#rt::zero_tangent(&#t[..])),
                });
                adjs.push(copied(quote!(&mut #z[..])));
            }
            return;
        }
        prims.push(quote!(&mut #t));
        if self.vars[w].active && self.acc.contains(&w) {
            return self.lend_adjoint(w, adjs);
        }
        // No adjoint reaches `w`: a zero buffer shaped like it (a local for a float).
        let whole = matches!(
            self.vars[w].shape,
            Shape::Scalar | Shape::Seq(SeqKind::Array(_)) | Shape::Struct
        );
        let z = self.fresh("a");
        let (zero, lend) = if whole {
            (quote!(#rt::zero_tangent(&#t)), quote!(&mut #z))
        } else {
            (quote!(#rt::zero_tangent(&#t[..])), quote!(&mut #z[..]))
        };
        code.push(Op::Let {
            pat: quote!(mut #z),
            value: zero,
        });
        adjs.push(lend);
    }

    /// The adjoint argument for `&mut w` when `w` has an adjoint: `w`'s own buffer (a local for
    /// a float or a workspace; an in-out argument's is the caller's `&mut` buffer itself).
    fn lend_adjoint(&mut self, w: VarId, adjs: &mut Vec<TokenStream>) {
        let b = self.adj_used(w);
        let array = matches!(self.vars[w].shape, Shape::Seq(SeqKind::Array(_)));
        adjs.push(match self.vars[w].shape {
            Shape::Scalar => quote!(&mut #b),
            // A lent struct's adjoint is the caller's `&mut <S>Tangent` (`function`), or a
            // local one when it is left out of `wrt`.
            Shape::Struct if self.f.body_params().any(|q| q.var == w && q.active) => {
                quote!(&mut *#b)
            }
            Shape::Struct => quote!(&mut #b),
            _ => match (array, self.vars[w].by_mut_ref() && !self.f.workspace(w)) {
                (true, true) => quote!(&mut *#b),
                (true, false) => quote!(&mut #b),
                (false, _) => quote!(&mut #b[..]),
            },
        });
    }
}
