//! Generics: takes the struct's generics and fields, gives the tangent struct's generics (the
//! parameters a non-skipped field mentions, their bounds and the original where-clauses that
//! name only those), the `F: Differentiable` predicates of field types with parameters, and
//! names for the derive's own type parameter and lifetime that nothing in the input spells.
//!
//! "Mentions" is read from tokens (every identifier and lifetime, also inside macros), which can
//! only err by keeping a parameter whose name is spelt in a field type without meaning it.

use super::model::{tokens_of, Field, Input};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashSet;
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::{GenericParam, Generics, Ident, Type, TypeParamBound, WhereClause, WherePredicate};

/// The identifiers and lifetimes spelt in some tokens (raw identifiers unrawed).
#[derive(Default)]
pub struct Names {
    idents: HashSet<String>,
    lifetimes: HashSet<String>,
}

impl Names {
    pub fn of(t: &dyn ToTokens) -> Names {
        let mut names = Names::default();
        names.add(tokens_of(t));
        names
    }

    fn add(&mut self, tokens: TokenStream) {
        let mut after_quote = false;
        for tt in tokens {
            let quote = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '\'');
            match tt {
                TokenTree::Ident(id) if after_quote => {
                    self.lifetimes.insert(id.unraw().to_string());
                }
                TokenTree::Ident(id) => {
                    self.idents.insert(id.unraw().to_string());
                }
                TokenTree::Group(g) => self.add(g.stream()),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
            after_quote = quote;
        }
    }

    /// Whether `p` (by its name) is spelt here.
    pub fn mentions(&self, p: &GenericParam) -> bool {
        match p {
            GenericParam::Lifetime(l) => self.lifetimes.contains(&l.lifetime.ident.to_string()),
            GenericParam::Type(t) => self.idents.contains(&t.ident.unraw().to_string()),
            GenericParam::Const(c) => self.idents.contains(&c.ident.unraw().to_string()),
        }
    }

    fn mentions_any<'p>(&self, mut params: impl Iterator<Item = &'p GenericParam>) -> bool {
        params.any(|p| self.mentions(p))
    }
}

/// What the impls need to know about the generics.
pub struct Bounds {
    /// The tangent struct's generics, with its where-clause (the kept original predicates and
    /// the field predicates).
    pub tangent: Generics,
    /// The primal's generics, with the field predicates added to its where-clause.
    pub primal: Generics,
    /// A name for the scalar parameter of `Scale<S>` that no name in the input spells.
    pub scalar: Ident,
}

impl Bounds {
    pub fn new(input: &Input) -> Bounds {
        let active: Vec<&Field> = input.fields.iter().filter(|f| !f.skip).collect();
        let mut used = Names::default();
        for f in &active {
            used.add(tokens_of(&f.ty));
        }
        let params = &input.generics.params;
        let dropped: Vec<&GenericParam> = params.iter().filter(|p| !used.mentions(p)).collect();
        let keeps = |t: &dyn ToTokens| !Names::of(t).mentions_any(dropped.iter().copied());

        // `F: Differentiable` for each field type with a parameter in it, once per type.
        let mut seen = HashSet::new();
        let field_preds: Vec<WherePredicate> = active
            .iter()
            .filter(|f| !f.recursive && Names::of(&f.ty).mentions_any(params.iter()))
            .filter(|f| seen.insert(f.ty.to_token_stream().to_string()))
            .map(|f| {
                let bound = quote_spanned!(f.ty_span=> ::autodiff_runtime::Differentiable);
                predicate(f.ty.clone(), bound)
            })
            .collect();

        let mut tangent = Generics {
            lt_token: input.generics.lt_token,
            params: Punctuated::new(),
            gt_token: input.generics.gt_token,
            where_clause: None,
        };
        for p in params.iter().filter(|p| used.mentions(p)) {
            let mut p = p.clone();
            match &mut p {
                GenericParam::Lifetime(l) => {
                    l.bounds = l.bounds.iter().filter(|b| keeps(*b)).cloned().collect();
                }
                GenericParam::Type(t) => {
                    t.bounds = t.bounds.iter().filter(|b| keeps(*b)).cloned().collect();
                }
                GenericParam::Const(_) => {}
            }
            tangent.params.push(p);
        }
        if tangent.params.is_empty() {
            tangent.lt_token = None;
            tangent.gt_token = None;
        }
        let original_preds = input
            .generics
            .where_clause
            .iter()
            .flat_map(|w| &w.predicates);
        let kept_preds = original_preds.clone().filter(|p| keeps(*p)).cloned();
        tangent.where_clause = where_clause(kept_preds.chain(field_preds.iter().cloned()));
        inline_parameter_bounds(&mut tangent);

        let mut primal = input.generics.clone();
        primal.where_clause = where_clause(original_preds.cloned().chain(field_preds));
        inline_parameter_bounds(&mut primal);

        let all = Names::of(&tokens_of_input(input));
        Bounds {
            tangent,
            primal,
            scalar: fresh(&all.idents, "S", |s| Ident::new(s, Span::call_site())),
        }
    }

    /// `<F as Differentiable>::Tangent: <bound>` for each non-skipped, non-recursive field, once
    /// per type; with `only_generic`, only for field types that mention a parameter (see the
    /// module docs).
    pub fn field_tangents_are(
        &self,
        input: &Input,
        bound: TokenStream,
        only_generic: bool,
    ) -> Vec<WherePredicate> {
        let mut seen = HashSet::new();
        let params = &input.generics.params;
        input
            .fields
            .iter()
            .filter(|f| !f.skip && !f.recursive)
            .filter(|f| !only_generic || Names::of(&f.ty).mentions_any(params.iter()))
            .filter(|f| seen.insert(f.ty.to_token_stream().to_string()))
            .map(|f| {
                let ty = &f.ty;
                let tangent = quote!(<#ty as ::autodiff_runtime::Differentiable>::Tangent);
                predicate(Type::Verbatim(tangent), bound.clone())
            })
            .collect()
    }
}

/// `bounded: bound`, built from its parts (nothing here can fail to parse).
fn predicate(bounded: Type, bound: TokenStream) -> WherePredicate {
    WherePredicate::Type(syn::PredicateType {
        lifetimes: None,
        bounded_ty: bounded,
        colon_token: Default::default(),
        bounds: std::iter::once(TypeParamBound::Verbatim(bound)).collect(),
    })
}

/// `generics` with `extra` predicates added to its where-clause.
pub fn with_predicates(generics: &Generics, extra: Vec<WherePredicate>) -> Generics {
    let mut g = generics.clone();
    let old = g.where_clause.take().into_iter().flat_map(|w| w.predicates);
    g.where_clause = where_clause(old.chain(extra));
    inline_parameter_bounds(&mut g);
    g
}

/// Moves the where-predicates on a bare type parameter (`T: Differentiable`) into its own
/// bounds (`T: ?Sized + Differentiable`): clippy's `type_repetition_in_bounds` flags a type
/// bounded in both places.
fn inline_parameter_bounds(g: &mut Generics) {
    let Some(wc) = g.where_clause.take() else {
        return;
    };
    let mut rest = Punctuated::new();
    for pred in wc.predicates {
        let param = match &pred {
            WherePredicate::Type(p) if p.lifetimes.is_none() => match &p.bounded_ty {
                Type::Path(tp) if tp.qself.is_none() => tp.path.get_ident().and_then(|id| {
                    g.params.iter_mut().find_map(|gp| match gp {
                        GenericParam::Type(t) if t.ident == *id => Some(t),
                        _ => None,
                    })
                }),
                _ => None,
            },
            _ => None,
        };
        match (param, pred) {
            (Some(t), WherePredicate::Type(p)) => {
                t.colon_token.get_or_insert_with(Default::default);
                t.bounds.extend(p.bounds);
            }
            (_, pred) => rest.push(pred),
        }
    }
    g.where_clause = (!rest.is_empty()).then(|| WhereClause {
        where_token: wc.where_token,
        predicates: rest,
    });
}

/// A where-clause of `preds`, or none if there are none. Predicates on one type are merged into
/// one (`U: Default + Differentiable`, not `U: Default, U: Differentiable`: clippy's
/// `type_repetition_in_bounds` would flag the second in the user's crate).
fn where_clause(preds: impl Iterator<Item = WherePredicate>) -> Option<WhereClause> {
    let mut predicates: Punctuated<WherePredicate, syn::Token![,]> = Punctuated::new();
    for pred in preds {
        let merged = match &pred {
            WherePredicate::Type(new) if new.lifetimes.is_none() => {
                let key = new.bounded_ty.to_token_stream().to_string();
                predicates.iter_mut().find_map(|old| match old {
                    WherePredicate::Type(old)
                        if old.lifetimes.is_none()
                            && old.bounded_ty.to_token_stream().to_string() == key =>
                    {
                        old.bounds.extend(new.bounds.iter().cloned());
                        Some(())
                    }
                    _ => None,
                })
            }
            _ => None,
        };
        if merged.is_none() {
            predicates.push(pred);
        }
    }
    (!predicates.is_empty()).then(|| WhereClause {
        where_token: Default::default(),
        predicates,
    })
}

/// `base`, or `base1`, `base2`, ... : the first that is not in `taken`.
fn fresh<T>(taken: &HashSet<String>, base: &str, make: impl Fn(&str) -> T) -> T {
    let name = std::iter::once(base.to_string())
        .chain((1..).map(|n| format!("{base}{n}")))
        .find(|n| !taken.contains(n))
        .unwrap_or_else(|| base.to_string());
    make(&name)
}

/// Every token of the input the generated impls will contain: name, generics and field types.
fn tokens_of_input(input: &Input) -> TokenStream {
    let (name, generics) = (input.ident, input.generics);
    let where_clause = &generics.where_clause;
    let tys = input.fields.iter().map(|f| &f.ty);
    quote!(#name #generics #where_clause #(#tys)*)
}
