//! The generic copy for second order: takes a lowered function (before activity), gives the IR of
//! `<f>_generic`, the same function over a float type parameter, whose reverse mode
//! `<f>_hvp` runs on `Dual` numbers (forward over reverse, `codegen/hvp.rs`).
//!
//! A function written for `f32` or `f64` gets a new type parameter (`names::lift_param`) in place
//! of its float type, in its signature and in every type of its body; its float constants
//! (literals, `f64::consts::PI`, values of plain calls) become `constant::<S, _>(c)`; a
//! conversion between floats is the value itself, from an integer a constant, to an integer reads
//! the real part. A generic function keeps its float type parameter; one that also computes in
//! `f32` or `f64` (`let x: f64 = p.into()`) gets those replaced by that parameter the same way.
//! Either way, every call of another differentiated function `g` becomes a call of `g_generic`,
//! which `#[differentiate(hvp)]` on `g` writes (or a hand-written rule provides), and
//! `w[i] op= e` evaluates `e` first into a local (`op=` on a type parameter borrows `w` first).

use crate::diag::Diag;
use crate::ir::*;
use crate::names;
use quote::{quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The generic copy of `f`, or `None` after reporting what keeps `f` from having one.
pub fn lift(f: &Function, hvp: &syn::Ident, diag: &mut Diag) -> Option<Function> {
    let before = diag.has_errors();
    check(f, hvp, diag);
    if diag.has_errors() != before {
        return None;
    }
    let mut g = f.clone();
    g.item.sig.ident = names::generic_twin(&f.item.sig.ident);
    let to = match f.float_generics.as_slice() {
        [] => Some(names::lift_param()),
        // A generic function that also computes in `f32` or `f64` (`let x: f64 = p.into()`):
        // those become its type parameter, or the copy would drop the direction there.
        _ => concrete_in_generic(f).cloned(),
    };
    match &to {
        Some(s) if f.float_generics.is_empty() => {
            let b = bounds(s);
            g.item.sig.generics.params.push(syn::parse_quote!(#s: #b));
            g.float_generics.push(s.clone());
        }
        Some(t) => {
            let b = bounds(t);
            let w = g.item.sig.generics.make_where_clause();
            w.predicates.push(syn::parse_quote!(#t: #b));
        }
        None => {}
    }
    if let Some(s) = &to {
        let mut sub = Subst { to: s };
        sub.visit_signature_mut(&mut g.item.sig);
        for p in g.params.iter_mut() {
            sub.visit_type_mut(&mut p.ty);
            if let Some(t) = &mut p.elem_ty {
                sub.visit_type_mut(t);
            }
        }
        sub.visit_type_mut(&mut g.output.ty);
        sub.visit_type_mut(&mut g.output.elem_ty);
        for v in g.vars.iter_mut() {
            if let Some(t) = &mut v.ty {
                sub.visit_type_mut(t);
            }
        }
    }
    let vars = g.vars.clone();
    let float_ty = to.clone().or_else(|| g.float_generics.first().cloned());
    let mut rw = |e: &mut Expr| {
        stop_at_every_order(e, &vars, float_ty.as_ref(), diag);
        rewrite(e, &vars, to.as_ref(), diag)
    };
    visit_exprs_mut(&mut g.body.stmts, &mut rw);
    if let Some(t) = &mut g.tail {
        t.visit_mut(&mut rw);
    }
    if let Some(s) = &to {
        let scalar_out = g.output.shape == Shape::Scalar;
        bind_constants(&mut g.body.stmts, &vars, s, scalar_out);
        if let Some(t) = &mut g.tail {
            if scalar_out && shape_of(&vars, t) == Shape::Other {
                as_constant(t, s);
            }
        }
    }
    let body = std::mem::take(&mut g.body.stmts);
    g.body.stmts = value_first(body, &mut g.vars);
    (diag.has_errors() == before).then_some(g)
}

/// What the generic copy cannot take yet: spanned errors.
fn check(f: &Function, hvp: &syn::Ident, diag: &mut Diag) {
    if f.uses_na() {
        diag.unsupported_at(
            hvp,
            "nalgebra values with `hvp` (yet)",
            "write the function over slices (`m.as_slice()`, column-major) for second order, or \
             differentiate `_grad` by finite differences",
        );
    }
    for p in &f.params {
        if p.strukt.is_some() {
            diag.unsupported_at(
                &p.ty,
                "struct arguments with `hvp`",
                "pass the struct's float fields as arguments of their own",
            );
        } else if let Some(nest) = p.nest.as_ref().filter(|n| n.ragged.is_some()) {
            diag.unsupported_at(
                &nest.ty,
                "sequences of `Vec`s (`&[Vec<T>]`, `Vec<Vec<T>>`) with `hvp` (yet)",
                "pass the rows' data flat (`&[f64]`) with their offsets, and index it \
                 `m[off[i] + j]`",
            );
        } else if let Some(nest) = &p.nest {
            diag.unsupported_at(
                &nest.ty,
                "arrays of arrays with `hvp`",
                "pass the flat data (`&[f64]`, row-major) and index it `p[i * C + j]`",
            );
        }
    }
    // A struct held whole in a local (`lower/struct_calls.rs`): its callee has no generic copy.
    if let Some(v) = f
        .vars
        .iter()
        .find(|v| v.shape == Shape::Struct && !matches!(v.origin, VarOrigin::Param(_)))
    {
        diag.unsupported_at(
            &v.name,
            "a struct held whole in a local (the struct a call gives, or a copy) with `hvp` (yet)",
            "read the fields you need inside the callee and give them as floats, or remove `hvp`",
        );
    }
    if f.output.strukt.is_some() {
        diag.unsupported_at(
            &f.item.sig.output,
            "struct outputs with `hvp`",
            "return the float you need the Hessian of",
        );
    }
    if f.output.nest.is_some() {
        diag.unsupported_at(
            &f.item.sig.output,
            "arrays of arrays as outputs with `hvp`",
            "return a flat array",
        );
    }
    if let Some(r) = f.item.sig.receiver() {
        diag.unsupported_at(
            r,
            "methods with `hvp`",
            "write a free function (or an associated function without `self`)",
        );
    }
    if f.float_generics.len() > 1 {
        // `_hessian`'s columns and `_hvp`'s directions are of one float type.
        diag.unsupported_at(
            hvp,
            "`hvp` on a function generic over several float types",
            "use one float type parameter",
        );
        return;
    }
    if !f.float_generics.is_empty() {
        if names_concrete_float(f) {
            check_generic(f, diag);
        }
        return;
    }
    let mut floats = Vec::new();
    let mut seen = FloatNames(&mut floats);
    seen.visit_signature(&f.item.sig);
    floats.sort();
    floats.dedup();
    if floats.len() > 1 {
        diag.unsupported_at(
            hvp,
            "`hvp` on a function with both `f32` and `f64` arguments or output",
            "use one float type (or a type parameter `T: Float`)",
        );
    }
}

/// What the copy's float type parameter `s` may do beyond `Float` (what a function written for
/// a float type does with it): compound assignment, printing, and what a generic callee may ask
/// for (`T: Sum`, `Product`, `FromPrimitive`). `f32`, `f64` and `Dual<T>` of a `T` that has them
/// have them all.
pub fn bounds(s: &syn::Ident) -> proc_macro2::TokenStream {
    let rt = names::rt();
    quote! {
        ::core::ops::AddAssign + ::core::ops::SubAssign + ::core::ops::MulAssign
            + ::core::ops::DivAssign + ::core::ops::RemAssign + ::core::fmt::Debug
            + ::core::fmt::Display + ::core::iter::Sum + ::core::iter::Product
            + for<'__ad> ::core::iter::Sum<&'__ad #s>
            + for<'__ad> ::core::iter::Product<&'__ad #s>
            + #rt::FromPrimitive
    }
}

/// The float type parameter of a generic `f` whose copy computes in it where `f` computes in
/// `f32` or `f64` (it then asks for [`bounds`] too), if `f` is such a function (with one float
/// type parameter: `check` refuses several).
pub fn concrete_in_generic(f: &Function) -> Option<&syn::Ident> {
    match f.float_generics.as_slice() {
        [t] if names_concrete_float(f) => Some(t),
        _ => None,
    }
}

/// Whether `f` names `f32` or `f64` (in its signature, bounds included, or its body) or
/// converts a float to one of them (`p.to_f64().unwrap()` names neither).
fn names_concrete_float(f: &Function) -> bool {
    let named = crate::ir::token_names(&f.item.to_token_stream(), false)
        .iter()
        .any(|n| n == "f32" || n == "f64");
    let mut converts = false;
    let mut see = |e: &mut Expr| {
        if let ExprKind::Cast { ty, .. } = &e.kind {
            converts |= matches!(&**ty, syn::Type::Path(p)
                if p.path.is_ident("f64") || p.path.is_ident("f32"));
        }
    };
    let (mut body, mut tail) = (f.body.stmts.clone(), f.tail.clone());
    visit_exprs_mut(&mut body, &mut see);
    if let Some(t) = &mut tail {
        t.visit_mut(&mut see);
    }
    named || converts
}

/// A generic function that also computes in `f32` or `f64`: its copy makes those its float
/// type parameter, so it must have just one, and its arguments and output must not be `f32` or
/// `f64` themselves (they would then take that type parameter's `Dual`s).
fn check_generic(f: &Function, diag: &mut Diag) {
    let names_float = |t: &syn::Type| {
        let mut floats = Vec::new();
        FloatNames(&mut floats).visit_type(t);
        !floats.is_empty()
    };
    let output = match &f.item.sig.output {
        syn::ReturnType::Type(_, t) => Some(&**t),
        syn::ReturnType::Default => None,
    };
    let typed = f.item.sig.inputs.iter().filter_map(|a| match a {
        syn::FnArg::Typed(p) => Some(&*p.ty),
        syn::FnArg::Receiver(_) => None,
    });
    if let Some(t) = typed.chain(output).find(|t| names_float(t)) {
        diag.unsupported_at(
            t,
            "`hvp` on a generic function with `f32` or `f64` arguments or output",
            "give them its float type parameter",
        );
    }
}

/// Rewrites one node of the copy (children first: `Expr::visit_mut`).
fn rewrite(e: &mut Expr, vars: &[Var], to: Option<&syn::Ident>, diag: &mut Diag) {
    let span = e.span;
    if let ExprKind::Call { func, .. } = &mut e.kind {
        rename_callee(func);
        return;
    }
    if let ExprKind::PlainCall {
        path: Some(path), ..
    } = &mut e.kind
    {
        rename_callee(path);
    }
    // A generic function's constants and conversions are already in its float type.
    let Some(s) = to else { return };
    let rt = names::rt();
    enum Action {
        Keep,
        Constant,
        ConstantArray,
        Identity,
        RealPart(proc_macro2::TokenStream),
        FromInt,
    }
    // A value the macro cannot type (a plain call `weight(i)`, a local bound to one) met by a
    // float in arithmetic, a comparison or a float method's argument: a constant of the copy.
    match &mut e.kind {
        ExprKind::Binary { op, lhs, rhs } if !matches!(op, BinOp::And | BinOp::Or) => {
            let (a, b) = (shape_of(vars, lhs), shape_of(vars, rhs));
            if a == Shape::Scalar && b == Shape::Other {
                as_constant(rhs, s);
            } else if a == Shape::Other && b == Shape::Scalar {
                as_constant(lhs, s);
            }
        }
        ExprKind::Method { recv, method, args } => {
            let powi = crate::methods::float_method(&method.to_string())
                .is_some_and(|m| m.arity == crate::methods::Arity::PowI);
            if !powi && shape_of(vars, recv) == Shape::Scalar {
                for a in args.iter_mut() {
                    if shape_of(vars, a) == Shape::Other {
                        as_constant(a, s);
                    }
                }
            }
        }
        _ => {}
    }
    let action = match &e.kind {
        ExprKind::Lit(_) | ExprKind::Opaque { .. } | ExprKind::PlainCall { .. } => {
            match shape_of(vars, e) {
                Shape::Scalar => Action::Constant,
                Shape::Seq(SeqKind::Array(_)) if !matches!(e.kind, ExprKind::PlainCall { .. }) => {
                    Action::ConstantArray
                }
                Shape::Seq(_) | Shape::Tuple(_) => {
                    diag.unsupported(
                        span,
                        "a constant or a plain call giving several floats with `hvp`",
                        "build the value in the function from scalars (`[A, B]`, a loop)",
                    );
                    Action::Keep
                }
                _ => Action::Keep,
            }
        }
        ExprKind::Cast { expr, ty, form } => {
            let to_float = shape_of(vars, e) == Shape::Scalar;
            match (shape_of(vars, expr), to_float) {
                // Every float is `S` in the copy.
                (Shape::Scalar, true) => Action::Identity,
                (Shape::Scalar, false) if matches!(form, CastForm::As) => {
                    Action::RealPart(ty.to_token_stream())
                }
                // A value never differentiated (an integer, an element of an integer slice
                // `w[i] as f64`, a value of another type): a constant in the copy.
                (Shape::Int | Shape::Bool | Shape::Other, true) => Action::FromInt,
                _ => Action::Keep,
            }
        }
        _ => Action::Keep,
    };
    match (action, &mut e.kind) {
        (Action::Constant, _) => as_constant(e, s),
        (Action::ConstantArray, _) => as_constant_array(e, s, shape_of(vars, e)),
        (Action::Identity, ExprKind::Cast { expr, .. }) => *e = (**expr).clone(),
        (Action::RealPart(ty), ExprKind::Cast { form, .. }) => {
            *form = CastForm::Call {
                func: quote!(#rt::real_f64),
                suffix: quote!(as #ty),
            }
        }
        (Action::FromInt, ExprKind::Cast { expr, .. }) => {
            let int = Expr::new(
                ExprKind::Cast {
                    expr: expr.clone(),
                    ty: Box::new(syn::parse_quote!(f64)),
                    form: CastForm::As,
                },
                span,
            );
            *e = constant_of(int, s);
        }
        _ => {}
    }
}

/// `func(inner)`, a conversion to `ty` written as a call.
fn call_cast(inner: Expr, ty: syn::Type, func: proc_macro2::TokenStream) -> Expr {
    let span = inner.span;
    Expr::new(
        ExprKind::Cast {
            expr: Box::new(inner),
            ty: Box::new(ty),
            form: CastForm::Call {
                func,
                suffix: quote!(),
            },
        },
        span,
    )
}

/// `inner` as a constant of the copy's float type `s`: `constant::<S, _>(inner)`.
fn constant_of(inner: Expr, s: &syn::Ident) -> Expr {
    let rt = names::rt();
    call_cast(inner, syn::parse_quote!(#s), quote!(#rt::constant::<#s, _>))
}

/// `e` replaced by [`constant_of`] it.
fn as_constant(e: &mut Expr, s: &syn::Ident) {
    let inner = std::mem::replace(e, Expr::new(ExprKind::Poison, e.span));
    *e = constant_of(inner, s);
}

/// A constant array `e` (`W`, a `const` of floats) as one of the copy's float type `s`:
/// `constant_array::<S, _, N>(e)`, a plain call of shape `shape`.
fn as_constant_array(e: &mut Expr, s: &syn::Ident, shape: Shape) {
    let rt = names::rt();
    let span = e.span;
    let inner = std::mem::replace(e, Expr::new(ExprKind::Poison, span));
    *e = Expr::new(
        ExprKind::PlainCall {
            func: quote!(#rt::constant_array::<#s, _, _>),
            args: vec![inner],
            shape,
            suffix: quote!(),
            path: None,
        },
        span,
    );
}

/// `let c: f64 = weight(i);`, `c = weight(i);`, `v.push(weight(i));`, `return weight(i);` (a
/// float output): an untyped value stored in a float variable or returned as the float output
/// becomes a constant of the copy.
fn bind_constants(stmts: &mut [Stmt], vars: &[Var], s: &syn::Ident, scalar_out: bool) {
    for st in stmts {
        match st {
            Stmt::Let {
                pat: Pat::Bind(v),
                init: Some(e),
            }
            | Stmt::Assign {
                place: Place::Var(v),
                value: e,
                ..
            } if vars[*v].shape == Shape::Scalar && shape_of(vars, e) == Shape::Other => {
                as_constant(e, s)
            }
            Stmt::Let {
                pat: Pat::Bind(v),
                init: Some(e),
            } if matches!(vars[*v].shape, Shape::Seq(SeqKind::Array(_)))
                && shape_of(vars, e) == Shape::Other =>
            {
                as_constant_array(e, s, vars[*v].shape.clone())
            }
            Stmt::Assign {
                place: Place::Index(v, _),
                value: e,
                ..
            } if matches!(vars[*v].shape, Shape::Seq(_)) && shape_of(vars, e) == Shape::Other => {
                as_constant(e, s)
            }
            Stmt::Push { vec, value: e }
                if matches!(vars[*vec].shape, Shape::Seq(_))
                    && shape_of(vars, e) == Shape::Other =>
            {
                as_constant(e, s)
            }
            Stmt::Return { value: Some(e), .. }
                if scalar_out && shape_of(vars, e) == Shape::Other =>
            {
                as_constant(e, s)
            }
            Stmt::If { then, els, .. } => {
                bind_constants(&mut then.stmts, vars, s, scalar_out);
                if let Some(b) = els {
                    bind_constants(&mut b.stmts, vars, s, scalar_out);
                }
            }
            Stmt::Match { arms, .. } => {
                for a in arms {
                    bind_constants(&mut a.body.stmts, vars, s, scalar_out);
                }
            }
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::Block(body) => bind_constants(&mut body.stmts, vars, s, scalar_out),
            _ => {}
        }
    }
}

/// `stop_gradient(x)` holds `x` constant at every order, as JAX's does: in the copy, which runs
/// on `Dual` numbers, its value is taken without its tangent, `constant::<S, _>(real_f64(x))`.
fn stop_at_every_order(e: &mut Expr, vars: &[Var], s: Option<&syn::Ident>, diag: &mut Diag) {
    let ExprKind::StopGradient(inner) = &mut e.kind else {
        return;
    };
    let span = e.span;
    match (shape_of(vars, inner), s) {
        (Shape::Scalar, Some(s)) => {
            let rt = names::rt();
            let x = std::mem::replace(&mut **inner, Expr::new(ExprKind::Poison, span));
            let real = call_cast(x, syn::parse_quote!(f64), quote!(#rt::real_f64));
            **inner = constant_of(real, s);
        }
        (Shape::Scalar, None) => {}
        _ => diag.unsupported(
            span,
            "`stop_gradient` of several floats with `hvp`",
            "hold each float constant: `stop_gradient(v[i])`",
        ),
    }
}

/// `w[i] op= e` → `let t = e; w[i] op= t;`: on a float type parameter `op=` is a trait
/// method, which borrows `w[i]` mutably before `e` is evaluated, so an `e` reading `w` (as
/// `w[i] += w[j]` does on `f64`, whose `+=` evaluates `e` first) would not compile.
fn value_first(stmts: Vec<Stmt>, vars: &mut Vec<Var>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    let block = |b: &mut Block, vars: &mut Vec<Var>| {
        b.stmts = value_first(std::mem::take(&mut b.stmts), vars);
    };
    for mut st in stmts {
        match &mut st {
            Stmt::Assign {
                place: Place::Index(..),
                op: Some(_),
                value,
            } if shape_of(vars, value) == Shape::Scalar => {
                let t = vars.len();
                vars.push(Var {
                    name: names::synthetic("rhs", t),
                    mutable: false,
                    shape: Shape::Scalar,
                    origin: VarOrigin::Synthetic,
                    ty: None,
                    active: false,
                    row: None,
                });
                let span = value.span;
                let e = std::mem::replace(value, Expr::new(ExprKind::Var(t), span));
                out.push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(e),
                });
            }
            Stmt::If { then, els, .. } => {
                block(then, vars);
                if let Some(b) = els {
                    block(b, vars);
                }
            }
            Stmt::Match { arms, .. } => {
                for a in arms {
                    block(&mut a.body, vars);
                }
            }
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::Block(body) => block(body, vars),
            _ => {}
        }
        out.push(st);
    }
    out
}

/// `g` → `g_generic`, `m::g` → `m::g_generic`, `Self::g` → `Self::g_generic`.
fn rename_callee(p: &mut syn::Path) {
    if let Some(last) = p.segments.last_mut() {
        last.ident = names::generic_twin(&last.ident);
    }
}

/// Replaces `f32` and `f64` in types by the copy's type parameter.
struct Subst<'a> {
    to: &'a syn::Ident,
}

impl VisitMut for Subst<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            if p.qself.is_none() && (p.path.is_ident("f64") || p.path.is_ident("f32")) {
                let s = self.to;
                *t = syn::parse_quote!(#s);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }
}

/// Collects the float types a signature names.
struct FloatNames<'a>(&'a mut Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for FloatNames<'_> {
    fn visit_type_path(&mut self, p: &'ast syn::TypePath) {
        if p.qself.is_none() && (p.path.is_ident("f64") || p.path.is_ident("f32")) {
            self.0.push(p.path.to_token_stream().to_string());
        }
        syn::visit::visit_type_path(self, p);
    }
}

#[cfg(test)]
mod tests {
    use crate::attr::Attr;
    use crate::diag::Diag;
    use crate::ir::print;
    use quote::quote;

    fn lifted(item: proc_macro2::TokenStream) -> String {
        let func: syn::ItemFn = syn::parse2(item).unwrap();
        let mut diag = Diag::default();
        let f = crate::lower::lower(&func, &Attr::default(), &mut diag).unwrap();
        let hvp = syn::Ident::new("hvp", proc_macro2::Span::call_site());
        let g = super::lift(&f, &hvp, &mut diag).expect("lifted");
        assert!(!diag.has_errors());
        print::function(&g).replace(' ', "")
    }

    #[test]
    fn floats_become_the_type_parameter_and_constants_are_converted() {
        let text = lifted(quote! {
            fn f(x: f64, v: &[f64], n: usize) -> f64 {
                let a: f64 = 2.5 * x + (n as f64) + f64::consts::PI;
                let k = (a * 3.0) as usize;
                a * v[k] + g(x) + (x as f64)
            }
        });
        assert!(text.contains("constant::<__AdS,_>(2.5)"), "{text}");
        assert!(text.contains("constant::<__AdS,_>((n#2asf64))"), "{text}");
        assert!(text.contains("real_f64"), "{text}");
        assert!(text.contains("g_generic"), "{text}");
        assert!(text.trim_end().ends_with("+x#0)\n}"), "{text:?}");
    }

    #[test]
    fn a_generic_function_keeps_its_constants() {
        let text = lifted(quote! {
            fn f<T: Float>(x: T) -> T {
                x * T::from_f64(2.0).unwrap() + g(x)
            }
        });
        assert!(!text.contains("constant"), "{text}");
        assert!(text.contains("g_generic"), "{text}");
    }
}
