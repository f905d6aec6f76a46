//! Vector forward mode: takes a function analysed without errors and its `vector` option, gives
//! `<f>_jvpn::<N>`, forward mode over `N` tangents at once (the scalar forward program printed on
//! `DualN` numbers, each scalar's tangent a `[T; N]`); its stub when the function has errors;
//! and, when `vector` is asked of a function it does not serve, the errors saying why.
//!
//! For `fn f<T: Float>(x: T, v: &[T], a: [T; 3], n: usize) -> Vec<T>` it writes
//! `fn f_jvpn<T: Float, const N: usize>(x, v, a, n, dx: [T; N], dv: &[[T; N]],
//! da: [[T; N]; 3]) -> (Vec<T>, Vec<[T; N]>) where T: LaneScalar<N>`: every float of a tangent
//! becomes `[T; N]`, the `N` lanes of one scalar contiguous.

use super::dump::IrDump;
use super::expand::Signatures;
use crate::attr::Attr;
use crate::diag::Diag;
use crate::ir::*;
use crate::{forward, names};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};

/// The errors of a `vector` option on a function `_jvpn` does not serve yet: methods and struct
/// arguments (their tangents are derived structs of one lane), nested array arguments and
/// outputs (their companions convert to flat forms), and output types whose lanes cannot be read
/// off the type as written.
pub(super) fn check(f: &Function, attr: &Attr, diag: &mut Diag) {
    let Some(key) = &attr.vector else { return };
    if let Err(what) = served(f) {
        diag.unsupported(
            key.span(),
            &format!("`vector` (vector forward mode, `_jvpn`) for {what} yet"),
            "remove `vector` and call `_jvp` once per direction",
        )
    }
}

/// Whether `_jvpn` serves the function; if not, what it does not serve.
fn served(f: &Function) -> Result<(), &'static str> {
    let sigs = Signatures { f };
    let receiver = f
        .item
        .sig
        .inputs
        .iter()
        .any(|a| matches!(a, syn::FnArg::Receiver(_)));
    if receiver || sigs.has_structs() {
        Err("methods and struct arguments")
    } else if sigs.has_ragged() {
        Err("sequences of `Vec`s (`&[Vec<T>]`, `Vec<Vec<T>>`) as arguments or outputs")
    } else if f.output.strukt.is_some() {
        Err("struct outputs")
    } else if f
        .vars
        .iter()
        .any(|v| v.shape == Shape::Struct && !matches!(v.origin, VarOrigin::Param(_)))
    {
        Err("structs held whole in locals (the struct a call gives)")
    } else if sigs.is_nested() && !f.uses_na() {
        Err("arrays of arrays as arguments or output")
    } else if f.uses_na() {
        Err("nalgebra values")
    } else if !f.output.is_unit() && lanes_of(f, &f.output.ty, &quote!(N)).is_none() {
        Err("this output type")
    } else {
        Ok(())
    }
}

/// `<f>_jvpn` when `vector` is given (nothing otherwise); its forward program goes to `dump`.
pub(super) fn companion(f: &Function, attr: &Attr, dump: &mut IrDump) -> TokenStream {
    if attr.vector.is_none() {
        return quote!();
    }
    let n = lanes_param(f);
    let body = forward::emit_lanes_body(f, &n, dump);
    let header = header(f, &n);
    quote!(#header { #body })
}

/// A stub `<f>_jvpn` when `vector` is given and the function has errors, so that callers'
/// `_jvpn` do not report it missing as well.
pub(super) fn stub(f: &Function, attr: &Attr) -> TokenStream {
    if attr.vector.is_none() || served(f).is_err() {
        return quote!();
    }
    let header = header(f, &lanes_param(f));
    quote!(#header { ::core::unimplemented!("#[differentiate] reported an error") })
}

/// The name of the const parameter `N`: the first of `N`, `LANES`, `__LANES` the function does
/// not use for anything (a body item `const N` would shadow a parameter `N` in the body).
fn lanes_param(f: &Function) -> syn::Ident {
    let used = crate::ir::token_names(&f.item.to_token_stream(), false);
    let name = ["N", "LANES", "__LANES"]
        .into_iter()
        .find(|c| !used.iter().any(|u| u == c))
        .unwrap_or("__AD_LANES");
    syn::Ident::new(name, Span::call_site())
}

/// `#[doc] #[allow] #[inline] vis fn f_jvpn<generics, const N: usize>(inputs, tangents) ->
/// (Out, OutLanes) where .., T: LaneScalar<N>`.
fn header(f: &Function, n: &syn::Ident) -> TokenStream {
    let rt = names::rt();
    let sigs = Signatures { f };
    let name = &f.item.sig.ident;
    let vis = &f.item.vis;
    let jvpn = names::companion(name, "jvpn");
    let mut gparams: Vec<TokenStream> = f
        .item
        .sig
        .generics
        .params
        .iter()
        .map(|g| g.to_token_stream())
        .collect();
    gparams.push(quote!(const #n: usize));
    let mut preds: Vec<TokenStream> = f
        .item
        .sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter().map(|p| p.to_token_stream()))
        .collect();
    preds.extend(
        f.float_generics
            .iter()
            .map(|t| quote!(#t: #rt::LaneScalar<#n>)),
    );
    let inputs = sigs.inputs();
    let taken = sigs.taken();
    let tans = f.params.iter().filter(|p| p.active).map(|p| {
        let d = names::shadow_param(&p.name, &taken);
        let t = param_lanes(p, n);
        quote!(#d: #t)
    });
    let out = (!f.output.is_unit()).then(|| {
        let o = &f.output.ty;
        let lanes = lanes_of(f, o, &n.to_token_stream()).unwrap_or_else(|| quote!(()));
        quote!(-> (#o, #lanes))
    });
    let doc = format!(
        " Vector forward mode of [`{name}`]: its value and its directional derivatives along \
         `{n}` directions at once, lane `k` of each tangent `d<arg>` (a `[T; {n}]` per scalar) \
         giving direction `k`; generated by `#[differentiate(vector)]`."
    );
    let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code, non_snake_case, clippy::all)]);
    quote! {
        #[doc = #doc]
        #allow
        #[inline]
        #vis fn #jvpn <#(#gparams),*> (#(#inputs,)* #(#tans),*) #out where #(#preds,)*
    }
}

/// The `N`-lane tangent type of an active argument: the tangent type of `_jvp` with each float
/// `T` replaced by `[T; N]` (`[T; N]`, `&[T; N]` for `&T`, `&mut [T; N]` for `&mut T`,
/// `[[T; N]; M]` or `&[[T; N]; M]` for arrays, `&[[T; N]]` for slices and `Vec`s, `&mut` for
/// in-out arguments).
fn param_lanes(p: &Param, n: &syn::Ident) -> TokenStream {
    let e = Signatures::elem(p);
    let lane = quote!([#e; #n]);
    let by_ref = matches!(p.ty, syn::Type::Reference(_));
    match (&p.shape, p.inout) {
        (Shape::Seq(SeqKind::Array(m)), true) => quote!(&mut [#lane; #m]),
        (Shape::Seq(_), true) => quote!(&mut [#lane]),
        (_, true) => quote!(&mut #lane),
        (Shape::Seq(SeqKind::Array(m)), false) if by_ref => quote!(&[#lane; #m]),
        (Shape::Seq(SeqKind::Array(m)), false) => quote!([#lane; #m]),
        (Shape::Seq(_), false) => quote!(&[#lane]),
        (_, false) if by_ref => quote!(&#lane),
        _ => lane,
    }
}

/// The `N`-lane tangent type of a value of type `ty` as written: floats (`f32`, `f64`, the
/// function's float type parameters) become `[T; N]`, through arrays, `Vec`s, tuples and
/// parentheses; other tuple components (integers, bools) get `()`, as zeros give them. `None`
/// for a type that cannot be read so (a type alias, a reference).
pub(crate) fn lanes_of(f: &Function, ty: &syn::Type, n: &TokenStream) -> Option<TokenStream> {
    match ty {
        syn::Type::Paren(p) => lanes_of(f, &p.elem, n),
        syn::Type::Group(g) => lanes_of(f, &g.elem, n),
        syn::Type::Array(a) => {
            let e = lanes_of(f, &a.elem, n)?;
            let len = &a.len;
            Some(quote!([#e; #len]))
        }
        syn::Type::Tuple(t) => {
            let items = t
                .elems
                .iter()
                .map(|e| match lanes_of(f, e, n) {
                    Some(l) => Some(l),
                    None if is_plain(e) => Some(quote!(())),
                    None => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(quote!((#(#items,)*)))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let id = last.ident.to_string();
            let float = matches!(id.as_str(), "f32" | "f64")
                || (p.path.segments.len() == 1 && f.float_generics.iter().any(|g| *g == id));
            if float && last.arguments.is_empty() {
                return Some(quote!([#ty; #n]));
            }
            if id == "Vec" {
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    if let [syn::GenericArgument::Type(e)] =
                        a.args.iter().collect::<Vec<_>>().as_slice()
                    {
                        let e = lanes_of(f, e, n)?;
                        return Some(quote!(::std::vec::Vec<#e>));
                    }
                }
            }
            None
        }
        _ => None,
    }
}

/// An integer or `bool` type, written as such.
fn is_plain(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    p.path.get_ident().is_some_and(|i| {
        let i = i.to_string();
        i == "bool" || crate::ir::INT_TYPES.contains(&i.as_str())
    })
}
