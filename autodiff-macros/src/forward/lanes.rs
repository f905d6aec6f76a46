//! What forward mode does differently over `N` lanes (`<f>_jvpn`), beyond printing: takes a
//! conversion, a declared type or a callee, gives the conversion applied to each lane of a
//! tangent, the type with each float `T` as `[T; N]`, and the callee's `_jvpn`. With `lanes`
//! unset each gives what `<f>_jvp` uses.

use super::*;

impl Forward<'_> {
    /// `: type` of a tangent declared with the type `ty` written: `ty` itself, or `ty` with each
    /// float `T` turned into `[T; N]` (nothing where that cannot be read off the type: rustc
    /// infers it).
    pub(super) fn tangent_type(&self, ty: &syn::Type) -> Option<TokenStream> {
        let t = match self.lanes {
            None => ty.to_token_stream(),
            Some(n) => crate::codegen::vector::lanes_of(self.f, ty, &n.to_token_stream())?,
        };
        Some(quote!(: #t))
    }

    /// A conversion applied to a tangent: to the tangent itself, or to each of its `N` lanes
    /// (`t.map(|l| conversion of l)`).
    pub(super) fn convert_tangent(
        &mut self,
        form: &CastForm,
        ty: &syn::Type,
        t: TokenStream,
        span: Span,
    ) -> TokenStream {
        if self.lanes.is_none() {
            return convert(form, ty, &t, span);
        }
        let l = self.fresh("l");
        let c = convert(form, ty, &quote!(#l), span);
        quote_spanned!(span=> #t.map(|#l| #c))
    }

    /// The callee's `_jvp`, or its `_jvpn` over the same number of tangents (the const
    /// parameter appended to generic arguments written at the call: `g::<T>` -> `g_jvpn::<T, N>`).
    pub(super) fn jvp_path(&self, func: &syn::Path) -> TokenStream {
        let Some(n) = self.lanes else {
            return companion_path(func, "jvp");
        };
        let mut p = func.clone();
        if let Some(last) = p.segments.last_mut() {
            last.ident = names::companion(&last.ident, "jvpn");
            if let syn::PathArguments::AngleBracketed(a) = &mut last.arguments {
                a.args.push(syn::parse_quote!(#n));
            }
        }
        p.to_token_stream()
    }
}
