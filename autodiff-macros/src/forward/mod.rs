//! Forward mode: takes the analysed IR, gives the body of `<f>_jvp`. Every active variable gets a
//! tangent companion that is declared, shadowed and assigned together with it; active scalar
//! expressions are evaluated on `Dual` numbers, so the derivative rules are the runtime's and this
//! emitter knows no calculus.

use crate::analysis::activity::expr_active;
use crate::codegen::primal::{binop_tokens, convert, copy_seq, var_name, Printer};
use crate::ir::shape_of;
use crate::ir::*;
use crate::methods::{self, Arity};
use crate::names;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

/// A value during emission.
enum Val {
    /// Inactive: just the primal expression.
    Plain(TokenStream),
    /// An active scalar as an expression of type `Dual<T>`.
    Dual(TokenStream),
    /// An active value of any shape: primal and tangent expressions (already cheap to repeat).
    Pair(TokenStream, TokenStream),
    /// A tuple whose components are emitted separately.
    Tuple(Vec<Val>),
}

pub struct Forward<'a> {
    f: &'a Function,
    n: usize,
}

pub fn emit_body(f: &Function) -> TokenStream {
    let mut fw = Forward { f, n: 0 };
    let mut out = Vec::new();
    for p in f.params.iter().filter(|p| p.active) {
        let t = names::tangent(&f.vars[p.var], p.var);
        let d = fw.param_tangent_name(p);
        let m = f.vars[p.var].mutable.then(|| quote!(mut));
        out.push(quote!(let #m #t = #d;));
    }
    // An argument left out of `wrt(...)` that is assigned active values (`mut y: f64`) starts
    // with a zero tangent.
    let rt = names::rt();
    for p in f
        .params
        .iter()
        .filter(|p| !p.active && f.vars[p.var].active)
    {
        let t = names::tangent(&f.vars[p.var], p.var);
        let n = &p.name;
        out.push(quote!(let mut #t = #rt::zero_tangent(&#n);));
    }
    out.extend(f.items.iter().cloned());
    out.push(fw.stmts(&f.body));
    if let Some(tail) = &f.tail {
        let r = fw.output_pair(tail);
        out.push(r);
    }
    quote!(#(#out)*)
}

impl<'a> Forward<'a> {
    pub fn param_tangent_name(&self, p: &Param) -> syn::Ident {
        let taken: Vec<String> = self.f.params.iter().map(|p| p.name.to_string()).collect();
        names::shadow_param(&p.name, &taken)
    }

    /// The name of a variable in the generated code.
    fn name(&self, v: VarId) -> syn::Ident {
        names::var(&self.f.vars[v], v)
    }

    /// The tangent of a variable in the generated code.
    fn tangent(&self, v: VarId) -> syn::Ident {
        names::tangent(&self.f.vars[v], v)
    }

    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.n += 1;
        names::local(what, self.n)
    }

    fn primal(&self, e: &Expr) -> TokenStream {
        let name = var_name(&self.f.vars);
        Printer {
            name: &name,
            index: None,
        }
        .expr(e)
    }

    fn range(&self, r: &Range) -> TokenStream {
        let name = var_name(&self.f.vars);
        Printer {
            name: &name,
            index: None,
        }
        .range(r)
    }

    fn var_active(&self, v: VarId) -> bool {
        self.f.vars[v].active
    }

    fn active(&self, e: &Expr) -> bool {
        expr_active(&self.f.vars, e)
    }

    fn shape(&self, e: &Expr) -> Shape {
        shape_of(&self.f.vars, e)
    }

    // ------------------------------------------------------------------ values

    fn dual_of(&mut self, v: Val) -> TokenStream {
        let rt = names::rt();
        match v {
            Val::Plain(p) => quote!(#rt::Dual::constant(#p)),
            Val::Dual(d) => d,
            Val::Pair(p, t) => quote!(#rt::Dual::new(#p, #t)),
            Val::Tuple(items) => {
                // A tuple used as a scalar cannot happen in well-typed code; keep the first.
                let first = items.into_iter().next().unwrap_or(Val::Plain(quote!(())));
                self.dual_of(first)
            }
        }
    }

    /// Primal and tangent expressions for a value of the given shape.
    fn pair_of(
        &mut self,
        v: Val,
        shape: &Shape,
        pre: &mut Vec<TokenStream>,
    ) -> (TokenStream, TokenStream) {
        match v {
            Val::Plain(p) => {
                // Zeros are made before the value can be moved into a tuple.
                let t = self.fresh("p");
                let zt = self.fresh("z");
                let z = zeros(shape, &quote!(#t));
                pre.push(quote!(let #t = #p; let #zt = #z;));
                (quote!(#t), quote!(#zt))
            }
            Val::Dual(d) => {
                let t = self.fresh("f");
                pre.push(quote!(let #t = #d;));
                (quote!(#t.re), quote!(#t.eps))
            }
            Val::Pair(p, t) => (p, t),
            Val::Tuple(items) => {
                let shapes = match shape {
                    Shape::Tuple(s) if s.len() == items.len() => s.clone(),
                    _ => vec![Shape::Scalar; items.len()],
                };
                let mut ps = Vec::new();
                let mut ts = Vec::new();
                for (item, s) in items.into_iter().zip(&shapes) {
                    let (p, t) = self.pair_of(item, s, pre);
                    ps.push(p);
                    ts.push(t);
                }
                (quote!((#(#ps,)*)), quote!((#(#ts,)*)))
            }
        }
    }

    fn expr(&mut self, e: &Expr, pre: &mut Vec<TokenStream>) -> Val {
        if !self.active(e) {
            return Val::Plain(self.primal(e));
        }
        let rt = names::rt();
        let span = e.span;
        match &e.kind {
            ExprKind::Var(v) => {
                let name = &self.name(*v);
                let t = self.tangent(*v);
                match self.f.vars[*v].shape {
                    Shape::Scalar => Val::Dual(quote_spanned!(span=> #rt::Dual::new(#name, #t))),
                    _ => Val::Pair(quote!(#name), quote!(#t)),
                }
            }
            ExprKind::Index { base, index } => {
                let name = &self.name(*base);
                let t = self.tangent(*base);
                let i = self.fresh("i");
                let idx = self.primal(index);
                pre.push(quote!(let #i = #idx;));
                Val::Dual(quote_spanned!(span=> #rt::Dual::new(#name[#i], #t[#i])))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs, pre);
                let b = self.expr(rhs, pre);
                let o = binop_tokens(*op);
                match (a, b) {
                    (Val::Plain(a), b) => {
                        let b = self.dual_of(b);
                        Val::Dual(quote_spanned!(span=> (#rt::Dual::constant(#a) #o #b)))
                    }
                    (a, Val::Plain(b)) => {
                        let a = self.dual_of(a);
                        Val::Dual(quote_spanned!(span=> (#a #o #b)))
                    }
                    (a, b) => {
                        let a = self.dual_of(a);
                        let b = self.dual_of(b);
                        Val::Dual(quote_spanned!(span=> (#a #o #b)))
                    }
                }
            }
            ExprKind::Unary { expr, .. } => {
                let a = self.expr(expr, pre);
                let a = self.dual_of(a);
                Val::Dual(quote_spanned!(span=> (-#a)))
            }
            ExprKind::Cast { expr, ty, form } => {
                // The value and its tangent converted alike: the derivative of a conversion
                // between float types is one, rounded to the target type.
                let a = self.expr(expr, pre);
                let a = self.dual_of(a);
                let t = self.fresh("c");
                pre.push(quote!(let #t = #a;));
                let re = convert(form, ty, &quote!(#t.re), span);
                let eps = convert(form, ty, &quote!(#t.eps), span);
                Val::Dual(quote_spanned!(span=> #rt::Dual::new(#re, #eps)))
            }
            ExprKind::Method { recv, method, args } => {
                let rule = methods::float_method(&method.to_string());
                let r = self.expr(recv, pre);
                let r = self.dual_of(r);
                let mut a = Vec::new();
                for (k, arg) in args.iter().enumerate() {
                    let v = self.expr(arg, pre);
                    let int_arg =
                        matches!(rule.as_ref().map(|r| r.arity), Some(Arity::PowI)) && k == 0;
                    a.push(if int_arg {
                        match v {
                            Val::Plain(p) => p,
                            other => self.dual_of(other),
                        }
                    } else {
                        self.dual_of(v)
                    });
                }
                if matches!(rule.map(|r| r.arity), Some(Arity::SinCos)) {
                    let t = self.fresh("sc");
                    pre.push(quote_spanned!(span=> let #t = #r.#method();));
                    return Val::Tuple(vec![Val::Dual(quote!(#t.0)), Val::Dual(quote!(#t.1))]);
                }
                Val::Dual(quote_spanned!(span=> #r.#method(#(#a),*)))
            }
            ExprKind::Call { func, args, .. } => {
                let (p, t) = self.call(func, args, span, pre);
                Val::Pair(p, t)
            }
            ExprKind::Tuple(items) => Val::Tuple(items.iter().map(|i| self.expr(i, pre)).collect()),
            ExprKind::Array(items) | ExprKind::VecList(items) => {
                let mut ps = Vec::new();
                let mut ts = Vec::new();
                for i in items {
                    let v = self.expr(i, pre);
                    let (p, t) = self.pair_of(v, &Shape::Scalar, pre);
                    ps.push(p);
                    ts.push(t);
                }
                if matches!(e.kind, ExprKind::Array(_)) {
                    Val::Pair(quote!([#(#ps),*]), quote!([#(#ts),*]))
                } else {
                    Val::Pair(quote!(::std::vec![#(#ps),*]), quote!(::std::vec![#(#ts),*]))
                }
            }
            ExprKind::ArrayRepeat { elem, len } => {
                let v = self.expr(elem, pre);
                let (p, t) = self.pair_of(v, &Shape::Scalar, pre);
                Val::Pair(quote!([#p; #len]), quote!([#t; #len]))
            }
            ExprKind::VecRepeat { elem, len } => {
                let v = self.expr(elem, pre);
                let (p, t) = self.pair_of(v, &Shape::Scalar, pre);
                let n = self.fresh("n");
                let l = self.primal(len);
                pre.push(quote!(let #n = #l;));
                Val::Pair(quote!(::std::vec![#p; #n]), quote!(::std::vec![#t; #n]))
            }
            ExprKind::CopySeq(v, to) => {
                let name = &self.name(*v);
                let t = self.tangent(*v);
                Val::Pair(copy_seq(&quote!(#name), *to), copy_seq(&quote!(#t), *to))
            }
            ExprKind::Field { base, index } => {
                let b = self.expr(base, pre);
                let i = *index as usize;
                match b {
                    Val::Tuple(mut items) if i < items.len() => items.swap_remove(i),
                    other => {
                        let shape = self.shape(base);
                        let (p, t) = self.pair_of(other, &shape, pre);
                        let ix = syn::Index::from(i);
                        let elem_shape = match &shape {
                            Shape::Tuple(s) => s.get(i).cloned().unwrap_or(Shape::Scalar),
                            _ => Shape::Scalar,
                        };
                        if elem_shape == Shape::Scalar {
                            Val::Dual(quote!(#rt::Dual::new(#p.#ix, #t.#ix)))
                        } else {
                            Val::Pair(quote!(#p.#ix), quote!(#t.#ix))
                        }
                    }
                }
            }
            ExprKind::Ref(inner) => {
                let v = self.expr(inner, pre);
                let shape = self.shape(inner);
                let (p, t) = self.pair_of(v, &shape, pre);
                Val::Pair(quote!(&#p), quote!(&#t))
            }
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
            } => {
                let name = &self.name(*base);
                let t = self.tangent(*base);
                let s = start.as_ref().map(|s| self.bind_int(s, pre));
                let en = end.as_ref().map(|x| self.bind_int(x, pre));
                if *inclusive {
                    Val::Pair(quote!(&#name[#s..=#en]), quote!(&#t[#s..=#en]))
                } else {
                    Val::Pair(quote!(&#name[#s..#en]), quote!(&#t[#s..#en]))
                }
            }
            // Never active.
            ExprKind::Lit(_)
            | ExprKind::Opaque { .. }
            | ExprKind::Len(_)
            | ExprKind::ElemConst { .. }
            | ExprKind::PlainCall { .. }
            | ExprKind::PlainMethod { .. }
            | ExprKind::VecNew { .. }
            | ExprKind::Poison => Val::Plain(self.primal(e)),
        }
    }

    fn bind_int(&mut self, e: &Expr, pre: &mut Vec<TokenStream>) -> TokenStream {
        let n = self.fresh("n");
        let v = self.primal(e);
        pre.push(quote!(let #n = #v;));
        quote!(#n)
    }

    /// A call of a function with companions: `g_jvp(primals..., tangents...)`.
    fn call(
        &mut self,
        func: &syn::Path,
        args: &[Expr],
        span: proc_macro2::Span,
        pre: &mut Vec<TokenStream>,
    ) -> (TokenStream, TokenStream) {
        let mut prims = Vec::new();
        let mut tans = Vec::new();
        for a in args {
            let shape = self.shape(a);
            if !shape.is_float() {
                prims.push(self.primal(a));
                continue;
            }
            let v = self.expr(a, pre);
            let (p, t) = match v {
                // A constant sequence passed by reference (`&w`, `&w[1..]`, or `v` of type
                // `&[f64]`): a borrowed buffer of zeros shaped like it.
                Val::Plain(p) if self.is_borrow(a) => {
                    let tmp = self.fresh("z");
                    let zeros = zeros(&shape, &quote!(*#p));
                    pre.push(quote!(let #tmp = #zeros;));
                    (p, quote!(&#tmp))
                }
                v => self.pair_of(v, &shape, pre),
            };
            prims.push(p);
            tans.push(t);
        }
        let jvp = companion_path(func, "jvp");
        let out = self.fresh("r");
        let dout = self.fresh("dr");
        pre.push(quote_spanned!(span=> let (#out, #dout) = #jvp(#(#prims,)* #(#tans),*);));
        (quote!(#out), quote!(#dout))
    }

    /// Whether an argument expression is a borrow: `&w`, `&w[a..b]`, or a variable whose type
    /// is a reference (a slice argument, `&[f64; 3]`).
    fn is_borrow(&self, a: &Expr) -> bool {
        match &a.kind {
            ExprKind::Ref(_) | ExprKind::SubSlice { .. } => true,
            ExprKind::Var(v) => {
                let var = &self.f.vars[*v];
                var.shape == Shape::Seq(SeqKind::Slice)
                    || matches!(var.ty, Some(syn::Type::Reference(_)))
            }
            _ => false,
        }
    }

    // ------------------------------------------------------------------ statements

    pub fn stmts(&mut self, b: &Block) -> TokenStream {
        let mut out = Vec::new();
        for s in &b.stmts {
            out.push(self.stmt(s));
        }
        quote!(#(#out)*)
    }

    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        let mut pre = Vec::new();
        let main = match s {
            Stmt::Let { pat, init, .. } => self.let_stmt(pat, init.as_ref(), &mut pre),
            Stmt::Assign {
                place, op, value, ..
            } => self.assign(place, *op, value, &mut pre),
            Stmt::Push { vec, value, .. } => {
                let name = &self.name(*vec);
                if self.var_active(*vec) {
                    let v = self.expr(value, &mut pre);
                    let (p, t) = self.pair_of(v, &Shape::Scalar, &mut pre);
                    let tn = self.tangent(*vec);
                    quote!(#name.push(#p); #tn.push(#t);)
                } else {
                    let p = self.primal(value);
                    quote!(#name.push(#p);)
                }
            }
            Stmt::Eval(e) => {
                let p = self.primal(e);
                quote!(let _ = #p;)
            }
            Stmt::If { cond, then, els } => {
                let c = self.primal(cond);
                let t = self.stmts(then);
                match els {
                    Some(e) => {
                        let e = self.stmts(e);
                        quote!(if #c { #t } else { #e })
                    }
                    None => quote!(if #c { #t }),
                }
            }
            Stmt::Match { scrut, arms } => {
                let sc = self.primal(scrut);
                let arms = arms.iter().map(|a| {
                    let p = &a.pat;
                    let b = self.stmts(&a.body);
                    quote!(#p => { #b })
                });
                let arms: Vec<_> = arms.collect();
                quote!(match #sc { #(#arms)* })
            }
            Stmt::For {
                var,
                range,
                body,
                label,
            } => {
                let v = &self.name(*var);
                let r = self.range(range);
                let b = self.stmts(body);
                let l = label.as_ref().map(|l| quote!(#l:));
                quote!(#l for #v in #r { #b })
            }
            Stmt::While { cond, body, label } => {
                let c = self.primal(cond);
                let b = self.stmts(body);
                let l = label.as_ref().map(|l| quote!(#l:));
                quote!(#l while #c { #b })
            }
            Stmt::Loop { body, label } => {
                let b = self.stmts(body);
                let l = label.as_ref().map(|l| quote!(#l:));
                quote!(#l loop { #b })
            }
            Stmt::Break { label, span } => quote_spanned!(*span=> break #label;),
            Stmt::Continue { label, span } => quote_spanned!(*span=> continue #label;),
            Stmt::Return { value, span } => {
                let r = match value {
                    Some(v) => self.output_pair(v),
                    None => quote!(()),
                };
                quote_spanned!(*span=> return #r;)
            }
            Stmt::Block(b) => {
                let b = self.stmts(b);
                quote!({ #b })
            }
            Stmt::Macro(m, visible) => crate::codegen::primal::macro_stmt(m, visible, &self.f.vars),
        };
        quote!(#(#pre)* #main)
    }

    fn let_stmt(
        &mut self,
        pat: &Pat,
        init: Option<&Expr>,
        pre: &mut Vec<TokenStream>,
    ) -> TokenStream {
        let mut vs = Vec::new();
        pat.vars(&mut vs);
        let any_active = vs.iter().any(|v| self.var_active(*v));
        let init = match init {
            None => {
                let decl = self.pat_decl(pat, false);
                if any_active {
                    let tdecl = self.pat_decl(pat, true);
                    return quote!(let #decl; let #tdecl;);
                }
                return quote!(let #decl;);
            }
            Some(i) => i,
        };
        if !any_active {
            let decl = self.pat_decl(pat, false);
            let p = self.primal(init);
            return quote!(let #decl = #p;);
        }
        let val = self.expr(init, pre);
        self.bind_pattern(pat, val, &self.shape(init), pre)
    }

    /// Binds a pattern to a value: primal names and tangent names together.
    fn bind_pattern(
        &mut self,
        pat: &Pat,
        val: Val,
        shape: &Shape,
        pre: &mut Vec<TokenStream>,
    ) -> TokenStream {
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
                    pre.push(quote!(let #a = #pp; let #b = #tt;));
                    binds.push((p, quote!(#a), quote!(#b)));
                }
                let mut out = Vec::new();
                for (p, a, b) in binds {
                    out.push(self.bind_names(p, a, b));
                }
                quote!(#(#out)*)
            }
            (Pat::Bind(v), Val::Plain(p)) => {
                let decl = self.pat_decl(pat, false);
                let name = &self.name(*v);
                let t = self.tangent(*v);
                let tmut = self.f.vars[*v].mutable.then(|| quote!(mut));
                let z = zeros(&self.f.vars[*v].shape, &quote!(#name));
                quote!(let #decl = #p; let #tmut #t = #z;)
            }
            (p, v) => {
                let (pp, tt) = self.pair_of(v, shape, pre);
                self.bind_names(p, pp, tt)
            }
        }
    }

    fn bind_names(&mut self, pat: &Pat, p: TokenStream, t: TokenStream) -> TokenStream {
        let decl = self.pat_decl(pat, false);
        let tdecl = self.pat_decl(pat, true);
        quote!(let #decl = #p; let #tdecl = #t;)
    }

    /// The pattern as declared, with `mut` and type; `tangent` renames to tangent names (and
    /// inactive names to `_`).
    fn pat_decl(&self, pat: &Pat, tangent: bool) -> TokenStream {
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

    fn pat_decl_untyped(&self, pat: &Pat, tangent: bool) -> TokenStream {
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

    fn assign(
        &mut self,
        place: &Place,
        op: Option<BinOp>,
        value: &Expr,
        pre: &mut Vec<TokenStream>,
    ) -> TokenStream {
        let v = place.var();
        let name = self.name(v);
        let o = op.map(compound_tokens).unwrap_or_else(|| quote!(=));
        if !self.var_active(v) {
            let p = self.primal(value);
            return match place {
                Place::Var(_) => quote!(#name #o #p;),
                Place::Index(_, idx) => {
                    let i = self.primal(idx);
                    quote!(#name[#i] #o #p;)
                }
            };
        }
        let rt = names::rt();
        let t = self.tangent(v);
        let (pl, tl) = match place {
            Place::Var(_) => (quote!(#name), quote!(#t)),
            Place::Index(_, idx) => {
                let i = self.fresh("i");
                let ip = self.primal(idx);
                pre.push(quote!(let #i = #ip;));
                (quote!(#name[#i]), quote!(#t[#i]))
            }
        };
        let shape = match place {
            Place::Var(_) => self.f.vars[v].shape.clone(),
            Place::Index(..) => Shape::Scalar,
        };
        let val = self.expr(value, pre);
        if let Some(op) = op {
            let o = binop_tokens(op);
            let cur = quote!(#rt::Dual::new(#pl, #tl));
            let rhs = self.dual_of(val);
            let n = self.fresh("f");
            pre.push(quote!(let #n = #cur #o #rhs;));
            return quote!(#pl = #n.re; #tl = #n.eps;);
        }
        if let Val::Plain(p) = val {
            let z = zeros(&shape, &pl);
            return quote!(#pl = #p; #tl = #z;);
        }
        let (p, tt) = self.pair_of(val, &shape, pre);
        let a = self.fresh("a");
        let b = self.fresh("b");
        quote!(let #a = #p; let #b = #tt; #pl = #a; #tl = #b;)
    }

    /// `(value, tangent)` of the function's output.
    fn output_pair(&mut self, e: &Expr) -> TokenStream {
        let mut pre = Vec::new();
        let shape = self.f.output.shape.clone();
        let v = self.expr(e, &mut pre);
        let (p, t) = self.pair_of(v, &shape, &mut pre);
        quote!({ #(#pre)* (#p, #t) })
    }
}

/// `=` or `+=`, `-=`...
fn compound_tokens(op: BinOp) -> TokenStream {
    match op {
        BinOp::Add => quote!(+=),
        BinOp::Sub => quote!(-=),
        BinOp::Mul => quote!(*=),
        BinOp::Div => quote!(/=),
        BinOp::Rem => quote!(%=),
        BinOp::BitAnd => quote!(&=),
        BinOp::BitOr => quote!(|=),
        BinOp::BitXor => quote!(^=),
        BinOp::Shl => quote!(<<=),
        BinOp::Shr => quote!(>>=),
        _ => quote!(=),
    }
}

/// Zeros shaped like `e` (an expression that can be borrowed): the runtime's `zero_tangent`,
/// which rustc picks by `e`'s type. The macro only steps into tuples, whose components that are
/// not floats may be of types the runtime does not know.
pub fn zeros(shape: &Shape, e: &TokenStream) -> TokenStream {
    let rt = names::rt();
    match shape {
        // Not a float: carries no derivative; `()` stands in for its tangent.
        s if !s.is_float() => quote!(()),
        Shape::Tuple(items) => {
            // Components that are not floats carry no derivative: `()` stands in for them.
            let parts = items.iter().enumerate().map(|(i, s)| {
                if !s.is_float() {
                    return quote!(());
                }
                let ix = syn::Index::from(i);
                zeros(s, &quote!(#e.#ix))
            });
            quote!((#(#parts,)*))
        }
        _ => quote!(#rt::zero_tangent(&#e)),
    }
}

/// `path::g` -> `path::g_<suffix>` (generic arguments kept).
pub fn companion_path(func: &syn::Path, suffix: &str) -> TokenStream {
    let mut p = func.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = names::companion(&last.ident, suffix);
    }
    p.to_token_stream()
}
