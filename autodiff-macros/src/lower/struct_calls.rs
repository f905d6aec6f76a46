//! Structs held whole in locals: takes `let` statements whose value is a struct a differentiated
//! call gives (`let s2: State = step(&s, dt);`, or unannotated when the callee is defined earlier
//! in the crate with a struct output, `registry.rs`) or a copy of a struct (`let mut s =
//! s0.clone();`, `*s0` of a `Copy` struct, `t.clone()` of such a local), the field reads of such
//! locals (`s2.x`, `s2.body.m`) and the assignments to them (`s = step(&s, dt);`); gives
//! variables of `Shape::Struct` (whose tangent and adjoint are the struct's `Tangent`, zeroed and
//! accumulated by the runtime's traits), `ExprKind::Member` reads and calls shaped `Struct`.
//! Everything else done with such a local is reported at its tokens.

use super::*;
use crate::ir::{CopyTo, Expr, ExprKind, Pat, Shape, Stmt, VarId, VarOrigin};
use syn::spanned::Spanned;

impl Lowerer<'_> {
    /// Whether `ty` names a user struct (`State`, `State<T>`, `Self`), not a float or a type
    /// the macro knows.
    fn struct_named(&self, ty: &syn::Type) -> bool {
        let syn::Type::Path(tp) = ty else {
            return false;
        };
        let float_param = tp
            .path
            .get_ident()
            .is_some_and(|id| self.float_generics.iter().any(|g| id == g.as_str()));
        !float_param && self.struct_type(ty, &syn::Generics::default()) == Some(false)
    }

    /// The variable of a struct held whole named by `e` (a path), if it is one.
    fn whole_struct(&self, e: &syn::Expr) -> Option<VarId> {
        self.var_of_path(e)
            .filter(|v| self.vars[*v].shape == Shape::Struct)
    }

    /// A copy of a struct held whole: `x.clone()`, `*x` (a `Copy` struct by reference),
    /// `(x.clone())`. `None` for anything else.
    fn struct_copy(&self, e: &syn::Expr) -> Option<Expr> {
        let span = e.span();
        // Not of a struct taken by `&mut` (lent whole, `struct_mut.rs`): reported there.
        let lent = |v: VarId| matches!(&self.vars[v].ty, Some(syn::Type::Reference(r)) if r.mutability.is_some());
        let (v, by_ref) = match e {
            syn::Expr::Paren(p) => return self.struct_copy(&p.expr),
            syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                let v = self.whole_struct(&m.receiver).filter(|v| !lent(*v))?;
                (v, self.struct_by_ref(v))
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                let v = self.whole_struct(&u.expr).filter(|v| !lent(*v))?;
                if !self.struct_by_ref(v) {
                    return None;
                }
                (v, true)
            }
            _ => return None,
        };
        Some(Expr::new(
            ExprKind::CopySeq(v, CopyTo::Struct(by_ref)),
            span,
        ))
    }

    /// Whether `e` is a call of a function known (or annotated) to give a struct.
    fn struct_call_syntax(&self, e: &syn::Expr, ty: Option<&syn::Type>) -> bool {
        let annotated = ty.is_some_and(|t| self.struct_named(t));
        match e {
            syn::Expr::Paren(p) => self.struct_call_syntax(&p.expr, ty),
            syn::Expr::Call(c) => {
                let known = match &*c.func {
                    syn::Expr::Path(p) => crate::registry::gives_struct(&p.path, c.args.len()),
                    _ => false,
                };
                annotated || known
            }
            syn::Expr::MethodCall(m) => {
                let method = &m.method;
                let path: syn::Path = syn::parse_quote!(Self::#method);
                annotated || crate::registry::gives_struct(&path, m.args.len() + 1)
            }
            _ => false,
        }
    }

    /// `let s2 = step(&s, dt);` (or `let s2: State = ..`), `let mut s = s0.clone();`, and
    /// `let n: usize = s2.n;`: lowered here when `init` is one of these (true), else left to
    /// the general `let`.
    pub(super) fn struct_let(
        &mut self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        init: Option<&syn::Expr>,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let Some(init) = init else {
            return false;
        };
        // `let n: usize = s2.n;`: an integer field.
        if let (Some(t), syn::Pat::Ident(pi)) = (ty, pat) {
            if matches!(self.classify(t), TypeClass::Int | TypeClass::Bool) {
                if let Some(mut m) = self.struct_member(init) {
                    if let ExprKind::Member { shape, .. } = &mut m.kind {
                        *shape = self.shape_of_type(t);
                    }
                    let v = self.new_var(
                        pi.ident.clone(),
                        pi.mutability.is_some(),
                        self.shape_of_type(t),
                        VarOrigin::Local,
                        Some(t.clone()),
                    );
                    self.bind(&pi.ident, v);
                    out.push(Stmt::Let {
                        pat: Pat::Bind(v),
                        init: Some(m),
                    });
                    return true;
                }
            }
        }
        let value = if let Some(c) = self.struct_copy(init) {
            c
        } else if self.struct_call_syntax(init, ty) {
            let mut e = self.expr(init, out);
            match &mut e.kind {
                ExprKind::Call { shape, .. } => *shape = Shape::Struct,
                // A constructor or another plain call (`State::new(x)`): the general `let`'s
                // shapes (an active argument there is reported by activity analysis).
                _ => {
                    let shape = ty.map_or(Shape::Other, |t| self.shape_of_type(t));
                    let p = self.pattern(pat, &shape, ty.cloned());
                    out.push(Stmt::Let {
                        pat: p,
                        init: Some(e),
                    });
                    return true;
                }
            }
            e
        } else {
            return false;
        };
        // A copy's type is its source's (`let c = self.clone();` is a `Self`), so that its
        // methods can be called (`c.step(dt)`, `struct_uses.rs`).
        let ty = match (ty, &value.kind) {
            (None, ExprKind::CopySeq(src, CopyTo::Struct(_))) => match &self.vars[*src].ty {
                Some(syn::Type::Reference(r)) => Some((*r.elem).clone()),
                t => t.clone(),
            },
            (t, _) => t.cloned(),
        };
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let v = self.new_var(
                    pi.ident.clone(),
                    pi.mutability.is_some(),
                    Shape::Struct,
                    VarOrigin::Local,
                    ty,
                );
                self.bind(&pi.ident, v);
                out.push(Stmt::Let {
                    pat: Pat::Bind(v),
                    init: Some(value),
                });
            }
            _ => {
                self.diag.unsupported_at(
                    pat,
                    "destructuring a struct a differentiated call gives, or a copy of a struct \
                     (yet)",
                    "bind it to one name and read its fields (`let s2 = step(&s, dt); s2.x`)",
                );
            }
        }
        true
    }

    /// Whether `e` is a field read of a struct held whole in a local (`s2.x`, `s2.a.b`).
    pub(super) fn is_struct_member(&self, e: &syn::Expr) -> bool {
        let mut at = e;
        while let syn::Expr::Field(f) = at {
            at = &f.base;
        }
        self.whole_struct(at)
            .is_some_and(|v| !matches!(self.vars[v].origin, VarOrigin::Param(_)))
    }

    /// `s2.x`, `s2.body.m`, `s2.0` of a struct held whole in a local: a `Member` read, taken
    /// for a float (rustc checks it at the field). `None` when `e` is not such a read.
    pub(super) fn struct_member(&mut self, e: &syn::Expr) -> Option<Expr> {
        let mut members = Vec::new();
        let mut at = e;
        while let syn::Expr::Field(f) = at {
            members.push(&f.member);
            at = &f.base;
        }
        if members.is_empty() {
            return None;
        }
        let base = self.whole_struct(at)?;
        if matches!(self.vars[base].origin, VarOrigin::Param(_)) {
            return None;
        }
        let span = e.span();
        let toks: TokenStream = members
            .iter()
            .rev()
            .map(|m| quote::quote_spanned!(m.span()=> .#m))
            .collect();
        Some(Expr::new(
            ExprKind::Member {
                base,
                members: toks,
                shape: Shape::Scalar,
            },
            span,
        ))
    }

    /// `s = step(&s, dt);`, `s = t.clone();` of a struct held whole: the call gives a struct
    /// (shaped so); anything else assigned to it is reported.
    pub(super) fn struct_assign(&mut self, v: VarId, value: &mut Expr, at: &syn::Expr) {
        if self.vars[v].shape != Shape::Struct {
            return;
        }
        if matches!(self.vars[v].origin, VarOrigin::Param(_)) {
            return;
        }
        match &mut value.kind {
            ExprKind::Call { shape, .. } => *shape = Shape::Struct,
            ExprKind::CopySeq(w, CopyTo::Struct(_)) | ExprKind::Var(w)
                if self.vars[*w].shape == Shape::Struct => {}
            ExprKind::Poison => {}
            _ => self.diag.unsupported_at(
                at,
                "assigning this to a struct held in a local (yet)",
                "assign the value of a differentiated call giving the struct (`s = step(&s, \
                 dt);`) or a copy of another one (`s = t.clone();`)",
            ),
        }
    }
}
