//! Companions of functions with nested array arguments or outputs (`[[T; C]; R]`, `&[[T; C]]`,
//! `&mut [[T; C]]`, `Vec<[T; C]>`): takes the signatures and the bodies the emitters wrote for the
//! flat form (`lower/nested.rs`), gives hidden inner companions with flat signatures
//! (`__ad_flat_<f>_jvp`, `__ad_flat_<f>_vjp`) and the public `<f>_jvp`, `<f>_vjp`,
//! `<f>_vjp_dropped` with the types as written, which flatten arguments, tangents, adjoint
//! buffers and seeds (borrowing where they can: `as_flattened`, `as_flattened_mut`) and give
//! outputs back as rows.

use super::expand::Signatures;
use crate::ir::*;
use crate::names;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

impl Signatures<'_> {
    /// Whether an argument or the output is a nested array.
    pub(super) fn is_nested(&self) -> bool {
        self.f.params.iter().any(|p| p.nest.is_some())
            || self.f.output.nest.is_some()
            || self.f.output.na.is_some()
    }

    /// The public tangent type of a nested argument (the argument's own type; `&[[T; C]]` for a
    /// `Vec` by value; the adjoint's type for an in-out one).
    pub(super) fn nested_tangent_ty(p: &Param) -> Option<TokenStream> {
        let n = p.nest.as_ref()?;
        if n.ragged.is_some() {
            let e = Self::elem(p);
            let m = p.inout.then(|| quote!(mut));
            return Some(quote!(&#m [::std::vec::Vec<#e>]));
        }
        if p.inout {
            return Self::nested_adjoint_ty(p);
        }
        let (e, c) = (Self::elem(p), &n.row);
        Some(match &n.ty {
            syn::Type::Path(_) => quote!(&[[#e; #c]]),
            t => t.to_token_stream(),
        })
    }

    /// The public adjoint type of a nested argument: `&mut [[T; C]; R]` for arrays (by value or
    /// by reference), `&mut [[T; C]]` otherwise.
    pub(super) fn nested_adjoint_ty(p: &Param) -> Option<TokenStream> {
        let n = p.nest.as_ref()?;
        let (e, c) = (Self::elem(p), &n.row);
        if n.ragged.is_some() {
            return Some(quote!(&mut [::std::vec::Vec<#e>]));
        }
        Some(match n.fixed_rows() {
            Some(r) => quote!(&mut [[#e; #c]; #r]),
            None => quote!(&mut [[#e; #c]]),
        })
    }

    /// The gradient struct's field of a nested argument: `[[T; C]; R]` or `Vec<[T; C]>`.
    pub(super) fn nested_grad_ty(p: &Param) -> Option<TokenStream> {
        let n = p.nest.as_ref()?;
        let (e, c) = (Self::elem(p), &n.row);
        if n.ragged.is_some() {
            return Some(quote!(::std::vec::Vec<::std::vec::Vec<#e>>));
        }
        Some(match n.fixed_rows() {
            Some(r) => quote!([[#e; #c]; #r]),
            None => quote!(::std::vec::Vec<[#e; #c]>),
        })
    }

    /// The inner companions' arguments: the function's own, with nested types flattened.
    pub(super) fn flat_inputs(&self) -> Vec<TokenStream> {
        self.f
            .item
            .sig
            .inputs
            .iter()
            .map(|i| match i {
                syn::FnArg::Typed(pt) => {
                    let p = self.f.params.iter().find(|p| match &*pt.pat {
                        syn::Pat::Ident(pi) => pi.ident == p.name,
                        _ => false,
                    });
                    match p {
                        Some(p) if p.nest.is_some() => {
                            let (pat, ty) = (&pt.pat, &p.ty);
                            // A ragged argument's row offsets follow its flat storage.
                            let off = self.offsets_of(p).map(|o| quote!(, #o: &[usize]));
                            quote!(#pat: #ty #off)
                        }
                        _ => i.to_token_stream(),
                    }
                }
                other => other.to_token_stream(),
            })
            .chain(
                self.out_rows()
                    .map(|r| quote!(#r: &mut ::std::vec::Vec<usize>)),
            )
            .collect()
    }

    /// The argument an output holding rows of `Vec`s writes its row offsets into.
    fn out_rows(&self) -> Option<&syn::Ident> {
        let rows = self.f.output.nest.as_ref()?.ragged?;
        Some(&self.f.vars[rows].name)
    }

    /// The public type of the output (`[[T; C]; R]`, `Vec<[T; C]>`, or the flat one's).
    pub(super) fn public_out(&self) -> TokenStream {
        match (&self.f.output.nest, &self.f.output.na) {
            (Some(n), _) => n.ty.to_token_stream(),
            (None, Some(na)) => na.owned.to_token_stream(),
            (None, None) => self.f.output.ty.to_token_stream(),
        }
    }

    /// The public seed type: the output's type, `&[[T; C]]` for a `Vec<[T; C]>` output.
    pub(super) fn public_seed_ty(&self) -> TokenStream {
        let o = &self.f.output;
        if let Some(na) = &o.na {
            return na.owned.to_token_stream();
        }
        match (&o.nest, &o.shape) {
            (Some(n), _) if n.ragged.is_some() => {
                let e = &o.elem_ty;
                quote!(&[::std::vec::Vec<#e>])
            }
            (Some(n), Shape::Seq(SeqKind::Vec)) => {
                let (e, c) = (&o.elem_ty, &n.row);
                quote!(&[[#e; #c]])
            }
            (Some(n), _) => n.ty.to_token_stream(),
            (None, _) => self.seed_ty(),
        }
    }

    /// A public argument in the inner companions' flat form: `name` of parameter `p` (an
    /// argument, `tangent` or adjoint buffer).
    fn flat_arg(p: &Param, name: &syn::Ident, role: Role) -> TokenStream {
        let rt = names::rt();
        if p.nest.is_none() {
            return quote!(#name);
        }
        let by_value_array = matches!(p.shape, Shape::Seq(SeqKind::Array(_)));
        let by_value_vec = matches!(p.shape, Shape::Seq(SeqKind::Vec));
        match role {
            Role::Arg if by_value_array => quote!(#rt::flatten(#name)),
            Role::Arg if by_value_vec => quote!(::std::vec::Vec::into_flattened(#name)),
            Role::Arg if p.inout => quote!(#name.as_flattened_mut()),
            Role::Arg => quote!(#name.as_flattened()),
            Role::Tangent if p.inout => quote!(#name.as_flattened_mut()),
            Role::Tangent if by_value_array => quote!(#rt::flatten(#name)),
            Role::Tangent => quote!(#name.as_flattened()),
            Role::Adjoint => match &p.shape {
                Shape::Seq(SeqKind::Array(n)) => {
                    quote!(#rt::row_mut::<_, #n>(#name.as_flattened_mut()))
                }
                _ => quote!(#name.as_flattened_mut()),
            },
        }
    }

    /// A value of the flat output as the public type.
    fn nest_output(&self, v: TokenStream) -> TokenStream {
        let rt = names::rt();
        let o = &self.f.output;
        if let Some(na) = &o.na {
            return Self::na_from_storage(na, v);
        }
        match (&o.nest, &o.shape) {
            (Some(n), _) if n.ragged.is_some() => {
                let rows = names::local("rgo", 0);
                quote!(#rt::ragged::unflatten(&#v, &#rows))
            }
            (Some(n), Shape::Seq(SeqKind::Vec)) => {
                let c = &n.row;
                quote!(#rt::unflatten_vec::<_, #c>(#v))
            }
            (Some(_), _) => quote!(#rt::unflatten(#v)),
            (None, _) => v,
        }
    }

    /// The public seed in the flat form.
    fn flat_seed(&self, seed: &syn::Ident) -> TokenStream {
        let rt = names::rt();
        let o = &self.f.output;
        if o.na.is_some() {
            return quote!(#seed.as_slice());
        }
        match (&o.nest, &o.shape) {
            (Some(n), _) if n.ragged.is_some() => quote!(&#rt::ragged::flatten(#seed)[..]),
            (Some(_), Shape::Seq(SeqKind::Vec)) => quote!(#seed.as_flattened()),
            (Some(_), _) => quote!(#rt::flatten(#seed)),
            (None, _) => quote!(#seed),
        }
    }

    /// The bodies of the public `_jvp`, `_vjp` and `_vjp_dropped`, which call the inner ones.
    pub(super) fn nested_bodies(&self) -> (TokenStream, TokenStream, TokenStream) {
        let name = &self.f.item.sig.ident;
        let taken = self.taken();
        let args: Vec<TokenStream> = self
            .f
            .params
            .iter()
            .map(|p| Self::flat_arg(p, &p.name, Role::Arg))
            .collect();
        let active: Vec<&Param> = self.f.params.iter().filter(|p| p.active).collect();
        let tans = active.iter().map(|p| {
            let d = names::shadow_param(&p.name, &taken);
            Self::flat_arg(p, &d, Role::Tangent)
        });
        let adjs: Vec<TokenStream> = active
            .iter()
            .map(|p| {
                let d = names::shadow_param(&p.name, &taken);
                Self::flat_arg(p, &d, Role::Adjoint)
            })
            .collect();
        let unit = self.f.output.is_unit();
        let jvp = self.call_path(&names::flat_companion(name, "jvp"));
        let vjp = self.call_path(&names::flat_companion(name, "vjp"));
        let jvp_body = if unit {
            quote!(#jvp(#(#args,)* #(#tans),*))
        } else {
            let (v, t) = (quote!(__ad_v), quote!(__ad_t));
            let (nv, nt) = (self.nest_output(v.clone()), self.nest_output(t.clone()));
            let dims = self.na_out_dims(None);
            quote! {
                #dims
                let (#v, #t) = #jvp(#(#args,)* #(#tans),*);
                (#nv, #nt)
            }
        };
        let seed = names::seed(&taken);
        let vjp_body = if unit {
            quote!(#vjp(#(#args,)* #(#adjs),*))
        } else {
            let s = self.flat_seed(&seed);
            let v = self.nest_output(quote!(#vjp(#(#args,)* #(#adjs,)* #s)));
            let dims = self.na_out_dims(Some(&seed));
            quote!(#dims #v)
        };
        let zero = match &self.f.output.shape {
            _ if unit => None,
            Shape::Seq(SeqKind::Vec) => Some(quote!(&[])),
            s => Some(crate::reverse::zero_adjoint(s)),
        };
        let dropped_body = quote!(let _ = #vjp(#(#args,)* #(#adjs,)* #zero););
        (jvp_body, vjp_body, dropped_body)
    }
}

#[derive(Clone, Copy)]
enum Role {
    Arg,
    Tangent,
    Adjoint,
}

impl Signatures<'_> {
    /// Whether an argument is ragged (`&[Vec<T>]`, `Vec<Vec<T>>`...).
    pub(super) fn has_ragged(&self) -> bool {
        self.out_rows().is_some()
            || self
                .f
                .params
                .iter()
                .any(|p| p.nest.as_ref().is_some_and(|n| n.ragged.is_some()))
    }

    /// The name of a ragged argument's row offsets (its field argument).
    fn offsets_of(&self, p: &Param) -> Option<&syn::Ident> {
        let off = p.nest.as_ref()?.ragged?;
        Some(&self.f.vars[off].name)
    }

    /// The bodies of the public `_jvp` and `_vjp` of a function with ragged arguments: each
    /// ragged argument, tangent and adjoint buffer copied into flat storage (tangents and
    /// buffers checked to have the argument's row lengths) and its row offsets computed, the
    /// inner companion called, then what it wrote (in-out arguments, their tangents, adjoint
    /// buffers) copied back into the rows.
    pub(super) fn ragged_bodies(&self) -> (TokenStream, TokenStream) {
        let rt = names::rt();
        let name = &self.f.item.sig.ident;
        let taken = self.taken();
        let mut pre = Vec::new();
        let mut args = Vec::new();
        let mut back = Vec::new();
        for (k, p) in self.f.params.iter().enumerate() {
            let n = &p.name;
            let Some(off) = self.offsets_of(p) else {
                args.push(Self::flat_arg(p, n, Role::Arg));
                continue;
            };
            let flat = names::local("rgf", k);
            pre.push(quote! {
                let #off: ::std::vec::Vec<usize> = #rt::ragged::offsets(&#n);
                let mut #flat = #rt::ragged::flatten(&#n);
            });
            args.push(match &p.shape {
                Shape::Seq(SeqKind::Vec) => quote!(#flat),
                _ if p.inout => quote!(&mut #flat[..]),
                _ => quote!(&#flat[..]),
            });
            args.push(quote!(&#off[..]));
            if p.inout {
                back.push(quote!(#rt::ragged::write_back(&mut *#n, &#flat);));
            }
        }
        // The tangents (forward) or adjoint buffers (reverse) in the flat form.
        let buffers = |reverse: bool, pre: &mut Vec<TokenStream>, back: &mut Vec<TokenStream>| {
            let mut out = Vec::new();
            for (k, p) in self.f.params.iter().enumerate().filter(|(_, p)| p.active) {
                let d = names::shadow_param(&p.name, &taken);
                let Some(off) = self.offsets_of(p) else {
                    let role = if reverse {
                        Role::Adjoint
                    } else {
                        Role::Tangent
                    };
                    out.push(Self::flat_arg(p, &d, role));
                    continue;
                };
                let flat = names::local("rgd", k);
                let (what, of) = (d.to_string(), p.name.to_string());
                pre.push(quote! {
                    let mut #flat = #rt::ragged::flatten_like(&#d, &#off, #what, #of);
                });
                if reverse || p.inout {
                    out.push(quote!(&mut #flat[..]));
                    back.push(quote!(#rt::ragged::write_back(&mut *#d, &#flat);));
                } else {
                    out.push(quote!(&#flat[..]));
                }
            }
            out
        };
        // An output holding rows of `Vec`s: its row offsets, written by the inner companion.
        if self.out_rows().is_some() {
            let rows = names::local("rgo", 0);
            pre.push(quote!(let mut #rows: ::std::vec::Vec<usize> = ::std::vec::Vec::new();));
            args.push(quote!(&mut #rows));
        }
        let unit = self.f.output.is_unit();
        let jvp = self.call_path(&names::flat_companion(name, "jvp"));
        let vjp = self.call_path(&names::flat_companion(name, "vjp"));
        let (mut jpre, mut jback) = (pre.clone(), back.clone());
        let tans = buffers(false, &mut jpre, &mut jback);
        let (v, t) = (names::local("rgv", 0), names::local("rgt", 0));
        let jvp_body = if unit {
            quote! {
                #(#jpre)*
                #jvp(#(#args,)* #(#tans),*);
                #(#jback)*
            }
        } else {
            let (nv, nt) = (
                self.nest_output(v.to_token_stream()),
                self.nest_output(t.to_token_stream()),
            );
            quote! {
                #(#jpre)*
                let (#v, #t) = #jvp(#(#args,)* #(#tans),*);
                #(#jback)*
                (#nv, #nt)
            }
        };
        let (mut vpre, mut vback) = (pre, back);
        let adjs = buffers(true, &mut vpre, &mut vback);
        let seed = names::seed(&taken);
        let vjp_body = if unit {
            quote! {
                #(#vpre)*
                #vjp(#(#args,)* #(#adjs),*);
                #(#vback)*
            }
        } else {
            let s = self.flat_seed(&seed);
            let nv = self.nest_output(v.to_token_stream());
            // The seed's rows are checked against the output's once they are known.
            let check = self.out_rows().map(|_| {
                let rows = names::local("rgo", 0);
                quote!(#rt::ragged::check_seed(#seed, &#rows);)
            });
            quote! {
                #(#vpre)*
                let #v = #vjp(#(#args,)* #(#adjs,)* #s);
                #check
                #(#vback)*
                #nv
            }
        };
        (jvp_body, vjp_body)
    }
}
