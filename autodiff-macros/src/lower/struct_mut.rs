//! Structs taken by `&mut` and passed on whole (*lent*): takes a struct argument `s: &mut State`
//! (or `&mut self`) that the body passes whole to differentiated calls (`update(s, dt)`,
//! `update(&mut *s, dt)`, `self.substep(dt)`, `Self::substep(self, dt)`), gives it as one
//! variable of `Shape::Struct`, in-out like a `&mut` float buffer: each such call is a call
//! statement with `MutRef(s)` (the emitters save a clone of the struct before it and run the
//! callee's `_vjp` on that clone with the caller's adjoint struct in place, `reverse/mutcalls.rs`).
//!
//! The body may read and write float fields of a lent struct: they are field arguments like any
//! struct's, marked `FieldOf::lent` (in-out and mutable, since each lending call may change
//! them), bound without a borrow held across the calls and synced with the struct around each
//! one by the emitters (`codegen/lend.rs`); an argument of a lending call that reads one is
//! bound to a local first (`hoist_lent_args`). Its integer fields are read into locals
//! (`int_locals`), which calls re-read, so that the reverse sweep sees each value the forward
//! sweep read.

use super::structs::{chain, key_string, Class, StructPlan};
use super::*;

/// An integer field of a `&mut` struct argument held in a local: one the body writes and reads
/// (`self.count += 1; x.powi(self.count as i32)`), or one of a lent struct (a call may change
/// it). The local is declared first (`let mut __ad_i = self.count;`), the body reads and writes
/// it as an ordinary integer variable (so the reverse sweep saves the values it reads), the
/// field is written from it before each call lending the struct and at the end (when the body
/// writes it), and read into it again after each such call.
#[derive(Clone)]
pub(crate) struct IntLocal {
    pub(super) key: String,
    root: syn::Ident,
    members: Vec<syn::Member>,
    tokens: TokenStream,
    written: bool,
    var: Option<VarId>,
}

impl StructPlan {
    /// The integer fields held in locals (`IntLocal`), once the fields and the structs passed
    /// whole are known: those of `&mut` structs written but not only written (counters stay
    /// statements, `int_writes`), and every one of a lent struct that is not a counter.
    pub(super) fn plan_int_locals(&mut self) {
        let mut out = Vec::new();
        for f in self.fields.iter().filter(|f| f.class == Class::Int) {
            let root = f.root.to_string();
            let key = key_string(&f.root, &f.members);
            let mutref = self
                .roots
                .iter()
                .any(|(n, k)| *n == root && *k == StructArg::MutRef);
            if !mutref || self.int_writes.contains(&key) || !(f.written || self.lent(&root)) {
                continue;
            }
            out.push(IntLocal {
                key,
                root: f.root.clone(),
                members: f.members.clone(),
                tokens: f.tokens.clone(),
                written: f.written,
                var: None,
            });
        }
        self.int_locals = out;
    }

    /// Whether struct argument `root` is taken by `&mut` and passed whole to calls.
    pub(super) fn lent(&self, root: &str) -> bool {
        self.roots
            .iter()
            .any(|(n, k)| n == root && *k == StructArg::MutRef)
            && self.passed.iter().any(|p| p == root)
    }
}

impl Lowerer<'_> {
    /// Declares the integer locals (`IntLocal`) at the top of the body, each from its field.
    pub(super) fn declare_int_locals(&mut self, body: &mut Vec<Stmt>) {
        let mut locals = std::mem::take(&mut self.structs.int_locals);
        for l in &mut locals {
            let span = l.tokens.span();
            let v = self.synthetic("i", Shape::Int, span);
            let (root, members) = (&l.root, &l.members);
            body.push(Stmt::Let {
                pat: Pat::Bind(v),
                init: Some(Expr::new(
                    ExprKind::Opaque {
                        tokens: quote!(#root #(.#members)*),
                        shape: Shape::Int,
                    },
                    span,
                )),
            });
            l.var = Some(v);
        }
        self.structs.int_locals = locals;
    }

    /// The local holding integer field `e` (`self.count`), if it is one (`IntLocal`).
    pub(super) fn int_local(&self, e: &syn::Expr) -> Option<VarId> {
        let plan = &self.structs;
        if plan.int_locals.is_empty() {
            return None;
        }
        let (root, members) = chain(e, &|n| plan.is_root(n))?;
        let key = key_string(&root, &members);
        plan.int_locals.iter().find(|l| l.key == key)?.var
    }

    /// After the body is lowered: each call lending a struct preceded by the writes of its
    /// written integer locals into their fields and followed by the reads of all its integer
    /// locals from them; the written ones written back at the end. A `return` with written
    /// integer locals is reported (forward mode would leave the field unwritten).
    pub(super) fn sync_int_locals(&mut self, body: &mut Vec<Stmt>) {
        self.hoist_lent_args(body);
        let locals = self.structs.int_locals.clone();
        if locals.is_empty() {
            return;
        }
        let root_of = |v: VarId, vars: &[Var]| vars[v].name.to_string();
        let written_back = |l: &IntLocal, v: VarId| {
            let (root, members) = (&l.root, &l.members);
            let name = &self.vars[v].name;
            Stmt::Macro(quote!(#root #(.#members)* = #name), vec![v])
        };
        let mut returns = Vec::new();
        let vars = &self.vars;
        fn walk(
            stmts: &mut Vec<Stmt>,
            lend: &dyn Fn(&Stmt) -> Vec<String>,
            sync: &dyn Fn(&str, bool) -> Vec<Stmt>,
            returns: &mut Vec<Span>,
        ) {
            let mut out = Vec::with_capacity(stmts.len());
            for mut s in std::mem::take(stmts) {
                match &mut s {
                    Stmt::If { then, els, .. } => {
                        walk(&mut then.stmts, lend, sync, returns);
                        if let Some(e) = els {
                            walk(&mut e.stmts, lend, sync, returns);
                        }
                    }
                    Stmt::Match { arms, .. } => {
                        for a in arms {
                            walk(&mut a.body.stmts, lend, sync, returns);
                        }
                    }
                    Stmt::For { body, .. }
                    | Stmt::While { body, .. }
                    | Stmt::Loop { body, .. }
                    | Stmt::Block(body) => walk(&mut body.stmts, lend, sync, returns),
                    Stmt::Return { span, .. } => returns.push(*span),
                    _ => {}
                }
                let roots = lend(&s);
                for r in &roots {
                    out.extend(sync(r, true));
                }
                out.push(s);
                for r in &roots {
                    out.extend(sync(r, false));
                }
            }
            *stmts = out;
        }
        let lend = |s: &Stmt| -> Vec<String> {
            let e = match s {
                Stmt::Eval(e) | Stmt::Let { init: Some(e), .. } => e,
                _ => return Vec::new(),
            };
            let ExprKind::Call { args, .. } = &e.kind else {
                return Vec::new();
            };
            args.iter()
                .filter_map(|a| match a.kind {
                    ExprKind::MutRef(v, _, None) if vars[v].shape == Shape::Struct => {
                        Some(root_of(v, vars))
                    }
                    _ => None,
                })
                .collect()
        };
        let sync = |root: &str, before: bool| -> Vec<Stmt> {
            let mut out = Vec::new();
            for l in locals.iter().filter(|l| l.root == root) {
                let Some(v) = l.var else { continue };
                let span = l.tokens.span();
                if before {
                    if l.written {
                        out.push(written_back(l, v));
                    }
                    continue;
                }
                let (r, members) = (&l.root, &l.members);
                out.push(Stmt::Assign {
                    place: Place::Var(v),
                    op: None,
                    value: Expr::new(
                        ExprKind::Opaque {
                            tokens: quote!(#r #(.#members)*),
                            shape: Shape::Int,
                        },
                        span,
                    ),
                });
            }
            out
        };
        walk(body, &lend, &sync, &mut returns);
        let mut wrote = false;
        for l in locals.iter().filter(|l| l.written) {
            if let Some(v) = l.var {
                body.push(written_back(l, v));
                wrote = true;
            }
        }
        if wrote {
            for span in returns {
                self.diag.unsupported_at(
                    &quote::quote_spanned!(span=> return),
                    "an early `return` in a function that writes an integer field it also \
                     reads (yet)",
                    "let the function end once (an `if`/`else` around the rest), or keep the \
                     integer in a local variable and write the field once at the end",
                );
            }
        }
    }

    /// The field arguments of lent structs (`StructPlan::lent`): float fields the body uses of
    /// a struct it also passes on whole.
    fn lent_field_vars(&self) -> Vec<VarId> {
        let plan = &self.structs;
        let names: Vec<&syn::Ident> = plan
            .fields
            .iter()
            .filter(|f| f.class != Class::Int && plan.lent(&f.root.to_string()))
            .map(|f| &f.ident)
            .collect();
        (0..self.vars.len())
            .filter(|&v| {
                matches!(self.vars[v].origin, VarOrigin::Param(_))
                    && names.contains(&&self.vars[v].name)
            })
            .collect()
    }

    /// Each argument of a call lending a struct that reads a float field of a lent struct
    /// (`self.step(self.dt)`, `g(s, 2.0 * s.k)`) bound to a local before the call: the field is
    /// synced into the struct around the call (`codegen/lend.rs`), so the call may not name it.
    /// A sequence field passed along the struct is reported.
    fn hoist_lent_args(&mut self, body: &mut Vec<Stmt>) {
        let fields = self.lent_field_vars();
        if fields.is_empty() {
            return;
        }
        let mut stmts = std::mem::take(body);
        self.hoist_in(&mut stmts, &fields);
        *body = stmts;
    }

    fn hoist_in(&mut self, stmts: &mut Vec<Stmt>, fields: &[VarId]) {
        let mut out = Vec::with_capacity(stmts.len());
        for mut s in std::mem::take(stmts) {
            match &mut s {
                Stmt::If { then, els, .. } => {
                    self.hoist_in(&mut then.stmts, fields);
                    if let Some(e) = els {
                        self.hoist_in(&mut e.stmts, fields);
                    }
                }
                Stmt::Match { arms, .. } => {
                    for a in arms {
                        self.hoist_in(&mut a.body.stmts, fields);
                    }
                }
                Stmt::For { body, .. }
                | Stmt::While { body, .. }
                | Stmt::Loop { body, .. }
                | Stmt::Block(body) => self.hoist_in(&mut body.stmts, fields),
                Stmt::Eval(e) | Stmt::Let { init: Some(e), .. } => {
                    let lends = e
                        .mut_borrows()
                        .iter()
                        .any(|v| self.vars[*v].shape == Shape::Struct);
                    if let (true, ExprKind::Call { args, .. }) = (lends, &mut e.kind) {
                        // The struct as written (`self` of `self.absorb(..)`): where errors point.
                        let at = args
                            .iter()
                            .find(|a| matches!(a.kind, ExprKind::MutRef(..)))
                            .map_or(e.span, |a| a.span);
                        for a in args.iter_mut() {
                            if matches!(a.kind, ExprKind::MutRef(..)) {
                                continue;
                            }
                            let mut reads = Vec::new();
                            a.reads(&mut reads);
                            if !reads.iter().any(|v| fields.contains(v)) {
                                continue;
                            }
                            let shape = crate::ir::shape_of(&self.vars, a);
                            if !matches!(shape, Shape::Scalar | Shape::Int) {
                                self.diag.unsupported_at(
                                    &quote::quote_spanned!(at=> field),
                                    "passing a sequence made from a field of a struct to a call \
                                     along with the struct itself (yet)",
                                    "let the callee read the field from the struct it is given",
                                );
                                continue;
                            }
                            let t = self.synthetic("a", shape, a.span);
                            let value = std::mem::replace(a, Expr::new(ExprKind::Var(t), a.span));
                            out.push(Stmt::Let {
                                pat: Pat::Bind(t),
                                init: Some(value),
                            });
                        }
                    }
                }
                _ => {}
            }
            out.push(s);
        }
        *stmts = out;
    }

    /// Whether `v` is a lent struct variable: `Shape::Struct` behind `&mut`.
    pub(super) fn is_lent(&self, v: VarId) -> bool {
        self.vars[v].shape == Shape::Struct
            && matches!(&self.vars[v].ty, Some(syn::Type::Reference(r)) if r.mutability.is_some())
    }

    /// A lent struct passed whole as a call argument: `s`, `&mut *s`, `&mut s`, `&*s`, `self`:
    /// `MutRef(s)` (the callee may write it; one taking `&State` gets the `&mut` coerced).
    /// `None` when `e` is not a lent struct; a poisoned node for other forms (`s.clone()`,
    /// `*s`).
    pub(super) fn lent_call_arg(&mut self, e: &syn::Expr) -> Option<Expr> {
        let var = |me: &Self, e: &syn::Expr| -> Option<VarId> {
            let syn::Expr::Path(p) = e else { return None };
            let v = me.lookup(&p.path.get_ident()?.to_string())?;
            (p.qself.is_none() && me.is_lent(v)).then_some(v)
        };
        let deref = |me: &Self, e: &syn::Expr| match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => var(me, &u.expr),
            syn::Expr::Paren(p) => var(me, &p.expr),
            _ => None,
        };
        let span = e.span();
        let lend = |v: VarId| Some(Expr::new(ExprKind::MutRef(v, true, None), span));
        match e {
            syn::Expr::Reference(r) => {
                if let Some(v) = deref(self, &r.expr).or_else(|| var(self, &r.expr)) {
                    return lend(v);
                }
                None
            }
            syn::Expr::Path(_) => var(self, e).and_then(lend),
            syn::Expr::MethodCall(m) if m.method == "clone" => {
                var(self, &m.receiver)?;
                Some(self.poison(
                    e,
                    "passing a clone of a struct taken by `&mut` that the function also passes \
                     on whole (yet)",
                    "pass the struct itself (`g(s, x)`, `g(&mut *s, x)`)",
                ))
            }
            syn::Expr::Unary(_) => {
                deref(self, e)?;
                Some(self.poison(
                    e,
                    "passing a struct taken by `&mut` by value when the function also passes it \
                     on whole (yet)",
                    "pass it by reference (`g(s, x)`, `g(&mut *s, x)`)",
                ))
            }
            _ => None,
        }
    }

    /// `self.substep(dt)`, `s.step(dt)` of a lent struct: a call of the differentiated method
    /// `Self::substep` / `State::step` with `MutRef(self)` first. `None` when the receiver is
    /// not a lent struct.
    pub(super) fn lent_method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        if !self.is_lent(v) || !super::structs::own_method(&m.method.to_string()) {
            return None;
        }
        let Some(syn::Type::Reference(r)) = &self.vars[v].ty else {
            return None;
        };
        let ty = (*r.elem).clone();
        let recv = Expr::new(ExprKind::MutRef(v, true, None), m.receiver.span());
        self.struct_method_on(&ty, recv, m, out)
    }
}
