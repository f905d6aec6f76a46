//! Diagnostics: takes errors found anywhere in the macro, gives them back all at once as one
//! `syn::Error` (so the user sees every problem in one build), each pointing at its own tokens.

use proc_macro2::Span;
use std::fmt::Display;

#[derive(Default)]
pub struct Diag {
    errors: Vec<syn::Error>,
}

impl Diag {
    pub fn error(&mut self, span: Span, msg: impl Display) {
        self.errors.push(syn::Error::new(span, msg));
    }

    /// An unsupported construct: what it is, and what to write instead.
    pub fn unsupported(&mut self, span: Span, what: &str, instead: &str) {
        self.error(
            span,
            format!("#[differentiate] does not support {what}; {instead}"),
        );
    }

    /// An error covering all of `tokens` (on stable Rust a node's `span()` is its first token only).
    pub fn error_at(&mut self, tokens: &dyn quote::ToTokens, msg: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, msg));
    }

    /// `unsupported`, covering all of `tokens`.
    pub fn unsupported_at(&mut self, tokens: &dyn quote::ToTokens, what: &str, instead: &str) {
        self.error_at(
            tokens,
            format!("#[differentiate] does not support {what}; {instead}"),
        );
    }

    pub fn push(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All collected errors combined into one, or `Ok` when there were none.
    pub fn finish(self) -> syn::Result<()> {
        let mut iter = self.errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}
