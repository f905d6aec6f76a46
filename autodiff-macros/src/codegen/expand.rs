//! Expansion: takes the attribute and the function tokens, gives the function unchanged plus its
//! generated companions `<f>_jvp`, `<f>_vjp` and (for scalar outputs) `<f>_grad` with its
//! `<F>Grad` struct. On errors it gives the errors and stubs of the companions, so that one
//! mistake does not cascade into "cannot find `f_jvp`" at every call site.

use super::dump::{self, IrDump};
use crate::analysis::activity;
use crate::attr::Attr;
use crate::diag::Diag;
use crate::ir::*;
use crate::{forward, lower, names, reverse};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diag = Diag::default();
    // A bad option is reported together with the body's errors (the body is still checked).
    let attr: Attr = match syn::parse2(attr) {
        Ok(a) => a,
        Err(e) => {
            diag.push(e);
            Attr::default()
        }
    };
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let err = syn::Error::new_spanned(
                first_line(&item),
                "#[differentiate] applies to free functions with a body \
                 (`fn name(args) -> output { ... }`)",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    // `#[checkpoint]` on loops is read by lowering; the function given back has none.
    let plain = lower::strip_checkpoints(&func);
    let has_receiver = func
        .sig
        .inputs
        .iter()
        .any(|a| matches!(a, syn::FnArg::Receiver(_)));
    super::primal::set_real_field_generic(&func.sig.generics);
    let mut ir_dump = IrDump::new(&func.sig.ident);
    let lowered = lower::lower(&func, &attr, &mut diag);
    let mut f = match lowered {
        Some(f) => f,
        None => {
            let err = diag.finish().err().map(|e| e.to_compile_error());
            return quote!(#err #plain);
        }
    };
    // Known to later callers from here on; calls of functions known before take their
    // conventions (`registry.rs`).
    crate::registry::record(&f, attr.wrt.as_deref());
    crate::registry::apply(&mut f, &mut diag);
    ir_dump.section("lowered", || print::function(&f));
    // `hvp`: the generic copy is made from the IR before activity (`codegen/hvp.rs`).
    let pre_activity = attr.hvp.as_ref().map(|_| f.clone());
    if !diag.has_errors() {
        activity::analyze(&mut f, &mut diag);
        ir_dump.section("activity", || print::function(&f));
    }
    let rev = if diag.has_errors() {
        None
    } else {
        reverse::emit_body(&f, &mut diag, &mut ir_dump)
    };
    let second = match (&attr.hvp, pre_activity) {
        (Some(hvp), Some(pre)) if !diag.has_errors() => {
            super::hvp::companions(&pre, &f, hvp, &mut diag, &mut ir_dump)
        }
        _ => None,
    };
    let split = match &attr.split {
        Some(kw) if !diag.has_errors() => super::split::companion(&f, kw, &mut diag, &mut ir_dump),
        _ => None,
    };
    if !diag.has_errors() {
        super::vector::check(&f, &attr, &mut diag);
    }
    let sigs = Signatures::new(&f);
    match diag.finish() {
        Err(e) => {
            let err = e.to_compile_error();
            // Stubs keep call sites quiet, but not inside an `impl` (where a struct cannot go).
            let stubs = if has_receiver {
                quote!()
            } else {
                let (s, v) = (sigs.stubs(), super::vector::stub(&f, &attr));
                quote!(#s #v)
            };
            quote!(#err #plain #stubs)
        }
        Ok(()) => {
            let fwd = forward::emit_body(&f, &mut ir_dump);
            let out = sigs.full(fwd, rev.unwrap_or_default());
            let vector = super::vector::companion(&f, &attr, &mut ir_dump);
            let out = quote!(#out #second #split #vector);
            let all = quote!(#plain #out);
            dump::expansion(&f.item.sig.ident, &out);
            all
        }
    }
}

/// The tokens of an item up to its body (its header), for an error that should not underline the
/// whole item.
fn first_line(item: &TokenStream) -> TokenStream {
    item.clone()
        .into_iter()
        .take_while(|t| !matches!(t, proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace))
        .collect()
}

/// The type a companion gives a parameter's tangent or adjoint.
type TypeOf = fn(&Param) -> TokenStream;

pub(super) struct Signatures<'a> {
    pub(super) f: &'a Function,
}

impl<'a> Signatures<'a> {
    fn new(f: &'a Function) -> Self {
        Signatures { f }
    }

    pub(super) fn taken(&self) -> Vec<String> {
        let mut taken: Vec<String> = self.f.params.iter().map(|p| p.name.to_string()).collect();
        taken.extend(crate::names::body_idents(&self.f.item));
        taken
    }

    pub(super) fn elem(p: &Param) -> TokenStream {
        match &p.elem_ty {
            Some(t) => t.to_token_stream(),
            None => quote!(f64),
        }
    }

    fn tangent_ty(p: &Param) -> TokenStream {
        if let Some(t) = Self::na_tangent_ty(p) {
            return t;
        }
        if let Some(t) = Self::struct_tangent_ty(p) {
            return t;
        }
        let e = Self::elem(p);
        if p.inout {
            // Updated in place alongside the argument: the adjoint buffer's type.
            return Self::adjoint_ty(p);
        }
        if p.scalar_ref() == Some(false) {
            return quote!(&#e);
        }
        match &p.shape {
            Shape::Seq(SeqKind::Array(_)) => p.ty.to_token_stream(),
            Shape::Seq(_) => quote!(&[#e]),
            _ => p.ty.to_token_stream(),
        }
    }

    fn adjoint_ty(p: &Param) -> TokenStream {
        if let Some(t) = Self::na_adjoint_ty(p) {
            return t;
        }
        if let Some(t) = Self::struct_adjoint_ty(p) {
            return t;
        }
        let e = Self::elem(p);
        match &p.shape {
            Shape::Seq(SeqKind::Array(n)) => quote!(&mut [#e; #n]),
            Shape::Seq(_) => quote!(&mut [#e]),
            _ => quote!(&mut #e),
        }
    }

    /// The tangent type of the public `_jvp` (a nested array's as written).
    pub(super) fn pub_tangent_ty(p: &Param) -> TokenStream {
        Self::nested_tangent_ty(p).unwrap_or_else(|| Self::tangent_ty(p))
    }

    /// The adjoint type of the public `_vjp` (a nested array's as written).
    pub(super) fn pub_adjoint_ty(p: &Param) -> TokenStream {
        Self::nested_adjoint_ty(p).unwrap_or_else(|| Self::adjoint_ty(p))
    }

    fn grad_field_ty(p: &Param) -> TokenStream {
        if let Some(t) = Self::nested_grad_ty(p)
            .or_else(|| Self::struct_grad_ty(p))
            .or_else(|| Self::na_grad_ty(p))
        {
            return t;
        }
        let e = Self::elem(p);
        match &p.shape {
            Shape::Seq(SeqKind::Array(n)) => quote!([#e; #n]),
            Shape::Seq(_) => quote!(::std::vec::Vec<#e>),
            _ => e,
        }
    }

    pub(super) fn seed_ty(&self) -> TokenStream {
        let o = &self.f.output;
        match o.shape {
            Shape::Seq(SeqKind::Vec) => {
                let e = &o.elem_ty;
                quote!(&[#e])
            }
            _ => o.ty.to_token_stream(),
        }
    }

    pub(super) fn inputs(&self) -> Vec<TokenStream> {
        self.f
            .item
            .sig
            .inputs
            .iter()
            .map(|i| i.to_token_stream())
            .collect()
    }

    pub(super) fn shadow_args(&self, ty: fn(&Param) -> TokenStream) -> Vec<TokenStream> {
        let taken = self.taken();
        self.f
            .params
            .iter()
            .filter(|p| p.active)
            .map(|p| {
                let n = names::shadow_param(&p.name, &taken);
                let t = ty(p);
                quote!(#n: #t)
            })
            .collect()
    }

    /// The function's where clause, plus `T: Scalar` for every float type parameter `T`: the
    /// runtime's value traits (zeros shaped like a value, accumulation) are implemented for the
    /// float types one by one, so generic code must say that `T` has them. A function with
    /// nalgebra values also needs `T: kernels::Real` (`f32` or `f64`), which its rules take.
    pub(super) fn where_clause(&self) -> TokenStream {
        let rt = names::rt();
        let na = self.f.uses_na().then(|| quote!(+ #rt::Real));
        let extra = self
            .f
            .float_generics
            .iter()
            .map(|t| quote!(#t: #rt::Scalar #na,));
        let preds = match &self.f.item.sig.generics.where_clause {
            Some(w) if !w.predicates.is_empty() => {
                let p = &w.predicates;
                let sep = (!p.trailing_punct()).then(|| quote!(,));
                quote!(#p #sep)
            }
            _ => quote!(),
        };
        if preds.is_empty() && self.f.float_generics.is_empty() {
            return quote!();
        }
        quote!(where #preds #(#extra)*)
    }

    /// The function's generic parameters as written after a name (`<T: Float>`, or nothing).
    pub(super) fn generics(&self) -> TokenStream {
        let gparams = &self.f.item.sig.generics.params;
        if gparams.is_empty() {
            quote!()
        } else {
            quote!(<#gparams>)
        }
    }

    pub(super) fn headers(&self) -> (TokenStream, TokenStream, Option<TokenStream>) {
        self.headers_as(false)
    }

    /// The headers of the companions; with `flat`, of the hidden inner companions of a function
    /// with nested arrays (`codegen/nested.rs`), which take and give the flat forms.
    fn headers_as(&self, flat: bool) -> (TokenStream, TokenStream, Option<TokenStream>) {
        let sig = &self.f.item.sig;
        let name = &sig.ident;
        let where_c = self.where_clause();
        let generics = self.generics();
        let (inputs, out, vis) = if flat {
            (
                self.flat_inputs(),
                self.f.output.ty.to_token_stream(),
                quote!(),
            )
        } else {
            let vis = &self.f.item.vis;
            let out = match &self.f.output.strukt {
                Some(so) => so.ty.to_token_stream(),
                None => self.public_out(),
            };
            (self.inputs(), out, quote!(#vis))
        };
        let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code, non_snake_case, clippy::all)]);
        let companion = |suffix: &str| match flat {
            true => names::flat_companion(name, suffix),
            false => self.public_companion(suffix),
        };
        let hidden = flat.then(|| quote!(#[doc(hidden)]));
        let (tan_ty, adj_ty): (TypeOf, TypeOf) = match flat {
            true => (Self::tangent_ty, Self::adjoint_ty),
            false => (Self::pub_tangent_ty, Self::pub_adjoint_ty),
        };

        let jvp = companion("jvp");
        let tans = self.shadow_args(tan_ty);
        let doc_j = format!(
            " Forward mode of [`{name}`]: its value and its directional derivative along the \
             tangents `d<arg>` of the active arguments, generated by `#[differentiate]`."
        );
        let unit = self.f.output.is_unit();
        // A function giving `()` gives its results (and their tangents) through its `&mut`
        // arguments only.
        let tangent_out = match self.struct_out_tangent() {
            Some(t) if !flat => t,
            _ => out.clone(),
        };
        let jvp_out = (!unit).then(|| quote!(-> (#out, #tangent_out)));
        let vjp_out = (!unit).then(|| quote!(-> #out));
        let jvp_h = quote! {
            #[doc = #doc_j]
            #hidden
            #allow
            #[inline]
            #vis fn #jvp #generics (#(#inputs,)* #(#tans),*) #jvp_out #where_c
        };

        let vjp = companion("vjp");
        let adjs = self.shadow_args(adj_ty);
        let seed = names::seed(&self.taken());
        let seed_ty = if flat {
            self.seed_ty()
        } else if let Some(t) = self.struct_out_tangent() {
            t
        } else {
            self.public_seed_ty()
        };
        let seed_arg = (!unit).then(|| quote!(#seed: #seed_ty));
        let doc_v = format!(
            " Reverse mode of [`{name}`]: returns its value and ADDS `{seed}` times the \
             derivative of the output into each adjoint buffer `d<arg>`, generated by \
             `#[differentiate]`."
        );
        let doc_v = if self.f.params.iter().any(Param::active_inout) {
            doc_v
                + " The buffer of a `&mut` argument holds the adjoint of the argument's final \
                   value on entry and, on exit, the adjoint with respect to its initial value."
        } else {
            doc_v
        };
        let vjp_h = quote! {
            #[doc = #doc_v]
            #hidden
            #allow
            #vis fn #vjp #generics (#(#inputs,)* #(#adjs,)* #seed_arg) #vjp_out #where_c
        };

        // `_grad` needs one float output and inputs it does not overwrite.
        let has_grad = !flat
            && self.f.output.shape == Shape::Scalar
            && self.f.output.strukt.is_none()
            && !self.f.params.iter().any(Param::active_inout);
        let grad_h = has_grad.then(|| {
            let g = names::companion(name, "grad");
            if self.is_method() {
                // No struct can be declared inside an `impl`: the gradient is the active
                // arguments' adjoints, in argument order (one alone, or a tuple).
                let grads = self.method_grads(Self::grad_field_ty);
                let doc = format!(
                    " Value and gradient of [`Self::{name}`] with respect to its active \
                     arguments (in argument order; a tuple when there are several), generated \
                     by `#[differentiate]`."
                );
                return quote! {
                    #[doc = #doc]
                    #allow
                    #vis fn #g #generics (#(#inputs),*) -> (#out, #grads) #where_c
                };
            }
            let st = names::grad_struct(name);
            let sgen = self.struct_generics();
            let doc = format!(
                " Value and gradient of [`{name}`] with respect to its active arguments, \
                 generated by `#[differentiate]`."
            );
            quote! {
                #[doc = #doc]
                #allow
                #vis fn #g #generics (#(#inputs),*) -> (#out, #st #sgen) #where_c
            }
        });
        (jvp_h, vjp_h, grad_h)
    }

    /// Generic parameters of the function that appear in the gradient struct's fields.
    pub(super) fn struct_generics(&self) -> TokenStream {
        // The identifiers the field types name (their tokens, groups included).
        let words: Vec<String> = self
            .f
            .params
            .iter()
            .filter(|p| p.active)
            .flat_map(|p| crate::ir::token_names(&Self::grad_field_ty(p), false))
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let used: Vec<TokenStream> = self
            .f
            .item
            .sig
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) if words.contains(&t.ident.to_string().as_str()) => {
                    Some(t.ident.to_token_stream())
                }
                syn::GenericParam::Const(c) if words.contains(&c.ident.to_string().as_str()) => {
                    Some(c.ident.to_token_stream())
                }
                _ => None,
            })
            .collect();
        if used.is_empty() {
            quote!()
        } else {
            quote!(<#(#used),*>)
        }
    }

    fn struct_def(&self) -> TokenStream {
        let name = &self.f.item.sig.ident;
        let vis = &self.f.item.vis;
        let st = names::grad_struct(name);
        let defs: Vec<TokenStream> = self
            .f
            .item
            .sig
            .generics
            .params
            .iter()
            .filter_map(|g| {
                let s = self.struct_generics().to_string();
                match g {
                    syn::GenericParam::Type(t)
                        if s.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|w| t.ident == w) =>
                    {
                        let id = &t.ident;
                        Some(quote!(#id))
                    }
                    syn::GenericParam::Const(c)
                        if s.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|w| c.ident == w) =>
                    {
                        let id = &c.ident;
                        let ty = &c.ty;
                        Some(quote!(const #id: #ty))
                    }
                    _ => None,
                }
            })
            .collect();
        let gen = if defs.is_empty() {
            quote!()
        } else {
            quote!(<#(#defs),*>)
        };
        let fields = self.f.params.iter().filter(|p| p.active).map(|p| {
            let n = &p.name;
            let t = Self::grad_field_ty(p);
            let doc = format!(" Derivative of the output with respect to `{n}`.");
            quote!(#[doc = #doc] pub #n: #t)
        });
        let doc = format!(" Gradient of [`{name}`], one field per active argument.");
        // A struct argument's field is `<S<T> as Differentiable>::Tangent`, which needs `T`'s
        // value traits to be named at all.
        let bounds = if self.has_structs() && !defs.is_empty() {
            let rt = names::rt();
            let used = self.struct_generics().to_string();
            let floats = self.f.float_generics.iter().filter(|t| {
                used.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| *t == w)
            });
            quote!(where #(#floats: #rt::Scalar,)*)
        } else {
            quote!()
        };
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            #[allow(non_snake_case)]
            #vis struct #st #gen #bounds { #(#fields,)* }
        }
    }

    fn grad_body(&self) -> TokenStream {
        let rt = names::rt();
        let name = &self.f.item.sig.ident;
        let vjp = self.call_path(&names::companion(name, "vjp"));
        let st = names::grad_struct(name);
        let mut inits = Vec::new();
        let mut args = Vec::new();
        let mut fields = Vec::new();
        for p in &self.f.params {
            args.push(p.name.to_token_stream());
        }
        for p in self.f.params.iter().filter(|p| p.active) {
            let n = &p.name;
            let b = names::grad_buffer(n);
            inits.push(quote!(let mut #b = #rt::zero_tangent(&#n);));
            args.push(quote!(&mut #b));
            fields.push(quote!(#n: #b));
        }
        if self.is_method() {
            let grads = self.method_grads(|p| names::grad_buffer(&p.name).to_token_stream());
            return quote! {
                #(#inits)*
                let __ad_value = #vjp(#(#args,)* #rt::one());
                (__ad_value, #grads)
            };
        }
        quote! {
            #(#inits)*
            let __ad_value = #vjp(#(#args,)* #rt::one());
            (__ad_value, #st { #(#fields,)* })
        }
    }

    fn full(&self, fwd: TokenStream, rev: TokenStream) -> TokenStream {
        if self.is_nested() {
            return self.full_nested(fwd, rev);
        }
        let (j, v, g) = self.headers();
        let grad = g.map(|g| {
            let s = (!self.is_method()).then(|| self.struct_def());
            let body = self.grad_body();
            quote!(#s #g { #body })
        });
        let jac = self.jacobian_headers().map(|(h, hs)| {
            let body = self.jacobian_body();
            let sparse = self.sparse_jacobian_body();
            quote!(#h { #body } #hs { #sparse })
        });
        let (dh, db) = self.dropped();
        let (pf, pr) = self.prologues();
        if self.f.output.strukt.is_some() {
            let (jb, vb, db) = self.struct_out_bodies((&pf, &pr), fwd, rev);
            return quote! {
                #j { #jb }
                #v { #vb }
                #dh { #db }
            };
        }
        let decls = self.copy_decls(None);
        let rev = self.reverse_with_copies(quote!(#pr #rev));
        quote! {
            #j { #decls #pf #fwd }
            #v { #rev }
            #grad
            #jac
            #dh { #db }
        }
    }

    /// The tops of the forward and reverse companions' bodies: struct fields and nalgebra
    /// dimensions bound, then nalgebra arguments rebound to their storage.
    fn prologues(&self) -> (TokenStream, TokenStream) {
        use super::structs::Mode;
        let (sf, sr) = (
            self.struct_prologue(Mode::Forward),
            self.struct_prologue(Mode::Reverse),
        );
        let (nf, nr) = (
            self.na_prologue(Mode::Forward),
            self.na_prologue(Mode::Reverse),
        );
        (quote!(#sf #nf), quote!(#sr #nr))
    }

    /// `full` for a function with nested arrays: the inner companions over the flat forms, then
    /// the public ones converting (`codegen/nested.rs`); `_grad` and `_jacobian` call the public
    /// ones.
    fn full_nested(&self, fwd: TokenStream, rev: TokenStream) -> TokenStream {
        let (ji, vi, _) = self.headers_as(true);
        let (j, v, g) = self.headers_as(false);
        let (mut jb, mut vb, mut db) = self.nested_bodies();
        let (dh, dropped_body) = self.dropped();
        if self.has_ragged() {
            // Through the public `_vjp`, which flattens the rows.
            (jb, vb) = self.ragged_bodies();
            db = dropped_body;
        }
        let (pf, pr) = self.prologues();
        let grad = g.map(|g| {
            let s = (!self.is_method()).then(|| self.struct_def());
            let body = self.grad_body();
            quote!(#s #g { #body })
        });
        let jac = self.jacobian_headers().map(|(h, hs)| {
            let body = self.jacobian_body();
            let sparse = self.sparse_jacobian_body();
            quote!(#h { #body } #hs { #sparse })
        });
        let decls = self.copy_decls(None);
        let rev = self.reverse_with_copies(quote!(#pr #rev));
        quote! {
            #ji { #decls #pf #fwd }
            #vi { #rev }
            #j { #jb }
            #v { #vb }
            #grad
            #jac
            #dh { #db }
        }
    }

    /// The name of a public companion other differentiated functions call (`_jvp`, `_vjp`,
    /// `_vjp_dropped`): spanned at `wrt` when the attribute has it (`Function::wrt_span`).
    fn public_companion(&self, suffix: &str) -> syn::Ident {
        let mut id = names::companion(&self.f.item.sig.ident, suffix);
        if let Some(s) = self.f.wrt_span {
            id.set_span(s);
        }
        id
    }

    /// `<f>_vjp_dropped`: the reverse of a call of `f` whose value is dropped (a call statement
    /// `f(.., &mut v);` in another differentiated function, where the caller cannot see whether
    /// `f` gives a value): `f_vjp` with a zero seed, or without one when `f` gives `()`.
    pub(super) fn dropped(&self) -> (TokenStream, TokenStream) {
        let vis = &self.f.item.vis;
        let name = &self.f.item.sig.ident;
        let where_c = self.where_clause();
        let generics = self.generics();
        let inputs = self.inputs();
        let adjs = self.shadow_args(Self::pub_adjoint_ty);
        let dropped = self.public_companion("vjp_dropped");
        let vjp = self.call_path(&names::companion(name, "vjp"));
        // With a struct output the body is the reverse sweep's (`codegen/structs.rs`).
        let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code, non_snake_case, clippy::all)]);
        let header = quote! {
            #[doc(hidden)]
            #allow
            #[inline]
            #vis fn #dropped #generics (#(#inputs,)* #(#adjs),*) #where_c
        };
        let taken = self.taken();
        let mut args: Vec<TokenStream> = self
            .f
            .params
            .iter()
            .map(|p| p.name.to_token_stream())
            .collect();
        args.extend(
            self.f
                .params
                .iter()
                .filter(|p| p.active)
                .map(|p| names::shadow_param(&p.name, &taken).to_token_stream()),
        );
        let o = &self.f.output;
        let seed = match &o.shape {
            _ if o.is_unit() => None,
            // A shorter seed is padded with zeros.
            Shape::Seq(SeqKind::Vec) => Some(quote!(&[])),
            s => Some(crate::reverse::zero_adjoint(s)),
        };
        let body = quote!(let _ = #vjp(#(#args,)* #seed););
        (header, body)
    }

    fn stubs(&self) -> TokenStream {
        let (j, v, g) = self.headers();
        let body = quote!({ ::core::unimplemented!("#[differentiate] reported an error") });
        let grad = g.map(|g| {
            let s = (!self.is_method()).then(|| self.struct_def());
            quote!(#s #g #body)
        });
        let jac = self
            .jacobian_headers()
            .map(|(h, hs)| quote!(#h #body #hs #body));
        let (dh, _) = self.dropped();
        quote! {
            #j #body
            #v #body
            #grad
            #jac
            #dh #body
        }
    }
}
