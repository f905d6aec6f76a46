//! The Jacobian companions: takes a function's signature, gives `<f>_jacobian` (dense: one
//! `_jvp` per column when the columns are fewer, else one `_vjp` per row) and
//! `<f>_jacobian_sparse` (one `_jvp` per color of a column coloring of a given pattern).
//!
//! Rows are the output's scalars, then the final contents of each active `&mut` argument, in
//! argument order; columns are the active arguments' scalars (an in-out argument's initial
//! contents), in argument order. Every pass starts from the arguments' initial contents (the
//! in-out ones are copied before the first call and put back before each pass); they end holding
//! what the function leaves in them. The runtime's `jacobian::Flat` reads and writes every value
//! as a flat sequence of scalars, so nothing here switches on shapes but how a buffer is passed.

use super::expand::Signatures;
use crate::ir::*;
use crate::names;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The pieces both companions are made of.
struct Parts {
    /// Copies of the in-out arguments, the call of `f`, the number of rows, the column offsets.
    prelude: TokenStream,
    /// The number of columns.
    cols: Ident,
    /// The zero tangent (or adjoint) buffer of each active argument.
    zeros: Vec<TokenStream>,
    /// Each active argument's unit for column `__ad_k`.
    units: Vec<TokenStream>,
    /// The in-out arguments put back to their initial contents.
    restore: TokenStream,
    /// The `_jvp` call, giving the output's tangent as `__ad_tout` (`()` for a `()` output).
    jvp_call: TokenStream,
    /// Column `__ad_k` filled from the output's tangent and the in-out arguments' tangents.
    set_column: TokenStream,
    /// The in-out arguments' adjoint buffers seeded with row `__ad_r`, and the `_vjp` call.
    vjp_call: TokenStream,
    /// Row `__ad_r` filled from the adjoint buffers.
    set_row: TokenStream,
    /// The in-out arguments given the function's results back.
    finish: TokenStream,
}

impl Signatures<'_> {
    /// The Jacobian companions exist for outputs of several floats (arrays, `Vec`s, tuples) or
    /// active `&mut` arguments, when every argument can be passed again (references, floats,
    /// integers, arrays: the function is called once per row or column).
    pub(super) fn has_jacobian(&self) -> bool {
        let o = &self.f.output;
        let vector = matches!(o.shape, Shape::Seq(_))
            || (matches!(o.shape, Shape::Tuple(_)) && !o.is_unit())
            || self.f.params.iter().any(Param::active_inout);
        let reusable = |p: &Param| match &p.na {
            // A nalgebra argument by `&`, or of a fixed size (`Copy`).
            Some(n) => n.by_ref || (n.rows.is_some() && n.cols.is_some()),
            None => {
                matches!(p.ty, syn::Type::Reference(_))
                    || matches!(
                        p.shape,
                        Shape::Scalar | Shape::Int | Shape::Bool | Shape::Seq(SeqKind::Array(_))
                    )
            }
        };
        let ragged_out = o.nest.as_ref().is_some_and(|n| n.ragged.is_some());
        // Struct arguments by `&` (or `&self`): their tangents are read and written through the
        // derived tangent's `Flat`; not by value (moved) nor by `&mut`.
        let structs_ok = self
            .f
            .params
            .iter()
            .all(|p| p.strukt.is_none() || p.strukt == Some(StructArg::Ref));
        vector
            && !ragged_out
            && structs_ok
            && self.f.output.strukt.is_none()
            && self.f.params.iter().any(|p| p.active)
            && self.f.params.iter().all(reusable)
    }

    /// The headers of `<f>_jacobian` and `<f>_jacobian_sparse`.
    pub(super) fn jacobian_headers(&self) -> Option<(TokenStream, TokenStream)> {
        if !self.has_jacobian() {
            return None;
        }
        let sig = &self.f.item.sig;
        let vis = &self.f.item.vis;
        let name = &sig.ident;
        let (generics, where_c, inputs) = (self.generics(), self.where_clause(), self.inputs());
        let e = self.elem_ty();
        let jm = quote!(::autodiff_runtime::jacobian);
        let out = match self.f.output.is_unit() {
            true => quote!(#jm::Jacobian<#e>),
            false => {
                let o = self.public_out();
                quote!((#o, #jm::Jacobian<#e>))
            }
        };
        let out_sparse = match self.f.output.is_unit() {
            true => quote!(#jm::SparseJacobian<#e>),
            false => {
                let o = self.public_out();
                quote!((#o, #jm::SparseJacobian<#e>))
            }
        };
        let inout_doc = if self.f.params.iter().any(|p| p.inout) {
            " The `&mut` arguments end holding what the function leaves in them; rows after the \
             output's are their final contents, and their columns their initial contents."
        } else {
            ""
        };
        let doc = format!(
            " Value and dense Jacobian of [`{name}`] (rows: the output's scalars; columns: the \
             active arguments' scalars in argument order), by one `{name}_jvp` per column when \
             the columns are fewer, else one `{name}_vjp` per row; generated by \
             `#[differentiate]`.{inout_doc}"
        );
        let doc_s = format!(
            " Value and sparse Jacobian of [`{name}`] on the entries of `pattern` (every entry \
             outside it must be zero), by one `{name}_jvp` per color of a greedy distance-1 \
             coloring of the pattern's columns; generated by `#[differentiate]`.{inout_doc}"
        );
        let jac = names::companion(name, "jacobian");
        let sparse = names::companion(name, "jacobian_sparse");
        let pattern = hidden("pattern");
        let allow = quote!(#[allow(unused_mut, unused_variables, non_snake_case, clippy::all)]);
        Some((
            quote! {
                #[doc = #doc]
                #allow
                #vis fn #jac #generics (#(#inputs),*) -> #out #where_c
            },
            quote! {
                #[doc = #doc_s]
                #allow
                #vis fn #sparse #generics (#(#inputs,)* #pattern: &#jm::Sparsity) -> #out_sparse
                    #where_c
            },
        ))
    }

    /// The body of `<f>_jacobian`.
    pub(super) fn jacobian_body(&self) -> TokenStream {
        let jm = quote!(::autodiff_runtime::jacobian);
        let e = self.elem_ty();
        let p = self.jacobian_parts();
        let Parts {
            prelude,
            cols,
            zeros,
            units,
            restore,
            jvp_call,
            set_column,
            vjp_call,
            set_row,
            finish,
        } = &p;
        let result = self.result(quote!(__ad_jac));
        quote! {
            #prelude
            let mut __ad_jac = #jm::Jacobian::<#e>::zeros(__ad_rows, #cols);
            if #cols <= __ad_rows {
                for __ad_k in 0..#cols {
                    #(#zeros)*
                    #(#units)*
                    #restore
                    #jvp_call
                    #set_column
                }
            } else {
                for __ad_r in 0..__ad_rows {
                    #(#zeros)*
                    #restore
                    #vjp_call
                    #set_row
                }
            }
            #finish
            #result
        }
    }

    /// The body of `<f>_jacobian_sparse`: one `_jvp` per color, its tangent the sum of that
    /// color's unit columns.
    pub(super) fn sparse_jacobian_body(&self) -> TokenStream {
        let jm = quote!(::autodiff_runtime::jacobian);
        let e = self.elem_ty();
        let pattern = hidden("pattern");
        let p = self.jacobian_parts();
        let Parts {
            prelude,
            cols,
            zeros,
            units,
            restore,
            jvp_call,
            ..
        } = &p;
        let colored = units
            .iter()
            .map(|u| quote!(if __ad_color[__ad_k] == __ad_c { #u }));
        let column = self.flat_column();
        let result = self.result(quote!(__ad_jac));
        let finish = &p.finish;
        quote! {
            #prelude
            #jm::check_pattern(#pattern, __ad_rows, #cols);
            let (__ad_ncolors, __ad_color) = #pattern.coloring();
            let mut __ad_compressed = ::std::vec::Vec::with_capacity(__ad_ncolors);
            for __ad_c in 0..__ad_ncolors {
                #(#zeros)*
                for __ad_k in 0..#cols {
                    #(#colored)*
                }
                #restore
                #jvp_call
                __ad_compressed.push(#column);
            }
            let __ad_jac = #jm::SparseJacobian::<#e>::from_compressed(#pattern, __ad_color, &__ad_compressed);
            #finish
            #result
        }
    }

    /// `(value, jacobian)`, or the Jacobian alone for a `()` output.
    fn result(&self, jac: TokenStream) -> TokenStream {
        match self.f.output.is_unit() {
            true => jac,
            false => quote!((__ad_value, #jac)),
        }
    }

    /// The float type of the Jacobian's entries.
    pub(super) fn elem_ty(&self) -> TokenStream {
        self.f.output.elem_ty.to_token_stream()
    }

    /// A column after a `_jvp` call, as a `Vec` of the output's tangent then the in-out
    /// arguments' tangents.
    fn flat_column(&self) -> TokenStream {
        let jm = quote!(::autodiff_runtime::jacobian);
        let e = self.elem_ty();
        let mut parts = Vec::new();
        if !self.f.output.is_unit() {
            parts.push(quote!(__ad_col.extend(#jm::to_flat_vec::<#e, _>(&__ad_tout));));
        }
        for (k, p) in self.active().into_iter().enumerate() {
            if p.inout {
                let t = buf(k);
                parts.push(quote!(__ad_col.extend(#jm::to_flat_vec::<#e, _>(&#t));));
            }
        }
        quote!({
            let mut __ad_col = ::std::vec::Vec::with_capacity(__ad_rows);
            #(#parts)*
            __ad_col
        })
    }

    fn active(&self) -> Vec<&Param> {
        self.f.params.iter().filter(|p| p.active).collect()
    }

    fn jacobian_parts(&self) -> Parts {
        let rt = names::rt();
        let jm = quote!(::autodiff_runtime::jacobian);
        let e = self.elem_ty();
        let name = &self.f.item.sig.ident;
        let (jvp, vjp) = (
            self.call_path(&names::companion(name, "jvp")),
            self.call_path(&names::companion(name, "vjp")),
        );
        let primal = self.call_path(name);
        let unit = self.f.output.is_unit();
        let args: Vec<TokenStream> = self
            .f
            .params
            .iter()
            .map(|p| p.name.to_token_stream())
            .collect();
        let inouts: Vec<&Param> = self.f.params.iter().filter(|p| p.inout).collect();
        // Initial contents of every `&mut` argument (workspaces too: a pass must see what the
        // caller passed), and the final contents, which the function gives back at the end.
        let ini = |k: usize| format_ident!("__ad_ini{}", k);
        let fin = |k: usize| format_ident!("__ad_fin{}", k);
        let mut copies_before = Vec::new();
        let mut copies_after = Vec::new();
        let mut restore = Vec::new();
        let mut finish = Vec::new();
        for (k, p) in inouts.iter().enumerate() {
            let (n, i, f) = (&p.name, ini(k), fin(k));
            copies_before.push(quote!(let #i = ::std::borrow::ToOwned::to_owned(&*#n);));
            copies_after.push(quote!(let #f = ::std::borrow::ToOwned::to_owned(&*#n);));
            restore.push(quote!(#jm::restore::<#e, _, _>(&mut *#n, &#i);));
            finish.push(quote!(#jm::restore::<#e, _, _>(&mut *#n, &#f);));
        }
        let call_value = match unit {
            true => quote!(#primal(#(#args),*);),
            false => quote!(let __ad_value = #primal(#(#args),*);),
        };
        // Rows: the output's scalars, then each active in-out argument's final contents.
        let value_rows = match unit {
            true => quote!(0usize),
            false => quote!(#jm::flat_len::<#e, _>(&__ad_value)),
        };
        let active = self.active();
        let out_at = |k: usize| format_ident!("__ad_q{}", k);
        let mut row_offsets = vec![quote!(let __ad_q0: usize = #value_rows;)];
        let mut last_row = 0;
        let mut out_of = std::collections::HashMap::new();
        for (k, p) in active.iter().enumerate() {
            if !p.inout {
                continue;
            }
            let pos = inouts
                .iter()
                .position(|q| q.name == p.name)
                .unwrap_or_default();
            let (q, q1, f) = (out_at(last_row), out_at(last_row + 1), fin(pos));
            row_offsets.push(quote!(let #q1: usize = #q + #jm::flat_len::<#e, _>(&#f);));
            out_of.insert(k, q);
            last_row += 1;
        }
        let rows_total = out_at(last_row);
        // Columns: the active arguments' scalars.
        let off = |k: usize| format_ident!("__ad_o{}", k);
        let mut col_offsets = vec![quote!(let __ad_o0: usize = 0;)];
        let mut zeros = Vec::new();
        let mut units = Vec::new();
        let mut tangents = Vec::new();
        let mut adjoints = Vec::new();
        let mut seeds = Vec::new();
        let mut set_column = Vec::new();
        let mut set_row = Vec::new();
        if !unit {
            set_column.push(quote!(__ad_jac.set_column_from(__ad_k, 0, &__ad_tout);));
        }
        for (k, p) in active.iter().enumerate() {
            let (o, o1, t, n) = (off(k), off(k + 1), buf(k), &p.name);
            // A struct's scalars are its tangent's (its integer fields have none).
            let len = match p.strukt {
                Some(_) => quote!(&#rt::zero_tangent(#n)),
                None => quote!(&#n),
            };
            col_offsets.push(quote!(let #o1: usize = #o + #jm::flat_len::<#e, _>(#len);));
            zeros.push(quote!(let mut #t = #rt::zero_tangent(&#n);));
            units.push(quote!(#jm::set_unit_in::<#e, _>(&mut #t, #o, __ad_k);));
            let by_ref = matches!(p.ty, syn::Type::Reference(_));
            // An array of arrays of a fixed number of rows is an array here too (its flat form,
            // `&[T]` for `&[[T; C]; R]`, is not what the public companions take).
            let fixed_rows = p.nest.as_ref().is_some_and(|n| n.fixed_rows().is_some());
            let array_or_float =
                fixed_rows || matches!(p.shape, Shape::Seq(SeqKind::Array(_)) | Shape::Scalar);
            // A nalgebra tangent has the argument's type (`&DMatrix<T>`, `Vector3<T>`).
            let na_by = p.na.as_ref().map(|n| n.by_ref);
            tangents.push(match (p.inout, array_or_float || na_by.is_some(), by_ref) {
                // A struct by `&`: its tangent by `&`.
                _ if p.strukt.is_some() => quote!(&#t),
                (false, true, _) if na_by == Some(true) => quote!(&#t),
                (false, true, _) if na_by == Some(false) => quote!(#t),
                // An in-out argument's tangent is `&mut` like the argument.
                (true, true, _) => quote!(&mut #t),
                (true, false, _) => quote!(&mut #t[..]),
                (false, true, true) => quote!(&#t),
                (false, true, false) => quote!(#t),
                (false, false, _) => quote!(&#t[..]),
            });
            adjoints.push(quote!(&mut #t));
            set_row.push(quote!(__ad_jac.set_row_from(__ad_r, #o, &#t);));
            if let Some(q) = out_of.get(&k) {
                // After `_jvp` its buffer holds the tangent of its final contents; before
                // `_vjp` it holds the seed of its final contents.
                set_column.push(quote!(__ad_jac.set_column_from(__ad_k, #q, &#t);));
                seeds.push(quote!(#jm::set_unit_in::<#e, _>(&mut #t, #q, __ad_r);));
            }
        }
        let cols = off(active.len());
        let jvp_call = match unit {
            true => quote!(#jvp(#(#args,)* #(#tangents),*);),
            false => quote!(let (_, __ad_tout) = #jvp(#(#args,)* #(#tangents),*);),
        };
        let seed_value = match unit {
            true => quote!(),
            false => quote! {
                let mut __ad_seed = #rt::zero_tangent(&__ad_value);
                #jm::set_unit_in::<#e, _>(&mut __ad_seed, 0, __ad_r);
            },
        };
        let seed_arg = match (unit, &self.f.output.shape) {
            (true, _) => quote!(),
            // A nalgebra output's seed is the owned type, by value.
            (false, _) if self.f.output.na.is_some() => quote!(__ad_seed),
            (false, Shape::Seq(SeqKind::Vec)) => quote!(&__ad_seed[..]),
            (false, _) => quote!(__ad_seed),
        };
        let vjp_call = quote! {
            #seed_value
            #(#seeds)*
            let _ = #vjp(#(#args,)* #(#adjoints,)* #seed_arg);
        };
        Parts {
            prelude: quote! {
                #(#copies_before)*
                #call_value
                #(#copies_after)*
                #(#row_offsets)*
                let __ad_rows: usize = #rows_total;
                #(#col_offsets)*
            },
            cols,
            zeros,
            units,
            restore: quote!(#(#restore)*),
            jvp_call,
            set_column: quote!(#(#set_column)*),
            vjp_call,
            set_row: quote!(#(#set_row)*),
            finish: quote!(#(#finish)*),
        }
    }
}

/// The tangent (or adjoint) buffer of the `k`-th active argument.
fn buf(k: usize) -> Ident {
    format_ident!("__ad_t{}", k)
}

/// A name of the generated code the user's cannot meet.
fn hidden(name: &str) -> Ident {
    format_ident!("__ad_{}", name, span = Span::mixed_site())
}
