//! `#[derive(Differentiable)]`: takes a struct (named, tuple or unit; generic or not), gives its
//! tangent type `<Name>Tangent` and the runtime's three value traits for the pair, so the struct
//! can be used wherever the runtime takes values (`zero_tangent`, `accumulate`, `scale`, ...).
//!
//! Phases, one file each (as serde_derive does): `model` (the input: fields, `Self` replaced,
//! `#[differentiable(...)]` options, enums and unions refused), `bounds` (which generic
//! parameters the tangent keeps, the where-clauses each impl needs, fresh names), `emit` (the
//! tokens). Errors are collected in a [`Diag`] and reported together; when only an attribute is
//! wrong the struct is still expanded (as if the attribute were absent), so that one mistake does
//! not turn into "`Name: Differentiable` is not satisfied" at every use.
//!
//! What is generated for `struct Name<P..> where W { f: F, .. }`:
//!
//! - `struct NameTangent<P'..> where W', F: Differentiable.. { f: <F as Differentiable>::Tangent }`,
//!   same visibility, same field names, positions and visibilities. Field types are projections,
//!   so the derive needs to know no types (`usize` gives `()`); a field marked
//!   `#[differentiable(skip)]` gets `()`. `P'` are the parameters some non-skipped field
//!   mentions (a parameter only in skipped fields, say of a `PhantomData<U>`, would be unused);
//!   `W'` the original predicates that mention only those. `F: Differentiable` is added for the
//!   field types that mention a parameter (predicates on a bare parameter go into its own bounds,
//!   `T: Copy + Differentiable`); a field type that mentions none is checked where it stands, so
//!   a field that is not differentiable is an error at its type, not a where-clause rustc refuses
//!   as a trivially false bound. A field type that spells the struct's name (`Vec<Self>`) gets
//!   no predicate: proving it would need the impl being defined (rustc overflows).
//! - `impl Differentiable for Name` (zero tangent field by field), `impl Tangent for NameTangent`
//!   and `impl<S: Copy> Scale<S> for NameTangent where <F as Differentiable>::Tangent: Scale<S>..`,
//!   the field calls in function-call form (`Tangent::accumulate(&mut self.f, &other.f)`: the
//!   method form trips `clippy::unit_arg` on `()` fields).
//! - `Clone`, `Debug` and `PartialEq` for the tangent, written out rather than derived:
//!   `#[derive(Clone)]` would ask `T: Clone` of a parameter whose tangent, not itself, is cloned.
//!   `Clone` needs nothing (every tangent is `Clone`); `Debug` and `PartialEq` are bounded by
//!   `<F as Differentiable>::Tangent: Debug` for field types with parameters and, like a derived
//!   `Debug`, require it of the others (an error at that field if a hand-written tangent lacks
//!   it). Bounding those too would need `for<'a>` to get past rustc's refusal of trivially false
//!   bounds, and then overflows on mutually recursive structs.
//!
//! Generated code names only `::autodiff_runtime::...` and `::core::...`; its method parameters
//! are `__ad_`-prefixed and `Span::mixed_site()` (a user constant named `other` or `s` would
//! turn a parameter spelt like it into a constant pattern), and its own type parameter is chosen
//! not to be spelt like any name in the input.

mod bounds;
mod emit;
mod model;

use crate::diag::Diag;
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[derive(Differentiable)]` on `input` (the item the derive is on).
pub fn expand(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        // rustc only hands derives structs, enums and unions it has parsed itself.
        Err(e) => return e.to_compile_error(),
    };
    let mut diag = Diag::default();
    let model = model::Input::from_syn(&input, &mut diag);
    if let Some(m) = &model {
        // Rows of fields that are arrays of arrays, for `#[differentiate]` functions later in
        // the crate (`struct_rows.rs`).
        let fields: Vec<(String, &syn::Type)> = m
            .fields
            .iter()
            .filter_map(|f| match &f.member {
                syn::Member::Named(n) => Some((n.to_string(), &f.ty)),
                syn::Member::Unnamed(_) => None,
            })
            .collect();
        crate::struct_rows::record(&m.ident.to_string(), &fields);
    }
    let generated = model.map(|m| emit::expand(&m)).unwrap_or_default();
    match diag.finish() {
        Ok(()) => generated,
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#errors #generated)
        }
    }
}

#[cfg(test)]
mod tests;
