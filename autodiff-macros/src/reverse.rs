//! Reverse mode (being written).
use crate::diag::Diag;
use crate::ir::Function;
use proc_macro2::TokenStream;

pub fn emit_body(_f: &Function, _diag: &mut Diag) -> Option<TokenStream> {
    Some(quote::quote!(::core::unimplemented!()))
}
