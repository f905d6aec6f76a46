//! The sequence fields of struct copies whose elements the body writes (`let mut t = s.clone();
//! t.x[i] += ..`; `FieldOf::copy`, `lower/struct_copies.rs`) in the companions: takes those field
//! arguments, gives the clones they borrow, declared before the body (outside the closure a
//! struct output's body runs in, so the output can be built from them after it), and the
//! reverse companion's epilogue adding each copy's adjoint into the copied field's.
//!
//! A copy field argument is in-out (`&mut [_]`, as a written field of a `&mut` struct): the
//! emitters leave its final value in the clone, its final tangent in the tangent's clone, and
//! (in-out convention) the adjoint of its initial contents in its adjoint buffer, which started
//! as the adjoint of its final contents: zero, or the output seed's field when the copy is given
//! back as the struct output. The initial contents are `s.x` (the struct argument is read only,
//! so a clone made before the body holds what the copy held at its `let`).

use super::expand::Signatures;
use crate::ir::*;
use crate::names;
use proc_macro2::TokenStream;
use quote::quote;

/// What the adjoint buffers of copies start as in a reverse companion.
#[derive(Clone, Copy)]
pub(super) enum Seeds<'a> {
    /// Zero (the copy is not the output, or the seed is zero: `_vjp_dropped`).
    Zero,
    /// The field of the struct output's seed (`seed.x`) for the fields the output gives by a
    /// copy (`StructOut::copies`), named by the local holding the seed.
    Output(&'a syn::Ident),
}

/// One copy field argument: its position among them, the field argument and where it is from.
struct Copy<'f> {
    k: usize,
    p: &'f Param,
    at: &'f FieldOf,
}

impl Signatures<'_> {
    fn copies(&self) -> Vec<Copy<'_>> {
        self.f
            .fields
            .iter()
            .filter_map(|p| p.field.as_ref().filter(|at| at.copy).map(|at| (p, at)))
            .enumerate()
            .map(|(k, (p, at))| Copy { k, p, at })
            .collect()
    }

    pub(super) fn has_copies(&self) -> bool {
        !self.copies().is_empty()
    }

    /// The struct argument a copy is of: its public tangent or adjoint name, when it is active.
    fn copied_shadow(&self, at: &FieldOf) -> Option<syn::Ident> {
        let root = self.f.params.iter().find(|p| p.name == at.root)?;
        root.active
            .then(|| names::shadow_param(&at.root, &self.taken()))
    }

    /// The clones copies borrow, before the body: each field checked to be a sequence of floats
    /// and cloned, and its tangent (`reverse`: `None`) or adjoint buffer (`Some`: how it
    /// starts).
    pub(super) fn copy_decls(&self, reverse: Option<Seeds>) -> TokenStream {
        let rt = names::rt();
        let mut out = Vec::new();
        for c in self.copies() {
            let (root, members) = (&c.at.root, &c.at.members);
            let (cp, cpd) = (names::field_copy(c.k, false), names::field_copy(c.k, true));
            let span = syn::spanned::Spanned::span(members);
            out.push(quote::quote_spanned!(span=> #rt::float_seq_field(&#root #members);));
            out.push(quote!(let mut #cp = ::core::clone::Clone::clone(&#root #members);));
            let member = self.output_member(&c.p.name);
            let init = match (reverse, member) {
                (Some(Seeds::Output(seed)), Some(m)) => {
                    quote!(::core::clone::Clone::clone(&#seed.#m))
                }
                (Some(_), _) => quote!(#rt::zero_tangent(&#cp)),
                (None, _) => match self.copied_shadow(c.at) {
                    Some(d) => quote!(::core::clone::Clone::clone(&#d #members)),
                    None => quote!(#rt::zero_tangent(&#cp)),
                },
            };
            out.push(quote!(let mut #cpd = #init;));
        }
        quote!(#(#out)*)
    }

    /// The field of the struct output a copy field argument gives, if any.
    fn output_member(&self, name: &syn::Ident) -> Option<&syn::Member> {
        let so = self.f.output.strukt.as_ref()?;
        so.copies.iter().find(|(_, n)| n == name).map(|(m, _)| m)
    }

    /// A copy field argument bound in the prologue: a borrow of its clone, and of its tangent or
    /// adjoint buffer's (`d`), `None` for another field argument.
    pub(super) fn copy_bind(&self, p: &Param, d: &syn::Ident) -> Option<TokenStream> {
        let c = self.copies().into_iter().find(|c| c.p.name == p.name)?;
        let (cp, cpd) = (names::field_copy(c.k, false), names::field_copy(c.k, true));
        let name = &p.name;
        Some(quote! {
            let #name = &mut #cp[..];
            let #d = &mut #cpd[..];
        })
    }

    /// After the reverse companion's body: each copy's adjoint (that of its initial contents,
    /// the field's) added into the copied struct's adjoint, when that struct is active.
    pub(super) fn copy_epilogue(&self) -> TokenStream {
        let rt = names::rt();
        let adds = self.copies().into_iter().filter_map(|c| {
            let d = self.copied_shadow(c.at)?;
            let (members, cpd) = (&c.at.members, names::field_copy(c.k, true));
            Some(quote!(#rt::accumulate(&mut #d #members, &#cpd);))
        });
        quote!(#(#adds)*)
    }

    /// The output's fields given by copies (`x: cp`), and their tangents set (`tout.x = cpd`).
    pub(super) fn copy_outputs(&self, tout: &syn::Ident) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let Some(so) = self.f.output.strukt.as_ref() else {
            return (Vec::new(), Vec::new());
        };
        let mut inits = Vec::new();
        let mut sets = Vec::new();
        for c in self.copies() {
            let Some((m, _)) = so.copies.iter().find(|(_, n)| *n == c.p.name) else {
                continue;
            };
            let (cp, cpd) = (names::field_copy(c.k, false), names::field_copy(c.k, true));
            inits.push(quote!(#m: #cp));
            sets.push(quote!(#tout.#m = #cpd;));
        }
        (inits, sets)
    }

    /// `#body` of a reverse companion without a struct output, with copies: run in a closure
    /// (its `return`s give the value), then the copies' adjoints added in.
    pub(super) fn reverse_with_copies(&self, body: TokenStream) -> TokenStream {
        if !self.has_copies() {
            return body;
        }
        let decls = self.copy_decls(Some(Seeds::Zero));
        let epilogue = self.copy_epilogue();
        let v = names::copy_value();
        quote! {
            #decls
            let #v = (|| { #body })();
            #epilogue
            #v
        }
    }
}
