//! Calls in forward mode: takes a call of a differentiated function (an expression, or a
//! statement writing through `&mut`), gives the `_jvp` call with each argument's primal and
//! tangent (a `&mut` argument's tangent buffer lent with it, zeros for constant borrows); also
//! the write-back of `&mut` float arguments before every exit.

use super::program::{Op, Tan};
use super::*;

impl Forward<'_> {
    /// Before every exit: each `&mut` float argument (and its tangent) written back through the
    /// reference it arrived as.
    pub(super) fn write_back(&self) -> Vec<Op> {
        let mut ops = Vec::new();
        for p in self.f.body_params() {
            let Some(back) = crate::codegen::primal::scalar_ref_write_back(p) else {
                continue;
            };
            ops.push(Op::Code(back));
            if p.active {
                let t = names::tangent(&self.f.vars[p.var], p.var);
                if let Some(r) = crate::codegen::lend::lent_root(self.f, p) {
                    let base = self.tangent(r.var).to_token_stream();
                    let back = crate::codegen::lend::shadow_write_back(p, &base, &t);
                    ops.push(Op::Code(back));
                    continue;
                }
                let tr = names::param_ref(&p.name, true);
                ops.push(Op::Code(quote!(*#tr = #t;)));
            }
        }
        ops
    }

    /// Around a call lending struct `s` whose float fields the body uses: the fields and their
    /// tangents written into it (`before`), or read and reborrowed from it after
    /// (`codegen/lend.rs`).
    pub(super) fn lend_sync(&self, s: VarId, before: bool) -> Vec<Op> {
        use crate::codegen::lend;
        let base = self.tangent(s).to_token_stream();
        let name = |p: &Param| self.tangent(p.var);
        let primal = lend::primal_sync(self.f, s, before);
        let tangent = match self.var_active(s) {
            true => lend::shadow_sync(self.f, s, &base, &name, before),
            false => quote!(),
        };
        vec![Op::Code(quote!(#primal #tangent))]
    }

    /// A call of a function with companions: `g_jvp(primals..., tangents...)`.
    pub(super) fn call(
        &mut self,
        func: &syn::Path,
        args: &[Expr],
        span: Span,
        pre: &mut Vec<Op>,
    ) -> (TokenStream, TokenStream) {
        // A nalgebra rule of the runtime runs forward through its `_pushforward`: `None` for an
        // argument without a tangent (no zeros made, no work on them).
        let push = crate::ir::is_na_rule(func) && self.lanes.is_none();
        let (primals, tangents) = self.call_args_as(args, pre, push);
        let out = self.fresh("r");
        let tout = self.fresh("dr");
        let path = match push {
            true => companion_path(func, "pushforward"),
            false => self.jvp_path(func),
        };
        pre.push(Op::CallJvp {
            outs: Some((out.clone(), tout.clone())),
            path,
            primals,
            tangents,
            span,
            pure: !push && crate::registry::pure_jvp(func, args.len()),
        });
        (quote!(#out), quote!(#tout))
    }

    /// The primal and tangent arguments of a call's `_jvp`.
    fn call_args(
        &mut self,
        args: &[Expr],
        pre: &mut Vec<Op>,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        self.call_args_as(args, pre, false)
    }

    /// The arguments of a `_jvp` call, or with `push` of a `_pushforward` call (each tangent an
    /// `Option`, `None` where the argument is inactive).
    fn call_args_as(
        &mut self,
        args: &[Expr],
        pre: &mut Vec<Op>,
        push: bool,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let rt = names::rt();
        let mut primals = Vec::new();
        let mut tangents = Vec::new();
        for a in args {
            let shape = self.shape(a);
            if !shape.is_float() {
                primals.push(self.primal(a));
                continue;
            }
            if push && !matches!(a.kind, ExprKind::MutRef(..)) && shape != Shape::Struct {
                let (p, t) = match self.expr(a, pre) {
                    Val::Plain(p) => (p, quote!(::core::option::Option::None)),
                    v => {
                        let (p, t) = self.pair_of(v, &shape, pre);
                        let t = match shape {
                            Shape::Seq(_) => quote!(#rt::na::tangent_slice(#t)),
                            _ => t,
                        };
                        (p, quote!(::core::option::Option::Some(#t)))
                    }
                };
                primals.push(p);
                tangents.push(t);
                continue;
            }
            // A struct passed whole: its tangent is a `&<S>Tangent` (the caller's, or a borrow of
            // it for a struct taken by value), lent as it is, or cloned with a clone of the struct
            // (`CopyTo::Struct`).
            let whole = match &a.kind {
                ExprKind::Var(w) => Some((*w, false)),
                ExprKind::Ref(inner) => match inner.kind {
                    ExprKind::Var(w) => Some((w, false)),
                    _ => None,
                },
                ExprKind::CopySeq(w, CopyTo::Struct(_)) => Some((*w, true)),
                _ => None,
            };
            if let (Some((w, cloned)), Shape::Struct) = (whole, &shape) {
                let p = self.primal(a);
                let rt = names::rt();
                let t = if self.var_active(w) {
                    self.struct_tangent_ref(w)
                } else {
                    let x = self.primal(&Expr::new(ExprKind::Var(w), a.span));
                    quote!(&#rt::zero_tangent(&#x))
                };
                tangents.push(if cloned {
                    quote!(::core::clone::Clone::clone(#t))
                } else {
                    t
                });
                primals.push(p);
                continue;
            }
            // `&mut w`: `w`'s tangent is updated in place with it (a `&mut` argument's tangent
            // is itself a `&mut` reference).
            if let ExprKind::MutRef(w, reborrow, range) = &a.kind {
                let (w, reborrow) = (*w, *reborrow);
                primals.push(self.primal(a));
                let tw = self.tangent(w);
                if let Some(r) = range {
                    // `&mut w[a..b]`: the same range of `w`'s tangent (or of zeros).
                    let s = r.start.as_ref().map(|s| self.primal(s));
                    let x = r.end.as_ref().map(|x| self.primal(x));
                    let dots = if r.inclusive { quote!(..=) } else { quote!(..) };
                    let row = |b| crate::codegen::primal::borrowed_row(b, r.array.as_ref(), true);
                    if self.var_active(w) {
                        tangents.push(row(quote!(&mut #tw[#s #dots #x])));
                    } else {
                        let tmp = self.fresh("z");
                        let p = self.primal(&Expr::new(ExprKind::Var(w), a.span));
                        let zeros = Tan::Zeros {
                            shape,
                            like: quote!(#p[#s #dots #x]),
                        };
                        pre.push(tangent_let(quote!(mut #tmp), zeros));
                        tangents.push(row(quote!(&mut #tmp[..])));
                    }
                    continue;
                }
                if self.var_active(w) {
                    let array = matches!(self.f.vars[w].shape, Shape::Seq(SeqKind::Array(_)));
                    // A lent struct left out of `wrt` has a tangent of its own, not the caller's.
                    let own = self.f.vars[w].shape == Shape::Struct
                        && !self.f.body_params().any(|q| q.var == w && q.active);
                    tangents.push(if reborrow && !own && !(array && self.f.workspace(w)) {
                        quote!(&mut *#tw)
                    } else {
                        quote!(&mut #tw)
                    });
                } else {
                    // An inactive buffer: its tangent is zero before the call, and what the
                    // call leaves in it is not read.
                    let tmp = self.fresh("z");
                    let p = self.primal(&Expr::new(ExprKind::Var(w), a.span));
                    let zeros = Tan::Zeros {
                        shape,
                        like: if reborrow { quote!(*#p) } else { p },
                    };
                    pre.push(tangent_let(quote!(mut #tmp), zeros));
                    tangents.push(quote!(&mut #tmp));
                }
                continue;
            }
            let v = self.expr(a, pre);
            let (p, t) = match v {
                // A constant sequence passed by reference (`&w`, `&w[1..]`, or `v` of type
                // `&[f64]`): a borrowed buffer of zeros shaped like it.
                Val::Plain(p) if self.is_borrow(a) => {
                    let tmp = self.fresh("z");
                    let zeros = Tan::Zeros {
                        shape,
                        like: quote!(*#p),
                    };
                    pre.push(tangent_let(quote!(#tmp), zeros));
                    (p, quote!(&#tmp))
                }
                v => {
                    let (p, t) = self.pair_of(v, &shape, pre);
                    // An owned `Vec` passed by value: the callee takes its tangent as `&[T]`.
                    match shape == Shape::Seq(SeqKind::Vec) && !self.is_borrow(a) {
                        true => (p, quote!(&#t[..])),
                        false => (p, t),
                    }
                }
            };
            primals.push(p);
            tangents.push(t);
        }
        (primals, tangents)
    }

    /// A call statement writing through `&mut` (`f(.., &mut v);`): its `_jvp`, for what it
    /// writes into `v` and `v`'s tangent (a value it gives, if any, is dropped).
    pub(super) fn call_stmt(&mut self, e: &Expr) -> Vec<Op> {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return vec![let_pair(quote!(_), self.primal(e), None)];
        };
        let mut pre = Vec::new();
        let (primals, tangents) = self.call_args(args, &mut pre);
        pre.push(Op::CallJvp {
            outs: None,
            path: self.jvp_path(func),
            primals,
            tangents,
            span: e.span,
            pure: crate::registry::pure_jvp(func, args.len()),
        });
        pre
    }

    /// Whether an argument expression is a borrow: `&w`, `&w[a..b]`, or a variable whose type
    /// is a reference (a slice argument, `&[f64; 3]`).
    fn is_borrow(&self, a: &Expr) -> bool {
        match &a.kind {
            ExprKind::Ref(_) | ExprKind::SubSlice { .. } => true,
            ExprKind::Var(v) => {
                let var = &self.f.vars[*v];
                var.shape == Shape::Seq(SeqKind::Slice)
                    || matches!(var.ty, Some(syn::Type::Reference(_)))
            }
            _ => false,
        }
    }
}
