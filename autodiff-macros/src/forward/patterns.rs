//! `let` statements in forward mode: takes a pattern and the value bound to it, gives the primal
//! names and their tangent names bound together (tuple components evaluated before any name is
//! bound; a value with no derivative bound with zeros), and the declared patterns (with `mut` and
//! the type; tangent names, inactive names `_`, a tangent type for annotated locals).

use super::program::{Bind, Op, Tan};
use super::{let_pair, Forward, Val};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Forward<'_> {
    pub(super) fn let_stmt(
        &mut self,
        pat: &Pat,
        init: Option<&Expr>,
        pre: &mut Vec<Op>,
    ) -> Vec<Op> {
        let mut vs = Vec::new();
        pat.vars(&mut vs);
        let any_active = vs.iter().any(|v| self.var_active(*v));
        let init = match init {
            None => {
                return vec![Op::Let {
                    primal: Some(Bind {
                        pat: self.pat_decl(pat, false),
                        init: None,
                    }),
                    tangent: any_active.then(|| Bind {
                        pat: self.pat_decl(pat, true),
                        init: None,
                    }),
                }];
            }
            Some(i) => i,
        };
        if !any_active {
            return vec![let_pair(self.pat_decl(pat, false), self.primal(init), None)];
        }
        let val = self.expr(init, pre);
        self.bind_pattern(pat, val, &self.shape(init), pre)
    }

    /// Binds a pattern to a value: primal names and tangent names together.
    pub(super) fn bind_pattern(
        &mut self,
        pat: &Pat,
        val: Val,
        shape: &Shape,
        pre: &mut Vec<Op>,
    ) -> Vec<Op> {
        match (pat, val) {
            (Pat::Tuple(ps), Val::Tuple(vals)) if ps.len() == vals.len() => {
                // Evaluate every component before binding any name.
                let mut binds = Vec::new();
                let shapes = match shape {
                    Shape::Tuple(s) if s.len() == ps.len() => s.clone(),
                    _ => vec![Shape::Scalar; ps.len()],
                };
                for ((p, v), s) in ps.iter().zip(vals).zip(shapes) {
                    let (pp, tt) = self.pair_of(v, &s, pre);
                    let a = self.fresh("a");
                    let b = self.fresh("b");
                    pre.push(let_pair(quote!(#a), pp, Some((quote!(#b), Tan::Expr(tt)))));
                    binds.push((p, quote!(#a), quote!(#b)));
                }
                binds
                    .into_iter()
                    .map(|(p, a, b)| self.bind_names(p, a, b))
                    .collect()
            }
            (Pat::Bind(v), Val::Plain(p)) => {
                let decl = self.pat_decl(pat, false);
                let name = &self.name(*v);
                let t = self.tangent(*v);
                let tmut = self.f.vars[*v].mutable.then(|| quote!(mut));
                let zeros = Tan::Zeros {
                    shape: self.f.vars[*v].shape.clone(),
                    like: quote!(#name),
                };
                vec![let_pair(decl, p, Some((quote!(#tmut #t), zeros)))]
            }
            (p, v) => {
                let (pp, tt) = self.pair_of(v, shape, pre);
                vec![self.bind_names(p, pp, tt)]
            }
        }
    }

    pub(super) fn bind_names(&mut self, pat: &Pat, p: TokenStream, t: TokenStream) -> Op {
        let decl = self.pat_decl(pat, false);
        let tdecl = self.pat_decl(pat, true);
        let_pair(decl, p, Some((tdecl, Tan::Expr(t))))
    }

    /// The pattern as declared, with `mut` and type; `tangent` renames to tangent names (and
    /// inactive names to `_`).
    pub(super) fn pat_decl(&self, pat: &Pat, tangent: bool) -> TokenStream {
        match pat {
            Pat::Wild => quote!(_),
            Pat::Bind(v) => {
                let var = &self.f.vars[*v];
                let m = var.mutable.then(|| quote!(mut));
                let ty = var.ty.as_ref().map(|t| quote!(: #t));
                if tangent {
                    if !var.active {
                        return quote!(_);
                    }
                    let t = self.tangent(*v);
                    let ty = match var.shape {
                        Shape::Struct => self.struct_tangent_type(var),
                        _ => var.ty.as_ref().and_then(|t| self.tangent_type(t)),
                    };
                    quote!(#m #t #ty)
                } else {
                    let n = self.name(*v);
                    quote!(#m #n #ty)
                }
            }
            Pat::Tuple(ps) => {
                let items = ps.iter().map(|p| self.pat_decl_untyped(p, tangent));
                // The primal pattern keeps the user's annotation (it may fix the float type);
                // tangents of non-float components are `()`, so theirs is left to inference.
                let ty = (!tangent)
                    .then(|| crate::codegen::primal::pat_type(&self.f.vars, pat))
                    .flatten()
                    .map(|t| quote!(: #t));
                quote!((#(#items,)*) #ty)
            }
        }
    }

    pub(super) fn pat_decl_untyped(&self, pat: &Pat, tangent: bool) -> TokenStream {
        match pat {
            Pat::Bind(v) => {
                let var = &self.f.vars[*v];
                let m = var.mutable.then(|| quote!(mut));
                if tangent {
                    if !var.active {
                        return quote!(_);
                    }
                    let t = self.tangent(*v);
                    quote!(#m #t)
                } else {
                    let n = self.name(*v);
                    quote!(#m #n)
                }
            }
            other => self.pat_decl(other, tangent),
        }
    }
}
