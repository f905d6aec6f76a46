//! The input model: takes the parsed item, gives its name, visibility, generics and fields (each
//! with its type, `Self` replaced by the struct's own type, and whether it is skipped), with an
//! error for an enum, a union and every misused `#[differentiable]` attribute.

use crate::diag::Diag;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Data, DeriveInput, Generics, Ident, Member, Meta, Token, Type, Visibility};

/// The helper attribute the derive owns.
const ATTR: &str = "differentiable";

/// A struct the derive applies to.
pub struct Input<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

/// How the struct's fields are written, which its tangent copies.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `struct Name { a: A, .. }`
    Named,
    /// `struct Name(A, ..);`
    Tuple,
    /// `struct Name;`
    Unit,
}

/// One field of the struct.
pub struct Field<'a> {
    /// `a` or `0`: how `self.<member>` reaches it, in the struct and in its tangent alike.
    pub member: Member,
    pub vis: &'a Visibility,
    /// Its type, with `Self` replaced by the struct's own type (in the tangent struct and its
    /// impls `Self` would be the tangent).
    pub ty: Type,
    /// The span of the type as written, for errors about it.
    pub ty_span: Span,
    /// `#[differentiable(skip)]`: a constant, tangent `()`.
    pub skip: bool,
    /// Whether the type spells the struct's own name (`Vec<Self>`, `Vec<Tree<T>>`): such a field
    /// gets no where-clause of its own, since proving it would need the impl being defined.
    pub recursive: bool,
}

impl<'a> Input<'a> {
    /// The model of `input`, or `None` (with an error in `diag`) if the derive cannot apply to
    /// it. Attribute errors go to `diag` and still give a model, the bad attribute ignored.
    pub fn from_syn(input: &'a DeriveInput, diag: &mut Diag) -> Option<Input<'a>> {
        for attr in input.attrs.iter().filter(|a| a.path().is_ident(ATTR)) {
            diag.error_at(
                attr,
                "#[differentiable(...)] goes on fields, not on the struct: \
                 `#[differentiable(skip)]` on a field makes it a constant",
            );
        }
        let data = match &input.data {
            Data::Struct(s) => s,
            Data::Enum(e) => {
                let (kw, name) = (&e.enum_token, &input.ident);
                diag.error_at(
                    &quote!(#kw #name),
                    "#[derive(Differentiable)] does not support enums; derive it on a struct, \
                     or implement `autodiff_runtime::Differentiable` for the enum by hand",
                );
                return None;
            }
            Data::Union(u) => {
                let (kw, name) = (&u.union_token, &input.ident);
                diag.error_at(
                    &quote!(#kw #name),
                    "#[derive(Differentiable)] does not support unions; derive it on a struct",
                );
                return None;
            }
        };
        let style = match &data.fields {
            syn::Fields::Named(_) => Style::Named,
            syn::Fields::Unnamed(_) => Style::Tuple,
            syn::Fields::Unit => Style::Unit,
        };
        let (_, type_generics, _) = input.generics.split_for_impl();
        let name = &input.ident;
        let self_ty = Type::Verbatim(quote!(#name #type_generics));
        let fields = data
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let member = match &f.ident {
                    Some(id) => Member::Named(id.clone()),
                    None => Member::Unnamed(syn::Index {
                        index: i as u32,
                        span: Span::call_site(),
                    }),
                };
                let mut ty = f.ty.clone();
                ReplaceSelf { with: &self_ty }.visit_type_mut(&mut ty);
                let recursive = spells(&ty, name);
                Field {
                    member,
                    vis: &f.vis,
                    ty_span: syn::spanned::Spanned::span(&f.ty),
                    ty,
                    skip: field_options(&f.attrs, diag),
                    recursive,
                }
            })
            .collect();
        Some(Input {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            style,
            fields,
        })
    }
}

/// Reads a field's `#[differentiable(...)]` attributes: whether it says `skip`. Every mistake is
/// reported; a wrong attribute counts as absent.
fn field_options(attrs: &[Attribute], diag: &mut Diag) -> bool {
    let mut skip = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident(ATTR)) {
        let list = match &attr.meta {
            Meta::List(list) => list,
            Meta::Path(_) | Meta::NameValue(_) => {
                diag.error_at(
                    attr,
                    "#[differentiable] takes its option in parentheses: \
                     `#[differentiable(skip)]`",
                );
                continue;
            }
        };
        if list.tokens.is_empty() {
            diag.error_at(
                attr,
                "#[differentiable()] is empty; the only option is `skip`: \
                 `#[differentiable(skip)]`",
            );
            continue;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("skip") {
                let path = &meta.path;
                let name = quote!(#path).to_string().replace(' ', "");
                return Err(meta.error(format!(
                    "unknown #[differentiable] option `{name}`; the only option is `skip`"
                )));
            }
            if !(meta.input.is_empty() || meta.input.peek(Token![,])) {
                return Err(meta.error("`skip` takes no value: write `#[differentiable(skip)]`"));
            }
            if skip {
                return Err(meta.error("`skip` given twice"));
            }
            skip = true;
            Ok(())
        });
        if let Err(e) = parsed {
            diag.push(e);
        }
    }
    skip
}

/// Replaces the type `Self` (also inside other types: `Vec<Self>`, `<Self as T>::X`) by the
/// struct's own type.
struct ReplaceSelf<'t> {
    with: &'t Type,
}

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if p.qself.is_none() && p.path.is_ident("Self") {
                *ty = self.with.clone();
                return;
            }
        }
        visit_mut::visit_type_mut(self, ty);
    }

    // A macro's tokens are not a type yet; they are left as written.
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

/// Whether `ident` occurs in `tokens` (also inside groups).
fn spells(tokens: &dyn quote::ToTokens, ident: &Ident) -> bool {
    fn walk(ts: TokenStream, ident: &Ident) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == *ident,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), ident),
            _ => false,
        })
    }
    walk(tokens_of(tokens), ident)
}

/// `tokens` as one stream (for checks that look at every name in them).
pub fn tokens_of(t: &dyn quote::ToTokens) -> TokenStream {
    let mut out = TokenStream::new();
    t.to_tokens(&mut out);
    out
}
