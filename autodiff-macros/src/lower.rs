//! Lowering: takes the parsed function (`syn::ItemFn`) and the attribute, gives the IR
//! (`ir::Function`) with names resolved, shapes inferred from syntax, if/match/block expressions
//! hoisted into statements and iterator loops turned into index loops. Every construct it does
//! not understand becomes an error at its own tokens; lowering goes on after an error so that all
//! of them are reported together.

use crate::attr::Attr;
use crate::diag::Diag;
use crate::ir::*;
use crate::methods;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;

pub fn lower(item: &syn::ItemFn, attr: &Attr, diag: &mut Diag) -> Option<Function> {
    let mut cx = Lowerer {
        diag,
        vars: Vec::new(),
        scopes: vec![Vec::new()],
        float_generics: float_generics(&item.sig.generics),
        tmp: 0,
        loop_results: Vec::new(),
        closures: HashMap::new(),
        views: HashMap::new(),
        poisoned_names: Vec::new(),
        call_lets: Vec::new(),
        items: Vec::new(),
        item_shapes: item_shapes(&item.block),
    };
    cx.check_signature(&item.sig);
    let params = cx.params(&item.sig, attr);
    let output = cx.output(&item.sig);
    let mut body = Vec::new();
    let tail = cx.block_into(&item.block, &mut body);
    cx.infer_shapes(&body);
    let mut tail = tail;
    cx.reclassify_calls(&mut body, tail.as_mut());
    cx.check_call_results(&body, tail.as_ref());
    let output = output?;
    Some(Function {
        item: item.clone(),
        params,
        output,
        vars: cx.vars,
        body: Block { stmts: body },
        tail,
        items: cx.items,
    })
}

/// Type parameters that are floats: those bounded by `Float` (or `Real`, `RealField`).
fn float_generics(g: &syn::Generics) -> Vec<String> {
    let mut out = Vec::new();
    let is_float_bound = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "Float" | "Real" | "RealField" | "FloatCore"
            )
        }),
        _ => false,
    };
    for p in g.type_params() {
        if p.bounds.iter().any(is_float_bound) {
            out.push(p.ident.to_string());
        }
    }
    if let Some(w) = &g.where_clause {
        for pred in &w.predicates {
            if let syn::WherePredicate::Type(t) = pred {
                if let syn::Type::Path(tp) = &t.bounded_ty {
                    if let Some(id) = tp.path.get_ident() {
                        if t.bounds.iter().any(is_float_bound) {
                            out.push(id.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Names in scope, innermost last.
pub(crate) type Scopes = Vec<Vec<(String, VarId)>>;

pub(crate) struct Lowerer<'a> {
    pub(crate) diag: &'a mut Diag,
    pub(crate) vars: Vec<Var>,
    pub(crate) scopes: Vec<Vec<(String, VarId)>>,
    pub(crate) float_generics: Vec<String>,
    pub(crate) tmp: usize,
    /// For each enclosing `loop` used as an expression: the variable its `break value` sets.
    pub(crate) loop_results: Vec<(Option<String>, Option<VarId>)>,
    /// Local closures (`let sq = |a| a * a;`), inlined where called: the closure and the scopes
    /// it captured.
    pub(crate) closures: HashMap<VarId, (syn::ExprClosure, Scopes)>,
    /// Names bound to a window of a sequence (`windows`, `chunks`): `w[j]` reads `base[offset + j]`.
    pub(crate) views: HashMap<VarId, View>,
    /// Arguments already reported as unsupported: uses of them are not reported again.
    pub(crate) poisoned_names: Vec<String>,
    /// Variables bound without a type to the result of a call (assumed to be one float).
    pub(crate) call_lets: Vec<(VarId, TokenStream)>,
    /// Items declared in the body, copied into the generated functions.
    pub(crate) items: Vec<TokenStream>,
    /// Names of the `const` and `static` items declared in the body, with their declared types.
    pub(crate) item_shapes: HashMap<String, syn::Type>,
}

/// The `const` and `static` items declared anywhere in a function body, by name.
fn item_shapes(body: &syn::Block) -> HashMap<String, syn::Type> {
    struct Items(HashMap<String, syn::Type>);
    impl<'ast> syn::visit::Visit<'ast> for Items {
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            self.0.insert(c.ident.to_string(), (*c.ty).clone());
        }
        fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
            self.0.insert(s.ident.to_string(), (*s.ty).clone());
        }
        // Items of nested functions are not in scope here.
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    }
    let mut items = Items(HashMap::new());
    syn::visit::Visit::visit_block(&mut items, body);
    items.0
}

/// A borrowed window `base[offset .. offset + len]`.
#[derive(Clone)]
pub(crate) struct View {
    pub base: VarId,
    pub offset: Expr,
    pub len: Expr,
}

/// What a type is to the macro.
enum TypeClass {
    Float,
    /// A float sequence type; `Array` carries the length tokens.
    Seq(SeqKind),
    Int,
    Bool,
    /// A type with floats inside that the macro cannot differentiate (nested containers, structs
    /// of floats spelled out, nalgebra types...).
    UnsupportedFloat(&'static str),
    Other,
}

const INT_TYPES: &[&str] = &[
    "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
];

impl Lowerer<'_> {
    // ----------------------------------------------------------------- types and signature

    fn is_float_name(&self, s: &str) -> bool {
        s == "f32" || s == "f64" || self.float_generics.iter().any(|g| g == s)
    }

    fn classify(&self, ty: &syn::Type) -> TypeClass {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => {
                let last = match tp.path.segments.last() {
                    Some(s) => s,
                    None => return TypeClass::Other,
                };
                let name = last.ident.to_string();
                if tp.path.segments.len() == 1 && self.is_float_name(&name) {
                    return TypeClass::Float;
                }
                if INT_TYPES.contains(&name.as_str()) {
                    return TypeClass::Int;
                }
                if name == "bool" {
                    return TypeClass::Bool;
                }
                if name == "Vec" {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                        if let Some(syn::GenericArgument::Type(inner)) = a.args.first() {
                            return match self.classify(inner) {
                                TypeClass::Float => TypeClass::Seq(SeqKind::Vec),
                                TypeClass::Int | TypeClass::Bool | TypeClass::Other => {
                                    TypeClass::Other
                                }
                                _ => TypeClass::UnsupportedFloat("nested vectors of floats"),
                            };
                        }
                    }
                    return TypeClass::Other;
                }
                if matches!(
                    name.as_str(),
                    "DMatrix"
                        | "DVector"
                        | "SMatrix"
                        | "SVector"
                        | "Matrix"
                        | "Vector2"
                        | "Vector3"
                        | "Vector4"
                        | "Matrix2"
                        | "Matrix3"
                        | "Matrix4"
                        | "RowDVector"
                ) {
                    return TypeClass::UnsupportedFloat("nalgebra matrices and vectors (planned)");
                }
                if self.mentions_float(ty) {
                    return TypeClass::UnsupportedFloat("this container type");
                }
                TypeClass::Other
            }
            syn::Type::Array(a) => match self.classify(&a.elem) {
                TypeClass::Float => {
                    TypeClass::Seq(SeqKind::Array(a.len.to_token_stream().to_string()))
                }
                TypeClass::Int | TypeClass::Bool | TypeClass::Other => TypeClass::Other,
                _ => TypeClass::UnsupportedFloat("arrays of arrays of floats"),
            },
            syn::Type::Slice(s) => match self.classify(&s.elem) {
                TypeClass::Float => TypeClass::Seq(SeqKind::Slice),
                TypeClass::Int | TypeClass::Bool | TypeClass::Other => TypeClass::Other,
                _ => TypeClass::UnsupportedFloat("slices of arrays or vectors of floats"),
            },
            syn::Type::Paren(p) => self.classify(&p.elem),
            syn::Type::Group(g) => self.classify(&g.elem),
            syn::Type::Tuple(t) if t.elems.is_empty() => TypeClass::Other,
            _ if self.mentions_float(ty) => TypeClass::UnsupportedFloat("this type"),
            _ => TypeClass::Other,
        }
    }

    fn mentions_float(&self, ty: &syn::Type) -> bool {
        struct Finder<'b> {
            names: &'b Lowerer<'b>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_ident(&mut self, i: &'ast syn::Ident) {
                if self.names.is_float_name(&i.to_string()) {
                    self.found = true;
                }
            }
        }
        let mut f = Finder {
            names: self,
            found: false,
        };
        f.visit_type(ty);
        f.found
    }

    fn check_signature(&mut self, sig: &syn::Signature) {
        if let Some(t) = &sig.asyncness {
            self.diag.unsupported_at(
                &t,
                "`async fn`",
                "differentiate a synchronous function and call it from async code",
            );
        }
        if let Some(t) = &sig.unsafety {
            self.diag.unsupported_at(
                &t,
                "`unsafe fn`",
                "move the unsafe code out of the differentiated function",
            );
        }
        if let Some(t) = &sig.constness {
            self.diag.unsupported_at(&t, "`const fn`", "remove `const`");
        }
        if let Some(a) = &sig.abi {
            self.diag
                .unsupported_at(&a, "`extern` functions", "remove the ABI");
        }
        if let Some(v) = &sig.variadic {
            self.diag
                .unsupported_at(&v, "variadic functions", "take a slice instead");
        }
    }

    fn params(&mut self, sig: &syn::Signature, attr: &Attr) -> Vec<Param> {
        let mut params = Vec::new();
        for (i, input) in sig.inputs.iter().enumerate() {
            let pt = match input {
                syn::FnArg::Receiver(r) => {
                    self.diag.unsupported_at(
                        &r,
                        "methods taking `self` (yet)",
                        "write a free function that takes the fields it needs as arguments",
                    );
                    continue;
                }
                syn::FnArg::Typed(pt) => pt,
            };
            let (name, mutable) = match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (pi.ident.clone(), pi.mutability.is_some())
                }
                other => {
                    self.diag.unsupported_at(
                        &other,
                        "patterns in argument position",
                        "name the argument and destructure it in the body",
                    );
                    continue;
                }
            };
            let selected = attr.wrt.as_ref().is_none_or(|w| w.contains(&name));
            let ty = (*pt.ty).clone();
            let (shape, elem_ty) = self.param_shape(&ty, selected, &name);
            let active = selected && shape.is_float();
            let var = self.new_var(
                name.clone(),
                mutable,
                shape.clone(),
                VarOrigin::Param(i),
                Some(ty.clone()),
            );
            self.bind(&name, var);
            params.push(Param {
                var,
                name,
                ty,
                shape,
                elem_ty,
                active,
            });
        }
        if let Some(wrt) = &attr.wrt {
            for n in wrt {
                match params.iter().find(|p| p.name == *n) {
                    None => self.diag.error_at(
                        &n,
                        format!("`wrt` names `{n}`, which is not an argument of this function"),
                    ),
                    Some(p) if !p.shape.is_float() => self.diag.error_at(
                        &n,
                        format!(
                            "`wrt` names `{n}`, which is not float-valued; only float arguments \
                             (f32, f64, float type parameters, and slices, arrays or Vecs of \
                             them) can be differentiated"
                        ),
                    ),
                    _ => {}
                }
            }
        }
        if !self.diag.has_errors() && !params.iter().any(|p| p.active) {
            self.diag.error_at(
                &sig.ident,
                format!(
                    "`{}` has no active argument: nothing to differentiate with respect to; \
                     give it a float argument (f32, f64, a float type parameter, or a slice, \
                     array or Vec of them)",
                    sig.ident
                ),
            );
        }
        params
    }

    /// Shape and element type of an argument type.
    fn param_shape(
        &mut self,
        ty: &syn::Type,
        selected: bool,
        name: &syn::Ident,
    ) -> (Shape, Option<syn::Type>) {
        let (inner, is_ref) = match ty {
            syn::Type::Reference(r) => {
                if r.mutability.is_some() && self.mentions_float(&r.elem) && selected {
                    self.diag.unsupported_at(
                        &ty,
                        "`&mut` float arguments",
                        "return the computed values instead of writing them through a reference",
                    );
                    return (Shape::Other, None);
                }
                (&*r.elem, true)
            }
            t => (t, false),
        };
        match self.classify(inner) {
            TypeClass::Float if is_ref => {
                if selected {
                    self.diag.unsupported_at(
                        &ty,
                        "floats passed by reference",
                        "take the float by value",
                    );
                }
                (Shape::Other, None)
            }
            TypeClass::Float => (Shape::Scalar, Some(inner.clone())),
            TypeClass::Seq(kind) => {
                let kind = match kind {
                    SeqKind::Vec if is_ref => SeqKind::Slice,
                    k => k,
                };
                (Shape::Seq(kind), seq_elem(inner))
            }
            TypeClass::Int => (Shape::Int, None),
            TypeClass::Bool => (Shape::Bool, None),
            TypeClass::UnsupportedFloat(what) => {
                if selected {
                    self.diag.error_at(
                        &ty,
                        format!(
                            "#[differentiate] cannot differentiate with respect to `{name}`: \
                             arguments of {what} cannot be active; pass f32/f64 values, slices, \
                             arrays or Vecs of them, or, if `{name}` holds constants, leave it \
                             out with `#[differentiate(wrt(...))]`"
                        ),
                    );
                    self.poisoned_names.push(name.to_string());
                }
                (Shape::Other, None)
            }
            TypeClass::Other => (Shape::Other, None),
        }
    }

    fn output(&mut self, sig: &syn::Signature) -> Option<Output> {
        let ty = match &sig.output {
            syn::ReturnType::Default => {
                self.diag.error_at(&sig.ident,
                    format!(
                        "`{}` returns nothing: a differentiated function must return a float \
                         value (f32, f64, a float type parameter, or a tuple, array or Vec of them)",
                        sig.ident
                    ),
                );
                return None;
            }
            syn::ReturnType::Type(_, t) => (**t).clone(),
        };
        let bad = |me: &mut Self| {
            me.diag.error_at(
                &ty,
                "the output of a differentiated function must be float-valued: f32, f64, a \
                 float type parameter, or a tuple, array or Vec of them",
            );
            None
        };
        match self.classify(&ty) {
            TypeClass::Float => Some(Output {
                elem_ty: ty.clone(),
                ty,
                shape: Shape::Scalar,
            }),
            TypeClass::Seq(kind @ (SeqKind::Vec | SeqKind::Array(_))) => {
                let elem = seq_elem(&ty)?;
                Some(Output {
                    elem_ty: elem,
                    ty,
                    shape: Shape::Seq(kind),
                })
            }
            _ => {
                if let syn::Type::Tuple(t) = &ty {
                    let mut elem = None;
                    for e in &t.elems {
                        if !matches!(self.classify(e), TypeClass::Float) {
                            return bad(self);
                        }
                        elem = Some(e.clone());
                    }
                    if let Some(elem_ty) = elem {
                        return Some(Output {
                            shape: Shape::Tuple(vec![Shape::Scalar; t.elems.len()]),
                            elem_ty,
                            ty,
                        });
                    }
                }
                bad(self)
            }
        }
    }

    // ----------------------------------------------------------------- variables and scopes

    pub(crate) fn new_var(
        &mut self,
        name: syn::Ident,
        mutable: bool,
        shape: Shape,
        origin: VarOrigin,
        ty: Option<syn::Type>,
    ) -> VarId {
        self.vars.push(Var {
            name,
            mutable,
            shape,
            origin,
            ty,
            active: false,
        });
        self.vars.len() - 1
    }

    pub(crate) fn synthetic(&mut self, what: &str, shape: Shape, span: Span) -> VarId {
        self.tmp += 1;
        let name = format_ident!("__ad_{}{}", what, self.tmp, span = Span::mixed_site());
        let _ = span;
        self.new_var(name, true, shape, VarOrigin::Synthetic, None)
    }

    pub(crate) fn bind(&mut self, name: &syn::Ident, var: VarId) {
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), var));
        }
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    pub(crate) fn with_scope<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(Vec::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    /// Whether an expression reads an argument that was already reported as unsupported.
    fn mentions_poisoned(&self, e: &syn::Expr) -> bool {
        if self.poisoned_names.is_empty() {
            return false;
        }
        struct Finder<'b>(&'b [String], bool);
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(id) = p.path.get_ident() {
                    if self.0.iter().any(|n| id == n) {
                        self.1 = true;
                    }
                }
            }
        }
        let mut f = Finder(&self.poisoned_names, false);
        f.visit_expr(e);
        f.1
    }

    /// Whether a syntax tree reads any local variable in scope.
    fn refs_locals(&self, e: &syn::Expr) -> bool {
        struct Finder<'b, 'c> {
            cx: &'b Lowerer<'c>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if p.qself.is_none() {
                    if let Some(id) = p.path.get_ident() {
                        if self.cx.lookup(&id.to_string()).is_some() {
                            self.found = true;
                        }
                    }
                }
                syn::visit::visit_expr_path(self, p);
            }
            fn visit_macro(&mut self, _: &'ast syn::Macro) {
                self.found = true;
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
                self.found = true;
            }
        }
        let mut f = Finder {
            cx: self,
            found: false,
        };
        f.visit_expr(e);
        f.found
    }

    // ----------------------------------------------------------------- statements

    /// Lowers the statements of `b` into `out` (in a new scope) and returns its tail expression.
    pub(crate) fn block_into(&mut self, b: &syn::Block, out: &mut Vec<Stmt>) -> Option<Expr> {
        self.block_into_as(b, out, true)
    }

    /// With `want_value` false the block's last expression is lowered as a statement (its
    /// value, if any, is dropped).
    fn block_into_as(
        &mut self,
        b: &syn::Block,
        out: &mut Vec<Stmt>,
        want_value: bool,
    ) -> Option<Expr> {
        self.with_scope(|cx| {
            let n = b.stmts.len();
            let mut tail = None;
            for (i, s) in b.stmts.iter().enumerate() {
                match s {
                    syn::Stmt::Expr(e, None)
                        if want_value && i + 1 == n && !is_unit_stmt_expr(e) =>
                    {
                        tail = Some(cx.expr(e, out));
                    }
                    _ => cx.stmt(s, out),
                }
            }
            tail
        })
    }

    /// A block whose value is unused (statement position).
    pub(crate) fn unit_block(&mut self, b: &syn::Block) -> Block {
        let mut stmts = Vec::new();
        self.block_into_as(b, &mut stmts, false);
        Block { stmts }
    }

    fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        match s {
            syn::Stmt::Local(l) => self.local(l, out),
            syn::Stmt::Item(item) => match item {
                syn::Item::Const(_) | syn::Item::Use(_) | syn::Item::Fn(_) => {
                    self.items.push(item.to_token_stream())
                }
                syn::Item::Static(st) if matches!(st.mutability, syn::StaticMutability::None) => {
                    self.items.push(item.to_token_stream())
                }
                other => self.diag.unsupported_at(
                    other,
                    "this item inside a differentiated function",
                    "declare only `const`, `static`, `use` and `fn` items here, or move it out \
                     of the function body",
                ),
            },
            syn::Stmt::Macro(m) => self.stmt_macro(&m.mac, out),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, out),
        }
    }

    fn stmt_macro(&mut self, mac: &syn::Macro, out: &mut Vec<Stmt>) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        const PASS: &[&str] = &[
            "assert",
            "assert_eq",
            "assert_ne",
            "debug_assert",
            "debug_assert_eq",
            "debug_assert_ne",
            "println",
            "print",
            "eprintln",
            "eprint",
            "panic",
            "unreachable",
        ];
        if PASS.contains(&name.as_str()) {
            let tokens = mac.to_token_stream();
            let mut visible: Vec<VarId> = Vec::new();
            for word in mentioned_names(&tokens) {
                if let Some(v) = self.lookup(&word) {
                    if !visible.contains(&v) {
                        visible.push(v);
                    }
                }
            }
            out.push(Stmt::Macro(tokens, visible));
        } else {
            self.diag.unsupported_at(
                &mac,
                &format!("the macro `{name}!` here"),
                "only assert!/debug_assert! (and _eq/_ne) and print!/println!/eprint!/eprintln! \
                 may appear as statements; compute the value outside or with plain code",
            );
        }
    }

    fn local(&mut self, l: &syn::Local, out: &mut Vec<Stmt>) {
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some((*pt.ty).clone())),
            p => (p, None),
        };
        let init = match &l.init {
            Some(init) => {
                if let Some((else_tok, else_expr)) = &init.diverge {
                    // `let [a, b, ..] = v[..] else { .. };`: a length check, then the reads.
                    if let (syn::Pat::Slice(ps), syn::Expr::Block(eb)) = (pat, &**else_expr) {
                        self.slice_let_else(ps, &init.expr, &eb.block, out);
                        return;
                    }
                    self.diag.unsupported_at(
                        &else_tok,
                        "`let ... else` except with a slice pattern",
                        "use `match` or `if` to handle the other case",
                    );
                }
                Some(&*init.expr)
            }
            None => None,
        };
        // `let (a, b) = (e1, e2);` splits into one binding per component.
        if let (syn::Pat::Tuple(pt), Some(syn::Expr::Tuple(et)), None) = (pat, init, &ty) {
            if pt.elems.len() == et.elems.len()
                && !pt.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_)))
            {
                let temps: Vec<(VarId, Expr)> = et
                    .elems
                    .iter()
                    .map(|e| {
                        let v = self.expr(e, out);
                        let shape = self.shape_of(&v);
                        let t = self.synthetic("tup", shape, e.span());
                        (t, v)
                    })
                    .collect();
                for (t, v) in &temps {
                    out.push(Stmt::Let {
                        pat: Pat::Bind(*t),
                        init: Some(v.clone()),
                    });
                }
                for (p, (t, _)) in pt.elems.iter().zip(&temps) {
                    let shape = self.vars[*t].shape.clone();
                    let pat = self.pattern(p, &shape, None);
                    out.push(Stmt::Let {
                        pat,
                        init: Some(Expr::new(ExprKind::Var(*t), p.span())),
                    });
                }
                return;
            }
        }
        // `let (h, t) = v.split_at(k);`: two views of `v`.
        if let (Some(init), None) = (init, &ty) {
            if self.split_at(pat, init, out) {
                return;
            }
        }
        // `let f = |a| ...;`: inlined at each call.
        if let (syn::Pat::Ident(pi), Some(syn::Expr::Closure(c))) = (pat, init) {
            self.bind_closure(&pi.ident, c);
            return;
        }
        // `let [a, b] = *arr;` / `let [a, b, ..] = v[..]`: one indexed read per name.
        if let syn::Pat::Slice(ps) = pat {
            if let Some(init) = init {
                self.slice_pattern(ps, init, out);
                return;
            }
        }
        let mut init_ir = init.map(|e| self.expr(e, out));
        // A call's result takes the shape the annotation gives.
        if let (
            Some(t),
            Some(Expr {
                kind: ExprKind::Call { shape, .. },
                ..
            }),
        ) = (&ty, init_ir.as_mut())
        {
            *shape = self.shape_of_type(t);
        }
        let shape = match (&ty, &init_ir) {
            (Some(t), _) => self.shape_of_type(t),
            (None, Some(e)) => self.shape_of(e),
            (None, None) => Shape::Other,
        };
        let pat_ir = self.pattern(pat, &shape, ty.clone());
        // The result of a call is assumed to be one float unless the `let` says otherwise.
        if let (
            Pat::Bind(v),
            None,
            Some(Expr {
                kind: ExprKind::Call { .. },
                ..
            }),
        ) = (&pat_ir, &ty, &init_ir)
        {
            self.call_lets.push((*v, pat.to_token_stream()));
        }
        if init_ir.is_none() {
            let mut vs = Vec::new();
            pat_ir.vars(&mut vs);
            for v in vs {
                self.vars[v].mutable = true;
            }
        }
        out.push(Stmt::Let {
            pat: pat_ir,
            init: init_ir,
        });
    }

    /// `let [a, b, ..] = v[..] else { diverge };`
    fn slice_let_else(
        &mut self,
        ps: &syn::PatSlice,
        init: &syn::Expr,
        els: &syn::Block,
        out: &mut Vec<Stmt>,
    ) {
        let src = slice_pattern_source(init);
        let Some(base) = self.var_of_path(src) else {
            self.diag.unsupported_at(
                init,
                "slice patterns on this expression",
                "destructure a sequence variable: `let [a, b, ..] = v[..] else { .. };`",
            );
            return;
        };
        let has_rest = ps.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_)));
        let want = ps
            .elems
            .iter()
            .filter(|p| !matches!(p, syn::Pat::Rest(_)))
            .count();
        let span = init.span();
        let len = Expr::new(ExprKind::Len(base), span);
        let n = Expr::new(
            ExprKind::Lit(syn::Lit::Int(syn::LitInt::new(
                &format!("{want}usize"),
                span,
            ))),
            span,
        );
        let cond = Expr::new(
            ExprKind::Binary {
                op: if has_rest { BinOp::Lt } else { BinOp::Ne },
                lhs: Box::new(len),
                rhs: Box::new(n),
            },
            span,
        );
        let then = self.unit_block(els);
        out.push(Stmt::If {
            cond,
            then,
            els: None,
        });
        self.slice_pattern(ps, init, out);
    }

    fn slice_pattern(&mut self, ps: &syn::PatSlice, init: &syn::Expr, out: &mut Vec<Stmt>) {
        let src = slice_pattern_source(init);
        let base = match self.var_of_path(src) {
            Some(v) if matches!(self.vars[v].shape, Shape::Seq(_)) => v,
            _ => {
                self.diag.unsupported_at(
                    &init,
                    "slice patterns on this expression",
                    "destructure an argument or local sequence directly, e.g. `let [a, b] = *x;`",
                );
                return;
            }
        };
        let mut seen_rest = false;
        for (k, p) in ps.elems.iter().enumerate() {
            match p {
                syn::Pat::Rest(_) => {
                    seen_rest = true;
                }
                _ if seen_rest => {
                    self.diag.unsupported_at(
                        &p,
                        "bindings after `..` in slice patterns",
                        "index from the end explicitly, e.g. `let last = v[v.len() - 1];`",
                    );
                }
                _ => {
                    let span = p.span();
                    let idx = Expr::new(
                        ExprKind::Lit(syn::Lit::Int(syn::LitInt::new(&format!("{k}usize"), span))),
                        span,
                    );
                    let read = Expr::new(
                        ExprKind::Index {
                            base,
                            index: Box::new(idx),
                        },
                        span,
                    );
                    let pat = self.pattern(p, &Shape::Scalar, None);
                    out.push(Stmt::Let {
                        pat,
                        init: Some(read),
                    });
                }
            }
        }
    }

    fn pattern(&mut self, p: &syn::Pat, shape: &Shape, ty: Option<syn::Type>) -> Pat {
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let v = self.new_var(
                    pi.ident.clone(),
                    pi.mutability.is_some(),
                    shape.clone(),
                    VarOrigin::Local,
                    ty,
                );
                self.bind(&pi.ident, v);
                Pat::Bind(v)
            }
            syn::Pat::Wild(_) => Pat::Wild,
            syn::Pat::Paren(pp) => self.pattern(&pp.pat, shape, ty),
            syn::Pat::Reference(r) if r.mutability.is_none() => self.pattern(&r.pat, shape, ty),
            syn::Pat::Type(pt) => {
                let shape = self.shape_of_type(&pt.ty);
                self.pattern(&pt.pat, &shape, Some((*pt.ty).clone()))
            }
            syn::Pat::Tuple(pt) if !pt.elems.iter().any(|e| matches!(e, syn::Pat::Rest(_))) => {
                let tys: Vec<Option<syn::Type>> = match &ty {
                    Some(syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                        tt.elems.iter().cloned().map(Some).collect()
                    }
                    _ => vec![None; pt.elems.len()],
                };
                let items = pt
                    .elems
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let s = match shape {
                            Shape::Tuple(items) if items.len() == pt.elems.len() => {
                                items[i].clone()
                            }
                            _ => Shape::Scalar,
                        };
                        self.pattern(e, &s, tys[i].clone())
                    })
                    .collect();
                Pat::Tuple(items)
            }
            other => {
                self.diag.unsupported_at(
                    &other,
                    "this pattern",
                    "bind plain names, tuples of names, `_`, or `[a, b, ..]` of a sequence",
                );
                Pat::Wild
            }
        }
    }

    pub(crate) fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) {
        match e {
            syn::Expr::Assign(a) if matches!(&*a.left, syn::Expr::Tuple(_)) => {
                // `(a, b) = (b, a + b);`: every right-hand side first, then the assignments.
                let lhs = match &*a.left {
                    syn::Expr::Tuple(t) => t.elems.iter().collect::<Vec<_>>(),
                    _ => Vec::new(),
                };
                let values: Vec<Expr> = match &*a.right {
                    syn::Expr::Tuple(t) if t.elems.len() == lhs.len() => {
                        t.elems.iter().map(|x| self.expr(x, out)).collect()
                    }
                    other => {
                        let v = self.expr(other, out);
                        (0..lhs.len())
                            .map(|i| {
                                Expr::new(
                                    ExprKind::Field {
                                        base: Box::new(v.clone()),
                                        index: i as u32,
                                    },
                                    v.span,
                                )
                            })
                            .collect()
                    }
                };
                let mut temps = Vec::new();
                for v in values {
                    let sp = v.span;
                    let shape = self.shape_of(&v);
                    let t = self.synthetic("tup", shape, sp);
                    self.vars[t].mutable = false;
                    out.push(Stmt::Let {
                        pat: Pat::Bind(t),
                        init: Some(v),
                    });
                    temps.push(t);
                }
                for (l, t) in lhs.into_iter().zip(temps) {
                    if matches!(l, syn::Expr::Infer(_)) {
                        continue;
                    }
                    if let Some(place) = self.place(l, out) {
                        out.push(Stmt::Assign {
                            place,
                            op: None,
                            value: Expr::new(ExprKind::Var(t), l.span()),
                        });
                    }
                }
            }
            syn::Expr::Assign(a) => {
                let value = self.expr(&a.right, out);
                if let Some(place) = self.place(&a.left, out) {
                    // A variable declared without a value takes the shape of what it is given,
                    // so that later uses in this function see it.
                    if let Place::Var(v) = place {
                        if self.vars[v].ty.is_none() {
                            let s = self.shape_of(&value);
                            self.vars[v].shape = self.vars[v].shape.join(&s);
                        }
                    }
                    out.push(Stmt::Assign {
                        place,
                        op: None,
                        value,
                    });
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op);
                match op {
                    Some(Some(op)) => {
                        let value = self.expr(&b.right, out);
                        if let Some(place) = self.place(&b.left, out) {
                            out.push(Stmt::Assign {
                                place,
                                op: Some(op),
                                value,
                            });
                        }
                    }
                    _ => {
                        // Integer-only compound operators (`<<=`, `|=`...): a plain statement.
                        let value = self.expr(&b.right, out);
                        let _ = value;
                        self.diag.unsupported_at(
                            &b.op,
                            "this compound assignment operator",
                            "write `x = x OP y`",
                        );
                    }
                }
            }
            syn::Expr::If(i) => self.if_stmt(i, None, out),
            syn::Expr::Match(m) => self.match_stmt(m, None, out),
            syn::Expr::ForLoop(f) => self.for_loop(f, out),
            syn::Expr::While(w) => {
                if let syn::Expr::Let(l) = &*w.cond {
                    self.diag.unsupported_at(
                        &l,
                        "`while let`",
                        "use `while` with a condition or `loop` with `break`",
                    );
                    return;
                }
                let mut pre = Vec::new();
                let cond = self.expr(&w.cond, &mut pre);
                if !pre.is_empty() {
                    self.diag.unsupported_at(
                        &w.cond,
                        "a `while` condition containing `if`, `match` or blocks",
                        "compute the condition in a variable updated at the end of the loop",
                    );
                }
                self.loop_results
                    .push((w.label.as_ref().map(|l| l.name.ident.to_string()), None));
                let body = self.unit_block(&w.body);
                self.loop_results.pop();
                out.push(Stmt::While {
                    cond,
                    body,
                    label: w.label.as_ref().map(|l| l.name.clone()),
                });
            }
            syn::Expr::Loop(l) => self.loop_expr(l, None, out),
            syn::Expr::Block(b) if b.label.is_none() => {
                let blk = self.unit_block(&b.block);
                out.push(Stmt::Block(blk));
            }
            syn::Expr::Break(b) => self.break_stmt(b, out),
            syn::Expr::Continue(c) => out.push(Stmt::Continue {
                label: c.label.clone(),
                span: c.span(),
            }),
            syn::Expr::Return(r) => {
                let value = r.expr.as_ref().map(|v| self.expr(v, out));
                out.push(Stmt::Return {
                    value,
                    span: r.span(),
                });
            }
            syn::Expr::Macro(m) => self.stmt_macro(&m.mac, out),
            syn::Expr::MethodCall(m) if m.method == "push" && m.args.len() == 1 => {
                match self.var_of_path(&m.receiver) {
                    Some(v) => {
                        let value = self.expr(&m.args[0], out);
                        self.vars[v].mutable = true;
                        if !matches!(self.vars[v].shape, Shape::Seq(_)) {
                            self.vars[v].shape = Shape::Seq(SeqKind::Vec).join(&self.vars[v].shape);
                        }
                        out.push(Stmt::Push { vec: v, value });
                    }
                    None => self.diag.unsupported_at(
                        &m.receiver,
                        "`push` onto this expression",
                        "push onto a local `Vec` variable",
                    ),
                }
            }
            other => {
                let v = self.expr(other, out);
                push_eval(out, v);
            }
        }
    }

    fn break_stmt(&mut self, b: &syn::ExprBreak, out: &mut Vec<Stmt>) {
        if let Some(v) = &b.expr {
            let label = b.label.as_ref().map(|l| l.ident.to_string());
            let target = self
                .loop_results
                .iter()
                .rev()
                .find(|(l, _)| label.is_none() || *l == label)
                .and_then(|(_, r)| *r);
            let value = self.expr(v, out);
            match target {
                Some(var) => {
                    let shape = self.shape_of(&value);
                    self.vars[var].shape = self.vars[var].shape.join(&shape);
                    out.push(Stmt::Assign {
                        place: Place::Var(var),
                        op: None,
                        value,
                    })
                }
                None => self.diag.unsupported_at(
                    &b,
                    "`break` with a value here",
                    "use `break value` only in a `loop` whose value is used",
                ),
            }
        }
        out.push(Stmt::Break {
            label: b.label.clone(),
            span: b.span(),
        });
    }

    fn loop_expr(&mut self, l: &syn::ExprLoop, result: Option<VarId>, out: &mut Vec<Stmt>) {
        self.loop_results
            .push((l.label.as_ref().map(|l| l.name.ident.to_string()), result));
        let body = self.unit_block(&l.body);
        self.loop_results.pop();
        out.push(Stmt::Loop {
            body,
            label: l.label.as_ref().map(|l| l.name.clone()),
        });
    }

    /// `if` as a statement (`result` None) or as an expression whose value goes to `result`.
    fn if_stmt(&mut self, i: &syn::ExprIf, result: Option<VarId>, out: &mut Vec<Stmt>) {
        if let syn::Expr::Let(l) = &*i.cond {
            self.diag
                .unsupported_at(&l, "`if let`", "use `match` on an integer or a plain `if`");
            return;
        }
        let cond = self.expr(&i.cond, out);
        let then = self.branch(&i.then_branch, result);
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => {
                let mut stmts = Vec::new();
                match &**e {
                    syn::Expr::If(inner) => self.if_stmt(inner, result, &mut stmts),
                    syn::Expr::Block(b) => {
                        let blk = self.branch(&b.block, result);
                        stmts = blk.stmts;
                    }
                    other => {
                        let v = self.expr(other, &mut stmts);
                        self.assign_result(result, v, &mut stmts);
                    }
                }
                Some(Block { stmts })
            }
        };
        out.push(Stmt::If { cond, then, els });
    }

    /// A branch body: its tail value (if any) is assigned to `result`.
    fn branch(&mut self, b: &syn::Block, result: Option<VarId>) -> Block {
        let mut stmts = Vec::new();
        let tail = self.block_into_as(b, &mut stmts, result.is_some());
        if let Some(t) = tail {
            self.assign_result(result, t, &mut stmts);
        }
        Block { stmts }
    }

    fn assign_result(&mut self, result: Option<VarId>, value: Expr, out: &mut Vec<Stmt>) {
        match result {
            Some(var) => {
                let shape = self.shape_of(&value);
                self.vars[var].shape = self.vars[var].shape.join(&shape);
                out.push(Stmt::Assign {
                    place: Place::Var(var),
                    op: None,
                    value,
                });
            }
            None => push_eval(out, value),
        }
    }

    fn match_stmt(&mut self, m: &syn::ExprMatch, result: Option<VarId>, out: &mut Vec<Stmt>) {
        let scrut = self.expr(&m.expr, out);
        let mut arms = Vec::new();
        for arm in &m.arms {
            if let Some((if_tok, _)) = &arm.guard {
                self.diag.unsupported_at(
                    &if_tok,
                    "match guards",
                    "move the condition into an `if` inside the arm",
                );
            }
            if pattern_binds(&arm.pat) {
                self.diag.unsupported_at(&arm.pat,
                    "match patterns that bind names",
                    "match on integer literals, ranges and `_`, and use the scrutinee inside the arm",
                );
            }
            let body = match &*arm.body {
                syn::Expr::Block(b) if b.label.is_none() => self.branch(&b.block, result),
                other => {
                    let mut stmts = Vec::new();
                    self.with_scope(|cx| {
                        if is_unit_stmt_expr(other) || result.is_none() {
                            cx.expr_stmt(other, &mut stmts);
                        } else {
                            let v = cx.expr(other, &mut stmts);
                            cx.assign_result(result, v, &mut stmts);
                        }
                    });
                    Block { stmts }
                }
            };
            arms.push(Arm {
                pat: arm.pat.clone(),
                body,
            });
        }
        out.push(Stmt::Match { scrut, arms });
    }

    fn place(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Place> {
        match e {
            syn::Expr::Paren(p) => self.place(&p.expr, out),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.place(&u.expr, out),
            syn::Expr::Index(ix) => {
                let base = self.var_of_path(&ix.expr);
                match base {
                    Some(v) => {
                        let index = self.expr(&ix.index, out);
                        self.vars[v].mutable = true;
                        Some(Place::Index(v, Box::new(index)))
                    }
                    None => {
                        self.diag.unsupported_at(
                            &ix.expr,
                            "assigning into an element of this expression",
                            "assign into an element of a local Vec or array variable: `v[i] = ...`",
                        );
                        None
                    }
                }
            }
            _ => match self.var_of_path(e) {
                Some(v) => {
                    self.vars[v].mutable = true;
                    Some(Place::Var(v))
                }
                None => {
                    self.diag.unsupported_at(
                        &e,
                        "assigning to this place",
                        "assign to a local variable or an element `v[i]` of a local sequence",
                    );
                    None
                }
            },
        }
    }

    pub(crate) fn var_of_path(&self, e: &syn::Expr) -> Option<VarId> {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .and_then(|id| self.lookup(&id.to_string())),
            syn::Expr::Paren(p) => self.var_of_path(&p.expr),
            syn::Expr::Reference(r) if r.mutability.is_none() => self.var_of_path(&r.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.var_of_path(&u.expr),
            _ => None,
        }
    }

    // ----------------------------------------------------------------- loops

    fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        let label = f.label.as_ref().map(|l| l.name.clone());
        // Ranges: `a..b`, `(a..b).rev()`, `(a..=b).step_by(s)`.
        if let Some(range) = self.range_expr(&f.expr, out) {
            self.with_scope(|cx| {
                let var = match &*f.pat {
                    syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                        let v = cx.new_var(
                            pi.ident.clone(),
                            false,
                            Shape::Int,
                            VarOrigin::LoopIndex,
                            None,
                        );
                        cx.bind(&pi.ident, v);
                        v
                    }
                    syn::Pat::Wild(w) => {
                        let v = cx.synthetic("i", Shape::Int, w.span());
                        cx.vars[v].origin = VarOrigin::LoopIndex;
                        cx.vars[v].mutable = false;
                        v
                    }
                    other => {
                        cx.diag.unsupported_at(
                            &other,
                            "this loop pattern over a range",
                            "bind the index to a name: `for i in a..b`",
                        );
                        return;
                    }
                };
                cx.loop_results
                    .push((label.as_ref().map(|l| l.ident.to_string()), None));
                let body = cx.unit_block(&f.body);
                cx.loop_results.pop();
                out.push(Stmt::For {
                    var,
                    range,
                    body,
                    label: label.clone(),
                });
            });
            return;
        }
        if is_range_syntax(&f.expr) {
            return; // reported by `range_expr`
        }
        // Sequences and iterator chains: `v.iter()`, `&v`, `a.iter().zip(&b)`, `v.windows(2)`...
        if let Some(seq) = self.parse_seq(&f.expr, out) {
            self.for_chain(f, seq, out);
        }
    }

    /// Both bounds of a range, or an error (open ranges are not iterated).
    pub(crate) fn range_bounds<'r>(
        &mut self,
        r: &'r syn::ExprRange,
        place: &str,
        example: &str,
    ) -> Option<(&'r syn::Expr, &'r syn::Expr)> {
        match (&r.start, &r.end) {
            (Some(s), Some(e)) => Some((s, e)),
            _ => {
                self.diag.unsupported_at(
                    r,
                    &format!("open ranges in {place}"),
                    &format!("give both bounds: {example}"),
                );
                None
            }
        }
    }

    /// `a..b`, `a..=b` with `.rev()` and `.step_by(s)` in either order.
    fn range_expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Range> {
        match e {
            syn::Expr::Paren(p) => self.range_expr(&p.expr, out),
            syn::Expr::Range(r) => {
                let (start, end) = self.range_bounds(r, "`for` loops", "`for i in a..b`")?;
                let start = self.expr(start, out);
                let end = self.expr(end, out);
                Some(Range::Bounds {
                    start: Box::new(start),
                    end: Box::new(end),
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                    rev: false,
                    step: None,
                })
            }
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let mut r = self.range_expr(&m.receiver, out)?;
                let Range::Bounds { rev, step, .. } = &mut r;
                if step.is_some() {
                    // `(a..b).step_by(s).rev()` visits a different set of indices than
                    // `(a..b).rev().step_by(s)`; only the latter keeps the simple meaning.
                    self.diag.unsupported_at(
                        &m.method,
                        "`.rev()` after `.step_by()`",
                        "write `(a..b).rev().step_by(k)` or loop forward",
                    );
                }
                *rev = !*rev;
                Some(r)
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut r = self.range_expr(&m.receiver, out)?;
                let s = self.expr(&m.args[0], out);
                let Range::Bounds { step, .. } = &mut r;
                *step = Some(Box::new(s));
                Some(r)
            }
            _ => None,
        }
    }

    // ----------------------------------------------------------------- expressions

    pub(crate) fn poison(&mut self, at: &dyn ToTokens, what: &str, instead: &str) -> Expr {
        self.diag.unsupported_at(at, what, instead);
        let span = at
            .to_token_stream()
            .into_iter()
            .next()
            .map_or_else(Span::call_site, |t| t.span());
        Expr::new(ExprKind::Poison, span)
    }

    pub(crate) fn expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let span = e.span();
        if self.mentions_poisoned(e) {
            return Expr::new(ExprKind::Poison, span);
        }
        if let syn::Expr::Lit(l) = e {
            return Expr::new(ExprKind::Lit(l.lit.clone()), span);
        }
        if is_const_syntax(e) && !self.refs_locals(e) {
            let shape = self.opaque_shape(e);
            return Expr::new(
                ExprKind::Opaque {
                    tokens: e.to_token_stream(),
                    shape,
                },
                span,
            );
        }
        match e {
            syn::Expr::Lit(l) => Expr::new(ExprKind::Lit(l.lit.clone()), span),
            syn::Expr::Paren(p) => self.expr(&p.expr, out),
            syn::Expr::Group(g) => self.expr(&g.expr, out),
            syn::Expr::Path(p) => {
                if let Some(id) = p.path.get_ident() {
                    if let Some(v) = self.lookup(&id.to_string()) {
                        if let Some(view) = self.views.get(&v) {
                            let end = Expr::new(
                                ExprKind::Binary {
                                    op: BinOp::Add,
                                    lhs: Box::new(view.offset.clone()),
                                    rhs: Box::new(view.len.clone()),
                                },
                                span,
                            );
                            return Expr::new(
                                ExprKind::SubSlice {
                                    base: view.base,
                                    start: Some(Box::new(view.offset.clone())),
                                    end: Some(Box::new(end)),
                                    inclusive: false,
                                },
                                span,
                            );
                        }
                        if self.closures.contains_key(&v) {
                            return self.poison(
                                &e,
                                "closures used as values",
                                "call the closure directly, e.g. `f(x)`",
                            );
                        }
                        return Expr::new(ExprKind::Var(v), span);
                    }
                }
                let shape = self.opaque_shape(e);
                Expr::new(
                    ExprKind::Opaque {
                        tokens: e.to_token_stream(),
                        shape,
                    },
                    span,
                )
            }
            syn::Expr::Binary(b) => match bin_op(&b.op) {
                Some(op) => {
                    let lhs = self.expr(&b.left, out);
                    let rhs = self.expr(&b.right, out);
                    Expr::new(
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(lhs),
                            rhs: Box::new(rhs),
                        },
                        span,
                    )
                }
                None => self.poison(
                    &b.op,
                    "assignment inside an expression",
                    "make the assignment its own statement",
                ),
            },
            syn::Expr::Unary(u) => {
                let inner = self.expr(&u.expr, out);
                match u.op {
                    syn::UnOp::Neg(_) => Expr::new(
                        ExprKind::Unary {
                            op: UnOp::Neg,
                            expr: Box::new(inner),
                        },
                        span,
                    ),
                    syn::UnOp::Not(_) => Expr::new(
                        ExprKind::Unary {
                            op: UnOp::Not,
                            expr: Box::new(inner),
                        },
                        span,
                    ),
                    // `*x` of a float bound by reference is the float; `*a` of an array is a copy.
                    syn::UnOp::Deref(_) => match inner.kind {
                        ExprKind::Var(v) if matches!(self.vars[v].shape, Shape::Seq(_)) => {
                            let to = self.copy_to(v, false);
                            Expr::new(ExprKind::CopySeq(v, to), span)
                        }
                        _ => inner,
                    },
                    _ => self.poison(&u.op, "this operator", "use arithmetic operators"),
                }
            }
            syn::Expr::Cast(c) => {
                let inner = self.expr(&c.expr, out);
                Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(inner),
                        ty: c.ty.clone(),
                    },
                    span,
                )
            }
            syn::Expr::Index(ix) => {
                if let syn::Expr::Range(_) = &*ix.index {
                    return self.poison(
                        &e,
                        "sub-slices outside call arguments",
                        "pass `&v[a..b]` directly to a differentiated function, or index elements",
                    );
                }
                match self.var_of_path(&ix.expr) {
                    Some(base) => {
                        let mut index = self.expr(&ix.index, out);
                        let mut base = base;
                        if let Some(view) = self.views.get(&base) {
                            index = Expr::new(
                                ExprKind::Binary {
                                    op: BinOp::Add,
                                    lhs: Box::new(view.offset.clone()),
                                    rhs: Box::new(index),
                                },
                                span,
                            );
                            base = view.base;
                        }
                        Expr::new(
                            ExprKind::Index {
                                base,
                                index: Box::new(index),
                            },
                            span,
                        )
                    }
                    None if matches!(self.expr(&ix.expr, out).kind, ExprKind::Poison) => {
                        Expr::new(ExprKind::Poison, span)
                    }
                    None => self.poison(
                        &ix.expr,
                        "indexing into this expression",
                        "index a sequence variable directly: bind the sequence to a name first",
                    ),
                }
            }
            syn::Expr::MethodCall(m) => self.method_call(m, out),
            syn::Expr::Call(c) => self.call(c, out),
            syn::Expr::Tuple(t) => {
                let items = t.elems.iter().map(|x| self.expr(x, out)).collect();
                Expr::new(ExprKind::Tuple(items), span)
            }
            syn::Expr::Array(a) => {
                let items = a.elems.iter().map(|x| self.expr(x, out)).collect();
                Expr::new(ExprKind::Array(items), span)
            }
            syn::Expr::Repeat(r) => {
                if self.refs_locals(&r.len) {
                    return self.poison(
                        &r.len,
                        "array lengths that are not constants",
                        "use `vec![x; n]` for a length known at run time",
                    );
                }
                let elem = self.expr(&r.expr, out);
                Expr::new(
                    ExprKind::ArrayRepeat {
                        elem: Box::new(elem),
                        len: r.len.to_token_stream(),
                    },
                    span,
                )
            }
            syn::Expr::Macro(m) => self.expr_macro(&m.mac, out),
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(i) => {
                    let base = self.expr(&f.base, out);
                    Expr::new(
                        ExprKind::Field {
                            base: Box::new(base),
                            index: i.index,
                        },
                        span,
                    )
                }
                syn::Member::Named(n) => self.poison(
                    &n,
                    "struct fields (yet)",
                    "pass the field's value as its own argument",
                ),
            },
            syn::Expr::Reference(r) => {
                if r.mutability.is_some() {
                    return self.poison(
                        &e,
                        "`&mut` borrows",
                        "write into local variables or `Vec`s directly",
                    );
                }
                if let syn::Expr::Index(ix) = &*r.expr {
                    if let syn::Expr::Range(rg) = &*ix.index {
                        return match self.var_of_path(&ix.expr) {
                            Some(base) => {
                                let start = rg.start.as_ref().map(|s| Box::new(self.expr(s, out)));
                                let end = rg.end.as_ref().map(|s| Box::new(self.expr(s, out)));
                                Expr::new(
                                    ExprKind::SubSlice {
                                        base,
                                        start,
                                        end,
                                        inclusive: matches!(rg.limits, syn::RangeLimits::Closed(_)),
                                    },
                                    span,
                                )
                            }
                            None => self.poison(
                                &ix.expr,
                                "sub-slices of this expression",
                                "slice a sequence variable: `&v[a..b]`",
                            ),
                        };
                    }
                }
                let inner = self.expr(&r.expr, out);
                match &inner.kind {
                    // A sequence, or a variable whose shape is not known yet (`let w;`).
                    ExprKind::Var(v)
                        if matches!(self.vars[*v].shape, Shape::Seq(_) | Shape::Other) =>
                    {
                        Expr::new(ExprKind::Ref(Box::new(inner)), span)
                    }
                    _ => inner,
                }
            }
            syn::Expr::If(i) => {
                let var = self.synthetic("if", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                self.if_stmt(i, Some(var), out);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Match(m) => {
                let var = self.synthetic("match", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                self.match_stmt(m, Some(var), out);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                let var = self.synthetic("blk", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                let blk = self.branch(&b.block, Some(var));
                out.push(Stmt::Block(blk));
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Loop(l) => {
                let var = self.synthetic("loop", Shape::Other, span);
                out.push(Stmt::Let {
                    pat: Pat::Bind(var),
                    init: None,
                });
                self.loop_expr(l, Some(var), out);
                Expr::new(ExprKind::Var(var), span)
            }
            syn::Expr::Block(b) if b.label.is_some() => self.poison(
                &b.label,
                "labeled blocks",
                "use `if`/`else` or a `loop` with `break`",
            ),
            syn::Expr::Closure(_) => self.poison(
                &e,
                "closures (yet)",
                "write the computation inline or as a separate #[differentiate] function",
            ),
            syn::Expr::Unsafe(_) => self.poison(
                &e,
                "`unsafe` blocks",
                "move the unsafe code into a function outside the differentiated code",
            ),
            syn::Expr::Async(_) | syn::Expr::Await(_) => self.poison(
                &e,
                "async code",
                "differentiate a synchronous function and call it from async code",
            ),
            syn::Expr::Try(t) => self.poison(
                &t.question_token,
                "the `?` operator",
                "handle errors outside the differentiated function",
            ),
            syn::Expr::Struct(_) => self.poison(
                &e,
                "struct expressions (yet)",
                "return a tuple, or build the struct outside the differentiated function",
            ),
            syn::Expr::Range(_) => self.poison(
                &e,
                "a range here",
                "use ranges only in `for` loops and sub-slice arguments `&v[a..b]`",
            ),
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => self.poison(
                &e,
                "`return`/`break`/`continue` inside an expression",
                "make it its own statement",
            ),
            syn::Expr::Assign(_) => self.poison(
                &e,
                "assignment inside an expression",
                "make the assignment its own statement",
            ),
            _ => self.poison(
                &e,
                "this expression",
                "use arithmetic, float methods, indexing, calls of #[differentiate] functions, \
                 `if`/`match`/blocks, tuples and arrays",
            ),
        }
    }

    fn expr_macro(&mut self, mac: &syn::Macro, out: &mut Vec<Stmt>) -> Expr {
        let span = mac.span();
        let is_vec = mac.path.is_ident("vec");
        if !is_vec {
            let name = mac.path.to_token_stream().to_string();
            return self.poison(
                &mac,
                &format!("the macro `{name}!` in an expression"),
                "compute the value with plain code; only `vec![..]` is understood here",
            );
        }
        enum VecArgs {
            Repeat(Box<syn::Expr>, Box<syn::Expr>),
            List(Vec<syn::Expr>),
        }
        let parsed = mac.parse_body_with(|input: syn::parse::ParseStream| {
            if input.is_empty() {
                return Ok(VecArgs::List(Vec::new()));
            }
            let first: syn::Expr = input.parse()?;
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                let len: syn::Expr = input.parse()?;
                return Ok(VecArgs::Repeat(Box::new(first), Box::new(len)));
            }
            let mut items = vec![first];
            while !input.is_empty() {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                items.push(input.parse()?);
            }
            Ok(VecArgs::List(items))
        });
        match parsed {
            Ok(VecArgs::Repeat(elem, len)) => {
                let elem = self.expr(&elem, out);
                let len = self.expr(&len, out);
                Expr::new(
                    ExprKind::VecRepeat {
                        elem: Box::new(elem),
                        len: Box::new(len),
                    },
                    span,
                )
            }
            Ok(VecArgs::List(items)) => {
                let items = items.iter().map(|x| self.expr(x, out)).collect();
                Expr::new(ExprKind::VecList(items), span)
            }
            Err(err) => {
                self.diag.push(err);
                Expr::new(ExprKind::Poison, span)
            }
        }
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let span = m.span();
        let name = m.method.to_string();
        if self.is_chain_consumer(m) {
            return self.chain_consumer(m, out);
        }
        if self.looks_like_chain(&m.receiver) {
            return self.poison(
                &m,
                &format!("the iterator method `{name}` here"),
                "end the chain with sum/product/fold/max_by/min_by/reduce/count/any/all/\
                 for_each/collect, or loop over it with `for`",
            );
        }
        if let Some(v) = self.var_of_path(&m.receiver) {
            if let Some(view) = self.views.get(&v) {
                if name == "len" && m.args.is_empty() {
                    return view.len.clone();
                }
                if matches!(name.as_str(), "to_vec" | "to_owned") && m.args.is_empty() {
                    return self.view_to_vec(m, out);
                }
            }
        }
        let recv_var = self.var_of_path(&m.receiver);
        let recv_is_seq = recv_var.is_some_and(|v| matches!(self.vars[v].shape, Shape::Seq(_)));
        match name.as_str() {
            "len" if m.args.is_empty() && recv_is_seq => {
                return Expr::new(ExprKind::Len(recv_var.unwrap_or_default()), span)
            }
            "to_vec" | "clone" | "to_owned" if m.args.is_empty() && recv_is_seq => {
                let v = recv_var.unwrap_or_default();
                let to = self.copy_to(v, name == "to_vec");
                return Expr::new(ExprKind::CopySeq(v, to), span);
            }
            "unwrap" | "expect" => {
                // `T::from(i).unwrap()`, `T::from_usize(n).unwrap()`: a conversion.
                if let syn::Expr::Call(c) = &*m.receiver {
                    if let syn::Expr::Path(p) = &*c.func {
                        let last = p.path.segments.last().map(|s| s.ident.to_string());
                        if last
                            .as_deref()
                            .is_some_and(|l| l == "from" || l.starts_with("from_"))
                        {
                            let args = c.args.iter().map(|a| self.expr(a, out)).collect();
                            let suffix = {
                                let dot = &m.dot_token;
                                let meth = &m.method;
                                let margs = &m.args;
                                quote!(#dot #meth (#margs))
                            };
                            let shape = self.path_shape(&p.path);
                            return Expr::new(
                                ExprKind::PlainCall {
                                    func: c.func.to_token_stream(),
                                    args,
                                    shape,
                                    suffix,
                                    path: None,
                                },
                                span,
                            );
                        }
                    }
                }
            }
            _ => {}
        }
        let recv = self.expr(&m.receiver, out);
        let recv_shape = self.shape_of(&recv);
        if let Some(rule) = methods::float_method(&name) {
            if recv_shape != Shape::Int && m.turbofish.is_none() {
                let want = methods::arg_count(rule.arity);
                if m.args.len() != want {
                    return self.poison(
                        &m.method,
                        &format!("`{name}` with {} arguments", m.args.len()),
                        &format!("`{name}` takes {want}"),
                    );
                }
                let args = m.args.iter().map(|a| self.expr(a, out)).collect();
                return Expr::new(
                    ExprKind::Method {
                        recv: Box::new(recv),
                        method: m.method.clone(),
                        args,
                    },
                    span,
                );
            }
        }
        if matches!(recv.kind, ExprKind::Poison) {
            // Already reported.
            return recv;
        }
        if matches!(recv_shape, Shape::Int | Shape::Bool | Shape::Other) {
            // A method of a value that is never differentiated (integers, options of constants,
            // other types): plain code. Activity analysis rejects it if an active value flows in.
            let args = m.args.iter().map(|a| self.expr(a, out)).collect();
            return Expr::new(
                ExprKind::PlainMethod {
                    recv: Box::new(recv),
                    method: m.method.clone(),
                    turbofish: m.turbofish.to_token_stream(),
                    args,
                    shape: recv_shape,
                },
                span,
            );
        }
        if ADAPTORS.contains(&name.as_str()) {
            return self.poison(
                &m.method,
                &format!("the iterator `{name}` kept as a value"),
                "consume an iterator in the expression that creates it, e.g. `v.iter().map(..).sum()`, \
                 or loop over it with `for`",
            );
        }
        self.poison(
            &m.method,
            &format!("the method `{name}` here (no derivative rule)"),
            "use f32/f64 methods that have a rule (sin, exp, powi, max, ...), or move the \
             computation into a function with hand-written `_jvp`/`_vjp` companions",
        )
    }

    fn call(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) -> Expr {
        let span = c.span();
        let path = match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.clone(),
            other => {
                return self.poison(&other, "calling this expression", "call a named function")
            }
        };
        if let Some(id) = path.get_ident() {
            if let Some(v) = self.lookup(&id.to_string()) {
                if self.closures.contains_key(&v) {
                    return self.call_closure(v, &c.args, span, out);
                }
                return self.poison(
                    &c.func,
                    &format!("calling `{id}`, a function value"),
                    "call a named #[differentiate] function (or one with hand-written \
                     `_jvp`/`_vjp`), or a closure defined with `let` in this function",
                );
            }
        }
        // `f64::from(x)`: a lossless conversion, differentiated like `x as f64`.
        if path.segments.len() == 2 && c.args.len() == 1 {
            let (p0, p1) = (
                path.segments[0].ident.to_string(),
                path.segments[1].ident.to_string(),
            );
            if (p0 == "f64" || p0 == "f32") && p1 == "from" {
                let inner = self.expr(&c.args[0], out);
                let ty = syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: path.segments[0].ident.clone().into(),
                });
                return Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(inner),
                        ty: Box::new(ty),
                    },
                    span,
                );
            }
        }
        let last = match path.segments.last() {
            Some(s) => s.ident.to_string(),
            None => return Expr::new(ExprKind::Poison, span),
        };
        // `f64::sin(x)`, `T::max(a, b)`, `Float::sqrt(x)`: method calls in disguise.
        if path.segments.len() >= 2 && !c.args.is_empty() {
            let prefix = path.segments[path.segments.len() - 2].ident.to_string();
            let float_prefix = self.is_float_name(&prefix) || prefix == "Float" || prefix == "Real";
            if float_prefix {
                if let Some(rule) = methods::float_method(&last) {
                    let want = methods::arg_count(rule.arity) + 1;
                    if c.args.len() != want {
                        return self.poison(
                            &c,
                            &format!("`{last}` with {} arguments", c.args.len()),
                            &format!("`{last}` takes {want}"),
                        );
                    }
                    let mut args: Vec<Expr> = c.args.iter().map(|a| self.expr(a, out)).collect();
                    let mut recv = args.remove(0);
                    // `f64::min(0.5, x)`: as a receiver, the literal needs the path's type.
                    if prefix == "f64" || prefix == "f32" {
                        suffix_literal(&mut recv, &prefix);
                    }
                    let method = syn::Ident::new(
                        &last,
                        path.segments.last().map_or(span, |s| s.ident.span()),
                    );
                    return Expr::new(
                        ExprKind::Method {
                            recv: Box::new(recv),
                            method,
                            args,
                        },
                        span,
                    );
                }
            }
        }
        if path.segments.len() == 2 && path.segments[0].ident == "Vec" {
            match last.as_str() {
                "new" if c.args.is_empty() => {
                    return Expr::new(ExprKind::VecNew { capacity: None }, span)
                }
                "with_capacity" if c.args.len() == 1 => {
                    let cap = self.expr(&c.args[0], out);
                    return Expr::new(
                        ExprKind::VecNew {
                            capacity: Some(Box::new(cap)),
                        },
                        span,
                    );
                }
                _ => {}
            }
        }
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a, out)).collect();
        // `Some(x)`, `Point(x, y)`, `Box::new(x)`: a constructor or a type's associated
        // function has no derivative companions; activity reports it if an argument is active.
        if self.is_constructor(&path) {
            let shape = self.path_shape(&path);
            return Expr::new(
                ExprKind::PlainCall {
                    func: c.func.to_token_stream(),
                    args,
                    shape,
                    suffix: TokenStream::new(),
                    path: None,
                },
                span,
            );
        }
        let any_float = args.iter().any(|a| self.shape_of(a).is_float());
        if any_float {
            self.check_unseen_args(c, &args);
        }
        if !any_float {
            // Re-examined once every variable's shape is known (`reclassify_calls`).
            let shape = self.path_shape(&path);
            return Expr::new(
                ExprKind::PlainCall {
                    func: c.func.to_token_stream(),
                    args,
                    shape,
                    suffix: TokenStream::new(),
                    path: Some(path),
                },
                span,
            );
        }
        Expr::new(
            ExprKind::Call {
                func: path,
                args,
                shape: Shape::Scalar,
            },
            span,
        )
    }

    // ----------------------------------------------------------------- shapes

    /// Whether a called path is a constructor (`Some`, `Ok`, `Point`, `Shape::Circle`) or an
    /// associated function of a type other than a float (`Box::new`, `Cell::new`): by Rust's
    /// naming conventions, an upper-case last or second-to-last segment.
    fn is_constructor(&self, p: &syn::Path) -> bool {
        let upper = |s: &syn::PathSegment| {
            let name = s.ident.to_string();
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && !self.is_float_name(&name)
                && !matches!(name.as_str(), "Float" | "Real" | "FloatConst" | "Self")
        };
        let n = p.segments.len();
        p.segments.last().is_some_and(upper) || (n >= 2 && upper(&p.segments[n - 2]))
    }

    /// A differentiated call passes a tangent for each float argument, so the macro must know
    /// which arguments are floats: a constant declared outside the function (`DAMP`) is not
    /// visible to it, and is reported rather than guessed.
    fn check_unseen_args(&mut self, c: &syn::ExprCall, args: &[Expr]) {
        for (a, e) in c.args.iter().zip(args) {
            let syn::Expr::Path(p) = a else { continue };
            let Some(id) = p.path.get_ident() else {
                continue;
            };
            let name = id.to_string();
            let const_like = name.chars().any(|ch| ch.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_');
            let unseen = matches!(e.kind, ExprKind::Opaque { .. })
                && self.lookup(&name).is_none()
                && !self.item_shapes.contains_key(&name);
            if const_like && unseen {
                let lower = name.to_lowercase();
                self.diag.unsupported_at(
                    a,
                    &format!("passing `{name}`, whose type the macro cannot see, to a differentiated function"),
                    &format!("bind it to a typed local first (`let {lower}: f64 = {name};`), or declare the `const` inside this function"),
                );
            }
        }
    }

    /// What copying sequence `v` gives: an array stays an array unless `to_vec` asks for a `Vec`.
    fn copy_to(&self, v: VarId, to_vec: bool) -> CopyTo {
        match self.vars[v].shape {
            Shape::Seq(SeqKind::Array(_)) if !to_vec => CopyTo::Array,
            _ => CopyTo::Vec,
        }
    }

    fn shape_of_type(&self, ty: &syn::Type) -> Shape {
        match ty {
            syn::Type::Reference(r) => match self.classify(&r.elem) {
                TypeClass::Seq(_) => Shape::Seq(SeqKind::Slice),
                _ => Shape::Other,
            },
            syn::Type::Tuple(t) => {
                Shape::Tuple(t.elems.iter().map(|e| self.shape_of_type(e)).collect())
            }
            _ => match self.classify(ty) {
                TypeClass::Float => Shape::Scalar,
                TypeClass::Seq(k) => Shape::Seq(k),
                TypeClass::Int => Shape::Int,
                TypeClass::Bool => Shape::Bool,
                _ => Shape::Other,
            },
        }
    }

    /// The shape of a path-headed constant expression (`f64::consts::PI`, `T::zero()`).
    fn path_shape(&self, p: &syn::Path) -> Shape {
        if let Some(ty) = p
            .get_ident()
            .and_then(|id| self.item_shapes.get(&id.to_string()))
        {
            return self.shape_of_type(ty);
        }
        let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if names
            .iter()
            .any(|n| self.is_float_name(n) || n == "Float" || n == "FloatConst")
        {
            Shape::Scalar
        } else if names.iter().any(|n| INT_TYPES.contains(&n.as_str())) {
            Shape::Int
        } else {
            Shape::Other
        }
    }

    fn opaque_shape(&self, e: &syn::Expr) -> Shape {
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(_) => Shape::Scalar,
                syn::Lit::Int(i) => {
                    if matches!(i.suffix(), "f32" | "f64") {
                        Shape::Scalar
                    } else {
                        Shape::Int
                    }
                }
                syn::Lit::Bool(_) => Shape::Bool,
                _ => Shape::Other,
            },
            syn::Expr::Path(p) => self.path_shape(&p.path),
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => self.path_shape(&p.path),
                _ => Shape::Other,
            },
            syn::Expr::MethodCall(m) => {
                if methods::float_method(&m.method.to_string())
                    .is_some_and(|r| r.arity == methods::Arity::Predicate)
                {
                    Shape::Bool
                } else {
                    self.opaque_shape(&m.receiver)
                }
            }
            syn::Expr::Paren(p) => self.opaque_shape(&p.expr),
            syn::Expr::Group(g) => self.opaque_shape(&g.expr),
            syn::Expr::Unary(u) => self.opaque_shape(&u.expr),
            syn::Expr::Binary(b) => match bin_op(&b.op) {
                Some(op) if op.is_arith() => self
                    .opaque_shape(&b.left)
                    .join(&self.opaque_shape(&b.right)),
                Some(_) => Shape::Bool,
                None => Shape::Other,
            },
            syn::Expr::Cast(c) => self.shape_of_type(&c.ty),
            _ => Shape::Other,
        }
    }

    pub(crate) fn shape_of(&self, e: &Expr) -> Shape {
        shape_of(&self.vars, e)
    }

    /// A call none of whose arguments looked float-valued when it was lowered, but one of which
    /// is, now that every variable's shape is known: a call of a differentiable function.
    fn reclassify_calls(&self, body: &mut [Stmt], tail: Option<&mut Expr>) {
        let vars = &self.vars;
        let mut fix = |e: &mut Expr| {
            if let ExprKind::PlainCall {
                args,
                path: Some(path),
                ..
            } = &mut e.kind
            {
                if args.iter().any(|a| shape_of(vars, a).is_float()) {
                    let (path, args) = (path.clone(), std::mem::take(args));
                    e.kind = ExprKind::Call {
                        func: path,
                        args,
                        shape: Shape::Scalar,
                    };
                }
            }
        };
        visit_exprs_mut(body, &mut fix);
        if let Some(t) = tail {
            t.visit_mut(&mut fix);
        }
    }

    /// A variable holding a call's result (assumed one float) used as a sequence or a tuple: the
    /// macro cannot see the callee's output type, so it asks for an annotation.
    fn check_call_results(&mut self, body: &[Stmt], tail: Option<&Expr>) {
        if self.call_lets.is_empty() {
            return;
        }
        let mut misused: Vec<VarId> = Vec::new();
        let mut look = |e: &Expr| {
            e.visit(&mut |n| match &n.kind {
                ExprKind::Index { base: v, .. }
                | ExprKind::Len(v)
                | ExprKind::CopySeq(v, _)
                | ExprKind::SubSlice { base: v, .. } => misused.push(*v),
                ExprKind::Field { base, .. } => {
                    if let ExprKind::Var(v) = base.kind {
                        misused.push(v);
                    }
                }
                _ => {}
            })
        };
        let blk = Block {
            stmts: body.to_vec(),
        };
        walk_exprs(&blk, &mut look);
        if let Some(t) = tail {
            look(t);
        }
        for (v, tokens) in self.call_lets.clone() {
            if misused.contains(&v) {
                let name = self.vars[v].name.to_string();
                self.diag.error_at(
                    &tokens,
                    format!(
                        "`{name}` holds the result of a call, which #[differentiate] takes to be a \
                         single float unless told otherwise; give its type, e.g. \
                         `let {name}: [f64; 2] = ...`, `let {name}: Vec<f64> = ...` or \
                         `let {name}: (f64, f64) = ...` (or destructure it: `let (a, b) = ...`)"
                    ),
                );
            }
        }
    }

    /// Shapes of variables assigned after their declaration (`let mut s = T::zero(); s += x;`).
    fn infer_shapes(&mut self, body: &[Stmt]) {
        for _ in 0..4 {
            let mut changed = false;
            let blk = Block {
                stmts: body.to_vec(),
            };
            let mut updates = Vec::new();
            visit_stmts(&blk, &mut |s| match s {
                Stmt::Assign {
                    place: Place::Var(v),
                    value,
                    ..
                } => updates.push((*v, shape_of(&self.vars, value))),
                // An annotation the macro cannot read (`let y: Real = x * 2.0;`, `Real` an
                // alias) names the type of the value, which rustc checks: take the value's shape.
                Stmt::Let {
                    pat: Pat::Bind(v),
                    init: Some(value),
                    ..
                } if self.vars[*v].ty.is_none() || self.vars[*v].shape == Shape::Other => {
                    updates.push((*v, shape_of(&self.vars, value)))
                }
                _ => {}
            });
            for (v, s) in updates {
                let j = self.vars[v].shape.join(&s);
                if j != self.vars[v].shape {
                    self.vars[v].shape = j;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
}

pub fn shape_of(vars: &[Var], e: &Expr) -> Shape {
    match &e.kind {
        ExprKind::Lit(l) => match l {
            syn::Lit::Float(_) => Shape::Scalar,
            syn::Lit::Int(i) if matches!(i.suffix(), "f32" | "f64") => Shape::Scalar,
            syn::Lit::Int(_) => Shape::Int,
            syn::Lit::Bool(_) => Shape::Bool,
            _ => Shape::Other,
        },
        ExprKind::Var(v) => vars[*v].shape.clone(),
        ExprKind::Opaque { shape, .. } => shape.clone(),
        ExprKind::Index { base, .. } => match vars[*base].shape {
            Shape::Seq(_) => Shape::Scalar,
            _ => Shape::Other,
        },
        ExprKind::Binary { op, lhs, rhs } => {
            if op.is_arith() {
                let (a, b) = (shape_of(vars, lhs), shape_of(vars, rhs));
                if a == Shape::Scalar || b == Shape::Scalar {
                    Shape::Scalar
                } else {
                    a.join(&b)
                }
            } else if matches!(
                op,
                BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr
            ) {
                shape_of(vars, lhs)
            } else {
                Shape::Bool
            }
        }
        ExprKind::Unary {
            op: UnOp::Neg,
            expr,
        } => shape_of(vars, expr),
        ExprKind::Unary {
            op: UnOp::Not,
            expr,
        } => shape_of(vars, expr),
        ExprKind::Cast { ty, .. } => match &**ty {
            syn::Type::Path(p) => {
                let n = p
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                if n == "f32" || n == "f64" {
                    Shape::Scalar
                } else if INT_TYPES.contains(&n.as_str()) {
                    Shape::Int
                } else {
                    Shape::Other
                }
            }
            _ => Shape::Other,
        },
        ExprKind::Method { method, .. } => match methods::float_method(&method.to_string()) {
            Some(r) if r.arity == methods::Arity::SinCos => {
                Shape::Tuple(vec![Shape::Scalar, Shape::Scalar])
            }
            Some(r) if r.arity == methods::Arity::Predicate => Shape::Bool,
            _ => Shape::Scalar,
        },
        ExprKind::PlainMethod { shape, .. } => shape.clone(),
        ExprKind::Len(_) => Shape::Int,
        ExprKind::ElemConst { .. } => Shape::Scalar,
        ExprKind::Call { shape, .. } => shape.clone(),
        ExprKind::PlainCall { shape, .. } => shape.clone(),
        ExprKind::Tuple(items) => Shape::Tuple(items.iter().map(|i| shape_of(vars, i)).collect()),
        ExprKind::Array(items) => {
            if items.iter().any(|i| shape_of(vars, i) == Shape::Scalar) {
                Shape::Seq(SeqKind::Array(items.len().to_string()))
            } else {
                Shape::Other
            }
        }
        ExprKind::ArrayRepeat { elem, len } => {
            if shape_of(vars, elem) == Shape::Scalar {
                Shape::Seq(SeqKind::Array(len.to_string()))
            } else {
                Shape::Other
            }
        }
        ExprKind::VecRepeat { elem, .. } => {
            if shape_of(vars, elem) == Shape::Scalar {
                Shape::Seq(SeqKind::Vec)
            } else {
                Shape::Other
            }
        }
        ExprKind::VecList(items) => {
            if items.iter().any(|i| shape_of(vars, i) == Shape::Scalar) {
                Shape::Seq(SeqKind::Vec)
            } else {
                Shape::Other
            }
        }
        ExprKind::VecNew { .. } => Shape::Other,
        ExprKind::CopySeq(v, to) => match &vars[*v].shape {
            Shape::Seq(SeqKind::Array(n)) if *to == CopyTo::Array => {
                Shape::Seq(SeqKind::Array(n.clone()))
            }
            Shape::Seq(_) => Shape::Seq(SeqKind::Vec),
            s => s.clone(),
        },
        ExprKind::Field { base, index } => match shape_of(vars, base) {
            Shape::Tuple(items) => items.get(*index as usize).cloned().unwrap_or(Shape::Other),
            _ => Shape::Other,
        },
        ExprKind::Ref(inner) => shape_of(vars, inner),
        ExprKind::SubSlice { base, .. } => match vars[*base].shape {
            Shape::Seq(_) => Shape::Seq(SeqKind::Slice),
            _ => Shape::Other,
        },
        ExprKind::Poison => Shape::Other,
    }
}

/// Visits every statement (pre-order), descending into nested blocks.
pub fn visit_stmts(b: &Block, f: &mut dyn FnMut(&Stmt)) {
    for s in &b.stmts {
        f(s);
        match s {
            Stmt::If { then, els, .. } => {
                visit_stmts(then, f);
                if let Some(e) = els {
                    visit_stmts(e, f)
                }
            }
            Stmt::Match { arms, .. } => arms.iter().for_each(|a| visit_stmts(&a.body, f)),
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::Block(body) => visit_stmts(body, f),
            _ => {}
        }
    }
}

fn push_eval(out: &mut Vec<Stmt>, e: Expr) {
    // A bare value statement (`x;`) has no effect; only calls are kept.
    if e.has_call() {
        out.push(Stmt::Eval(e));
    }
}

pub(crate) fn seq_elem(ty: &syn::Type) -> Option<syn::Type> {
    match ty {
        syn::Type::Reference(r) => seq_elem(&r.elem),
        syn::Type::Array(a) => Some((*a.elem).clone()),
        syn::Type::Slice(s) => Some((*s.elem).clone()),
        syn::Type::Path(p) => match &p.path.segments.last()?.arguments {
            syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            },
            _ => None,
        },
        syn::Type::Paren(p) => seq_elem(&p.elem),
        _ => None,
    }
}

/// Expressions whose statement form has no value (`if` without else, loops, assignments...).
pub(crate) fn is_unit_stmt_expr(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Assign(_) => true,
        syn::Expr::Binary(b) => compound_op(&b.op).is_some(),
        syn::Expr::If(i) => i.else_branch.is_none(),
        syn::Expr::Macro(m) => !m.mac.path.is_ident("vec"),
        syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => true,
        syn::Expr::MethodCall(m) => m.method == "push",
        _ => false,
    }
}

/// Syntax that can be a constant when it names no local: paths, literals, calls, arithmetic.
fn is_const_syntax(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Path(p) => p.path.segments.len() > 1 || p.qself.is_some(),
        syn::Expr::Call(c) => {
            matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.len() > 1)
                && c.args.iter().all(is_const_syntax)
        }
        syn::Expr::MethodCall(m) => {
            is_const_syntax(&m.receiver) && m.args.iter().all(is_const_syntax)
        }
        syn::Expr::Paren(p) => is_const_syntax(&p.expr),
        syn::Expr::Group(g) => is_const_syntax(&g.expr),
        syn::Expr::Unary(u) => is_const_syntax(&u.expr),
        syn::Expr::Binary(b) => {
            bin_op(&b.op).is_some() && is_const_syntax(&b.left) && is_const_syntax(&b.right)
        }
        syn::Expr::Cast(c) => is_const_syntax(&c.expr),
        _ => false,
    }
}

const ADAPTORS: &[&str] = &[
    "iter",
    "into_iter",
    "iter_mut",
    "windows",
    "chunks",
    "zip",
    "chain",
    "map",
    "filter",
    "enumerate",
    "skip",
    "take",
    "step_by",
    "rev",
    "copied",
    "cloned",
];

fn pattern_binds(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(_) => true,
        syn::Pat::Or(o) => o.cases.iter().any(pattern_binds),
        syn::Pat::Paren(pp) => pattern_binds(&pp.pat),
        syn::Pat::Tuple(t) => t.elems.iter().any(pattern_binds),
        syn::Pat::Reference(r) => pattern_binds(&r.pat),
        syn::Pat::Slice(s) => s.elems.iter().any(pattern_binds),
        syn::Pat::TupleStruct(t) => t.elems.iter().any(pattern_binds),
        syn::Pat::Struct(_) => true,
        _ => false,
    }
}

fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::Add(_) => BinOp::Add,
        S::Sub(_) => BinOp::Sub,
        S::Mul(_) => BinOp::Mul,
        S::Div(_) => BinOp::Div,
        S::Rem(_) => BinOp::Rem,
        S::Lt(_) => BinOp::Lt,
        S::Le(_) => BinOp::Le,
        S::Gt(_) => BinOp::Gt,
        S::Ge(_) => BinOp::Ge,
        S::Eq(_) => BinOp::Eq,
        S::Ne(_) => BinOp::Ne,
        S::And(_) => BinOp::And,
        S::Or(_) => BinOp::Or,
        S::BitAnd(_) => BinOp::BitAnd,
        S::BitOr(_) => BinOp::BitOr,
        S::BitXor(_) => BinOp::BitXor,
        S::Shl(_) => BinOp::Shl,
        S::Shr(_) => BinOp::Shr,
        _ => return None,
    })
}

/// `Some(Some(op))` for `+= -= *= /= %=`, `Some(None)` for other compound operators.
fn compound_op(op: &syn::BinOp) -> Option<Option<BinOp>> {
    use syn::BinOp as S;
    Some(match op {
        S::AddAssign(_) => Some(BinOp::Add),
        S::SubAssign(_) => Some(BinOp::Sub),
        S::MulAssign(_) => Some(BinOp::Mul),
        S::DivAssign(_) => Some(BinOp::Div),
        S::RemAssign(_) => Some(BinOp::Rem),
        S::BitAndAssign(_) => Some(BinOp::BitAnd),
        S::BitOrAssign(_) => Some(BinOp::BitOr),
        S::BitXorAssign(_) => Some(BinOp::BitXor),
        S::ShlAssign(_) => Some(BinOp::Shl),
        S::ShrAssign(_) => Some(BinOp::Shr),
        _ => return None,
    })
}

/// Identifiers in a macro's tokens, including names captured in format strings (`{x}`).
fn mentioned_names(ts: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for t in ts.clone() {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => out.extend(mentioned_names(&g.stream())),
            proc_macro2::TokenTree::Literal(l) => {
                let s = l.to_string();
                for part in s.split(['{', '}', ':']) {
                    let p = part.trim();
                    if !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        out.push(p.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Gives an unsuffixed numeric literal the float type `ty` (`0.5` becomes `0.5f64`).
fn suffix_literal(e: &mut Expr, ty: &str) {
    let digits = match &e.kind {
        ExprKind::Lit(syn::Lit::Float(f)) if f.suffix().is_empty() => f.base10_digits().to_string(),
        ExprKind::Lit(syn::Lit::Int(i)) if i.suffix().is_empty() => i.base10_digits().to_string(),
        _ => return,
    };
    let lit = syn::LitFloat::new(
        &format!(
            "{digits}{}{ty}",
            if digits.contains(['.', 'e', 'E']) {
                ""
            } else {
                ".0"
            }
        ),
        e.span,
    );
    e.kind = ExprKind::Lit(syn::Lit::Float(lit));
}

fn is_range_syntax(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Range(_) => true,
        syn::Expr::Paren(p) => is_range_syntax(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "rev" || m.method == "step_by" => {
            is_range_syntax(&m.receiver)
        }
        _ => false,
    }
}

/// The sequence a slice pattern destructures: `*x`, `&x`, `x[..]`, `(x)` all name `x`.
fn slice_pattern_source(init: &syn::Expr) -> &syn::Expr {
    let mut src = init;
    loop {
        match src {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => src = &u.expr,
            syn::Expr::Reference(r) => src = &r.expr,
            syn::Expr::Paren(p) => src = &p.expr,
            syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(r) if r.start.is_none() && r.end.is_none()) => {
                src = &ix.expr
            }
            _ => return src,
        }
    }
}
