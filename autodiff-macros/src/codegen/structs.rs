//! Struct arguments in the companions: takes the IR's struct arguments and field arguments
//! (`lower/structs.rs`), gives their public tangent and adjoint types
//! (`<S as Differentiable>::Tangent`, by value, `&` or `&mut` as the argument is passed) and the
//! statements at the top of every companion that check the macro's reading of each field and
//! bind each field argument, and its tangent or adjoint, from the struct and the struct's
//! tangent (the tangent of a derived struct has the struct's field names).

use super::expand::Signatures;
use crate::ir::*;
use crate::names;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// Which companion a prologue is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Forward,
    Reverse,
}

impl Signatures<'_> {
    pub(super) fn has_structs(&self) -> bool {
        self.f.params.iter().any(|p| p.strukt.is_some())
    }

    /// Whether the function is a method (takes `self`): companions are called `Self::f_vjp(..)`.
    pub(super) fn is_method(&self) -> bool {
        self.f
            .item
            .sig
            .inputs
            .iter()
            .any(|a| matches!(a, syn::FnArg::Receiver(_)))
    }

    /// The path a companion is called by from another companion: `f_vjp` or `Self::f_vjp`.
    pub(super) fn call_path(&self, companion: &syn::Ident) -> TokenStream {
        if self.is_method() {
            quote!(Self::#companion)
        } else {
            companion.to_token_stream()
        }
    }

    /// What a method's `_grad` gives (no struct can be declared inside an `impl`): `each` of
    /// its only active argument, or a tuple of them in argument order.
    pub(super) fn method_grads(&self, each: impl Fn(&Param) -> TokenStream) -> TokenStream {
        let items: Vec<TokenStream> = self
            .f
            .params
            .iter()
            .filter(|p| p.active)
            .map(each)
            .collect();
        match items.as_slice() {
            [one] => one.clone(),
            many => quote!((#(#many,)*)),
        }
    }

    /// `<S as Differentiable>::Tangent` of a struct argument (`S` its type behind references).
    fn struct_tangent(p: &Param) -> TokenStream {
        let rt = names::rt();
        let s = match &p.ty {
            syn::Type::Reference(r) => &*r.elem,
            t => t,
        };
        // Spanned at the type: a struct without `#[derive(Differentiable)]` is reported there.
        let span = syn::spanned::Spanned::span(s);
        quote::quote_spanned!(span=> <#s as #rt::Differentiable>::Tangent)
    }

    /// The public tangent type of a struct argument: the tangent by value, `&` or `&mut` as the
    /// argument is passed.
    pub(super) fn struct_tangent_ty(p: &Param) -> Option<TokenStream> {
        let t = Self::struct_tangent(p);
        Some(match p.strukt.as_ref()? {
            StructArg::Value => t,
            StructArg::Ref => quote!(&#t),
            StructArg::MutRef => quote!(&mut #t),
        })
    }

    /// The public adjoint type of a struct argument: `&mut` its tangent.
    pub(super) fn struct_adjoint_ty(p: &Param) -> Option<TokenStream> {
        p.strukt.as_ref()?;
        let t = Self::struct_tangent(p);
        Some(quote!(&mut #t))
    }

    /// The type of a struct argument's field in `<F>Grad`: its tangent.
    pub(super) fn struct_grad_ty(p: &Param) -> Option<TokenStream> {
        p.strukt.as_ref()?;
        Some(Self::struct_tangent(p))
    }

    /// The top of a companion: the checks of the fields' readings, then each field argument
    /// bound from its struct, and its tangent (forward) or adjoint buffer (reverse) from the
    /// struct's.
    pub(super) fn struct_prologue(&self, mode: Mode) -> TokenStream {
        let f = self.f;
        let checks = &f.struct_checks;
        let public = self.taken();
        let taken = f.taken_names();
        let mut binds = Vec::new();
        for p in &f.fields {
            let Some(at) = &p.field else { continue };
            let (root, members, name) = (&at.root, &at.members, &p.name);
            let seq = matches!(p.shape, Shape::Seq(_));
            let flat = at.flat;
            let place = |base: TokenStream, mutable: bool| match (seq, mutable) {
                _ if flat && mutable => quote!(#base #members.as_flattened_mut()),
                _ if flat => quote!(#base #members.as_flattened()),
                (false, false) => quote!(#base #members),
                (false, true) => quote!(&mut #base #members),
                (true, false) => quote!(&#base #members[..]),
                (true, true) => quote!(&mut #base #members[..]),
            };
            if at.copy {
                // The field of a written copy: a borrow of its clone (`codegen/copies.rs`).
                let d = names::shadow_param(name, &taken);
                binds.extend(self.copy_bind(p, &d));
                continue;
            }
            if at.lent {
                // A field of a struct lent whole: rebound around each lending call, its tangent
                // or adjoint bound by the emitters through the struct's (`codegen/lend.rs`).
                let value = place(root.to_token_stream(), seq);
                binds.push(quote!(let mut #name = #value;));
                continue;
            }
            let value = place(root.to_token_stream(), p.inout);
            binds.push(quote!(let #name = #value;));
            if !p.active {
                continue;
            }
            let droot = names::shadow_param(root, &public).to_token_stream();
            let d = names::shadow_param(name, &taken);
            let shadow = match mode {
                Mode::Forward => place(droot, p.inout),
                Mode::Reverse => place(droot, true),
            };
            binds.push(quote!(let #d = #shadow;));
        }
        quote!(#(#checks)* #(#binds)*)
    }
}

impl Signatures<'_> {
    /// `<S as Differentiable>::Tangent` of a struct output `S`, spanned at the output type (a
    /// struct without `#[derive(Differentiable)]` is reported there).
    pub(super) fn struct_out_tangent(&self) -> Option<TokenStream> {
        let so = self.f.output.strukt.as_ref()?;
        let rt = names::rt();
        let s = &so.ty;
        let span = syn::spanned::Spanned::span(s);
        Some(quote::quote_spanned!(span=> <#s as #rt::Differentiable>::Tangent))
    }

    /// The bodies of `_jvp`, `_vjp` and `_vjp_dropped` of a function with a struct output, given
    /// the prologues and the bodies the emitters wrote for the tuple of its float fields: each
    /// prologue and body run in a closure (its `return`s give the tuple; the prologue's borrows
    /// of a struct tangent's fields end with it), and the struct is built from the tuple and the
    /// constant fields, computed before the closure from the arguments as written, and the fields
    /// of `..base` (a struct argument). Its tangent is a zero tangent, or the base's tangent,
    /// with the float fields set (the constant ones zeroed); in reverse mode the seed of the
    /// fields the base gives is added into the base's adjoint.
    pub(super) fn struct_out_bodies(
        &self,
        (pf, pr): (&TokenStream, &TokenStream),
        fwd: TokenStream,
        rev: TokenStream,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let rt = names::rt();
        let o = &self.f.output;
        let Some(so) = o.strukt.as_ref() else {
            return (quote!(#pf #fwd), quote!(#pr #rev), quote!());
        };
        if so.whole {
            // A struct held whole (`let a = step(s, dt); a`): the emitters' value and tangent
            // are the struct's; the seed an `Option`, `None` in `_vjp_dropped` (a zero shaped
            // like the value, `__private::struct_seed`).
            let public_seed = names::seed(&self.taken());
            let inner_seed = names::seed(&self.f.taken_names());
            let decls = self.copy_decls(None);
            let body = self.reverse_with_copies(quote!(#pr #rev));
            let vjp = quote! {
                let #inner_seed = ::core::option::Option::Some(#public_seed);
                #body
            };
            let dropped = quote! {
                let #inner_seed = ::core::option::Option::None;
                let _ = { #body };
            };
            return (quote!(#decls #pf #fwd), vjp, dropped);
        }
        let (v, t, out, tout, rest) = (
            names::struct_out("v"),
            names::struct_out("t"),
            names::struct_out("out"),
            names::struct_out("tout"),
            names::struct_out("rest"),
        );
        let one = so.floats.len() == 1;
        let part = |base: &syn::Ident, i: usize| -> TokenStream {
            if one {
                quote!(#base)
            } else {
                let i = syn::Index::from(i);
                quote!(#base.#i)
            }
        };
        // The base argument, its value as the struct update takes it (a clone of a `&State`:
        // `..*s` would move its non-`Copy` fields, `Vec`s, out of the borrow), and its tangent
        // (forward) or adjoint buffer (reverse).
        let public = self.taken();
        let base = so.base.as_ref().and_then(|b| {
            let p = self.f.params.iter().find(|p| p.name == *b)?;
            let value = match p.strukt {
                Some(StructArg::Ref) => quote!(::core::clone::Clone::clone(#b)),
                _ => quote!(#b),
            };
            let d = names::shadow_param(b, &public);
            let tangent = match p.strukt {
                Some(StructArg::Ref) => quote!(::core::clone::Clone::clone(#d)),
                _ => quote!(#d),
            };
            Some((value, tangent, d, p.active))
        });
        let mut consts = Vec::new();
        let mut inits = Vec::new();
        let mut zeroed = Vec::new();
        for (i, (m, tokens, e)) in so.consts.iter().enumerate() {
            let c = names::struct_out(&format!("c{i}"));
            let span = syn::spanned::Spanned::span(tokens);
            consts.push(quote::quote_spanned!(span=> let #c = #e;));
            inits.push(quote::quote_spanned!(span=> #m: #c));
            zeroed.push(quote!(#m));
        }
        let mut checks = Vec::new();
        let mut sets = Vec::new();
        let mut seeds = Vec::new();
        for (i, ((m, tokens), shape)) in so.floats.iter().zip(self.float_shapes()).enumerate() {
            let span = syn::spanned::Spanned::span(tokens);
            let (pv, pt) = (part(&v, i), part(&t, i));
            inits.push(quote::quote_spanned!(span=> #m: #pv));
            let check = match shape {
                Shape::Seq(_) => quote!(float_seq_field),
                _ => quote!(float_field),
            };
            checks.push(quote::quote_spanned!(span=> #rt::#check(&#out.#m);));
            sets.push(quote::quote_spanned!(span=> #tout.#m = #pt;));
            seeds.push(quote!(#m));
        }
        // Fields given by copies whose elements the body wrote (`codegen/copies.rs`).
        let (copy_inits, copy_sets) = self.copy_outputs(&tout);
        inits.extend(copy_inits);
        sets.extend(copy_sets);
        for (m, _) in &so.copies {
            zeroed.push(quote!(#m));
        }
        let value = match (&so.path, &base) {
            (Some(path), Some((b, ..))) => quote!(#path { #(#inits,)* ..#b }),
            (Some(path), None) => quote!(#path { #(#inits,)* }),
            // `s` returned whole.
            (None, Some((b, ..))) => b.clone(),
            (None, None) => quote!(::core::unreachable!()),
        };
        let build = quote! {
            let #out = #value;
            #(#checks)*
        };
        let tangent = match &base {
            Some((_, bt, _, true)) => quote! {
                let mut #tout = #bt;
                #(#rt::set_zero(&mut #tout.#zeroed);)*
            },
            _ => quote!(let mut #tout = #rt::zero_tangent(&#out);),
        };
        let decls = self.copy_decls(None);
        let jvp = quote! {
            #(#consts)*
            #decls
            let (#v, #t) = (|| { #pf #fwd })();
            #build
            #tangent
            #(#sets)*
            (#out, #tout)
        };
        // The public seed, kept under a name of its own (the emitters' may be the same).
        let public_seed = names::seed(&self.taken());
        let seed = names::struct_out("seed");
        let inner_seed = names::seed(&self.f.taken_names());
        let seed_parts = match seeds.as_slice() {
            // No float field listed: the emitters' output is a constant.
            [] => quote!(0.0_f64),
            [m] => quote!(#seed.#m),
            ms => quote!((#(#seed.#ms,)*)),
        };
        // The seed of the fields the base gives, added into its adjoint.
        let to_base = match &base {
            Some((_, _, d, true)) => quote! {
                let mut #rest = #seed;
                #(#rt::set_zero(&mut #rest.#seeds);)*
                #(#rt::set_zero(&mut #rest.#zeroed);)*
                #rt::accumulate(#d, &#rest);
            },
            _ => quote!(),
        };
        let seeded = self.copy_decls(Some(super::copies::Seeds::Output(&seed)));
        let epilogue = self.copy_epilogue();
        let vjp = quote! {
            #(#consts)*
            let #seed = #public_seed;
            #seeded
            let #inner_seed = #seed_parts;
            let #v = (|| { #pr #rev })();
            #epilogue
            #to_base
            #build
            #out
        };
        // Zeros typed by the fields (a seed nothing else reads has no type otherwise).
        let s = &so.ty;
        let zeros: Vec<TokenStream> = so
            .floats
            .iter()
            .zip(self.float_shapes())
            .map(|((m, _), shape)| match shape {
                Shape::Seq(SeqKind::Array(n)) => {
                    quote!([#rt::zero_field::<#s, _>(|t| &t.#m[0]); #n])
                }
                _ => quote!(#rt::zero_field::<#s, _>(|t| &t.#m)),
            })
            .collect();
        let zero = match zeros.as_slice() {
            [] => quote!(0.0_f64),
            [z] => z.clone(),
            zs => quote!((#(#zs,)*)),
        };
        let zeroed_copies = self.copy_decls(Some(super::copies::Seeds::Zero));
        let dropped = quote! {
            let #inner_seed = #zero;
            #zeroed_copies
            let _ = (|| { #pr #rev })();
            #epilogue
        };
        (jvp, vjp, dropped)
    }

    /// The shapes of a struct output's float fields, in order.
    fn float_shapes(&self) -> Vec<Shape> {
        match &self.f.output.shape {
            Shape::Tuple(items) => items.clone(),
            s => vec![s.clone()],
        }
    }
}
