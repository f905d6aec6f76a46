//! The attribute's arguments: takes the tokens inside `#[differentiate(...)]`, gives the options
//! (`wrt(x, y)`, `vector`), with an error at any option that does not exist.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

#[derive(Default)]
pub struct Attr {
    /// `wrt(a, b)`: the active arguments; `None` means every float-valued argument.
    pub wrt: Option<Vec<Ident>>,
    /// `vector`: also generate `<f>_jvpn`, forward mode over `N` tangents at once
    /// (`codegen/vector.rs`); the option's token, where errors about it point.
    pub vector: Option<Ident>,
}

impl Parse for Attr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut attr = Attr::default();
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "wrt" => {
                    if attr.wrt.is_some() {
                        return Err(syn::Error::new(key.span(), "`wrt` given twice"));
                    }
                    if !input.peek(syn::token::Paren) {
                        return Err(syn::Error::new(
                            key.span(),
                            "`wrt` takes the active arguments in parentheses: `wrt(x, v)`",
                        ));
                    }
                    let content;
                    syn::parenthesized!(content in input);
                    let names = Punctuated::<Ident, Token![,]>::parse_terminated_with(
                        &content,
                        syn::ext::IdentExt::parse_any,
                    )?;
                    if names.is_empty() {
                        return Err(syn::Error::new(
                            key.span(),
                            "`wrt()` is empty: name at least one argument, e.g. `wrt(x)`",
                        ));
                    }
                    attr.wrt = Some(names.into_iter().collect());
                }
                "vector" => {
                    if attr.vector.is_some() {
                        return Err(syn::Error::new(key.span(), "`vector` given twice"));
                    }
                    attr.vector = Some(key);
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown #[differentiate] option `{other}`; the options are \
                             `wrt(arg, ...)` and `vector`"
                        ),
                    ))
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(attr)
    }
}
