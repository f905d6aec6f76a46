//! Unit tests of the expansion: which parameters and predicates each item gets, fresh names,
//! `Self`, shapes, errors, and inputs that must not make the derive panic.

use super::expand;
use proc_macro2::TokenStream;
use quote::quote;

/// The expansion of `input` as one string with single spaces (as `TokenStream` prints it).
fn expanded(input: TokenStream) -> String {
    let out = expand(input);
    // Whatever it is, it is valid Rust items.
    syn::parse2::<syn::File>(out.clone()).expect("the expansion parses");
    out.to_string()
}

fn item<'a>(out: &'a str, starts: &str) -> &'a str {
    let at = out
        .find(starts)
        .unwrap_or_else(|| panic!("no `{starts}` in {out}"));
    let rest = &out[at..];
    &rest[..rest.find(" { ").map_or(rest.len(), |e| e)]
}

#[test]
fn tangent_keeps_the_parameters_its_fields_mention() {
    let out = expanded(quote! {
        pub struct State<'a, 'b: 'a, T: Copy + 'b, U: Default + Into<T>> where U: Clone, T: From<U> {
            pub x: Vec<T>,
            r: &'a [f64],
            #[differentiable(skip)]
            u: PhantomData<(&'b (), U)>,
        }
    });
    let tangent = item(&out, "pub struct StateTangent");
    // `'b` and `U` are only in the skipped field: dropped, with the bounds that name them.
    assert!(
        tangent.starts_with("pub struct StateTangent < 'a , T : Copy >"),
        "{tangent}"
    );
    assert!(!tangent.contains("From"), "{tangent}");
    assert!(tangent.contains("Vec < T > : :: autodiff_runtime :: Differentiable"));
    assert!(tangent.contains("& 'a [f64] : :: autodiff_runtime :: Differentiable"));
    // The primal's impl keeps everything and adds the field predicates.
    let primal = item(&out, "impl < 'a , 'b : 'a");
    assert!(primal.contains("for State < 'a , 'b , T , U >"), "{primal}");
    assert!(
        primal.contains(
            "impl < 'a , 'b : 'a , T : Copy + 'b + From < U > , U : Default + Into < T > + Clone > \
             :: autodiff_runtime :: Differentiable for State < 'a , 'b , T , U > \
             where Vec < T > : :: autodiff_runtime :: Differentiable , & 'a [f64] :"
        ),
        "{primal}"
    );
    assert!(out.contains("type Tangent = StateTangent < 'a , T > ;"));
}

#[test]
fn concrete_fields_get_bounds_only_where_needed() {
    let out = expanded(quote!(
        struct P {
            x: f64,
            n: usize,
            v: Vec<T2>,
        }
    ));
    let scale = item(&out, "impl < S : :: core :: marker :: Copy >");
    assert!(!scale.contains("for <"), "{scale}");
    assert!(scale.contains("< f64 as :: autodiff_runtime :: Differentiable > :: Tangent : :: autodiff_runtime :: Scale < S >"));
    // `Debug` and `PartialEq` of a concrete field's tangent are required, as a derived `Debug`
    // requires them of a concrete field.
    let debug = item(&out, "impl :: core :: fmt :: Debug");
    assert!(!debug.contains("where"), "{debug}");
    // Concrete field types get no `F: Differentiable` predicate (the field reports them).
    let tangent = item(&out, "struct PTangent");
    assert!(!tangent.contains("where"), "{tangent}");
}

#[test]
fn fresh_names_are_not_spelt_in_the_input() {
    let out = expanded(quote! {
        struct C<'a, S> { s: &'a [S], inner: S1, t: for<'a1> fn(&'a1 f64) }
    });
    assert!(out.contains("S2 : :: core :: marker :: Copy"), "{out}");
    assert!(out.contains("__ad_other"), "{out}");
}

#[test]
fn predicates_on_a_parameter_become_its_bounds() {
    let out = expanded(quote!(
        struct B<U>
        where
            U: Default,
        {
            b: U,
        }
    ));
    assert!(
        out.contains("struct BTangent < U : Default + :: autodiff_runtime :: Differentiable >"),
        "{out}"
    );
}

#[test]
fn self_is_the_struct_and_recursive_fields_get_no_predicate() {
    let out = expanded(quote!(
        struct Tree<T> {
            w: T,
            kids: Vec<Self>,
            q: <Self as X>::Y,
        }
    ));
    assert!(
        out.contains("< Vec < Tree < T > > as :: autodiff_runtime :: Differentiable > :: Tangent")
    );
    assert!(!out.contains("Self as"), "{out}");
    assert!(
        !out.contains("Vec < Tree < T > > : :: autodiff_runtime :: Differentiable"),
        "{out}"
    );
    assert!(
        out.contains("struct TreeTangent < T : :: autodiff_runtime :: Differentiable >"),
        "{out}"
    );
}

#[test]
fn tuple_and_unit_structs_keep_their_shape() {
    let out = expanded(quote!(
        pub struct P<T>(pub T, usize)
        where
            T: Copy;
    ));
    assert!(
        out.contains(
            "pub struct PTangent < T : Copy + :: autodiff_runtime :: Differentiable > \
             (# [doc = \" Tangent of `P.0`.\"] pub < T as"
        ),
        "{out}"
    );
    assert!(
        out.contains("Tangent ,) ; # [automatically_derived]"),
        "{out}"
    );
    let out = expanded(quote!(
        struct U;
    ));
    assert!(out.contains("struct UTangent ;"), "{out}");
    assert!(
        out.contains("fn accumulate (& mut self , _ : & Self) { }"),
        "{out}"
    );
}

#[test]
fn unusual_inputs_expand_without_panicking() {
    for input in [
        quote!(
            struct r#Raw {
                r#type: f64,
                r#fn: [f64; 2],
            }
        ),
        quote!(
            struct M {
                a: m!(f64),
                b: Box<dyn Fn(f64) -> f64 + Send>,
            }
        ),
        quote!(
            struct Tail<T: ?Sized> {
                n: usize,
                data: T,
            }
        ),
        quote!(
            struct D<T = f64, const N: usize = 3> {
                a: [T; N],
            }
        ),
        quote!(
            struct W<T> {
                a: T,
            }
        ),
        quote!(
            struct E {}
        ),
        quote!(
            struct E2();
        ),
        quote!(
            pub(crate) struct V<'a> {
                pub(super) x: &'a mut Vec<f64>,
            }
        ),
    ] {
        let _ = expanded(input);
    }
    let out = expanded(quote!(
        struct r#Raw {
            r#type: f64,
        }
    ));
    assert!(out.contains("struct RawTangent"), "{out}");
    assert!(out.contains("r#type : < f64 as"), "{out}");
    assert!(
        out.contains(". field (\"type\" , & self . r#type)"),
        "{out}"
    );
}

#[test]
fn enums_and_unions_give_one_error_and_no_items() {
    let out = expand(quote!(
        enum E {
            A(f64),
        }
    ));
    let s = out.to_string();
    assert!(s.starts_with(":: core :: compile_error !"), "{s}");
    assert!(s.contains("does not support enums"), "{s}");
    assert!(!s.contains("impl <") && !s.contains("impl ::"), "{s}");
    let s = expand(quote!(union U { a: f64 })).to_string();
    assert!(
        s.contains("does not support unions") && !s.contains("impl"),
        "{s}"
    );
}

#[test]
fn a_wrong_attribute_is_reported_and_the_struct_still_expanded() {
    let s = expand(quote!(
        struct B {
            #[differentiable(froze)]
            a: f64,
            b: usize,
        }
    ))
    .to_string();
    assert!(
        s.contains("unknown #[differentiable] option `froze`"),
        "{s}"
    );
    assert!(s.contains("struct BTangent"), "{s}");
    assert!(s.contains("a : < f64 as"), "{s}");
}

#[test]
fn flat_bounds_field_types_and_skips_recursive_structs() {
    let out = expanded(quote!(
        struct Body {
            x: f64,
            q: [f64; 3],
            n: usize,
            #[differentiable(skip)]
            tag: std::rc::Rc<str>,
        }
    ));
    let flat = item(
        &out,
        "impl < S > :: autodiff_runtime :: jacobian :: Flat < S > for BodyTangent",
    );
    // Each field type by `FlatTangent<S>` (not its tangent by a projection), once; none for the
    // skipped field, whose tangent `()` is read as `()`.
    assert!(
        flat.contains("f64 : :: autodiff_runtime :: jacobian :: FlatTangent < S >"),
        "{flat}"
    );
    assert!(
        flat.contains("[f64 ; 3] : :: autodiff_runtime :: jacobian :: FlatTangent < S >"),
        "{flat}"
    );
    assert!(!flat.contains("Rc"), "{flat}");
    let tree = expanded(quote!(
        struct Tree {
            w: f64,
            kids: Vec<Self>,
        }
    ));
    assert!(!tree.contains("jacobian :: Flat"), "{tree}");
}
