//! What the runtime gets from the primitive table: the expansions of the hidden
//! `autodiff_macros::__primitive_table!(...)` macro, which `autodiff-runtime` invokes.
//!
//! | invocation | where | expands to |
//! |---|---|---|
//! | `check_rules` | `rules.rs` | `let _: fn(T, T) -> T = sin::<T>;` for every rule: a rule missing, misnamed or with the wrong arguments does not compile |
//! | `check_dual` (`=> Alias`) | `dual.rs`, `dualn.rs` | the same for every method and operator of `Dual<T>` (of `Alias<T>`: `DualN<T, 4>`) |
//! | `unary_methods => m` | `dual.rs` | `m!(sin, cos, ...);`: the unary methods |
//! | `binary_methods => m` | `dual.rs` | `m!(atan2(b), ...);`: the binary methods, with their argument's name |
//! | `binary_operators => m` | `dual.rs` | `m!(Add, add, AddAssign, add_assign);` per binary operator |
//! | `test_table` | `tests/primitive_table.rs` | a `Vec` of `Primitive { name, args, partials, eval }` (types defined there): every rule, what each partial reads, and a function evaluating the rule at `f64` arguments |
//!
//! Names are emitted with call-site spans, so they resolve where the macro is invoked.

use super::{Partial, Primitive, METHODS, OPERATORS};
use crate::methods::Arity;
use proc_macro2::{Span, TokenStream};
use quote::quote;

pub fn expand(input: TokenStream) -> TokenStream {
    match parse(input) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn parse(input: TokenStream) -> syn::Result<TokenStream> {
    let parser = |s: syn::parse::ParseStream| {
        let what: syn::Ident = s.parse()?;
        let callback = if s.peek(syn::Token![=>]) {
            s.parse::<syn::Token![=>]>()?;
            Some(s.parse::<syn::Ident>()?)
        } else {
            None
        };
        Ok((what, callback))
    };
    let (what, callback) = syn::parse::Parser::parse2(parser, input)?;
    let unknown = || {
        syn::Error::new(
            what.span(),
            "expected `check_rules`, `check_dual` (optionally `=> Alias`), `test_table`, or \
             `unary_methods`, `binary_methods`, `binary_operators` followed by `=> callback`",
        )
    };
    Ok(match (what.to_string().as_str(), callback) {
        ("check_rules", None) => check_rules(),
        ("check_dual", alias) => check_dual(alias),
        ("test_table", None) => test_table(),
        ("unary_methods", Some(cb)) => {
            let names = methods(Arity::Unary).map(|p| ident(p.name));
            quote!(#cb!(#(#names),*);)
        }
        ("binary_methods", Some(cb)) => {
            let items = methods(Arity::Binary).map(|p| {
                let (name, other) = (ident(p.name), ident(p.operands[1].name));
                quote!(#name(#other))
            });
            quote!(#cb!(#(#items),*);)
        }
        ("binary_operators", Some(cb)) => {
            let items = OPERATORS
                .iter()
                .filter(|p| p.arity() == Arity::Binary)
                .map(|p| {
                    let (tr, name) = (ident(&trait_name(p.name)), ident(p.name));
                    let tr_assign = ident(&format!("{}Assign", trait_name(p.name)));
                    let assign = ident(&format!("{}_assign", p.name));
                    quote!(#cb!(#tr, #name, #tr_assign, #assign);)
                });
            quote!(#(#items)*)
        }
        _ => return Err(unknown()),
    })
}

fn ident(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::call_site())
}

/// `add` → `Add`: the `std::ops` trait of an operator.
fn trait_name(op: &str) -> String {
    let mut c = op.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

fn methods(arity: Arity) -> impl Iterator<Item = &'static Primitive> {
    METHODS.iter().filter(move |p| p.arity() == arity)
}

/// Every primitive with a rule: methods (predicates have none), then operators.
fn with_rules() -> impl Iterator<Item = &'static Primitive> {
    METHODS
        .iter()
        .chain(OPERATORS)
        .filter(|p| p.arity() != Arity::Predicate)
}

/// In `rules.rs`: every rule exists, is generic over `Float`, and takes and returns what its
/// entry's calling convention says.
fn check_rules() -> TokenStream {
    let checks = with_rules().map(|p| {
        let name = ident(p.name);
        let sig = match p.arity() {
            Arity::Unary => quote!(fn(T, T) -> T),
            Arity::PowI => quote!(fn(T, i32, T) -> T),
            Arity::Binary => quote!(fn(T, T, T) -> (T, T)),
            Arity::Ternary => quote!(fn(T, T, T, T) -> (T, T, T)),
            Arity::SinCos => quote!(fn(T, (T, T)) -> (T, T)),
            Arity::Predicate => unreachable!("filtered out"),
        };
        quote!(let _: #sig = #name::<T>;)
    });
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn every_primitive_of_the_table_has_a_rule<T: ::num_traits::Float>() {
                #(#checks)*
            }
        };
    }
}

/// In `dual.rs`: `Dual<T>` has every method as an inherent method (checked in a module where no
/// trait is in scope, so a `Float` method of the same name does not count) and implements
/// every operator. `check_dual => D4` checks the type `D4<T>` instead (an alias of the parent
/// module: `dualn.rs` checks `DualN<T, 4>` so).
fn check_dual(alias: Option<syn::Ident>) -> TokenStream {
    let dual = alias.unwrap_or_else(|| ident("Dual"));
    let checks = METHODS.iter().map(|p| {
        let name = ident(p.name);
        let sig = match p.arity() {
            Arity::Unary => quote!(fn(D<T>) -> D<T>),
            Arity::PowI => quote!(fn(D<T>, i32) -> D<T>),
            Arity::Binary => quote!(fn(D<T>, D<T>) -> D<T>),
            Arity::Ternary => quote!(fn(D<T>, D<T>, D<T>) -> D<T>),
            Arity::SinCos => quote!(fn(D<T>) -> (D<T>, D<T>)),
            Arity::Predicate => quote!(fn(D<T>) -> bool),
        };
        quote!(let _: #sig = D::<T>::#name;)
    });
    let ops = OPERATORS.iter().map(|p| {
        let (tr, name) = (ident(&trait_name(p.name)), ident(p.name));
        match p.arity() {
            Arity::Unary => quote!(let _: fn(D<T>) -> D<T> = <D<T> as ::core::ops::#tr>::#name;),
            _ => quote!(let _: fn(D<T>, D<T>) -> D<T> = <D<T> as ::core::ops::#tr>::#name;),
        }
    });
    quote! {
        mod __every_primitive_of_the_table_is_a_dual_method {
            use super::#dual as D;
            #[allow(dead_code)]
            fn check<T: ::num_traits::Float>() {
                #(#checks)*
                #(#ops)*
            }
        }
    }
}

/// In a test: every rule, the names of its arguments, what each partial reads, and a function
/// evaluating it at `f64` arguments (an `i32` argument is passed as an `f64` and converted).
fn test_table() -> TokenStream {
    let entries = with_rules().map(|p| {
        let name = p.name;
        let rule = ident(p.name);
        let args = p.args().map(|(a, int)| quote!(Arg { name: #a, int: #int }));
        let partials = p.partials.iter().map(|q| match q {
            Partial::Zero => quote!(Partial::Zero),
            Partial::Reads(r) => quote!(Partial::Reads(&[#(#r),*])),
        });
        let mut call = Vec::new();
        for (k, o) in p.operands.iter().enumerate() {
            call.push(if o.int {
                quote!(v[#k] as i32)
            } else {
                quote!(v[#k])
            });
        }
        let n = p.operands.len();
        call.push(match p.outputs.len() {
            1 => quote!(v[#n]),
            _ => {
                let m = n + 1;
                quote!((v[#n], v[#m]))
            }
        });
        let result = match p.partials.len() {
            1 => quote!(::std::vec![r]),
            2 => quote!(::std::vec![r.0, r.1]),
            _ => quote!(::std::vec![r.0, r.1, r.2]),
        };
        quote! {
            Primitive {
                name: #name,
                args: &[#(#args),*],
                partials: &[#(#partials),*],
                eval: |v: &[f64]| -> ::std::vec::Vec<f64> {
                    let r = ::autodiff_runtime::rules::#rule(#(#call),*);
                    #result
                },
            }
        }
    });
    quote!(::std::vec![#(#entries),*])
}
