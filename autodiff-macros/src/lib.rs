//! `#[differentiate]`: takes an ordinary Rust function, gives it back with `_jvp`, `_vjp` and
//! `_grad` companions generated as plain source.
//!
//! Phases, one module each: `attr` (options) → `lower` (syn → `ir`, names resolved, shapes from
//! syntax) → `activity` → `forward` / `reverse` (emitters, which know no calculus: they call the
//! runtime's rule table) → `expand` (signatures, stubs on error). Errors are collected in `diag`
//! and reported together; the macro never panics on user input.
#![forbid(unsafe_code)]

mod activity;
mod attr;
mod chains;
mod diag;
mod expand;
mod forward;
mod ir;
mod lower;
mod methods;
mod names;
mod primal;
mod reverse;

use proc_macro::TokenStream;

/// Generates forward-mode (`<f>_jvp`) and reverse-mode (`<f>_vjp`, `<f>_grad`) derivatives of a
/// function. See the `autodiff-runtime` crate documentation.
#[proc_macro_attribute]
pub fn differentiate(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
