//! Float fields of a lent struct (`lower/struct_mut.rs`): takes a struct argument taken by
//! `&mut` that the body both passes on whole to differentiated calls and reads or writes the float
//! fields of, gives the statements both emitters print around each such call, at the top of the
//! companions and at every exit.
//!
//! Each such field is a field argument (`FieldOf::lent`) bound without holding a borrow of the
//! struct across a call: a float by value (`let mut k = self.k;`), a sequence as a reborrow
//! (`let mut x = &mut self.x[..];`), its tangent or adjoint the same through the struct's tangent
//! or adjoint binding (`&mut ts.x[..]`, `ts.k`). Around a call lending the struct, floats are
//! written back into it before (`self.k = k;`, `ts.k = dk;`, in reverse `bs.k = bk;`) and every
//! field is read or reborrowed again after (`k = self.k; x = &mut self.x[..];`): a sequence's
//! reborrow is the struct's own storage, so its contents, tangent and adjoint need no moving, and
//! the struct's adjoint holds the float fields' adjoints exactly while the callee's `_vjp` runs.
//! The analyses see such a call writing every mutable argument (`ir::writes::lent_fields`).

use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// The struct argument a lent field argument `p` belongs to.
pub(crate) fn lent_root<'f>(f: &'f Function, p: &Param) -> Option<&'f Param> {
    let at = p.field.as_ref().filter(|at| at.lent)?;
    f.params
        .iter()
        .find(|q| q.name == at.root && q.shape == Shape::Struct)
}

/// The lent field arguments of struct argument variable `s`.
pub(crate) fn lent_fields(f: &Function, s: VarId) -> Vec<&Param> {
    f.fields
        .iter()
        .filter(|p| lent_root(f, p).is_some_and(|r| r.var == s))
        .collect()
}

/// The struct a call statement's expression lends whole, when the body also uses its float
/// fields: the variable of its first `MutRef` of such a struct. `vars` is the table `e`'s
/// variables index (the reverse sweep's normalized copy has more than `f.vars`).
pub(crate) fn lent_by(f: &Function, vars: &[Var], e: &Expr) -> Option<VarId> {
    e.mut_borrows()
        .into_iter()
        .find(|v| vars[*v].shape == Shape::Struct && !lent_fields(f, *v).is_empty())
}

/// The body params in the order their tangents or adjoints are bound: a lent struct's before its
/// fields, which are bound through it.
pub(crate) fn binding_order(f: &Function) -> Vec<&Param> {
    let lent = |p: &Param| p.shape == Shape::Struct && !lent_fields(f, p.var).is_empty();
    let mut out: Vec<&Param> = f.body_params().filter(|p| lent(p)).collect();
    out.extend(f.body_params().filter(|p| !lent(p)));
    out
}

/// `place` of field `p` in `base` (a struct, or a reference to one or to its tangent): `base.k`,
/// or `&mut base.x[..]` for a sequence (`base.r.as_flattened_mut()` for an array of arrays).
fn place(p: &Param, base: &TokenStream) -> TokenStream {
    let members = p.field.as_ref().map(|at| &at.members);
    match p.shape {
        _ if p.field.as_ref().is_some_and(|at| at.flat) => {
            quote!(#base #members.as_flattened_mut())
        }
        Shape::Seq(_) => quote!(&mut #base #members[..]),
        _ => quote!(#base #members),
    }
}

/// A lent field argument's tangent (forward) or adjoint (reverse) at the top of the companion,
/// through `base`, the struct's tangent or adjoint binding.
pub(crate) fn shadow_init(p: &Param, base: &TokenStream) -> TokenStream {
    place(p, base)
}

/// The primal statements around a call lending `s`: `before`, its float fields written back into
/// it; after, every field read or reborrowed again.
pub(crate) fn primal_sync(f: &Function, s: VarId, before: bool) -> TokenStream {
    let mut out = Vec::new();
    for p in lent_fields(f, s) {
        let Some(at) = &p.field else { continue };
        let root = at.root.to_token_stream();
        out.push(sync(p, &p.name.to_token_stream(), &root, before));
    }
    quote!(#(#out)*)
}

/// The tangent (forward) or adjoint (reverse) statements around a call lending `s`: `base` the
/// struct's tangent or adjoint binding (a `&mut` to its tangent type), `name` each field
/// argument's tangent or adjoint binding.
pub(crate) fn shadow_sync(
    f: &Function,
    s: VarId,
    base: &TokenStream,
    name: &dyn Fn(&Param) -> syn::Ident,
    before: bool,
) -> TokenStream {
    let mut out = Vec::new();
    for p in lent_fields(f, s).into_iter().filter(|p| p.active) {
        out.push(sync(p, &name(p).to_token_stream(), base, before));
    }
    quote!(#(#out)*)
}

/// One field's statement: a float written into `base` (`before`) or read from it; a sequence
/// reborrowed from it after.
fn sync(p: &Param, n: &TokenStream, base: &TokenStream, before: bool) -> TokenStream {
    let at = place(p, base);
    match (&p.shape, before) {
        (Shape::Seq(_), true) => quote!(),
        (Shape::Seq(_), false) => quote!(#n = #at;),
        (_, true) => quote!(#at = #n;),
        (_, false) => quote!(#n = #at;),
    }
}

/// At every exit: a lent float field's value written back into its struct (`self.k = k;`).
pub(crate) fn write_back(p: &Param) -> Option<TokenStream> {
    let at = p.field.as_ref().filter(|at| at.lent)?;
    if matches!(p.shape, Shape::Seq(_)) {
        return None;
    }
    let (n, root, members) = (&p.name, &at.root, &at.members);
    Some(quote!(#root #members = #n;))
}

/// At every exit: a lent float field's tangent or adjoint `t` written back into `base`.
pub(crate) fn shadow_write_back(p: &Param, base: &TokenStream, t: &syn::Ident) -> TokenStream {
    match p.shape {
        Shape::Seq(_) => quote!(),
        _ => {
            let at = place(p, base);
            quote!(#at = #t;)
        }
    }
}
