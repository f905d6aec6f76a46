//! Forward mode on structs held whole (`Shape::Struct`): takes a struct argument, local or field
//! read, gives its tangent as the forward emitter needs it: the argument's tangent in the
//! prologue (borrowed for one taken by value), a borrow of a struct's tangent, the tangent of a
//! field read (`s.a.b` of the tangent), a clone of a struct with a clone of its tangent, and a
//! struct local's declared tangent type (`<S as Differentiable>::Tangent`).

use super::{Forward, Val};
use crate::codegen::primal::copy_seq;
use crate::ir::*;
use crate::names;
use proc_macro2::{Span, TokenStream};
use quote::quote;

use super::program::DualExpr;

/// The initial tangent of active argument `p` when it is a struct taken by value and passed
/// whole: its tangent `d` borrowed, like one by `&` (the prologue has borrowed its fields
/// already). `None` for every other argument.
pub(super) fn by_value_param_tangent(p: &Param, d: &syn::Ident) -> Option<TokenStream> {
    (p.shape == Shape::Struct && !matches!(p.ty, syn::Type::Reference(_))).then(|| quote!(&#d))
}

impl Forward<'_> {
    /// A borrow of the tangent of struct variable `v` (`Shape::Struct`): an argument's tangent
    /// is a reference already (the caller's, or borrowed by the prologue); a local's is owned.
    pub(super) fn struct_tangent_ref(&self, v: VarId) -> TokenStream {
        let t = self.tangent(v);
        match self.f.vars[v].origin {
            VarOrigin::Param(_) => quote!(#t),
            _ => quote!(&#t),
        }
    }

    /// A float field of a struct held whole (`e` is `base members`): the same field of its
    /// tangent.
    pub(super) fn member(&self, e: &Expr, base: VarId, members: &TokenStream, span: Span) -> Val {
        Val::Dual(DualExpr::New {
            value: self.primal(e),
            tangent: {
                let t = self.tangent(base);
                quote!(#t #members)
            },
            span,
        })
    }

    /// A clone of struct `v` held whole (`to` is `CopyTo::Struct`): a clone of its tangent
    /// (owned by the copy).
    pub(super) fn struct_clone(&self, v: VarId, to: CopyTo) -> Val {
        let name = &self.name(v);
        let t = self.struct_tangent_ref(v);
        Val::Pair(
            copy_seq(&quote!(#name), to),
            quote!(::core::clone::Clone::clone(#t)),
        )
    }

    /// The declared tangent type of a struct local `let s2: State`:
    /// `<State as Differentiable>::Tangent` (`None` without an annotation).
    pub(super) fn struct_tangent_type(&self, var: &Var) -> Option<TokenStream> {
        var.ty.as_ref().map(|t| {
            let rt = names::rt();
            quote!(: <#t as #rt::Differentiable>::Tangent)
        })
    }
}
