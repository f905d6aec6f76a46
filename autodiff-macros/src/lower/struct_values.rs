//! Struct values in the body, before anything else is lowered: takes the function, gives its body
//! with every struct built or taken apart in it replaced by its fields (scalar replacement, as
//! `lower/structs.rs` does for struct arguments) and, for a struct output, the plan of the
//! output (`OutPlan`).
//!
//! - `let s2 = State { x: a, v: b };` becomes one local per field (`let __ad_l0_s2_x = a;`) and
//!   `s2.x` reads and writes that local; `..base` (a struct argument taken by `&` or by value,
//!   or another struct local, never written) gives the fields the literal does not list
//!   (`s2.k` reads `base.k`).
//! - `let State { x, v: w, .. } = s;` (and `let Pair(a, b) = p;`) of a struct argument taken
//!   by `&` or by value, or of a struct local, becomes `let x = s.x; let w = s.v;`.
//! - `-> State`: the body's value, a struct literal (or a struct local), becomes the tuple of its
//!   fields in the order written; `lower/mod.rs` keeps the float ones as the output the emitters
//!   see and the others as constants computed from the arguments (`finish_struct_output`,
//!   `lower/struct_output.rs`).
//!
//! Every other use of a struct value is an error at its tokens.

use super::structs::{chain, WRITING_METHODS};
use super::*;
use syn::visit_mut::VisitMut;

/// A struct output: what `codegen/structs.rs` needs to build it again.
pub(super) struct OutPlan {
    /// The path of the literal as written (`State`, `Self`, `State::<T>`); `None` for a struct
    /// argument returned whole.
    pub(super) path: Option<syn::Path>,
    /// The literal's fields, in the order of the tuple the body now gives, with their tokens.
    pub(super) members: Vec<(syn::Member, TokenStream)>,
    /// The struct argument giving the fields the literal does not list (`..*s`), or the whole
    /// output (`s`).
    pub(super) base: Option<syn::Ident>,
    /// The body's value is a struct held whole (`a` of `let a = step(s, dt);`, `step(s, dt)`,
    /// `t.clone()`): the output is that value, checked once lowered (`finish_struct_output`).
    pub(super) whole: bool,
}

/// A struct built in the body (`let s2 = State { .. };`): its fields' locals.
#[derive(Clone)]
pub(super) struct Local {
    pub(super) path: syn::Path,
    pub(super) fields: Vec<(String, syn::Member, syn::Ident)>,
    /// `..base`: the fields the literal does not list are `base`'s.
    pub(super) base: Option<syn::Expr>,
    /// Declared `let mut`: its fields may change, so it is no `..base` of another.
    pub(super) mutable: bool,
}

impl Local {
    fn field(&self, m: &syn::Member) -> Option<&syn::Ident> {
        let name = member_name(m);
        self.fields
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, _, id)| id)
    }
}

pub(super) fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(id) => id.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// The struct arguments of a signature that may be read after a literal or pattern takes their
/// fields: those taken by `&` or by a binding that is not `mut`.
pub(super) fn readonly_roots(cx: &Lowerer, sig: &syn::Signature) -> Vec<String> {
    let mut out = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(r) => {
                if r.mutability.is_none() {
                    out.push("self".to_string());
                }
            }
            syn::FnArg::Typed(pt) => {
                let syn::Pat::Ident(pi) = &*pt.pat else {
                    continue;
                };
                if cx.struct_type(&pt.ty, &sig.generics) == Some(false) && pi.mutability.is_none() {
                    out.push(pi.ident.to_string());
                }
            }
        }
    }
    out
}

/// `e`, `*e`, `(e)` of a plain name: the name.
pub(super) fn plain_name(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        syn::Expr::Paren(p) => plain_name(&p.expr),
        syn::Expr::Group(g) => plain_name(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => plain_name(&u.expr),
        _ => None,
    }
}

pub(super) struct Pass<'c, 'a> {
    pub(super) cx: &'c mut Lowerer<'a>,
    pub(super) roots: Vec<String>,
    /// The struct arguments' types as paths (`State`, `Self`), for copies of them
    /// (`lower/struct_copies.rs`).
    pub(super) types: HashMap<String, syn::Path>,
    pub(super) count: usize,
    /// How deep in nested blocks the statements being rewritten are (0: the function's body).
    pub(super) depth: usize,
}

impl Lowerer<'_> {
    /// The function with struct values replaced by their fields (see the module's doc), and the
    /// plan of a struct output (`None` when the output is not a struct, or after an error).
    pub(super) fn plan_struct_values(
        &mut self,
        item: &syn::ItemFn,
    ) -> (syn::ItemFn, Option<OutPlan>) {
        let struct_out = match &item.sig.output {
            syn::ReturnType::Type(_, t) => {
                !matches!(**t, syn::Type::Reference(_) | syn::Type::Tuple(_))
                    && self.struct_type(t, &item.sig.generics).is_some()
            }
            syn::ReturnType::Default => false,
        };
        let roots = readonly_roots(self, &item.sig);
        if !struct_out
            && !mentions_struct_syntax(&item.block)
            && !super::struct_copies::copies_root(&item.block, &roots)
        {
            return (item.clone(), None);
        }
        let types = super::struct_copies::root_paths(self, &item.sig);
        let mut pass = Pass {
            cx: self,
            roots,
            types,
            count: 0,
            depth: 0,
        };
        let mut block = (*item.block).clone();
        // Branches and `return`s giving the struct output: one literal at the end
        // (`lower/struct_exits.rs`).
        let exits = if struct_out {
            let roots = pass.roots.clone();
            match pass.cx.struct_exits(&mut block, &roots) {
                Ok(exits) => exits,
                // Reported: the body is not read further (its struct values would only repeat
                // the error); the function gets stub companions.
                Err(()) => {
                    let mut out = item.clone();
                    out.block = Box::new(syn::parse_quote!({ loop {} }));
                    return (out, None);
                }
            }
        } else {
            false
        };
        let mut locals = HashMap::new();
        let tail = pass.block(&mut block, &mut locals, struct_out);
        let mut out = item.clone();
        let plan = if struct_out {
            if let Some(r) = returns(&block).filter(|_| !exits) {
                pass.cx.diag.unsupported_at(
                    &r,
                    "an early `return` from a function with a struct output (yet)",
                    "compute the fields in locals and end the function with the struct literal",
                );
            }
            match tail {
                Some(t) => Some(t),
                None => {
                    let at: TokenStream = match block.stmts.last() {
                        Some(syn::Stmt::Expr(e, None)) => e.to_token_stream(),
                        _ => item.sig.output.to_token_stream(),
                    };
                    let ty = match &item.sig.output {
                        syn::ReturnType::Type(_, t) => Some(&**t),
                        syn::ReturnType::Default => None,
                    };
                    super::struct_output::report_struct_output(pass.cx.diag, &at, ty);
                    None
                }
            }
        } else {
            None
        };
        out.block = Box::new(block);
        (out, plan)
    }
}

/// Whether a block contains struct literals or struct patterns at all.
fn mentions_struct_syntax(b: &syn::Block) -> bool {
    struct F(bool);
    impl<'ast> Visit<'ast> for F {
        fn visit_expr_struct(&mut self, _: &'ast syn::ExprStruct) {
            self.0 = true;
        }
        fn visit_pat_struct(&mut self, _: &'ast syn::PatStruct) {
            self.0 = true;
        }
        fn visit_pat_tuple_struct(&mut self, _: &'ast syn::PatTupleStruct) {
            self.0 = true;
        }
    }
    let mut f = F(false);
    f.visit_block(b);
    f.0
}

/// The first `return` with a value in a block (closures excluded).
fn returns(b: &syn::Block) -> Option<TokenStream> {
    struct F(Option<TokenStream>);
    impl<'ast> Visit<'ast> for F {
        fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
            if self.0.is_none() {
                self.0 = Some(r.to_token_stream());
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut f = F(None);
    f.visit_block(b);
    f.0
}

impl Pass<'_, '_> {
    fn error(&mut self, at: &dyn ToTokens, what: &str, instead: &str) {
        self.cx.diag.unsupported_at(at, what, instead);
    }

    /// Rewrites a block's statements in order, with `locals` the struct locals in scope; with
    /// `output`, its value (the function's) is a struct: the plan of it.
    fn block(
        &mut self,
        b: &mut syn::Block,
        locals: &mut HashMap<String, Local>,
        output: bool,
    ) -> Option<OutPlan> {
        let stmts = std::mem::take(&mut b.stmts);
        let n = stmts.len();
        let mut plan = None;
        for i in 0..n {
            let mut s = stmts[i].clone();
            let last = i + 1 == n;
            if let syn::Stmt::Local(l) = &mut s {
                if self.copy_let(l, locals, &stmts[i + 1..], output, &mut b.stmts) {
                    continue;
                }
                if self.struct_let(l, locals, &mut b.stmts) {
                    continue;
                }
                if self.pattern_let(l, locals, &mut b.stmts) {
                    let mut names = Vec::new();
                    pat_names(&l.pat, &mut names);
                    for n in names {
                        locals.remove(&n);
                    }
                    continue;
                }
            }
            match &mut s {
                syn::Stmt::Expr(e, None) if last && output => {
                    plan = self.output(e, locals);
                }
                _ => self.uses(&mut s, locals),
            }
            // A `let` shadowing a struct local ends it.
            if let syn::Stmt::Local(l) = &s {
                let mut names = Vec::new();
                pat_names(&l.pat, &mut names);
                for n in names {
                    locals.remove(&n);
                }
            }
            b.stmts.push(s);
        }
        plan
    }

    /// The uses of struct locals in a statement rewritten (nested blocks with their own scopes).
    pub(super) fn uses(&mut self, s: &mut syn::Stmt, locals: &mut HashMap<String, Local>) {
        let mut u = Uses { pass: self, locals };
        u.visit_stmt_mut(s);
    }

    fn expr_uses(&mut self, e: &mut syn::Expr, locals: &mut HashMap<String, Local>) {
        let mut u = Uses { pass: self, locals };
        u.visit_expr_mut(e);
    }

    /// `let [mut] s2 [: S] = S { .. };`: one `let` per field, pushed to `out`, and `s2` entered in
    /// `locals`. False when `l` is not such a `let`.
    fn struct_let(
        &mut self,
        l: &mut syn::Local,
        locals: &mut HashMap<String, Local>,
        out: &mut Vec<syn::Stmt>,
    ) -> bool {
        let Some(init) = &mut l.init else {
            return false;
        };
        if init.diverge.is_some() {
            return false;
        }
        let syn::Expr::Struct(lit) = &mut *init.expr else {
            return false;
        };
        let pat = match &l.pat {
            syn::Pat::Type(pt) => &*pt.pat,
            p => p,
        };
        let syn::Pat::Ident(pi) = pat else {
            self.error(
                &l.pat,
                "this pattern for a struct literal",
                "bind the struct to a name (`let s = State { .. };`)",
            );
            return false;
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            self.error(
                &l.pat,
                "this pattern for a struct literal",
                "bind the struct to a plain name",
            );
            return false;
        }
        let name = pi.ident.clone();
        if lit.qself.is_some() {
            self.error(
                &*lit,
                "a qualified path in a struct literal",
                "name the struct",
            );
            return false;
        }
        for f in lit.fields.iter_mut() {
            self.expr_uses(&mut f.expr, locals);
        }
        let base = match lit.rest.as_deref() {
            None => None,
            Some(b) => match self.base(b, locals) {
                Some(b) => Some(b),
                None => return true,
            },
        };
        let k = self.count;
        self.count += 1;
        let mut fields = Vec::new();
        for f in &lit.fields {
            let m = member_name(&f.member);
            let id = syn::Ident::new(
                &format!("__ad_l{k}_{name}_{m}"),
                Span::mixed_site().located_at(f.member.span()),
            );
            let mutability = pi.mutability;
            let value = &f.expr;
            out.push(syn::parse_quote!(let #mutability #id = #value;));
            fields.push((m, f.member.clone(), id));
        }
        locals.insert(
            name.to_string(),
            Local {
                path: lit.path.clone(),
                fields,
                base,
                mutable: pi.mutability.is_some(),
            },
        );
        true
    }

    /// `..base` of a struct literal: `base` when it is a struct argument taken by `&` or by a
    /// binding that is not `mut` (`..*s`, `..s`), or a struct local; else an error (`None`).
    fn base(&mut self, b: &syn::Expr, locals: &HashMap<String, Local>) -> Option<syn::Expr> {
        // `..*s`, `..s`, or `..s.clone()` (the base of a struct that is not `Copy`).
        if let Some(id) = plain_name(b).or_else(|| super::struct_copies::copied(b)) {
            let n = id.to_string();
            let fixed = match locals.get(&n) {
                Some(l) => !l.mutable,
                None => self.roots.contains(&n),
            };
            if fixed {
                return Some(syn::parse_quote!(#id));
            }
        }
        self.error(
            b,
            "this `..base` (yet)",
            "take the other fields from a struct argument passed by `&` (`..*s`, or \
             `..s.clone()` when it is not `Copy`) or by value (`..s`, not `mut`), or from a \
             struct built earlier in the function (not `mut`), or list every field",
        );
        None
    }

    /// `let S { a, b: p, .. } = s;` and `let P(a, b) = s;` of a struct argument read only or of a
    /// struct local: `let a = s.a; let p = s.b;`, pushed to `out`. False when `l` is not such a
    /// `let`.
    fn pattern_let(
        &mut self,
        l: &mut syn::Local,
        locals: &mut HashMap<String, Local>,
        out: &mut Vec<syn::Stmt>,
    ) -> bool {
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&pt.ty)),
            p => (p, None),
        };
        if !matches!(pat, syn::Pat::Struct(_) | syn::Pat::TupleStruct(_)) {
            return false;
        }
        if ty.is_some() {
            self.error(
                &l.pat,
                "a type on a struct pattern",
                "write the pattern without the type (`let State { x, v } = s;`)",
            );
            return true;
        }
        let init = l.init.as_ref().filter(|i| i.diverge.is_none());
        let root = init
            .and_then(|i| plain_name(&i.expr))
            .filter(|id| {
                let n = id.to_string();
                locals.contains_key(&n) || self.roots.contains(&n)
            })
            .cloned();
        let Some(root) = root else {
            // `let Some(x) = o else { .. }` and the like are lowering's.
            if matches!(pat, syn::Pat::TupleStruct(_)) {
                return false;
            }
            let init: &dyn ToTokens = match init {
                Some(i) => &i.expr,
                None => &l.pat,
            };
            self.error(
                init,
                "taking this value apart with a struct pattern (yet)",
                "take apart a struct argument passed by `&` (or by value, not `mut`) or a struct \
                 built in the function, or read the fields one by one (`let x = s.x;`)",
            );
            return true;
        };
        let parts: Vec<(syn::Member, syn::Pat)> = match pat {
            syn::Pat::Struct(ps) => ps
                .fields
                .iter()
                .map(|f| (f.member.clone(), f.pat.as_ref().clone()))
                .collect(),
            syn::Pat::TupleStruct(ts) => {
                let mut parts = Vec::new();
                for (i, p) in ts.elems.iter().enumerate() {
                    if matches!(p, syn::Pat::Rest(_)) {
                        if i + 1 != ts.elems.len() {
                            self.error(
                                p,
                                "`..` before the last fields of a tuple-struct pattern",
                                "bind the fields by position (`let P(a, _, c) = p;`)",
                            );
                            return true;
                        }
                        break;
                    }
                    let m = syn::Member::Unnamed(syn::Index {
                        index: i as u32,
                        span: p.span(),
                    });
                    parts.push((m, p.clone()));
                }
                parts
            }
            _ => return false,
        };
        for (m, p) in parts {
            if let syn::Pat::Ident(pi) = &p {
                if pi.by_ref.is_some() {
                    self.error(&p, "`ref` in a struct pattern", "bind the field by value");
                    continue;
                }
            }
            let mut s: syn::Stmt = syn::parse_quote!(let #p = #root.#m;);
            self.uses(&mut s, locals);
            out.push(s);
        }
        true
    }

    /// The function's value, a struct: a literal or a struct local, as the tuple of the fields
    /// it lists; `..base` (`..*s`, `..s`) or the whole value (`s`, `*s`) of a struct argument
    /// read only gives the other fields.
    fn output(
        &mut self,
        e: &mut syn::Expr,
        locals: &mut HashMap<String, Local>,
    ) -> Option<OutPlan> {
        let (path, fields, base) = match &mut *e {
            syn::Expr::Struct(lit) => {
                for f in lit.fields.iter_mut() {
                    self.expr_uses(&mut f.expr, locals);
                }
                let base = match lit.rest.take() {
                    Some(rest) => {
                        lit.dot2_token = None;
                        self.out_base(&rest)
                    }
                    None => None,
                };
                if lit.qself.is_some() {
                    self.error(
                        &*lit,
                        "a qualified path in a struct literal",
                        "name the struct",
                    );
                }
                let fields = lit
                    .fields
                    .iter()
                    .map(|f| (f.member.clone(), f.expr.clone()))
                    .collect();
                (Some(lit.path.clone()), fields, base)
            }
            e => {
                let Some(id) = plain_name(e)
                    .or_else(|| super::struct_copies::copied(e))
                    .cloned()
                else {
                    // `step(s, dt)`, `a.clone()`: a struct held whole, checked once lowered.
                    self.expr_uses(e, locals);
                    return Some(OutPlan {
                        path: None,
                        members: Vec::new(),
                        base: None,
                        whole: true,
                    });
                };
                if self.roots.contains(&id.to_string()) && !locals.contains_key(&id.to_string()) {
                    // A struct argument returned whole.
                    (None, Vec::new(), Some(id))
                } else {
                    let Some(local) = locals.get(&id.to_string()).cloned() else {
                        // `a` of `let a = step(s, dt);`: a struct held whole, checked once
                        // lowered.
                        return Some(OutPlan {
                            path: None,
                            members: Vec::new(),
                            base: None,
                            whole: true,
                        });
                    };
                    let base = match &local.base {
                        Some(b) => self.out_base(b),
                        None => None,
                    };
                    let fields = local
                        .fields
                        .iter()
                        .map(|(_, m, id)| (m.clone(), syn::parse_quote!(#id)))
                        .collect();
                    (Some(local.path.clone()), fields, base)
                }
            }
        };
        let members = fields
            .iter()
            .map(|(m, v)| (m.clone(), quote!(#m: #v)))
            .collect();
        let items = fields.iter().map(|(_, v)| v);
        *e = syn::parse_quote!((#(#items,)*));
        Some(OutPlan {
            path,
            members,
            base,
            whole: false,
        })
    }

    /// `..base` of a struct output: a struct argument read only (`..*s`, `..s`), by name.
    fn out_base(&mut self, b: &syn::Expr) -> Option<syn::Ident> {
        if let Some(id) = plain_name(b).or_else(|| super::struct_copies::copied(b)) {
            if self.roots.contains(&id.to_string()) {
                return Some(id.clone());
            }
        }
        self.error(
            b,
            "this `..base` in a struct output (yet)",
            "take the other fields from a struct argument passed by `&` (`..*s`, or \
             `..s.clone()` when it is not `Copy`) or by value (`..s`), or list every field",
        );
        None
    }
}

/// The names a pattern binds.
pub(super) fn pat_names(p: &syn::Pat, out: &mut Vec<String>) {
    struct F<'o>(&'o mut Vec<String>);
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    F(out).visit_pat(p);
}

/// Rewrites the uses of struct locals: `s2.x` reads and writes the field's local, `s2.k` of a
/// field from `..base` reads `base.k`; any other use is an error.
struct Uses<'p, 'c, 'a, 'l> {
    pass: &'p mut Pass<'c, 'a>,
    locals: &'l mut HashMap<String, Local>,
}

impl Uses<'_, '_, '_, '_> {
    /// `s2.a.b` of a struct local: the expression it reads (the field's local, or `base.a`), and
    /// whether it is a field of `..base`.
    fn field_of_local(&self, e: &syn::Expr) -> Option<(syn::Expr, bool, String)> {
        let locals = &*self.locals;
        let (root, members) = chain(e, &|n| locals.contains_key(n))?;
        let local = locals.get(&root.to_string())?;
        let (first, rest) = members.split_first()?;
        if let Some(id) = local.field(first) {
            return Some((syn::parse_quote!(#id #(.#rest)*), false, root.to_string()));
        }
        let base = local.base.as_ref()?;
        Some((
            syn::parse_quote!(#base.#first #(.#rest)*),
            true,
            root.to_string(),
        ))
    }

    /// An error when `place` is a field a struct local takes from `..base` (it cannot be written).
    fn check_write(&mut self, place: &syn::Expr) {
        let mut p = place;
        loop {
            match p {
                syn::Expr::Index(i) => p = &i.expr,
                syn::Expr::Paren(x) => p = &x.expr,
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => p = &u.expr,
                _ => break,
            }
        }
        if let Some((_, true, root)) = self.field_of_local(p) {
            self.pass.error(
                place,
                &format!("writing a field `{root}` takes from `..base` (yet)"),
                "list the field in the struct literal",
            );
        }
    }
}

impl VisitMut for Uses<'_, '_, '_, '_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match &*e {
            syn::Expr::Assign(a) => {
                let left = (*a.left).clone();
                self.check_write(&left);
            }
            syn::Expr::Binary(b) if is_compound(&b.op) => {
                let left = (*b.left).clone();
                self.check_write(&left);
            }
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                let inner = (*r.expr).clone();
                self.check_write(&inner);
            }
            syn::Expr::MethodCall(m)
                if WRITING_METHODS.contains(&m.method.to_string().as_str()) =>
            {
                let recv = (*m.receiver).clone();
                self.check_write(&recv);
            }
            _ => {}
        }
        if let Some((new, from_base, _)) = self.field_of_local(e) {
            *e = new;
            if from_base {
                // `base` may be a struct local itself.
                self.visit_expr_mut(e);
            }
            return;
        }
        if let syn::Expr::Path(p) = &*e {
            if let Some(id) = p.path.get_ident() {
                if p.qself.is_none() && self.locals.contains_key(&id.to_string()) {
                    self.pass.error(
                        &*e,
                        &format!("using `{id}`, a struct built in the function, whole (yet)"),
                        &format!(
                            "read its fields (`{id}.x`), or end the function with it when the \
                             function returns it"
                        ),
                    );
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut inner = self.locals.clone();
        self.pass.depth += 1;
        self.pass.block(b, &mut inner, false);
        self.pass.depth -= 1;
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        // Patterns outside a block's own `let`s (closures, `for`, `match` arms, `if let`).
        if self.locals.contains_key(&p.ident.to_string()) {
            self.pass.error(
                &p.ident,
                &format!(
                    "rebinding `{}`, a struct built in the function, here",
                    p.ident
                ),
                "give the new binding another name",
            );
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        // A block's own `let`: its pattern shadows (the block removes the name after it).
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, d)) = &mut init.diverge {
                self.visit_expr_mut(d);
            }
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if let Some(mut body) = super::field_votes::VecBody::parse(m) {
            for e in body.items.iter_mut().chain(body.len.as_mut()) {
                self.visit_expr_mut(e);
            }
            m.tokens = body.tokens();
        }
    }
}

pub(super) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}
