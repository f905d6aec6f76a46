//! Structs taken by `&mut` and passed on whole (*lent*): takes a struct argument `s: &mut State`
//! (or `&mut self`) that the body passes whole to differentiated calls (`update(s, dt)`,
//! `update(&mut *s, dt)`, `self.substep(dt)`, `Self::substep(self, dt)`), gives it as one
//! variable of `Shape::Struct`, in-out like a `&mut` float buffer: each such call is a call
//! statement with `MutRef(s)` (the emitters save a clone of the struct before it and run the
//! callee's `_vjp` on that clone with the caller's adjoint struct in place, `reverse/mutcalls.rs`).
//!
//! The body may not read or write a float field of a lent struct (its fields would be field
//! arguments borrowed from it, overlapping the whole borrow): that is reported at the field.
//! Its integer fields are read into locals (`int_locals`), which calls re-read, so that the
//! reverse sweep sees each value the forward sweep read.

use super::structs::{Class, StructPlan};
use super::*;

impl StructPlan {
    /// Whether struct argument `root` is taken by `&mut` and passed whole to calls.
    pub(super) fn lent(&self, root: &str) -> bool {
        self.roots
            .iter()
            .any(|(n, k)| n == root && *k == StructArg::MutRef)
            && self.passed.iter().any(|p| p == root)
    }
}

impl Lowerer<'_> {
    /// Reports the float fields the body uses of a lent struct (`StructPlan::lent`).
    pub(super) fn check_lent_fields(&mut self, plan: &StructPlan) {
        for f in &plan.fields {
            if f.class == Class::Int || !plan.lent(&f.root.to_string()) {
                continue;
            }
            self.diag.unsupported_at(
                &f.tokens,
                &format!(
                    "reading or writing a float field of `{}`, a struct taken by `&mut` that the \
                     function also passes on whole (yet)",
                    f.root
                ),
                "move the field's computation into a differentiated method or function taking \
                 the struct (`self.kick(dt)`), and call it on the whole struct",
            );
        }
    }

    /// Whether `v` is a lent struct variable: `Shape::Struct` behind `&mut`.
    pub(super) fn is_lent(&self, v: VarId) -> bool {
        self.vars[v].shape == Shape::Struct
            && matches!(&self.vars[v].ty, Some(syn::Type::Reference(r)) if r.mutability.is_some())
    }

    /// A lent struct passed whole as a call argument: `s`, `&mut *s`, `&mut s`, `&*s`, `self`:
    /// `MutRef(s)` (the callee may write it; one taking `&State` gets the `&mut` coerced).
    /// `None` when `e` is not a lent struct; a poisoned node for other forms (`s.clone()`,
    /// `*s`).
    pub(super) fn lent_call_arg(&mut self, e: &syn::Expr) -> Option<Expr> {
        let var = |me: &Self, e: &syn::Expr| -> Option<VarId> {
            let syn::Expr::Path(p) = e else { return None };
            let v = me.lookup(&p.path.get_ident()?.to_string())?;
            (p.qself.is_none() && me.is_lent(v)).then_some(v)
        };
        let deref = |me: &Self, e: &syn::Expr| match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => var(me, &u.expr),
            syn::Expr::Paren(p) => var(me, &p.expr),
            _ => None,
        };
        let span = e.span();
        let lend = |v: VarId| Some(Expr::new(ExprKind::MutRef(v, true, None), span));
        match e {
            syn::Expr::Reference(r) => {
                if let Some(v) = deref(self, &r.expr).or_else(|| var(self, &r.expr)) {
                    return lend(v);
                }
                None
            }
            syn::Expr::Path(_) => var(self, e).and_then(lend),
            syn::Expr::MethodCall(m) if m.method == "clone" => {
                let v = var(self, &m.receiver)?;
                let _ = v;
                Some(self.poison(
                    e,
                    "passing a clone of a struct taken by `&mut` that the function also passes \
                     on whole (yet)",
                    "pass the struct itself (`g(s, x)`, `g(&mut *s, x)`)",
                ))
            }
            syn::Expr::Unary(_) => {
                deref(self, e)?;
                Some(self.poison(
                    e,
                    "passing a struct taken by `&mut` by value when the function also passes it \
                     on whole (yet)",
                    "pass it by reference (`g(s, x)`, `g(&mut *s, x)`)",
                ))
            }
            _ => None,
        }
    }

    /// `self.substep(dt)`, `s.step(dt)` of a lent struct: a call of the differentiated method
    /// `Self::substep` / `State::step` with `MutRef(self)` first. `None` when the receiver is
    /// not a lent struct.
    pub(super) fn lent_method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        if !self.is_lent(v) || !super::structs::own_method(&m.method.to_string()) {
            return None;
        }
        let Some(syn::Type::Reference(r)) = &self.vars[v].ty else {
            return None;
        };
        let func: syn::Path = match &*r.elem {
            syn::Type::Path(tp) if tp.qself.is_none() => {
                let mut path = tp.path.clone();
                if let Some(last) = path.segments.last_mut() {
                    last.arguments = syn::PathArguments::None;
                }
                let method = &m.method;
                syn::parse_quote!(#path::#method)
            }
            _ => return None,
        };
        if let Some(t) = &m.turbofish {
            return Some(self.poison(
                t,
                "a turbofish on a method of a struct argument",
                "let the method's type parameters be inferred",
            ));
        }
        let mut args = vec![Expr::new(
            ExprKind::MutRef(v, true, None),
            m.receiver.span(),
        )];
        for a in &m.args {
            let e = self.lent_call_arg(a).or_else(|| self.struct_call_arg(a));
            args.push(e.unwrap_or_else(|| self.expr(a, out)));
        }
        self.check_struct_twice(&args, m);
        Some(Expr::new(
            ExprKind::Call {
                func,
                args,
                shape: Shape::Scalar,
            },
            m.span(),
        ))
    }
}
