//! Split mode (`#[differentiate(split)]`): takes the analysed function, gives
//! `<f>_vjp_split(args..) -> (value, pullback)`, the forward sweep run once and the reverse sweep
//! as a closure `pullback(d<arg>.., seed)` with `<f>_vjp`'s adjoint arguments and seed, callable
//! any number of times.
//!
//! The closure owns what the reverse sweep reads of the forward sweep (tapes, saved values,
//! restored sequences, the arguments) and works on a copy of it at each call, since the sweep
//! pops tapes and restores sequences as it goes. Every reference argument gets the lifetime
//! `'__ad_a`, which the returned closure may capture.

use super::dump::IrDump;
use super::expand::Signatures;
use crate::diag::Diag;
use crate::ir::*;
use crate::{names, reverse};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;

/// `<f>_vjp_split`, or `None` after reporting why `f` has none.
pub fn companion(
    f: &Function,
    split: &syn::Ident,
    diag: &mut Diag,
    dump: &mut IrDump,
) -> Option<TokenStream> {
    let before = diag.has_errors();
    check(f, split, diag);
    if diag.has_errors() != before {
        return None;
    }
    let parts = reverse::emit_split(f, diag, dump)?;
    let sigs = Signatures { f };
    Some(sigs.split_fn(parts))
}

fn check(f: &Function, split: &syn::Ident, diag: &mut Diag) {
    let sigs = Signatures { f };
    let why = if f.params.iter().any(|p| p.inout) {
        Some("`&mut` arguments")
    } else if f.output.is_unit() {
        Some("a function without an output")
    } else if sigs.is_method() || sigs.has_structs() {
        Some("methods and struct arguments")
    } else if f.output.strukt.is_some() {
        Some("struct outputs")
    } else if f.uses_na() {
        Some("nalgebra values")
    } else if sigs.has_ragged() {
        Some("sequences of `Vec`s (`&[Vec<T>]`, `Vec<Vec<T>>`)")
    } else if sigs.is_nested() {
        Some("arrays of arrays")
    } else if f
        .item
        .sig
        .generics
        .params
        .iter()
        .any(|g| matches!(g, syn::GenericParam::Lifetime(_)))
    {
        Some("lifetime parameters")
    } else {
        None
    };
    if let Some(what) = why {
        diag.unsupported_at(
            split,
            &format!("split mode (`split`) on functions with {what}"),
            "call `_vjp` once per seed",
        );
    }
}

/// The lifetime every reference argument of `<f>_vjp_split` gets.
fn lifetime() -> syn::Lifetime {
    syn::Lifetime::new("'__ad_a", proc_macro2::Span::call_site())
}

/// Gives each elided reference lifetime the split function's lifetime.
struct Elided;

impl VisitMut for Elided {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(lifetime());
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
}

impl Signatures<'_> {
    fn split_fn(&self, parts: reverse::Split) -> TokenStream {
        let vis = &self.f.item.vis;
        let name = &self.f.item.sig.ident;
        let split = names::companion(name, "vjp_split");
        let a = lifetime();
        let gparams = &self.f.item.sig.generics.params;
        let types: Vec<&syn::Ident> = gparams
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) => Some(&t.ident),
                _ => None,
            })
            .collect();
        let where_c = self.where_clause();
        let outlives = quote!(#(#types: #a,)*);
        let where_c = match (where_c.is_empty(), types.is_empty()) {
            (_, true) => where_c,
            (true, false) => quote!(where #outlives),
            (false, false) => quote!(#where_c #outlives),
        };
        let inputs: Vec<TokenStream> = self
            .f
            .item
            .sig
            .inputs
            .iter()
            .map(|i| {
                let mut i = i.clone();
                Elided.visit_fn_arg_mut(&mut i);
                i.to_token_stream()
            })
            .collect();
        let out = self.public_out();
        let taken = self.taken();
        let active: Vec<&Param> = self.f.params.iter().filter(|p| p.active).collect();
        let adj_names: Vec<syn::Ident> = active
            .iter()
            .map(|p| names::shadow_param(&p.name, &taken))
            .collect();
        let adj_tys: Vec<TokenStream> = active.iter().map(|p| Self::pub_adjoint_ty(p)).collect();
        let seed = names::seed(&taken);
        let seed_ty = self.public_seed_ty();
        let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code, non_snake_case, clippy::all)]);
        let doc = format!(
            " Split reverse mode of [`{name}`]: runs the forward sweep once and gives the value \
             and the pullback `pb(d<arg>.., {seed})`, which ADDS `{seed}` times the derivative \
             into each adjoint buffer like `{name}_vjp`, as often as it is called, generated by \
             `#[differentiate(split)]`."
        );
        let reverse::Split {
            fwd,
            rev,
            ret,
            captured,
        } = parts;
        quote! {
            #[doc = #doc]
            #allow
            #vis fn #split <#a, #gparams> (#(#inputs),*)
                -> (#out, impl Fn(#(#adj_tys,)* #seed_ty) + #a) #where_c
            {
                #fwd
                let __ad_value = ::core::clone::Clone::clone(&#ret);
                let __ad_pullback = move |#(#adj_names: #adj_tys,)* #seed: #seed_ty| {
                    // The sweep pops tapes and restores sequences: it works on copies.
                    #(let mut #captured = ::core::clone::Clone::clone(&#captured);)*
                    #rev
                };
                (__ad_value, __ad_pullback)
            }
        }
    }
}
