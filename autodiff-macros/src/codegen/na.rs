//! nalgebra arguments and outputs in the companions: takes the IR's nalgebra parameters and
//! output (`lower/na/`: the body works on their flat column-major storage), gives their public
//! types (tangents the type as written, adjoint buffers `&mut` the owned type, gradient fields
//! the owned type), the statements at the top of every companion that rebind each argument, its
//! tangent or its adjoint buffer to the storage (`as_slice`, `as_mut_slice`) after its dimensions
//! were read, and the conversions of the output and its seed (`from_vec`, `from_column_slice`,
//! `as_slice`).

use super::expand::Signatures;
use super::structs::Mode;
use crate::ir::*;
use crate::names;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

impl Signatures<'_> {
    /// The tangent type of a nalgebra argument: the type as written.
    pub(super) fn na_tangent_ty(p: &Param) -> Option<TokenStream> {
        p.na.as_ref().map(|n| n.ty.to_token_stream())
    }

    /// The adjoint type of a nalgebra argument: `&mut` the owned type.
    pub(super) fn na_adjoint_ty(p: &Param) -> Option<TokenStream> {
        p.na.as_ref().map(|n| {
            let o = &n.owned;
            quote!(&mut #o)
        })
    }

    /// The gradient field of a nalgebra argument: the owned type.
    pub(super) fn na_grad_ty(p: &Param) -> Option<TokenStream> {
        p.na.as_ref().map(|n| n.owned.to_token_stream())
    }

    /// The statements rebinding each nalgebra argument and its tangent (forward) or adjoint
    /// buffer (reverse) to its storage; after the dimensions were bound (the field arguments of
    /// the struct prologue).
    pub(super) fn na_prologue(&self, mode: Mode) -> TokenStream {
        // The names the headers give the tangents and adjoints (`shadow_args`).
        let taken = self.taken();
        let mut binds = Vec::new();
        for p in self.f.params.iter().filter(|p| p.na.is_some()) {
            let (name, elem) = (&p.name, Self::elem(p));
            binds.push(if p.inout {
                quote!(let #name: &mut [#elem] = #name.as_mut_slice();)
            } else {
                quote!(let #name: &[#elem] = #name.as_slice();)
            });
            if !p.active {
                continue;
            }
            // From the header's name to the one the emitted body reads (the same unless a field
            // argument takes `d<name>`).
            let d = names::shadow_param(name, &taken);
            let e = names::shadow_param(name, &self.f.taken_names());
            binds.push(match mode {
                Mode::Forward if !p.inout => quote!(let #e: &[#elem] = #d.as_slice();),
                _ => quote!(let #e: &mut [#elem] = #d.as_mut_slice();),
            });
        }
        quote!(#(#binds)*)
    }

    /// The output's storage `v` as the nalgebra type (a `DMatrix` with the dimensions
    /// `na_out_dims` bound).
    pub(super) fn na_from_storage(na: &NaType, v: TokenStream) -> TokenStream {
        let o = &na.owned;
        if na.out_dims.is_some() {
            quote!(<#o>::from_vec(__ad_rows, __ad_cols, #v))
        } else if na.rows.is_some() && na.cols.is_some() {
            quote!(<#o>::from_column_slice(&#v))
        } else {
            quote!(<#o>::from_vec(#v))
        }
    }

    /// For a `DMatrix` output, the statements at the top of a public companion binding its
    /// dimensions (read from the arguments before the call moves them), and checking the seed's.
    pub(super) fn na_out_dims(&self, seed: Option<&syn::Ident>) -> TokenStream {
        let Some((r, c)) = self
            .f
            .output
            .na
            .as_ref()
            .and_then(|na| na.out_dims.as_ref())
        else {
            return TokenStream::new();
        };
        let check = seed.map(|s| {
            quote! {
                ::core::assert_eq!(
                    (#s.nrows(), #s.ncols()),
                    (__ad_rows, __ad_cols),
                    "the seed of a `DMatrix` output must have the output's dimensions"
                );
            }
        });
        quote! {
            let __ad_rows: usize = #r;
            let __ad_cols: usize = #c;
            #check
        }
    }
}
