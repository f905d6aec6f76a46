//! `#[differentiate]`: takes an ordinary Rust function, gives it back with `_jvp`, `_vjp` and
//! `_grad` companions generated as plain source.
//!
//! Passes, one folder each: `attr` (options) → `lower` (syn → `ir`, names resolved, shapes from
//! syntax) → `analysis` (activity, usefulness) → `transform` (exit normalisation) → `forward` /
//! `reverse` (emitters, which know no calculus: they call the runtime's rule table) → `codegen`
//! (the primal printer; signatures, stubs on error, the expansion dump). Errors are collected in
//! `diag` and reported together; the macro never panics on user input.
#![forbid(unsafe_code)]

mod analysis;
mod attr;
mod codegen;
mod derive;
mod diag;
mod forward;
mod ir;
mod lower;
mod methods;
mod names;
mod primitives;
mod registry;
mod reverse;
mod struct_rows;
mod testing;
mod transform;

use proc_macro::TokenStream;

/// Generates forward-mode (`<f>_jvp`) and reverse-mode (`<f>_vjp`, `<f>_grad`) derivatives of a
/// function. See the `autodiff-runtime` crate documentation.
#[proc_macro_attribute]
pub fn differentiate(attr: TokenStream, item: TokenStream) -> TokenStream {
    codegen::expand::expand(attr.into(), item.into()).into()
}

/// Not for users: expands parts of `autodiff-runtime` from the primitive table
/// (`primitives.rs`): the `Dual` method lists, build-time checks of the rules and of `Dual`, and
/// the table its tests check the rules against. See `primitives/runtime.rs`.
#[doc(hidden)]
#[proc_macro]
pub fn __primitive_table(input: TokenStream) -> TokenStream {
    primitives::runtime::expand(input.into()).into()
}

/// Derives `autodiff_runtime::Differentiable` for a struct (named, tuple or unit, generic or not):
/// generates its tangent type `<Name>Tangent` (one field per field, typed
/// `<F as Differentiable>::Tangent`) with `Tangent`, `Scale<S>`, `Clone`, `Debug` and
/// `PartialEq`. A field marked `#[differentiable(skip)]` is a constant, with tangent `()`. See
/// `autodiff_runtime::Differentiable` (the derive) and the `derive` module here.
#[proc_macro_derive(Differentiable, attributes(differentiable))]
pub fn derive_differentiable(item: TokenStream) -> TokenStream {
    derive::expand(item.into()).into()
}
