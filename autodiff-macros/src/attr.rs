//! The attribute's arguments: takes the tokens inside `#[differentiate(...)]`, gives the options
//! (`wrt(x, y)`, `float(T)`, `hvp`, `split`, `vector`), with an error at any option that does not exist.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

#[derive(Default)]
pub struct Attr {
    /// `wrt(a, b)`: the active arguments; `None` means every float-valued argument.
    pub wrt: Option<Vec<Ident>>,
    /// The `wrt` keyword's span (the public companions' names carry it: `ir::Function`).
    pub wrt_span: Option<proc_macro2::Span>,
    /// `hvp`: also write second-order companions (`<f>_hvp`, `<f>_hessian`) and the generic copy
    /// (`<f>_generic`) other functions' second-order companions call.
    pub hvp: Option<Ident>,
    /// `split`: also write `<f>_vjp_split`, the forward sweep once and a pullback callable for
    /// many seeds (`codegen/split.rs`).
    pub split: Option<Ident>,
    /// `vector`: also generate `<f>_jvpn`, forward mode over `N` tangents at once
    /// (`codegen/vector.rs`); the option's token, where errors about it point.
    pub vector: Option<Ident>,
    /// `float(T, ..)`: type parameters of the enclosing `impl` that are floats (`impl<T: Float>
    /// State<T>`), which the macro cannot see from the method it is given.
    pub float: Vec<Ident>,
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
                    attr.wrt_span = Some(key.span());
                }
                "float" => {
                    if !attr.float.is_empty() {
                        return Err(syn::Error::new(key.span(), "`float` given twice"));
                    }
                    if !input.peek(syn::token::Paren) {
                        return Err(syn::Error::new(
                            key.span(),
                            "`float` takes the float type parameters of the `impl` in \
                             parentheses: `float(T)`",
                        ));
                    }
                    let content;
                    syn::parenthesized!(content in input);
                    let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
                    if names.is_empty() {
                        return Err(syn::Error::new(
                            key.span(),
                            "`float()` is empty: name the `impl`'s float type parameters, e.g. \
                             `float(T)`",
                        ));
                    }
                    attr.float = names.into_iter().collect();
                }
                "hvp" => {
                    if attr.hvp.is_some() {
                        return Err(syn::Error::new(key.span(), "`hvp` given twice"));
                    }
                    attr.hvp = Some(key);
                }
                "split" => {
                    if attr.split.is_some() {
                        return Err(syn::Error::new(key.span(), "`split` given twice"));
                    }
                    attr.split = Some(key);
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
                             `wrt(arg, ...)`, `float(T, ...)`, `hvp`, `split` and `vector`"
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
