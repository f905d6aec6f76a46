//! Struct arguments in the body, once `structs.rs` has planned them: takes the body's
//! expressions that use a struct argument other than through a float field, gives their IR:
//! write-only integer counters of a `&mut` struct (`s.calls += 1`), integer field reads, calls
//! of methods on a struct argument (`self.force(i)`), a struct passed whole to a differentiated
//! call (by `&`, or as a clone) and the check that one call does not take it twice.

use super::structs::{chain, key_string, own_method, Class};
use super::*;

impl Lowerer<'_> {
    /// `s.calls += 1;` (or `=`, `-=`...) of an integer field of a `&mut` struct argument the
    /// body only writes (`StructPlan::int_writes`), its right-hand side naming no view or
    /// element alias: the statement, kept verbatim by both companions (`Stmt::Macro`; never
    /// active, run once by the forward sweep).
    pub(super) fn counter_write(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        let (left, right) = match e {
            syn::Expr::Assign(a) => (&*a.left, &*a.right),
            syn::Expr::Binary(b) if super::stmts::is_compound_assign(&b.op) => {
                (&*b.left, &*b.right)
            }
            _ => return false,
        };
        let plan = &self.structs;
        let Some((root, members)) = chain(left, &|n| plan.is_root(n)) else {
            return false;
        };
        if !plan.int_writes.contains(&key_string(&root, &members)) {
            return false;
        }
        let mut visible = Vec::new();
        for word in mentioned_names(&right.to_token_stream()) {
            if let Some(v) = self.lookup(&word) {
                if self.views.contains_key(&v) || self.elem_aliases.contains_key(&v) {
                    return false;
                }
                if !visible.contains(&v) {
                    visible.push(v);
                }
            }
        }
        out.push(Stmt::Macro(e.to_token_stream(), visible));
        true
    }

    /// Whether `e` reads an integer field of a struct argument (`s.n`, `self.cfg.steps`).
    pub(super) fn int_field(&self, e: &syn::Expr) -> bool {
        let plan = &self.structs;
        chain(e, &|n| plan.is_root(n)).is_some_and(|(root, members)| {
            plan.fields
                .iter()
                .any(|f| f.root == root && f.members == members && f.class == Class::Int)
        })
    }

    /// `s.energy(x)`, `self.force(i)` on a struct argument passed whole (`Shape::Struct`): a
    /// call of the differentiated method `S::energy` / `Self::force` with the struct first, by
    /// reference (`s`, or `&s` of a struct taken by value); `s.clone().energy(x)` passes a clone
    /// by value (for a method taking `self`).
    pub(super) fn struct_method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        if let Some(e) = self.lent_method_call(m, out) {
            return Some(e);
        }
        let (recv, cloned) = match &*m.receiver {
            syn::Expr::MethodCall(c) if c.method == "clone" && c.args.is_empty() => {
                (&*c.receiver, true)
            }
            r => (r, false),
        };
        let syn::Expr::Path(p) = recv else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        if self.vars[v].shape != Shape::Struct || !own_method(&m.method.to_string()) {
            return None;
        }
        let by_ref = self.struct_by_ref(v);
        let ty =
            match &self.vars[v].ty {
                Some(syn::Type::Reference(r)) => (*r.elem).clone(),
                Some(t) => t.clone(),
                // The struct a call gives, unannotated (`struct_calls.rs`).
                None => return Some(self.poison(
                    &m.receiver,
                    "a method of a struct held in a local whose type the macro cannot see (the \
                     struct a call gives)",
                    "give the type where the local is bound (`let a: State = step(s, dt);`)",
                )),
            };
        let recv = match (cloned, by_ref) {
            (true, _) => ExprKind::CopySeq(v, CopyTo::Struct(by_ref)),
            (false, true) => ExprKind::Var(v),
            (false, false) => {
                ExprKind::Ref(Box::new(Expr::new(ExprKind::Var(v), m.receiver.span())))
            }
        };
        self.struct_method_on(&ty, Expr::new(recv, m.receiver.span()), m, out)
    }

    /// `recv.method(args)` of a struct of type `ty` as the call `Type::method(recv, args)` (each
    /// argument a lent or whole struct where it is one); `None` when `ty` is not a plain path.
    pub(super) fn struct_method_on(
        &mut self,
        ty: &syn::Type,
        recv: Expr,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let method = &m.method;
        let func: syn::Path = match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => {
                // `State<T>` is named `State` in a path; rustc infers `T`.
                let mut path = tp.path.clone();
                if let Some(last) = path.segments.last_mut() {
                    last.arguments = syn::PathArguments::None;
                }
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
        let mut args = vec![recv];
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

    /// Whether struct variable `v` (`Shape::Struct`) is a reference (`s: &State`, `&self`).
    pub(super) fn struct_by_ref(&self, v: VarId) -> bool {
        matches!(self.vars[v].ty, Some(syn::Type::Reference(_)))
    }

    /// A struct argument passed whole as an argument of a differentiated call, as written:
    /// `s` (a `&State`), `&s`, `&*s`, `*s`, `s.clone()`, `s` (a `State`): `Var(s)` for a reference
    /// to the caller's struct (`s` itself, or `Ref(Var(s))` of a struct taken by value), a
    /// `CopySeq(s, CopyTo::Struct)` for a clone passed by value. `None` when `e` is none of these.
    pub(super) fn struct_call_arg(&self, e: &syn::Expr) -> Option<Expr> {
        let span = e.span();
        let var = |e: &syn::Expr| -> Option<VarId> {
            let syn::Expr::Path(p) = e else { return None };
            let v = self.lookup(&p.path.get_ident()?.to_string())?;
            (p.qself.is_none() && self.vars[v].shape == Shape::Struct).then_some(v)
        };
        let deref = |e: &syn::Expr| match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => var(&u.expr),
            _ => None,
        };
        let borrowed = |v: VarId| {
            let x = Expr::new(ExprKind::Var(v), span);
            if self.struct_by_ref(v) {
                x
            } else {
                Expr::new(ExprKind::Ref(Box::new(x)), span)
            }
        };
        let cloned = |v: VarId| {
            Expr::new(
                ExprKind::CopySeq(v, CopyTo::Struct(self.struct_by_ref(v))),
                span,
            )
        };
        match e {
            syn::Expr::Reference(r) if r.mutability.is_none() => {
                let v =
                    var(&r.expr).or_else(|| deref(&r.expr).filter(|v| self.struct_by_ref(*v)))?;
                Some(borrowed(v))
            }
            syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                var(&m.receiver).map(cloned)
            }
            syn::Expr::Unary(_) => deref(e).filter(|v| self.struct_by_ref(*v)).map(cloned),
            _ => {
                let v = var(e)?;
                Some(if self.struct_by_ref(v) {
                    borrowed(v)
                } else {
                    cloned(v)
                })
            }
        }
    }

    /// One struct passed twice to one call (`g(s, s)`, `s.pair(s)`): its adjoint cannot be lent
    /// twice.
    pub(super) fn check_struct_twice(&mut self, args: &[Expr], at: &dyn ToTokens) {
        let mut seen = Vec::new();
        for a in args {
            let v = match &a.kind {
                ExprKind::Var(v)
                | ExprKind::CopySeq(v, CopyTo::Struct(_))
                | ExprKind::MutRef(v, _, None) => *v,
                ExprKind::Ref(inner) => match inner.kind {
                    ExprKind::Var(v) => v,
                    _ => continue,
                },
                _ => continue,
            };
            if self.vars[v].shape != Shape::Struct {
                continue;
            }
            if seen.contains(&v) {
                self.diag.unsupported_at(
                    at,
                    "passing one struct argument twice to one differentiated call (yet)",
                    "let the callee take the struct once",
                );
                return;
            }
            seen.push(v);
        }
    }
}
