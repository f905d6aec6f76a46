//! Reverse mode: takes the analysed IR, gives the body of `<f>_vjp`: a forward sweep (the primal
//! computation, saving what the reverse sweep will need) followed by a reverse sweep (statements
//! in reverse order, adjoints propagated with the runtime's partial-derivative rules).
//!
//! Steps:
//! 1. `normalize`: `return`/`break`/`continue` become assignments and flags, so that every block
//!    runs to its end (the rest of a block after a conditional exit moves into the non-exiting
//!    branches). Compound assignments become plain ones. Nested plain blocks are flattened (every
//!    variable gets a unique name, so scopes do not matter).
//! 2. `Emitter`: one recursive pass per block gives its forward code and its reverse code. A value
//!    the reverse sweep needs is recomputed when everything it reads is still there (arguments,
//!    top-level immutable `let`s, loop indices), and otherwise saved at its statement: as a local
//!    at the top level, on a per-site stack (`Vec`) inside loops and branches. Each stack is
//!    popped at the start of the reverse of the block that pushed it, so pushes and pops pair up.
//!    The pass runs until the set of needed values stops growing.

use crate::activity::expr_active;
use crate::diag::Diag;
use crate::ir::*;
use crate::lower::shape_of;
use crate::methods::{self, Arity, Linearity};
use crate::names;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::{BTreeSet, HashMap};

// =========================================================================== normalized IR

#[derive(Clone, Debug)]
enum R {
    Let {
        pat: Pat,
        init: Option<Expr>,
    },
    Assign {
        place: Place,
        value: Expr,
    },
    Push {
        vec: VarId,
        value: Expr,
    },
    Eval(Expr),
    Macro(TokenStream, Vec<VarId>),
    If {
        cond: Expr,
        then: Vec<R>,
        els: Vec<R>,
    },
    Match {
        scrut: Expr,
        arms: Vec<(syn::Pat, Vec<R>)>,
    },
    /// `brk`: the flag the body sets to leave the loop (then the trip count is recorded).
    For {
        var: VarId,
        range: Range,
        body: Vec<R>,
        brk: Option<VarId>,
    },
    While {
        cond: Option<Expr>,
        body: Vec<R>,
        brk: Option<VarId>,
    },
    Exit(Exit),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Exit {
    Return,
    /// Depth of the target loop (0 = outermost).
    Break(usize),
    Continue(usize),
}

struct LoopCx {
    label: Option<String>,
    brk: VarId,
}

struct Norm<'a> {
    vars: &'a mut Vec<Var>,
    diag: &'a mut Diag,
    ret: VarId,
    returned: Option<VarId>,
    loops: Vec<LoopCx>,
    /// Flags for labelled exits that cross loops: (kind, flag var).
    cross_flags: HashMap<(bool, usize), VarId>,
}

impl Norm<'_> {
    fn flag(&mut self, what: &str) -> VarId {
        let n = self.vars.len();
        self.vars.push(Var {
            name: format_ident!("__ad_{}{}", what, n, span = Span::mixed_site()),
            mutable: true,
            shape: Shape::Bool,
            origin: VarOrigin::Synthetic,
            ty: None,
            active: false,
        });
        n
    }

    fn lit_bool(b: bool) -> Expr {
        Expr::new(
            ExprKind::Lit(syn::Lit::Bool(syn::LitBool::new(b, Span::call_site()))),
            Span::call_site(),
        )
    }

    fn set(var: VarId, b: bool) -> R {
        R::Assign {
            place: Place::Var(var),
            value: Self::lit_bool(b),
        }
    }

    fn target(&mut self, label: &Option<syn::Lifetime>, span: Span) -> Option<usize> {
        match label {
            None => {
                if self.loops.is_empty() {
                    self.diag.error(span, "`break`/`continue` outside a loop");
                    None
                } else {
                    Some(self.loops.len() - 1)
                }
            }
            Some(l) => {
                let name = l.ident.to_string();
                let found = self
                    .loops
                    .iter()
                    .rposition(|c| c.label.as_deref() == Some(name.as_str()));
                if found.is_none() {
                    self.diag
                        .error(l.span(), format!("no enclosing loop labelled `{l}`"));
                }
                found
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt]) -> Vec<R> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out);
        }
        continuations(out)
    }

    fn stmt(&mut self, s: &Stmt, out: &mut Vec<R>) {
        match s {
            Stmt::Let { pat, init, .. } => out.push(R::Let {
                pat: pat.clone(),
                init: init.clone(),
            }),
            Stmt::Assign {
                place, op, value, ..
            } => {
                let value = match op {
                    None => value.clone(),
                    Some(op) => {
                        let cur = match place {
                            Place::Var(v) => Expr::new(ExprKind::Var(*v), value.span),
                            Place::Index(v, i) => Expr::new(
                                ExprKind::Index {
                                    base: *v,
                                    index: i.clone(),
                                },
                                value.span,
                            ),
                        };
                        Expr::new(
                            ExprKind::Binary {
                                op: *op,
                                lhs: Box::new(cur),
                                rhs: Box::new(value.clone()),
                            },
                            value.span,
                        )
                    }
                };
                out.push(R::Assign {
                    place: place.clone(),
                    value,
                })
            }
            Stmt::Push { vec, value, .. } => out.push(R::Push {
                vec: *vec,
                value: value.clone(),
            }),
            Stmt::Eval(e) => out.push(R::Eval(e.clone())),
            Stmt::Macro(m, vis) => out.push(R::Macro(m.clone(), vis.clone())),
            Stmt::Block(b) => {
                // Flattened: names are unique in the reverse-mode code.
                let inner = self.block(&b.stmts);
                out.extend(inner);
            }
            Stmt::If { cond, then, els } => {
                let then = self.block(&then.stmts);
                let els = els
                    .as_ref()
                    .map(|b| self.block(&b.stmts))
                    .unwrap_or_default();
                out.push(R::If {
                    cond: cond.clone(),
                    then,
                    els,
                });
            }
            Stmt::Match { scrut, arms } => {
                let arms = arms
                    .iter()
                    .map(|a| (a.pat.clone(), self.block(&a.body.stmts)))
                    .collect();
                out.push(R::Match {
                    scrut: scrut.clone(),
                    arms,
                });
            }
            Stmt::Return { value, .. } => {
                if let Some(v) = value {
                    out.push(R::Assign {
                        place: Place::Var(self.ret),
                        value: v.clone(),
                    });
                }
                out.push(R::Exit(Exit::Return));
            }
            Stmt::Break { label, span } => {
                if let Some(t) = self.target(label, *span) {
                    out.push(R::Exit(Exit::Break(t)));
                }
            }
            Stmt::Continue { label, span } => {
                if let Some(t) = self.target(label, *span) {
                    out.push(R::Exit(Exit::Continue(t)));
                }
            }
            Stmt::For {
                var,
                range,
                body,
                label,
            } => {
                let (body, brk, after) = self.loop_body(&body.stmts, label);
                out.push(R::Let {
                    pat: Pat::Bind(brk),
                    init: Some(Self::lit_bool(false)),
                });
                out.push(R::For {
                    var: *var,
                    range: range.clone(),
                    body,
                    brk: Some(brk),
                });
                out.extend(after);
            }
            Stmt::While { cond, body, label } => {
                let (body, brk, after) = self.loop_body(&body.stmts, label);
                out.push(R::Let {
                    pat: Pat::Bind(brk),
                    init: Some(Self::lit_bool(false)),
                });
                out.push(R::While {
                    cond: Some(cond.clone()),
                    body,
                    brk: Some(brk),
                });
                out.extend(after);
            }
            Stmt::Loop { body, label } => {
                let (body, brk, after) = self.loop_body(&body.stmts, label);
                out.push(R::Let {
                    pat: Pat::Bind(brk),
                    init: Some(Self::lit_bool(false)),
                });
                out.push(R::While {
                    cond: None,
                    body,
                    brk: Some(brk),
                });
                out.extend(after);
            }
        }
    }

    /// Normalizes a loop body; exits that leave the loop become flags, and the statements to put
    /// after the loop re-raise exits that go further.
    fn loop_body(
        &mut self,
        stmts: &[Stmt],
        label: &Option<syn::Lifetime>,
    ) -> (Vec<R>, VarId, Vec<R>) {
        let brk = self.flag("brk");
        let depth = self.loops.len();
        self.loops.push(LoopCx {
            label: label.as_ref().map(|l| l.ident.to_string()),
            brk,
        });
        let mut body = self.block(stmts);
        let mut after = Vec::new();
        let mut raised: Vec<Exit> = Vec::new();
        self.rewrite_exits(&mut body, depth, &mut raised);
        for ex in raised {
            let flag = match &ex {
                Exit::Return => self.returned.unwrap_or(brk),
                Exit::Break(t) => self.cross_flags[&(true, *t)],
                Exit::Continue(t) => self.cross_flags[&(false, *t)],
            };
            let mut then = Vec::new();
            if !matches!(ex, Exit::Return) {
                then.push(Self::set(flag, false));
            }
            then.push(R::Exit(ex));
            after.push(R::If {
                cond: Expr::new(ExprKind::Var(flag), Span::call_site()),
                then,
                els: Vec::new(),
            });
        }
        self.loops.pop();
        (body, brk, after)
    }

    /// Replaces exits at path ends inside a loop body at `depth`.
    fn rewrite_exits(&mut self, body: &mut Vec<R>, depth: usize, raised: &mut Vec<Exit>) {
        let brk = self.loops[depth].brk;
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                R::Exit(ex) => {
                    let ex = ex.clone();
                    let repl: Vec<R> = match &ex {
                        Exit::Continue(t) if *t == depth => vec![],
                        Exit::Break(t) if *t == depth => vec![Self::set(brk, true)],
                        Exit::Return => {
                            let flag = match self.returned {
                                Some(f) => f,
                                None => {
                                    let f = self.flag("returned");
                                    self.returned = Some(f);
                                    f
                                }
                            };
                            if !raised.contains(&ex) {
                                raised.push(ex.clone());
                            }
                            vec![Self::set(flag, true), Self::set(brk, true)]
                        }
                        Exit::Break(t) | Exit::Continue(t) => {
                            let is_break = matches!(ex, Exit::Break(_));
                            let key = (is_break, *t);
                            let flag = match self.cross_flags.get(&key) {
                                Some(f) => *f,
                                None => {
                                    let f = self.flag(if is_break { "brkto" } else { "contto" });
                                    self.cross_flags.insert(key, f);
                                    f
                                }
                            };
                            if !raised.contains(&ex) {
                                raised.push(ex.clone());
                            }
                            vec![Self::set(flag, true), Self::set(brk, true)]
                        }
                    };
                    let n = repl.len();
                    body.splice(i..i + 1, repl);
                    i += n;
                    continue;
                }
                R::If { then, els, .. } => {
                    self.rewrite_exits(then, depth, raised);
                    self.rewrite_exits(els, depth, raised);
                }
                R::Match { arms, .. } => {
                    for (_, b) in arms.iter_mut() {
                        self.rewrite_exits(b, depth, raised);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// Moves everything after a statement that may exit into that statement's non-exiting paths,
/// so that every block runs to its end when entered.
fn continuations(items: Vec<R>) -> Vec<R> {
    let mut out = Vec::new();
    let mut it = items.into_iter();
    while let Some(mut s) = it.next() {
        if may_exit(&s) {
            let rest = continuations(it.collect());
            if !always_exits(&s) {
                append_cont(&mut s, rest);
            }
            out.push(s);
            return out;
        }
        out.push(s);
    }
    out
}

fn may_exit(s: &R) -> bool {
    match s {
        R::Exit(_) => true,
        R::If { then, els, .. } => then.iter().any(may_exit) || els.iter().any(may_exit),
        R::Match { arms, .. } => arms.iter().any(|(_, b)| b.iter().any(may_exit)),
        _ => false,
    }
}

fn always_exits(s: &R) -> bool {
    match s {
        R::Exit(_) => true,
        R::If { then, els, .. } => {
            then.last().is_some_and(always_exits) && els.last().is_some_and(always_exits)
        }
        R::Match { arms, .. } => arms.iter().all(|(_, b)| b.last().is_some_and(always_exits)),
        _ => false,
    }
}

/// Puts `rest` at the end of every path through `s` that does not exit.
fn append_cont(s: &mut R, rest: Vec<R>) {
    let into = |b: &mut Vec<R>, rest: &Vec<R>| match b.last_mut() {
        Some(last) if always_exits(last) => {}
        Some(last) if may_exit(last) => append_cont(last, rest.clone()),
        _ => b.extend(rest.iter().cloned()),
    };
    match s {
        R::If { then, els, .. } => {
            into(then, &rest);
            into(els, &rest);
        }
        R::Match { arms, .. } => {
            for (_, b) in arms.iter_mut() {
                into(b, &rest);
            }
        }
        _ => {}
    }
}

// =========================================================================== emitter

/// Where a saved value lives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    Nested,
}

struct BlockOut {
    fwd: Vec<TokenStream>,
    /// Reverse code of each statement, in forward order (reversed when assembled).
    rev: Vec<TokenStream>,
    /// Code to run at the start of this block's reverse: pops, recomputations, adjoint zeros.
    pops: Vec<TokenStream>,
}

struct Emitter<'a> {
    f: &'a Function,
    vars: &'a [Var],
    n: usize,
    /// Stack sites: their tape names.
    tapes: Vec<syn::Ident>,
    /// Immutable non-top-level variables whose value the reverse sweep reads.
    needed: BTreeSet<VarId>,
    needed_now: BTreeSet<VarId>,
    /// Variables whose adjoint can be nonzero (the usefulness analysis): only these get an adjoint.
    acc: BTreeSet<VarId>,
    /// Variables declared at the top level (not inside loops or branches).
    top: BTreeSet<VarId>,
    /// Loop indices of `for` loops without early exit (the reverse loop rebinds them).
    rebound: BTreeSet<VarId>,
    ret: VarId,
    /// Set when a value was needed that `prepare` did not save: an internal error.
    bug: bool,
    /// Mutable top-level sequences kept up to date in the reverse sweep by restoring each
    /// overwritten element (Tapenade's strategy), instead of saving every read.
    restore: BTreeSet<VarId>,
    /// Loop-depth-weighted counts of saved reads and of writes per variable (this pass).
    reads_w: HashMap<VarId, f64>,
    writes_w: HashMap<VarId, f64>,
    depth: i32,
    /// Adjoint windows of the loop being emitted: element adjoints `b[i + c]` kept in locals.
    windows: HashMap<VarId, Window>,
    /// Slice views of the loop being emitted: `arr[e + i + c]` read through a sub-slice taken
    /// once before the loop, so that rustc can drop the bounds checks (and vectorize). Primal
    /// arrays the loop does not write, and adjoint buffers.
    views: HashMap<VarId, SliceView>,
    adj_views: HashMap<VarId, SliceView>,
}

/// A view of a sequence for one loop, with the largest offset it covers.
type PlannedView = (VarId, SliceView, i64);

/// `name = &arr[e + a + lo ..]`, read as `name[(i - a) + (c - lo)]` for `arr[e + i + c]`.
#[derive(Clone)]
struct SliceView {
    name: syn::Ident,
    index: VarId,
    /// The loop-invariant part `e`, printed (empty when there is none), and as an expression.
    inv: String,
    inv_expr: Option<Expr>,
    start: TokenStream,
    lo: i64,
}

/// The adjoints of `base[i + c]`, `c` in `lo..=hi`, held in local slots while the reverse loop
/// over `i` runs: each element is loaded once when the first iteration that touches it starts and
/// stored once after the last one, instead of a read-modify-write of memory per contribution.
struct Window {
    index: VarId,
    lo: i64,
    hi: i64,
    slots: Vec<syn::Ident>,
    /// Some access is conditional: loads and stores check that the element exists.
    guarded: bool,
}

impl Window {
    fn slot(&self, c: i64) -> &syn::Ident {
        &self.slots[(c - self.lo) as usize]
    }
}

pub fn emit_body(f: &Function, diag: &mut Diag) -> Option<TokenStream> {
    let mut vars = f.vars.clone();
    let ret = vars.len();
    vars.push(Var {
        name: format_ident!("__ad_ret", span = Span::mixed_site()),
        mutable: true,
        shape: f.output.shape.clone(),
        origin: VarOrigin::Synthetic,
        ty: Some(f.output.ty.clone()),
        active: true,
    });
    let mut stmts = f.body.stmts.clone();
    if let Some(t) = &f.tail {
        stmts.push(Stmt::Return {
            value: Some(t.clone()),
            span: t.span,
        });
    }
    let mut norm = Norm {
        vars: &mut vars,
        diag,
        ret,
        returned: None,
        loops: Vec::new(),
        cross_flags: HashMap::new(),
    };
    let mut body = norm.block(&stmts);
    strip_top_exits(&mut body);
    // Exit flags start false, declared once at the top.
    let mut flags: Vec<VarId> = norm.cross_flags.values().copied().collect();
    flags.extend(norm.returned);
    flags.sort();
    for fl in flags.into_iter().rev() {
        body.insert(
            0,
            R::Let {
                pat: Pat::Bind(fl),
                init: Some(Norm::lit_bool(false)),
            },
        );
    }
    if diag.has_errors() {
        return None;
    }
    let mut top = BTreeSet::new();
    for p in &f.params {
        top.insert(p.var);
    }
    top.insert(ret);
    collect_top(&body, &mut top);

    let mut needed = BTreeSet::new();
    // Variables with a (possibly) nonzero adjoint: the output, the arguments, and every active
    // variable read by an assignment to one of them (backward fixpoint, "useful" variables).
    let mut acc: BTreeSet<VarId> = f
        .params
        .iter()
        .filter(|p| p.active)
        .map(|p| p.var)
        .collect();
    acc.insert(ret);
    loop {
        let before = acc.len();
        useful(&body, &vars, &mut acc);
        if acc.len() == before {
            break;
        }
    }
    let mut restore = BTreeSet::new();
    // Iterate until the sets of needed values and adjoint targets are stable.
    for _ in 0..8 {
        let mut em = Emitter {
            f,
            vars: &vars,
            n: 0,
            tapes: Vec::new(),
            needed: needed.clone(),
            needed_now: BTreeSet::new(),
            acc: acc.clone(),
            top: top.clone(),
            rebound: BTreeSet::new(),
            ret,
            bug: false,
            restore: restore.clone(),
            reads_w: HashMap::new(),
            writes_w: HashMap::new(),
            depth: 0,
            windows: HashMap::new(),
            views: HashMap::new(),
            adj_views: HashMap::new(),
        };
        let code = em.function(&body);
        if em.bug {
            break;
        }
        let grown_needed: BTreeSet<VarId> = needed.union(&em.needed_now).copied().collect();
        // Restoring a sequence costs one save per write; saving its reads one per read.
        let mut grown_restore = restore.clone();
        for (v, r) in &em.reads_w {
            let w = em.writes_w.get(v).copied().unwrap_or(0.0);
            let var = &vars[*v];
            if top.contains(v)
                && var.mutable
                && matches!(var.shape, Shape::Seq(SeqKind::Vec))
                && !matches!(var.origin, VarOrigin::Param(_))
                && w <= *r
            {
                grown_restore.insert(*v);
            }
        }
        if grown_needed == needed && grown_restore == restore {
            return Some(code);
        }
        needed = grown_needed;
        restore = grown_restore;
    }
    diag.error(
        f.item.sig.ident.span(),
        "internal error in #[differentiate]: the reverse-mode analysis failed on this \
         function; please report it",
    );
    None
}

fn strip_top_exits(b: &mut Vec<R>) {
    b.retain(|s| !matches!(s, R::Exit(_)));
    for s in b.iter_mut() {
        match s {
            R::If { then, els, .. } => {
                strip_top_exits(then);
                strip_top_exits(els);
            }
            R::Match { arms, .. } => arms.iter_mut().for_each(|(_, b)| strip_top_exits(b)),
            _ => {}
        }
    }
}

fn collect_top(b: &[R], top: &mut BTreeSet<VarId>) {
    for s in b {
        if let R::Let { pat, .. } = s {
            let mut vs = Vec::new();
            pat.vars(&mut vs);
            top.extend(vs);
        }
    }
}

impl Emitter<'_> {
    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.n += 1;
        names::local(what, self.n)
    }

    fn uname(&self, v: VarId) -> syn::Ident {
        names::var(&self.vars[v], v)
    }

    /// The adjoint of `v`, about to be accumulated into. Usefulness analysis declared it; a
    /// variable it missed would be an undeclared adjoint, so that is reported as a bug.
    fn adj_used(&mut self, v: VarId) -> syn::Ident {
        if !self.acc.contains(&v) {
            self.bug = true;
        }
        self.adj(v)
    }

    fn adj(&self, v: VarId) -> syn::Ident {
        names::adjoint(&self.vars[v].name, v)
    }

    fn active(&self, e: &Expr) -> bool {
        expr_active(self.vars, e)
    }

    fn shape(&self, e: &Expr) -> Shape {
        shape_of(self.vars, e)
    }

    fn is_param(&self, v: VarId) -> bool {
        matches!(self.vars[v].origin, VarOrigin::Param(_))
    }

    /// Whether the reverse sweep can name `v` and find the value it had at any read.
    /// Whether the reverse of a statement can read `v` by name and find the value it had when the
    /// statement ran: stable variables, and restored sequences.
    fn stable_at_stmt(&self, v: VarId) -> bool {
        self.stable(v) || self.restore.contains(&v)
    }

    fn weight(&self) -> f64 {
        8f64.powi(self.depth)
    }

    fn count_read(&mut self, v: VarId) {
        let w = self.weight();
        *self.reads_w.entry(v).or_insert(0.0) += w;
    }

    fn stable(&self, v: VarId) -> bool {
        !self.vars[v].mutable
            && (self.top.contains(&v) || self.rebound.contains(&v) || self.is_param(v))
    }

    // ------------------------------------------------------------------ sites

    /// Saves `value` (forward-sweep code) for the reverse sweep of the current block: a local at
    /// the top level, a stack otherwise. Returns the name the reverse sweep reads it by.
    fn save(
        &mut self,
        value: TokenStream,
        level: Level,
        out: &mut BlockOut,
        bind_as: Option<syn::Ident>,
    ) -> syn::Ident {
        let rt = names::rt();
        match level {
            Level::Top => {
                let s = bind_as.unwrap_or_else(|| self.fresh("s"));
                out.fwd.push(quote!(let #s = #value;));
                s
            }
            Level::Nested => {
                let t = self.fresh("t");
                self.tapes.push(t.clone());
                out.fwd.push(quote!(#t.push(#value);));
                let s = bind_as.unwrap_or_else(|| self.fresh("s"));
                out.pops.push(quote!(let #s = #rt::pop(&mut #t);));
                s
            }
        }
    }

    // ------------------------------------------------------------------ printing

    /// Forward-sweep printing: unique names, `Vec`s cloned where they would be moved.
    fn fwd_expr(&self, e: &Expr) -> TokenStream {
        let name = |v: VarId| {
            let n = self.uname(v);
            quote!(#n)
        };
        let view = |base: VarId, index: &Expr| self.view_access(base, index, false);
        let p = crate::primal::Printer {
            name: &name,
            index: Some(&view),
        };
        match &e.kind {
            ExprKind::Var(v) if matches!(self.vars[*v].shape, Shape::Seq(SeqKind::Vec)) => {
                let n = self.uname(*v);
                quote!(::core::clone::Clone::clone(&#n))
            }
            _ => p.expr(e),
        }
    }

    fn fwd_range(&self, r: &Range) -> TokenStream {
        let name = |v: VarId| {
            let n = self.uname(v);
            quote!(#n)
        };
        crate::primal::Printer {
            name: &name,
            index: None,
        }
        .range(r)
    }

    fn fwd_pat(&self, pat: &Pat) -> TokenStream {
        match pat {
            Pat::Wild => quote!(_),
            Pat::Bind(v) => {
                let n = self.uname(*v);
                let m = self.vars[*v].mutable.then(|| quote!(mut));
                // Keep the user's annotation: it may be what fixes the float type.
                match &self.vars[*v].ty {
                    Some(ty) if self.vars[*v].origin == VarOrigin::Local => quote!(#m #n: #ty),
                    _ => quote!(#m #n),
                }
            }
            Pat::Tuple(ps) => {
                // Types go on the whole pattern only (`(f64, _)` where a name has none).
                let items = ps.iter().map(|p| match p {
                    Pat::Bind(v) => {
                        let n = self.uname(*v);
                        let m = self.vars[*v].mutable.then(|| quote!(mut));
                        quote!(#m #n)
                    }
                    other => self.fwd_pat(other),
                });
                let ty = self.pat_type(pat).map(|t| quote!(: #t));
                quote!((#(#items,)*) #ty)
            }
        }
    }

    /// The type annotation of a tuple pattern, rebuilt from its names' annotations (`_` where a
    /// name has none), or `None` when no name has one.
    fn pat_type(&self, pat: &Pat) -> Option<TokenStream> {
        match pat {
            Pat::Wild => None,
            Pat::Bind(v) => match &self.vars[*v].ty {
                Some(ty) if self.vars[*v].origin == VarOrigin::Local => Some(quote!(#ty)),
                _ => None,
            },
            Pat::Tuple(ps) => {
                let tys: Vec<Option<TokenStream>> = ps.iter().map(|p| self.pat_type(p)).collect();
                if tys.iter().all(Option::is_none) {
                    return None;
                }
                let items = tys.into_iter().map(|t| t.unwrap_or_else(|| quote!(_)));
                Some(quote!((#(#items,)*)))
            }
        }
    }

    // ------------------------------------------------------------------ whole function

    fn function(&mut self, body: &[R]) -> TokenStream {
        let rt = names::rt();
        let f = self.f;
        let mut prologue = Vec::new();
        let mut epilogue = Vec::new();
        let taken: Vec<String> = f.params.iter().map(|p| p.name.to_string()).collect();
        for p in f.params.iter().filter(|p| p.active) {
            let d = names::shadow_param(&p.name, &taken);
            let b = self.adj(p.var);
            let n = &p.name;
            let mutable = self.vars[p.var].mutable;
            match (&p.shape, mutable) {
                (Shape::Seq(_), false) => prologue.push(quote!(let #b = #d;)),
                (Shape::Seq(_), true) => {
                    prologue.push(quote!(let mut #b = #rt::zeros_like_slice(&#n[..]);));
                    epilogue.push(quote!(#rt::acc_slice(&mut #d[..], &#b[..]);));
                }
                _ => {
                    prologue.push(quote!(let mut #b = #rt::zero_like(&#n);));
                    epilogue.push(quote!(*#d = #rt::acc(*#d, #b);));
                }
            }
        }
        let seed = names::seed(&taken);
        let ret = self.uname(self.ret);
        let bret = self.adj(self.ret);
        let (ret_init, seed_init) = match &f.output.shape {
            Shape::Seq(SeqKind::Vec) => (
                quote!(::std::vec::Vec::new()),
                quote!(::std::borrow::ToOwned::to_owned(#seed)),
            ),
            Shape::Seq(SeqKind::Array(n)) => {
                let n: TokenStream = n.parse().unwrap_or_else(|_| quote!(0));
                (quote!([#rt::zero(); #n]), quote!(#seed))
            }
            Shape::Tuple(items) => {
                let z = items.iter().map(tuple_zero_item);
                (quote!((#(#z,)*)), quote!(#seed))
            }
            _ => (quote!(#rt::zero()), quote!(#seed)),
        };
        let out = self.block(body, Level::Top);
        let fwd = &out.fwd;
        let pops = &out.pops;
        let rev = out.rev.iter().rev();
        let tapes = &self.tapes;
        let items = &f.items;
        let out_ty = &f.output.ty;
        quote! {
            #(#items)*
            #(let mut #tapes = ::std::vec::Vec::new();)*
            let mut #ret: #out_ty = #ret_init;
            #(#fwd)*
            #(#prologue)*
            let mut #bret = #seed_init;
            #(#pops)*
            #(#rev)*
            #(#epilogue)*
            #ret
        }
    }

    // ------------------------------------------------------------------ blocks

    fn block(&mut self, stmts: &[R], level: Level) -> BlockOut {
        let mut out = BlockOut {
            fwd: Vec::new(),
            rev: Vec::new(),
            pops: Vec::new(),
        };
        let mut declared = Vec::new();
        for s in stmts {
            if let R::Let { pat, .. } = s {
                pat.vars(&mut declared);
            }
            self.stmt(s, level, &mut out);
        }
        // Adjoints of the active variables declared here, zero at the start of the reverse.
        let rt = names::rt();
        let mut zeros = Vec::new();
        for v in declared {
            if !self.vars[v].active || !self.acc.contains(&v) {
                continue;
            }
            let b = self.adj(v);
            let init = match &self.vars[v].shape {
                Shape::Seq(SeqKind::Array(n)) => {
                    let n: TokenStream = n.parse().unwrap_or_else(|_| quote!(0));
                    quote!([#rt::zero(); #n])
                }
                Shape::Seq(_) => {
                    // Shaped like the final value: recorded at the end of the forward block.
                    let name = self.uname(v);
                    let z = quote!(#rt::zeros_like_slice(&#name[..]));
                    let s = self.save(z, level, &mut out, None);
                    quote!(#s)
                }
                Shape::Tuple(items) => {
                    let z = items.iter().map(tuple_zero_item);
                    quote!((#(#z,)*))
                }
                _ => quote!(#rt::zero()),
            };
            zeros.push(quote!(let mut #b = #init;));
        }
        out.pops.extend(zeros);
        out
    }

    fn stmt(&mut self, s: &R, level: Level, out: &mut BlockOut) {
        match s {
            R::Let { pat, init } => self.let_stmt(pat, init.as_ref(), level, out),
            R::Assign { place, value } => self.assign(place, value, level, out),
            R::Push { vec, value } => {
                let name = self.uname(*vec);
                let v = self.fwd_expr(value);
                let wt = self.weight();
                *self.writes_w.entry(*vec).or_insert(0.0) += wt;
                let restored = self.restore.contains(vec);
                let live = self.vars[*vec].active && self.acc.contains(vec);
                if restored && !live {
                    out.fwd.push(quote!(#name.push(#v);));
                    out.rev.push(quote!(#name.pop();));
                } else if live {
                    let pos = if restored {
                        self.fresh("s")
                    } else {
                        self.save(quote!(#name.len()), level, out, None)
                    };
                    let mut rev = Vec::new();
                    let mut cx = StmtCx::new(level);
                    self.prepare(value, &mut cx, out);
                    out.fwd.push(quote!(#name.push(#v);));
                    let b = self.adj(*vec);
                    let g = self.fresh("g");
                    let rt = names::rt();
                    if restored {
                        rev.push(quote!(#name.pop(); let #pos = #name.len();));
                    }
                    rev.push(quote!(let #g = #b[#pos]; #b[#pos] = #rt::zero();));
                    self.backprop(value, quote!(#g), &mut cx, &mut rev);
                    out.rev.push(quote!({ #(#rev)* }));
                } else {
                    out.fwd.push(quote!(#name.push(#v);));
                }
            }
            R::Eval(e) => {
                let v = self.fwd_expr(e);
                out.fwd.push(quote!(let _ = #v;));
            }
            R::Macro(m, visible) => out
                .fwd
                .push(crate::primal::macro_stmt(m, visible, self.vars)),
            R::If { cond, then, els } => {
                let c = self.decision(cond, level, out);
                let c_fwd = self.fwd_expr(cond);
                let t = self.block(then, Level::Nested);
                let e = self.block(els, Level::Nested);
                let (tf, ef) = (&t.fwd, &e.fwd);
                out.fwd.push(quote!(if #c_fwd { #(#tf)* } else { #(#ef)* }));
                let (tp, ep) = (&t.pops, &e.pops);
                let (tr, er) = (t.rev.iter().rev(), e.rev.iter().rev());
                out.rev
                    .push(quote!(if #c { #(#tp)* #(#tr)* } else { #(#ep)* #(#er)* }));
            }
            R::Match { scrut, arms } => {
                let sc = self.decision(scrut, level, out);
                let sc_fwd = self.fwd_expr(scrut);
                let mut fa = Vec::new();
                let mut ra = Vec::new();
                for (pat, body) in arms {
                    let b = self.block(body, Level::Nested);
                    let bf = &b.fwd;
                    fa.push(quote!(#pat => { #(#bf)* }));
                    let bp = &b.pops;
                    let br = b.rev.iter().rev();
                    ra.push(quote!(#pat => { #(#bp)* #(#br)* }));
                }
                out.fwd.push(quote!(match #sc_fwd { #(#fa)* }));
                out.rev.push(quote!(match #sc { #(#ra)* }));
            }
            R::For {
                var,
                range,
                body,
                brk,
            } => self.for_loop(*var, range, body, *brk, level, out),
            R::While { cond, body, brk } => {
                let cnt = self.fresh("n");
                let b = self.loop_body(body);
                let bf = &b.fwd;
                let check = brk.map(|f| {
                    let f = self.uname(f);
                    quote!(if #f { break; })
                });
                let head = match cond {
                    Some(c) => {
                        let c = self.fwd_expr(c);
                        quote!(while #c)
                    }
                    None => quote!(loop),
                };
                out.fwd.push(quote! {
                    let mut #cnt: usize = 0;
                    #head { #cnt += 1; #(#bf)* #check }
                });
                let count = self.save(quote!(#cnt), level, out, None);
                let bp = &b.pops;
                let br = b.rev.iter().rev();
                out.rev.push(quote!(for _ in 0..#count { #(#bp)* #(#br)* }));
            }
            R::Exit(_) => {}
        }
    }

    /// Sequences whose adjoint accesses in this loop body are all `b[i + c]` with constant `c`,
    /// in statements that run on every iteration: they get an adjoint window.
    fn plan_windows(&mut self, index: VarId, body: &[R]) -> Vec<(VarId, Window)> {
        let mut plan = WindowPlan {
            index,
            vars: self.vars,
            offsets: HashMap::new(),
            bad: BTreeSet::new(),
            guarded: BTreeSet::new(),
        };
        plan.stmts(body, false);
        let WindowPlan {
            offsets,
            bad,
            guarded,
            ..
        } = plan;
        let mut out = Vec::new();
        let mut offsets: Vec<(VarId, Vec<i64>)> = offsets.into_iter().collect();
        offsets.sort_by_key(|(w, _)| *w);
        for (w, cs) in offsets {
            if bad.contains(&w) || self.windows.contains_key(&w) || !self.acc.contains(&w) {
                continue;
            }
            let lo = cs.iter().copied().min().unwrap_or(0);
            let hi = cs.iter().copied().max().unwrap_or(0);
            if hi - lo > 8 {
                continue;
            }
            let slots = (lo..=hi).map(|_| self.fresh("w")).collect();
            out.push((
                w,
                Window {
                    index,
                    lo,
                    hi,
                    slots,
                    guarded: guarded.contains(&w),
                },
            ));
        }
        out.sort_by_key(|(w, _)| *w);
        out
    }

    /// `view[k]` for `base[index]` when a slice view of `base` covers this access.
    fn view_access(&self, base: VarId, index: &Expr, adjoint: bool) -> Option<TokenStream> {
        let view = if adjoint {
            self.adj_views.get(&base)?
        } else {
            self.views.get(&base)?
        };
        let (inv, c) = affine_split(index, view.index, self)?;
        if inv != view.inv {
            return None;
        }
        let (n, i, a) = (&view.name, self.uname(view.index), &view.start);
        let k = (c - view.lo) as usize;
        Some(quote!(#n[(#i - #a) + #k]))
    }

    /// Slice views for a simple loop `for i in a..b`: sequences whose every access in the loop
    /// body is `arr[e + i + c]` (one invariant `e` per sequence), in statements that run on every
    /// iteration. Primal views only for sequences the loop does not write. Returns the view
    /// declarations for the forward loop and for the reverse loop.
    fn plan_views(
        &mut self,
        index: VarId,
        body: &[R],
        a: &TokenStream,
    ) -> (Vec<PlannedView>, Vec<PlannedView>) {
        let mut plan = ViewPlan {
            em: self,
            index,
            seqs: HashMap::new(),
            written: BTreeSet::new(),
        };
        plan.stmts(body);
        let ViewPlan { seqs, written, .. } = plan;
        let mut seqs: Vec<(VarId, Option<ViewAccesses>)> = seqs.into_iter().collect();
        seqs.sort_by_key(|(v, _)| *v);
        let mut prim = Vec::new();
        let mut adj = Vec::new();
        for (v, acc) in seqs {
            let Some(acc) = acc else {
                continue;
            };
            if acc.offsets.is_empty() || !matches!(self.vars[v].shape, Shape::Seq(_)) {
                continue;
            }
            let lo = acc.offsets.iter().copied().min().unwrap_or(0);
            let hi = acc.offsets.iter().copied().max().unwrap_or(0);
            let make = |me: &mut Self| SliceView {
                name: me.fresh("vw"),
                index,
                inv: acc.inv.clone(),
                inv_expr: acc.inv_expr.clone(),
                start: a.clone(),
                lo,
            };
            // Primal reads: sequences the loop does not write, readable by name in both sweeps.
            if !written.contains(&v) && self.stable(v) {
                prim.push((v, make(self), hi));
            }
            if self.vars[v].active && self.acc.contains(&v) && !self.restore.contains(&v) {
                adj.push((v, make(self), hi));
            }
        }
        (prim, adj)
    }

    /// `let name = if a < b { &arr[lo..hi] } else { &arr[0..0] };`
    fn view_decl(
        &self,
        arr: TokenStream,
        view: &SliceView,
        hi: i64,
        inv: Option<TokenStream>,
        b: &TokenStream,
        mutable: bool,
    ) -> TokenStream {
        let (n, a) = (&view.name, &view.start);
        let shift = |base: TokenStream, c: i64| -> TokenStream {
            let m = c.unsigned_abs() as usize;
            let base = match &inv {
                Some(e) => quote!(#e + #base),
                None => base,
            };
            if c >= 0 {
                quote!(#base + #m)
            } else {
                quote!(#base - #m)
            }
        };
        let lo_t = shift(quote!(#a), view.lo);
        let hi_t = shift(quote!(#b), hi);
        if mutable {
            quote!(let #n = if #a < #b { &mut #arr[#lo_t..#hi_t] } else { &mut #arr[0..0] };)
        } else {
            quote!(let #n = if #a < #b { &#arr[#lo_t..#hi_t] } else { &#arr[0..0] };)
        }
    }

    /// The window slot for `base[index]`, when `base` has a window over this index.
    fn window_slot(&self, base: VarId, index: &Expr) -> Option<syn::Ident> {
        let win = self.windows.get(&base)?;
        let c = affine_offset(index, win.index)?;
        (win.lo..=win.hi).contains(&c).then(|| win.slot(c).clone())
    }

    fn loop_body(&mut self, body: &[R]) -> BlockOut {
        self.depth += 1;
        let b = self.block(body, Level::Nested);
        self.depth -= 1;
        b
    }

    fn for_loop(
        &mut self,
        var: VarId,
        range: &Range,
        body: &[R],
        brk: Option<VarId>,
        level: Level,
        out: &mut BlockOut,
    ) {
        let Range::Bounds {
            start,
            end,
            inclusive,
            rev,
            step,
        } = range;
        // Can the reverse sweep walk the same indices backwards?
        let breaks = brk.is_some_and(|b| body_sets(body, b));
        let simple = !(breaks || *inclusive && step.is_some());
        let i = self.uname(var);
        if simple {
            self.rebound.insert(var);
            let s = self.decision(start, level, out);
            let e = self.decision(end, level, out);
            let st = step.as_ref().map(|st| self.decision(st, level, out));
            let windows = if step.is_none() {
                self.plan_windows(var, body)
            } else {
                Vec::new()
            };
            let saved: Vec<(VarId, Option<Window>)> = windows
                .into_iter()
                .map(|(w, win)| (w, self.windows.insert(w, win)))
                .collect();
            // The views index relative to the loop's start, bound once before each loop.
            let vstart = self.fresh("va");
            let (fs, fe) = (self.fwd_expr(start), self.fwd_expr(end));
            let mut fwd_decls = vec![quote!(let #vstart = #fs;)];
            let mut rev_decls = vec![quote!(let #vstart = #s;)];
            // Slice views (only for plain ascending or descending `a..b` loops).
            let (pviews, aviews) = if step.is_none() && !*inclusive {
                self.plan_views(var, body, &quote!(#vstart))
            } else {
                (Vec::new(), Vec::new())
            };
            for (arr, view, hi) in &pviews {
                let inv = view.inv_expr.as_ref().map(|x| self.fwd_expr(x));
                let n = self.uname(*arr);
                fwd_decls.push(self.view_decl(quote!(#n), view, *hi, inv.clone(), &fe, false));
                rev_decls.push(self.view_decl(quote!(#n), view, *hi, inv, &e, false));
            }
            for (arr, view, hi) in &aviews {
                let inv = view.inv_expr.as_ref().map(|x| self.fwd_expr(x));
                let b = self.adj(*arr);
                rev_decls.push(self.view_decl(quote!(#b), view, *hi, inv, &e, true));
            }
            let saved_views: Vec<_> = pviews
                .into_iter()
                .map(|(arr, v, _)| (arr, self.views.insert(arr, v)))
                .collect();
            // Windowed adjoints load and store their slots through their view.
            let win_views: HashMap<VarId, SliceView> = aviews
                .iter()
                .filter(|(arr, _, _)| self.windows.contains_key(arr))
                .map(|(arr, v, _)| (*arr, v.clone()))
                .collect();
            let saved_adj: Vec<_> = aviews
                .into_iter()
                .map(|(arr, v, _)| (arr, self.adj_views.insert(arr, v)))
                .collect();
            let b = self.loop_body(body);
            for (arr, old) in saved_views {
                self.views.remove(&arr);
                if let Some(o) = old {
                    self.views.insert(arr, o);
                }
            }
            for (arr, old) in saved_adj {
                self.adj_views.remove(&arr);
                if let Some(o) = old {
                    self.adj_views.insert(arr, o);
                }
            }
            let mut wins = Vec::new();
            for (w, old) in saved {
                if let Some(win) = self.windows.remove(&w) {
                    wins.push((w, win));
                }
                if let Some(o) = old {
                    self.windows.insert(w, o);
                }
            }
            let r = self.fwd_range(range);
            let bf = &b.fwd;
            out.fwd
                .push(quote!({ #(#fwd_decls)* for #i in #r { #(#bf)* } }));
            let rr = crate::primal::range_tokens(&s, &e, *inclusive, *rev, st.as_ref());
            let bp = &b.pops;
            let br = b.rev.iter().rev();
            if wins.is_empty() {
                out.rev
                    .push(quote!({ #(#rev_decls)* for #i in #rr.rev() { #(#bp)* #(#br)* } }));
            } else {
                // The reverse loop runs downwards unless the forward one ran upwards (`.rev()`).
                let down = !*rev;
                let rt = names::rt();
                let last = self.fresh("last");
                let nonempty = if *inclusive {
                    quote!(#vstart <= #e)
                } else {
                    quote!(#vstart < #e)
                };
                // The first index the reverse loop visits.
                let first_i = match (down, *inclusive) {
                    (true, true) => quote!(#e),
                    (true, false) => quote!(#e - 1),
                    (false, _) => quote!(#vstart),
                };
                let mut decl = Vec::new();
                let mut load_all = Vec::new();
                let mut load_new = Vec::new();
                let mut store_shift = Vec::new();
                let mut flush = Vec::new();
                for (w, win) in &wins {
                    let b = self.adj(*w);
                    let view = win_views.get(w);
                    // The adjoint of element `at + c`, through the view when there is one.
                    let elem = |at: &TokenStream, c: i64| -> TokenStream {
                        match view {
                            Some(v) => {
                                let (n, k) = (&v.name, (c - v.lo) as usize);
                                quote!(#n[(#at - #vstart) + #k])
                            }
                            None => {
                                let m = c.unsigned_abs() as usize;
                                if c >= 0 {
                                    quote!(#b[#at + #m])
                                } else {
                                    quote!(#b[#at - #m])
                                }
                            }
                        }
                    };
                    let here = quote!(#i);
                    let start_i = quote!(#last);
                    // Guarded windows: the element `at + c` may not exist (its accesses were
                    // conditional); a missing element loads as zero and is never stored.
                    let guarded_ix = |at: &TokenStream, c: i64| -> TokenStream {
                        let m = c.unsigned_abs() as usize;
                        if c >= 0 {
                            quote!(::core::option::Option::Some(#at + #m))
                        } else {
                            quote!(#at.checked_sub(#m))
                        }
                    };
                    let load = |sl: &syn::Ident, at: &TokenStream, c: i64| -> TokenStream {
                        if win.guarded {
                            let ix = guarded_ix(at, c);
                            quote!(#sl = match #ix {
                                ::core::option::Option::Some(k) if k < #b.len() => #b[k],
                                _ => #rt::zero(),
                            };)
                        } else {
                            let e = elem(at, c);
                            quote!(#sl = #e;)
                        }
                    };
                    let store = |sl: &syn::Ident, at: &TokenStream, c: i64| -> TokenStream {
                        if win.guarded {
                            let ix = guarded_ix(at, c);
                            quote!(if let ::core::option::Option::Some(k) = #ix {
                                if k < #b.len() { #b[k] = #sl; }
                            })
                        } else {
                            let e = elem(at, c);
                            quote!(#e = #sl;)
                        }
                    };
                    for c in win.lo..=win.hi {
                        let sl = win.slot(c);
                        decl.push(quote!(let mut #sl = #rt::zero();));
                        load_all.push(load(sl, &start_i, c));
                    }
                    let (enter, leave) = if down {
                        (win.lo, win.hi)
                    } else {
                        (win.hi, win.lo)
                    };
                    let (se, sl_leave) = (win.slot(enter), win.slot(leave));
                    load_new.push(load(se, &here, enter));
                    store_shift.push(store(sl_leave, &here, leave));
                    // Shift towards the leaving end.
                    let cs: Vec<i64> = (win.lo..=win.hi).collect();
                    if down {
                        for k in (1..cs.len()).rev() {
                            let (a, bb) = (win.slot(cs[k]), win.slot(cs[k - 1]));
                            store_shift.push(quote!(#a = #bb;));
                        }
                    } else {
                        for k in 0..cs.len().saturating_sub(1) {
                            let (a, bb) = (win.slot(cs[k]), win.slot(cs[k + 1]));
                            store_shift.push(quote!(#a = #bb;));
                        }
                    }
                    // After the loop, the slots that did not leave still hold elements of the
                    // last iteration's neighbours: after the final shift, slot c holds element
                    // last + c - 1 (downwards) or last + c + 1 (upwards).
                    for c in win.lo..=win.hi {
                        if c == enter {
                            continue;
                        }
                        let e = if down { c - 1 } else { c + 1 };
                        flush.push(store(win.slot(c), &start_i, e));
                    }
                }
                // The slots are filled before the first iteration (the first iteration's reload
                // of the entering slot reads the same, untouched value).
                out.rev.push(quote! {
                    {
                        #(#rev_decls)*
                        #(#decl)*
                        let mut #last = if #nonempty { #first_i } else { #vstart };
                        if #nonempty { #(#load_all)* }
                        for #i in #rr.rev() {
                            #(#load_new)*
                            #last = #i;
                            #(#bp)* #(#br)*
                            #(#store_shift)*
                        }
                        if #nonempty { #(#flush)* }
                    }
                });
            }
        } else {
            // Record the trip count; the index is saved per iteration if the reverse needs it.
            let cnt = self.fresh("n");
            let mut b = self.loop_body(body);
            if self.needed.contains(&var) {
                self.needed_now.insert(var);
                let rt = names::rt();
                let t = self.fresh("t");
                self.tapes.push(t.clone());
                b.fwd.insert(0, quote!(#t.push(#i);));
                b.pops.insert(0, quote!(let #i = #rt::pop(&mut #t);));
            }
            let r = self.fwd_range(range);
            let bf = &b.fwd;
            let check = brk.map(|f| {
                let f = self.uname(f);
                quote!(if #f { break; })
            });
            out.fwd.push(quote! {
                let mut #cnt: usize = 0;
                for #i in #r { #cnt += 1; #(#bf)* #check }
            });
            let count = self.save(quote!(#cnt), level, out, None);
            let bp = &b.pops;
            let br = b.rev.iter().rev();
            out.rev.push(quote!(for _ in 0..#count { #(#bp)* #(#br)* }));
        }
    }

    /// A value the reverse sweep needs to steer control flow (a condition, a scrutinee, loop
    /// bounds): recomputed when it only reads stable variables, saved otherwise.
    fn decision(&mut self, e: &Expr, level: Level, out: &mut BlockOut) -> TokenStream {
        let mut reads = Vec::new();
        e.reads(&mut reads);
        let recomputable = !e.has_call_to_companion() && reads.iter().all(|v| self.stable(*v));
        if recomputable {
            return self.fwd_expr(e);
        }
        let v = self.fwd_expr(e);
        let s = self.save(v, level, out, None);
        quote!(#s)
    }

    // ------------------------------------------------------------------ statements

    fn let_stmt(&mut self, pat: &Pat, init: Option<&Expr>, level: Level, out: &mut BlockOut) {
        let p = self.fwd_pat(pat);
        let init = match init {
            None => {
                // Exits became flags, so rustc can no longer see that a variable set before
                // every exit is initialised: give it a placeholder of its shape.
                let placeholder = match pat {
                    Pat::Bind(v) => placeholder(&self.vars[*v].shape),
                    _ => None,
                };
                match placeholder {
                    Some(ph) => out.fwd.push(quote!(let #p = #ph;)),
                    None => out.fwd.push(quote!(let #p;)),
                }
                return;
            }
            Some(i) => i,
        };
        let mut cx = StmtCx::new(level);
        let mut vs = Vec::new();
        pat.vars(&mut vs);
        // Nothing flows back through a `let` whose variables no derivative reads.
        let any_active = vs
            .iter()
            .any(|v| self.vars[*v].active && self.acc.contains(v))
            && self.active(init);
        if any_active {
            self.prepare(init, &mut cx, out);
        }
        let v = self.fwd_expr(init);
        out.fwd.push(quote!(let #p = #v;));
        // A value defined in a loop or branch that the reverse sweep reads: recompute or save.
        if level == Level::Nested {
            if let Pat::Bind(var) = pat {
                if self.needed.contains(var) && !self.vars[*var].mutable {
                    let name = self.uname(*var);
                    let mut reads = Vec::new();
                    init.reads(&mut reads);
                    let cheap = !init.has_call_to_companion()
                        && reads.iter().all(|r| {
                            self.stable(*r) || (!self.vars[*r].mutable && self.needed_or_mark(*r))
                        });
                    if cheap {
                        // `p` keeps the user's annotation, which may fix the float type.
                        out.pops.push(quote!(let #p = #v;));
                    } else {
                        let value = self.fwd_expr(&Expr::new(ExprKind::Var(*var), init.span));
                        self.save(value, level, out, Some(name.clone()));
                    }
                }
            } else if let Pat::Tuple(_) = pat {
                let mut vs2 = Vec::new();
                pat.vars(&mut vs2);
                for var in vs2 {
                    if self.needed.contains(&var) && !self.vars[var].mutable {
                        let name = self.uname(var);
                        let value = self.fwd_expr(&Expr::new(ExprKind::Var(var), init.span));
                        self.save(value, level, out, Some(name.clone()));
                    }
                }
            }
        }
        if !any_active {
            return;
        }
        // `let (p, q) = (a, b);` flows back component by component, so that the adjoint of an
        // inactive component is never built (an unused `zero()` would have no type).
        let parts: Vec<(&Pat, &Expr)> = match (pat, &init.kind) {
            (Pat::Tuple(ps), ExprKind::Tuple(items)) if ps.len() == items.len() => {
                ps.iter().zip(items).collect()
            }
            _ => vec![(pat, init)],
        };
        let mut rev = Vec::new();
        for (p, e) in parts {
            let mut pvs = Vec::new();
            p.vars(&mut pvs);
            let useful = pvs
                .iter()
                .any(|v| self.vars[*v].active && self.acc.contains(v));
            if !useful || !self.active(e) {
                continue;
            }
            let g = self.pattern_adjoint(p);
            let gname = self.fresh("g");
            rev.push(quote!(let #gname = #g;));
            self.backprop(e, quote!(#gname), &mut cx, &mut rev);
        }
        out.rev.push(quote!({ #(#rev)* }));
    }

    fn needed_or_mark(&mut self, v: VarId) -> bool {
        self.needed_now.insert(v);
        true
    }

    /// The adjoint of a pattern, as an expression (zero for `_` and inactive names).
    fn pattern_adjoint(&mut self, pat: &Pat) -> TokenStream {
        let rt = names::rt();
        match pat {
            Pat::Wild => quote!(#rt::zero()),
            Pat::Bind(v) => {
                if self.vars[*v].active && self.acc.contains(v) {
                    let b = self.adj(*v);
                    quote!(#b)
                } else {
                    match &self.vars[*v].shape {
                        s if !s.is_float() => quote!(()),
                        Shape::Tuple(items) => {
                            let z = items.iter().map(tuple_zero_item);
                            quote!((#(#z,)*))
                        }
                        _ => quote!(#rt::zero()),
                    }
                }
            }
            Pat::Tuple(ps) => {
                let items: Vec<TokenStream> = ps.iter().map(|p| self.pattern_adjoint(p)).collect();
                quote!((#(#items,)*))
            }
        }
    }

    fn assign(&mut self, place: &Place, value: &Expr, level: Level, out: &mut BlockOut) {
        let v = place.var();
        let name = self.uname(v);
        let rt = names::rt();
        let active = self.vars[v].active;
        let mut cx = StmtCx::new(level);
        let mut rev = Vec::new();
        let restored = self.restore.contains(&v);
        let wt = self.weight();
        *self.writes_w.entry(v).or_insert(0.0) += wt;
        // The index of an element write locates the element's adjoint (and the restored value).
        let idx = match place {
            Place::Index(_, i) if active || restored => Some(self.val(i, &mut cx, out, &mut rev)),
            _ => None,
        };
        if active && self.active(value) {
            self.prepare(value, &mut cx, out);
        }
        let val = self.fwd_expr(value);
        // A restored sequence: save the element about to be overwritten, put it back in reverse.
        let mut restore_code = None;
        if restored {
            let t = self.fresh("t");
            self.tapes.push(t.clone());
            match place {
                Place::Var(_) => {
                    out.fwd
                        .push(quote!(#t.push(::core::clone::Clone::clone(&#name));));
                    restore_code = Some(quote!(#name = #rt::pop(&mut #t);));
                }
                Place::Index(_, i) => {
                    let fi = self.fwd_expr(i);
                    out.fwd.push(quote!(#t.push(#name[#fi]);));
                    let ri = idx.clone().unwrap_or_default();
                    restore_code = Some(quote!(#name[#ri] = #rt::pop(&mut #t);));
                }
            }
        }
        match place {
            Place::Var(_) => out.fwd.push(quote!(#name = #val;)),
            Place::Index(_, i) => {
                let i = self.fwd_expr(i);
                out.fwd.push(quote!(#name[#i] = #val;));
            }
        }
        // A variable whose value no derivative reads has a zero adjoint: nothing to propagate.
        if !active || !self.acc.contains(&v) {
            if let Some(r) = restore_code {
                rev.push(r);
                out.rev.push(quote!({ #(#rev)* }));
            }
            return;
        }
        // The old value's adjoint is consumed: it flows into `value`, and the variable restarts
        // from zero for the writes before this one.
        let b = self.adj(v);
        let g = self.fresh("g");
        match (place, &self.vars[v].shape) {
            (Place::Index(_, ix), _) => match self
                .window_slot(v, ix)
                .map(|s| quote!(#s))
                .or_else(|| self.view_access(v, ix, true))
            {
                Some(slot) => {
                    rev.push(quote!(let #g = #slot; #slot = #rt::zero();));
                    cx.zeroed.insert(slot.to_string());
                }
                None => {
                    let i = idx.clone().unwrap_or_default();
                    // Not marked zeroed: another index expression (`b[1]` and `b[i]`) may name
                    // the same element. Window slots and view elements are distinct by offset.
                    rev.push(quote!(let #g = #b[#i]; #b[#i] = #rt::zero();));
                }
            },
            (Place::Var(_), Shape::Seq(SeqKind::Array(_))) => {
                rev.push(quote!(let #g = #b; #b = #rt::zeros_like_array(&#g);));
            }
            (Place::Var(_), Shape::Seq(_)) => {
                rev.push(
                    quote!(let #g = #rt::zeros_like_slice(&#b[..]); let #g = ::core::mem::replace(&mut #b, #g);),
                );
            }
            (Place::Var(_), Shape::Tuple(items)) => {
                let z = items.iter().map(tuple_zero_item);
                rev.push(quote!(let #g = #b; #b = (#(#z,)*);));
            }
            _ => {
                rev.push(quote!(let #g = #b; #b = #rt::zero();));
                cx.zeroed.insert(quote!(#b).to_string());
            }
        }
        // The value is recomputed from the state before the write.
        if let Some(r) = restore_code {
            rev.push(r);
        }
        if self.active(value) {
            self.backprop(value, quote!(#g), &mut cx, &mut rev);
        }
        out.rev.push(quote!({ #(#rev)* }));
    }

    // ------------------------------------------------------------------ values in the reverse

    /// Saves, before the statement, every read whose value may change later; the reverse code of
    /// the statement then reads the saved copies (`cx.snap`).
    fn prepare(&mut self, e: &Expr, cx: &mut StmtCx, out: &mut BlockOut) {
        // Walk in the same order as `val` would: every leaf under a node whose value is needed.
        self.mark(e, false, cx);
        let mut snaps = Vec::new();
        self.collect_snaps(e, cx, &mut snaps);
        let mut sub_slices = BTreeSet::new();
        e.visit(&mut |n| {
            if matches!(n.kind, ExprKind::SubSlice { .. }) {
                sub_slices.insert(n as *const Expr as usize);
            }
        });
        // One saved copy per distinct read (`s * s` saves `s` once).
        let mut by_text: HashMap<String, TokenStream> = HashMap::new();
        for (key, tokens) in snaps {
            let text = tokens.to_string();
            let name = match by_text.get(&text) {
                Some(n) => n.clone(),
                None => {
                    let s = self.save(tokens, cx.level, out, None);
                    by_text.insert(text, quote!(#s));
                    quote!(#s)
                }
            };
            // A saved sub-slice is an owned copy; the expression it stands for is a borrow.
            let name = if sub_slices.contains(&key) {
                quote!(&#name[..])
            } else {
                name
            };
            cx.snap.insert(key, name);
        }
    }

    /// Marks which nodes' values the reverse code of this expression computes: everything under
    /// a node whose rule reads values, index expressions, call arguments.
    fn mark(&self, e: &Expr, needed: bool, cx: &mut StmtCx) {
        if needed {
            e.visit(&mut |n| {
                cx.needed.insert(n as *const Expr as usize);
            });
            return;
        }
        if !self.active(e) {
            return;
        }
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } => {
                let [a, b, y] = self.binop_needs(*op, lhs, rhs);
                if y {
                    self.mark(e, true, cx);
                } else {
                    self.mark(lhs, a, cx);
                    self.mark(rhs, b, cx);
                }
            }
            ExprKind::Unary { expr, .. } => self.mark(expr, false, cx),
            ExprKind::Cast { expr, .. } => self.mark(expr, true, cx),
            ExprKind::Method { recv, method, .. } => {
                match methods::float_method(&method.to_string()).map(|r| r.linearity) {
                    Some(Linearity::Linear) => self.mark(recv, false, cx),
                    Some(Linearity::Zero) => {}
                    _ => self.mark(e, true, cx),
                }
            }
            ExprKind::Call { args, .. } => {
                for a in args {
                    self.mark(a, true, cx);
                }
            }
            ExprKind::Index { index, .. } => self.mark(index, true, cx),
            ExprKind::SubSlice { start, end, .. } => {
                if let Some(s) = start {
                    self.mark(s, true, cx)
                }
                if let Some(x) = end {
                    self.mark(x, true, cx)
                }
            }
            _ => {
                let kids = e.children();
                for k in kids {
                    self.mark(k, false, cx);
                }
            }
        }
    }

    /// Which of `(lhs, rhs, result)` the partials of the active operands read.
    fn binop_needs(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> [bool; 3] {
        let (da, db) = methods::binop_reads(op);
        let (la, ra) = (self.active(lhs), self.active(rhs));
        let mut need = [false; 3];
        for k in 0..3 {
            need[k] = (la && da[k]) || (ra && db[k]);
        }
        need
    }

    /// Leaves under needed nodes whose value the reverse sweep cannot find by name.
    fn collect_snaps(&mut self, e: &Expr, cx: &StmtCx, snaps: &mut Vec<(usize, TokenStream)>) {
        let key = e as *const Expr as usize;
        let needed = cx.needed.contains(&key);
        match &e.kind {
            ExprKind::Var(v) if needed => {
                if !self.stable_at_stmt(*v) {
                    if self.vars[*v].mutable {
                        let t = self.fwd_expr(e);
                        self.count_read(*v);
                        snaps.push((key, t));
                    } else {
                        self.needed_now.insert(*v);
                    }
                }
            }
            ExprKind::Index { base, index } if needed => {
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    self.count_read(*base);
                    snaps.push((key, t));
                }
                // The index also locates the element's adjoint.
                self.collect_snaps(index, cx, snaps);
            }
            ExprKind::Len(v) if needed && !self.stable_at_stmt(*v) => {
                let t = self.fwd_expr(e);
                snaps.push((key, t));
            }
            ExprKind::Ref(inner) if needed => {
                if let ExprKind::Var(v) = inner.kind {
                    if !self.stable_at_stmt(v) {
                        // Saved under the variable's node: `val` then borrows the copy.
                        let n = self.uname(v);
                        let inner_key = &**inner as *const Expr as usize;
                        self.count_read(v);
                        snaps.push((inner_key, quote!(::std::borrow::ToOwned::to_owned(&#n[..]))));
                        return;
                    }
                }
                self.collect_snaps(inner, cx, snaps);
            }
            ExprKind::SubSlice {
                base, start, end, ..
            } if needed => {
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    snaps.push((key, quote!(::std::borrow::ToOwned::to_owned(#t))));
                }
                if let Some(s) = start {
                    self.collect_snaps(s, cx, snaps)
                }
                if let Some(x) = end {
                    self.collect_snaps(x, cx, snaps)
                }
            }
            ExprKind::CopySeq(v, _) if needed && !self.stable_at_stmt(*v) => {
                let t = self.fwd_expr(e);
                snaps.push((key, t));
            }
            _ => {
                let kids = e.children();
                for k in kids {
                    self.collect_snaps(k, cx, snaps);
                }
            }
        }
    }

    /// Saves the value of the read `e` before its statement; the reverse reads the copy.
    fn save_read(&mut self, e: &Expr, cx: &mut StmtCx, out: &mut BlockOut) -> TokenStream {
        let s = self.save(self.fwd_expr(e), cx.level, out, None);
        cx.snap.insert(e as *const Expr as usize, quote!(#s));
        quote!(#s)
    }

    /// The value of `e` in the reverse sweep (children computed once, into locals).
    fn val(
        &mut self,
        e: &Expr,
        cx: &mut StmtCx,
        out: &mut BlockOut,
        code: &mut Vec<TokenStream>,
    ) -> TokenStream {
        let key = e as *const Expr as usize;
        if let Some(t) = cx.snap.get(&key) {
            return t.clone();
        }
        if let Some(t) = cx.vals.get(&key) {
            return t.clone();
        }
        let span = e.span;
        let t = match &e.kind {
            ExprKind::Lit(l) => return l.to_token_stream(),
            ExprKind::Opaque { tokens, .. } => return quote_spanned!(span=> (#tokens)),
            ExprKind::Var(v) => {
                if !self.stable_at_stmt(*v) {
                    if self.vars[*v].mutable {
                        // Index expressions and decisions reached without `prepare`.
                        return self.save_read(e, cx, out);
                    }
                    self.needed_now.insert(*v);
                }
                let n = self.uname(*v);
                return quote!(#n);
            }
            ExprKind::Index { base, index } => {
                if !self.stable_at_stmt(*base) {
                    return self.save_read(e, cx, out);
                }
                if let Some(t) = self.view_access(*base, index, false) {
                    let name = self.fresh("v");
                    code.push(quote!(let #name = #t;));
                    cx.vals.insert(key, quote!(#name));
                    return quote!(#name);
                }
                let i = self.val(index, cx, out, code);
                let b = self.uname(*base);
                quote_spanned!(span=> #b[#i])
            }
            ExprKind::ElemConst { .. } => self.fwd_expr(e),
            ExprKind::Len(v) => {
                if !self.stable_at_stmt(*v) {
                    return self.save_read(e, cx, out);
                }
                let b = self.uname(*v);
                quote!(#b.len())
            }
            ExprKind::CopySeq(v, to) => {
                if !self.stable_at_stmt(*v) {
                    return self.save_read(e, cx, out);
                }
                let b = self.uname(*v);
                crate::primal::copy_seq(&quote!(#b), *to)
            }
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
            } => {
                if !self.stable_at_stmt(*base) {
                    let t = self.fwd_expr(e);
                    let s = self.save(
                        quote!(::std::borrow::ToOwned::to_owned(#t)),
                        cx.level,
                        out,
                        None,
                    );
                    cx.snap.insert(key, quote!(&#s[..]));
                    return quote!(&#s[..]);
                }
                let b = self.uname(*base);
                let s = start.as_ref().map(|s| self.val(s, cx, out, code));
                let x = end.as_ref().map(|x| self.val(x, cx, out, code));
                if *inclusive {
                    quote!(&#b[#s..=#x])
                } else {
                    quote!(&#b[#s..#x])
                }
            }
            ExprKind::Poison => quote!(()),
            _ => {
                let kids: Vec<TokenStream> = e
                    .children()
                    .into_iter()
                    .map(|c| self.val(c, cx, out, code))
                    .collect();
                crate::primal::compose(e, &kids)
            }
        };
        let name = self.fresh("v");
        code.push(quote!(let #name = #t;));
        cx.vals.insert(key, quote!(#name));
        quote!(#name)
    }

    // ------------------------------------------------------------------ adjoint propagation

    /// Adds the adjoint `g` of `e` into the adjoints of the active variables `e` reads.
    fn backprop(&mut self, e: &Expr, g: TokenStream, cx: &mut StmtCx, code: &mut Vec<TokenStream>) {
        if !self.active(e) {
            return;
        }
        let rt = names::rt();
        let mut dummy = BlockOut {
            fwd: Vec::new(),
            rev: Vec::new(),
            pops: Vec::new(),
        };
        match &e.kind {
            ExprKind::Var(v) => self.accumulate_var(*v, g, cx, code),
            ExprKind::Index { base, index } => {
                if let Some(slot) = self.window_slot(*base, index) {
                    self.accumulate(quote!(#slot), g, cx, code);
                    return;
                }
                if let Some(t) = self.view_access(*base, index, true) {
                    self.accumulate(t, g, cx, code);
                    return;
                }
                let i = self.val(index, cx, &mut dummy, code);
                self.flush_dummy(dummy, code);
                let b = self.adj_used(*base);
                self.accumulate(quote!(#b[#i]), g, cx, code);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let rule = rule_name(*op);
                let (la, ra) = (self.active(lhs), self.active(rhs));
                let g = self.bind(g, code);
                // Only the values the needed partials read; zeros (of the adjoint's type) stand
                // in for the rest.
                let [na, nb, ny] = self.binop_needs(*op, lhs, rhs);
                let z = quote!(#rt::zero_like(&#g));
                let a = if na {
                    self.val(lhs, cx, &mut dummy, code)
                } else {
                    z.clone()
                };
                let b = if nb {
                    self.val(rhs, cx, &mut dummy, code)
                } else {
                    z.clone()
                };
                let y = if ny {
                    self.val(e, cx, &mut dummy, code)
                } else {
                    z
                };
                self.flush_dummy(dummy, code);
                let (pa, pb) = (self.fresh("p"), self.fresh("p"));
                code.push(quote!(let (#pa, #pb) = #rt::rules::#rule(#a, #b, #y);));
                if la {
                    self.backprop(lhs, quote!(#rt::scale(#g, #pa)), cx, code);
                }
                if ra {
                    self.backprop(rhs, quote!(#rt::scale(#g, #pb)), cx, code);
                }
            }
            ExprKind::Unary { expr, .. } => {
                let p = self.fresh("p");
                let g = self.bind(g, code);
                code.push(
                    quote!(let #p = #rt::rules::neg(#rt::zero_like(&#g), #rt::zero_like(&#g));),
                );
                self.backprop(expr, quote!(#rt::scale(#g, #p)), cx, code);
            }
            ExprKind::Cast { expr, .. } => {
                let x = self.val(expr, cx, &mut dummy, code);
                self.flush_dummy(dummy, code);
                self.backprop(expr, quote!(#rt::cast_like(#g, &#x)), cx, code);
            }
            ExprKind::Method { recv, method, args } => {
                self.backprop_method(e, recv, method, args, g, cx, code)
            }
            ExprKind::Call { func, args, shape } => {
                self.backprop_call(func, args, shape, g, cx, code);
            }
            ExprKind::Tuple(items) => {
                let g = self.bind(g, code);
                for (k, item) in items.iter().enumerate() {
                    let ix = syn::Index::from(k);
                    self.backprop(item, quote!(#g.#ix), cx, code);
                }
            }
            ExprKind::Array(items) | ExprKind::VecList(items) => {
                let g = self.bind(g, code);
                for (k, item) in items.iter().enumerate() {
                    self.backprop(item, quote!(#g[#k]), cx, code);
                }
            }
            ExprKind::ArrayRepeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
                self.backprop(elem, quote!(#rt::sum(&#g[..])), cx, code);
            }
            ExprKind::CopySeq(v, _) => self.accumulate_var(*v, g, cx, code),
            ExprKind::Field { base, index } => {
                let ix = syn::Index::from(*index as usize);
                if let ExprKind::Var(v) = base.kind {
                    let b = self.adj_used(v);
                    code.push(quote!(#b.#ix = #rt::acc(#b.#ix, #g);));
                } else {
                    let n = match self.shape(base) {
                        Shape::Tuple(items) => items.len(),
                        _ => 0,
                    };
                    let parts = (0..n).map(|k| {
                        if k == *index as usize {
                            g.clone()
                        } else {
                            quote!(#rt::zero())
                        }
                    });
                    let gt = quote!((#(#parts,)*));
                    self.backprop(base, gt, cx, code);
                }
            }
            ExprKind::Ref(inner) => self.backprop(inner, g, cx, code),
            ExprKind::SubSlice {
                base,
                start,
                end,
                inclusive,
            } => {
                let s = start.as_ref().map(|s| self.val(s, cx, &mut dummy, code));
                let x = end.as_ref().map(|x| self.val(x, cx, &mut dummy, code));
                self.flush_dummy(dummy, code);
                let b = self.adj_used(*base);
                let r = if *inclusive {
                    quote!(#s..=#x)
                } else {
                    quote!(#s..#x)
                };
                code.push(quote!(#rt::acc_slice(&mut #b[#r], &#g[..]);));
            }
            _ => {}
        }
    }

    /// Values computed through `val` inside `backprop` never need saving (their reads were
    /// prepared); anything it did emit goes with the statement's code.
    fn flush_dummy(&mut self, d: BlockOut, code: &mut Vec<TokenStream>) {
        if !d.fwd.is_empty() {
            self.bug = true;
        }
        code.extend(d.pops);
    }

    fn bind(&mut self, g: TokenStream, code: &mut Vec<TokenStream>) -> syn::Ident {
        let n = self.fresh("g");
        code.push(quote!(let #n = #g;));
        n
    }

    /// `target += g`, or `target = g` right after the statement zeroed `target`.
    fn accumulate(
        &self,
        target: TokenStream,
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<TokenStream>,
    ) {
        let rt = names::rt();
        if cx.zeroed.remove(&target.to_string()) {
            code.push(quote!(#target = #g;));
        } else {
            code.push(quote!(#target = #rt::acc(#target, #g);));
        }
    }

    fn accumulate_var(
        &mut self,
        v: VarId,
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<TokenStream>,
    ) {
        if !self.vars[v].active {
            return;
        }
        let rt = names::rt();
        let b = self.adj_used(v);
        match &self.vars[v].shape {
            Shape::Seq(_) => code.push(quote!(#rt::acc_slice(&mut #b[..], &#g[..]);)),
            Shape::Tuple(items) => {
                let g = self.bind(g, code);
                for (k, item) in items.iter().enumerate() {
                    if !item.is_float() {
                        continue;
                    }
                    let ix = syn::Index::from(k);
                    code.push(quote!(#b.#ix = #rt::acc(#b.#ix, #g.#ix);));
                }
            }
            _ => self.accumulate(quote!(#b), g, cx, code),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn backprop_method(
        &mut self,
        e: &Expr,
        recv: &Expr,
        method: &syn::Ident,
        args: &[Expr],
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<TokenStream>,
    ) {
        let rt = names::rt();
        let rule = match methods::float_method(&method.to_string()) {
            Some(r) => r,
            None => return,
        };
        if rule.linearity == Linearity::Zero {
            return;
        }
        let mut dummy = BlockOut {
            fwd: Vec::new(),
            rev: Vec::new(),
            pops: Vec::new(),
        };
        let lin = rule.linearity == Linearity::Linear;
        let g = self.bind(g, code);
        let (x, y) = if lin {
            (quote!(#rt::zero_like(&#g)), quote!(#rt::zero_like(&#g)))
        } else {
            (
                self.val(recv, cx, &mut dummy, code),
                self.val(e, cx, &mut dummy, code),
            )
        };
        let a: Vec<TokenStream> = args
            .iter()
            .map(|a| self.val(a, cx, &mut dummy, code))
            .collect();
        self.flush_dummy(dummy, code);
        match rule.arity {
            Arity::Unary => {
                let p = self.fresh("p");
                code.push(quote!(let #p = #rt::rules::#method(#x, #y);));
                self.backprop(recv, quote!(#rt::scale(#g, #p)), cx, code);
            }
            Arity::PowI => {
                let p = self.fresh("p");
                let n = &a[0];
                code.push(quote!(let #p = #rt::rules::powi(#x, #n, #y);));
                self.backprop(recv, quote!(#rt::scale(#g, #p)), cx, code);
            }
            Arity::Binary => {
                let (p0, p1) = (self.fresh("p"), self.fresh("p"));
                let a0 = &a[0];
                code.push(quote!(let (#p0, #p1) = #rt::rules::#method(#x, #a0, #y);));
                self.backprop(recv, quote!(#rt::scale(#g, #p0)), cx, code);
                self.backprop(&args[0], quote!(#rt::scale(#g, #p1)), cx, code);
            }
            Arity::Ternary => {
                let (p0, p1, p2) = (self.fresh("p"), self.fresh("p"), self.fresh("p"));
                let (a0, a1) = (&a[0], &a[1]);
                code.push(quote!(let (#p0, #p1, #p2) = #rt::rules::#method(#x, #a0, #a1, #y);));
                self.backprop(recv, quote!(#rt::scale(#g, #p0)), cx, code);
                self.backprop(&args[0], quote!(#rt::scale(#g, #p1)), cx, code);
                self.backprop(&args[1], quote!(#rt::scale(#g, #p2)), cx, code);
            }
            Arity::SinCos => {
                let (p0, p1) = (self.fresh("p"), self.fresh("p"));
                code.push(quote!(let (#p0, #p1) = #rt::rules::sin_cos(#x, #y);));
                self.backprop(
                    recv,
                    quote!(#rt::acc(#rt::scale(#g.0, #p0), #rt::scale(#g.1, #p1))),
                    cx,
                    code,
                );
            }
            Arity::Predicate => {}
        }
    }

    fn backprop_call(
        &mut self,
        func: &syn::Path,
        args: &[Expr],
        shape: &Shape,
        g: TokenStream,
        cx: &mut StmtCx,
        code: &mut Vec<TokenStream>,
    ) {
        let rt = names::rt();
        let mut dummy = BlockOut {
            fwd: Vec::new(),
            rev: Vec::new(),
            pops: Vec::new(),
        };
        let mut prims = Vec::new();
        let mut adjs = Vec::new();
        let mut after = Vec::new();
        // A sequence passed twice (`g(&v[0..2], &v[1..3])`) cannot lend its adjoint buffer twice:
        // those arguments get temporary buffers added in after the call.
        let mut seen = BTreeSet::new();
        let mut shared = BTreeSet::new();
        for a in args {
            let base = match &a.kind {
                ExprKind::Ref(inner) => match inner.kind {
                    ExprKind::Var(w) => Some(w),
                    _ => None,
                },
                ExprKind::SubSlice { base, .. } => Some(*base),
                _ => None,
            };
            if let Some(w) = base {
                if !seen.insert(w) {
                    shared.insert(w);
                }
            }
        }
        for a in args {
            let v = self.val(a, cx, &mut dummy, code);
            let shape = self.shape(a);
            if !shape.is_float() {
                prims.push(v);
                continue;
            }
            prims.push(v.clone());
            let active = self.active(a);
            let lends = match &a.kind {
                ExprKind::Ref(inner) => match inner.kind {
                    ExprKind::Var(w) => !shared.contains(&w),
                    _ => true,
                },
                ExprKind::SubSlice { base, .. } => !shared.contains(base),
                _ => true,
            };
            match (&a.kind, &shape) {
                (ExprKind::Ref(_) | ExprKind::SubSlice { .. }, _) if active && !lends => {
                    let t = self.fresh("a");
                    code.push(quote!(let mut #t = #rt::zeros_like_slice(&#v[..]);));
                    adjs.push(quote!(&mut #t[..]));
                    after.push((a, quote!(#t)));
                }
                (ExprKind::Ref(inner), _) if active => {
                    if let ExprKind::Var(w) = inner.kind {
                        let b = self.adj_used(w);
                        adjs.push(quote!(&mut #b[..]));
                    } else {
                        let t = self.fresh("a");
                        code.push(quote!(let mut #t = #rt::zeros_like_slice(&#v[..]);));
                        adjs.push(quote!(&mut #t[..]));
                        after.push((a, quote!(#t)));
                    }
                }
                (
                    ExprKind::SubSlice {
                        base,
                        start,
                        end,
                        inclusive,
                    },
                    _,
                ) if active => {
                    let s = start.as_ref().map(|s| self.val(s, cx, &mut dummy, code));
                    let x = end.as_ref().map(|x| self.val(x, cx, &mut dummy, code));
                    let b = self.adj_used(*base);
                    let r = if *inclusive {
                        quote!(#s..=#x)
                    } else {
                        quote!(#s..#x)
                    };
                    adjs.push(quote!(&mut #b[#r]));
                }
                (_, Shape::Seq(SeqKind::Array(_))) => {
                    let t = self.fresh("a");
                    code.push(quote!(let mut #t = #rt::zeros_like_array(&#v);));
                    adjs.push(quote!(&mut #t));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
                (_, Shape::Seq(_)) => {
                    let t = self.fresh("a");
                    code.push(quote!(let mut #t = #rt::zeros_like_slice(&#v[..]);));
                    adjs.push(quote!(&mut #t[..]));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
                _ => {
                    let t = self.fresh("a");
                    code.push(quote!(let mut #t = #rt::zero_like(&#v);));
                    adjs.push(quote!(&mut #t));
                    if active {
                        after.push((a, quote!(#t)));
                    }
                }
            }
        }
        self.flush_dummy(dummy, code);
        let vjp = crate::forward::companion_path(func, "vjp");
        // The seed of a `Vec` output is passed as a slice.
        let seed = match shape {
            Shape::Seq(SeqKind::Vec) | Shape::Seq(SeqKind::Slice) => quote!(&#g[..]),
            _ => g,
        };
        code.push(quote!(let _ = #vjp(#(#prims,)* #(#adjs,)* #seed);));
        for (a, t) in after {
            self.backprop(a, t, cx, code);
        }
    }
}

/// Per-statement state: which nodes' values are needed, which were saved, which computed.
struct StmtCx {
    level: Level,
    needed: BTreeSet<usize>,
    snap: HashMap<usize, TokenStream>,
    vals: HashMap<usize, TokenStream>,
    /// Adjoint places just set to zero by this statement's reverse (variables, window slots, view
    /// elements: places no other spelling can alias): the first contribution is assigned, not added (`0.0 + g` is not `g` in IEEE arithmetic, so rustc could not drop the
    /// addition, and in a loop it would chain every iteration to the previous one).
    zeroed: BTreeSet<String>,
}

impl StmtCx {
    fn new(level: Level) -> Self {
        StmtCx {
            level,
            needed: BTreeSet::new(),
            snap: HashMap::new(),
            vals: HashMap::new(),
            zeroed: BTreeSet::new(),
        }
    }
}

fn rule_name(op: BinOp) -> syn::Ident {
    let s = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
        BinOp::Rem => "rem",
        _ => "add",
    };
    syn::Ident::new(s, Span::call_site())
}

/// Whether any statement in `body` assigns `flag` (the loop can stop early).
fn body_sets(body: &[R], flag: VarId) -> bool {
    body.iter().any(|s| match s {
        R::Assign {
            place: Place::Var(v),
            ..
        } => *v == flag,
        R::If { then, els, .. } => body_sets(then, flag) || body_sets(els, flag),
        R::Match { arms, .. } => arms.iter().any(|(_, b)| body_sets(b, flag)),
        _ => false,
    })
}

/// `c` when `e` is `i`, `i + c`, `c + i` or `i - c` for the loop index `i` and an integer literal.
fn affine_offset(e: &Expr, i: VarId) -> Option<i64> {
    let lit = |x: &Expr| -> Option<i64> {
        match &x.kind {
            ExprKind::Lit(syn::Lit::Int(l)) => l.base10_parse::<i64>().ok(),
            _ => None,
        }
    };
    let is_i = |x: &Expr| matches!(x.kind, ExprKind::Var(v) if v == i);
    match &e.kind {
        ExprKind::Var(v) if *v == i => Some(0),
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if is_i(lhs) => lit(rhs),
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if is_i(rhs) => lit(lhs),
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } if is_i(lhs) => lit(rhs).map(|c| -c),
        _ => None,
    }
}

/// Every sequence variable read or written anywhere inside a statement.
fn collect_seq_uses(s: &R, out: &mut Vec<VarId>) {
    let on_expr = |e: &Expr, out: &mut Vec<VarId>| e.reads(out);
    match s {
        R::Let { init: Some(e), .. } | R::Eval(e) => on_expr(e, out),
        R::Let { .. } | R::Macro(..) | R::Exit(_) => {}
        R::Assign { place, value } => {
            on_expr(value, out);
            out.push(place.var());
            if let Place::Index(_, ix) = place {
                on_expr(ix, out);
            }
        }
        R::Push { vec, value } => {
            on_expr(value, out);
            out.push(*vec);
        }
        R::If { cond, then, els } => {
            on_expr(cond, out);
            then.iter()
                .chain(els)
                .for_each(|x| collect_seq_uses(x, out));
        }
        R::Match { scrut, arms } => {
            on_expr(scrut, out);
            arms.iter()
                .flat_map(|(_, b)| b)
                .for_each(|x| collect_seq_uses(x, out));
        }
        R::For { range, body, .. } => {
            let Range::Bounds {
                start, end, step, ..
            } = range;
            on_expr(start, out);
            on_expr(end, out);
            if let Some(st) = step {
                on_expr(st, out);
            }
            body.iter().for_each(|x| collect_seq_uses(x, out));
        }
        R::While { cond, body, .. } => {
            if let Some(c) = cond {
                on_expr(c, out);
            }
            body.iter().for_each(|x| collect_seq_uses(x, out));
        }
    }
}

/// The zero adjoint of one tuple component: `()` for components that are not floats.
fn tuple_zero_item(s: &Shape) -> TokenStream {
    let rt = names::rt();
    if s.is_float() {
        quote!(#rt::zero())
    } else {
        quote!(())
    }
}

/// A value of a shape, for variables declared before they are assigned (`None`: no placeholder
/// can be written for this shape).
fn placeholder(s: &Shape) -> Option<TokenStream> {
    let rt = names::rt();
    Some(match s {
        Shape::Scalar => quote!(#rt::zero()),
        Shape::Int => quote!(0),
        Shape::Bool => quote!(false),
        Shape::Seq(SeqKind::Vec) => quote!(::std::vec::Vec::new()),
        Shape::Seq(SeqKind::Array(n)) => {
            let n: TokenStream = n.parse().ok()?;
            quote!([#rt::zero(); #n])
        }
        Shape::Tuple(items) => {
            let parts: Option<Vec<TokenStream>> = items.iter().map(placeholder).collect();
            let parts = parts?;
            quote!((#(#parts,)*))
        }
        _ => return None,
    })
}

/// One backward step of the usefulness analysis: active variables read by statements that
/// assign a useful variable become useful.
fn useful(body: &[R], vars: &[Var], acc: &mut BTreeSet<VarId>) {
    let add = |e: &Expr, acc: &mut BTreeSet<VarId>| {
        let mut reads = Vec::new();
        e.reads(&mut reads);
        for r in reads {
            if vars[r].active {
                acc.insert(r);
            }
        }
    };
    for s in body.iter().rev() {
        match s {
            R::Let { pat, init: Some(e) } => {
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                if vs.iter().any(|v| acc.contains(v)) {
                    add(e, acc);
                }
            }
            R::Assign { place, value } if acc.contains(&place.var()) => {
                add(value, acc);
            }
            R::Push { vec, value } if acc.contains(vec) => {
                add(value, acc);
            }
            R::If { then, els, .. } => {
                useful(then, vars, acc);
                useful(els, vars, acc);
            }
            R::Match { arms, .. } => arms.iter().for_each(|(_, b)| useful(b, vars, acc)),
            R::For { body, .. } | R::While { body, .. } => useful(body, vars, acc),
            _ => {}
        }
    }
}

/// Splits `e + i + c` into (the printed invariant `e`, `c`): terms added together, exactly one
/// of them the loop index `i`, integer literals summed into `c`, the rest (which must not read `i`
/// or anything not stable) forming `e`. `None` for any other shape.
fn affine_split(ix: &Expr, i: VarId, em: &Emitter) -> Option<(String, i64)> {
    let mut terms = Vec::new();
    let mut c = 0i64;
    if !add_terms(ix, &mut terms, &mut c) {
        return None;
    }
    let (idx, rest): (Vec<&Expr>, Vec<&Expr>) = terms
        .into_iter()
        .partition(|t| matches!(t.kind, ExprKind::Var(v) if v == i));
    if idx.len() != 1 {
        return None;
    }
    let mut reads = Vec::new();
    for t in &rest {
        t.reads(&mut reads);
    }
    if reads.iter().any(|r| *r == i || !em.stable(*r)) {
        return None;
    }
    let inv: Vec<String> = rest.iter().map(|t| em.fwd_expr(t).to_string()).collect();
    Some((inv.join(" + "), c))
}

fn add_terms<'e>(e: &'e Expr, terms: &mut Vec<&'e Expr>, c: &mut i64) -> bool {
    match &e.kind {
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => add_terms(lhs, terms, c) && add_terms(rhs, terms, c),
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => match &rhs.kind {
            ExprKind::Lit(syn::Lit::Int(l)) => match l.base10_parse::<i64>() {
                Ok(v) => {
                    *c -= v;
                    add_terms(lhs, terms, c)
                }
                Err(_) => false,
            },
            _ => false,
        },
        ExprKind::Lit(syn::Lit::Int(l)) => match l.base10_parse::<i64>() {
            Ok(v) => {
                *c += v;
                true
            }
            Err(_) => false,
        },
        _ => {
            terms.push(e);
            true
        }
    }
}

/// The invariant terms of `e + i + c` as one expression (`None` when there are none).
fn invariant_part(ix: &Expr, i: VarId) -> Option<Expr> {
    let mut terms = Vec::new();
    let mut c = 0i64;
    if !add_terms(ix, &mut terms, &mut c) {
        return None;
    }
    let rest: Vec<&Expr> = terms
        .into_iter()
        .filter(|t| !matches!(t.kind, ExprKind::Var(v) if v == i))
        .collect();
    let mut it = rest.into_iter();
    let first = it.next()?.clone();
    Some(it.fold(first, |acc, t| {
        let span = acc.span;
        Expr::new(
            ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(acc),
                rhs: Box::new(t.clone()),
            },
            span,
        )
    }))
}

/// The adjoint accesses of one loop body, for `plan_windows`: per sequence the offsets `c` of
/// its accesses `b[i + c]`; sequences used any other way are `bad`; those accessed inside a branch
/// are `guarded`.
struct WindowPlan<'a> {
    index: VarId,
    vars: &'a [Var],
    offsets: HashMap<VarId, Vec<i64>>,
    bad: BTreeSet<VarId>,
    guarded: BTreeSet<VarId>,
}

impl WindowPlan<'_> {
    fn access(&mut self, base: VarId, ix: &Expr, nested: bool) {
        match affine_offset(ix, self.index) {
            Some(c) => {
                self.offsets.entry(base).or_default().push(c);
                if nested {
                    self.guarded.insert(base);
                }
            }
            None => {
                self.bad.insert(base);
            }
        }
    }

    fn expr(&mut self, e: &Expr, nested: bool) {
        let vars = self.vars;
        let mut found = Vec::new();
        e.visit(&mut |n| match &n.kind {
            ExprKind::Index { base, index } if vars[*base].active => {
                found.push((*base, Some((**index).clone())))
            }
            ExprKind::Var(v) | ExprKind::CopySeq(v, _) | ExprKind::SubSlice { base: v, .. }
                if vars[*v].active && matches!(vars[*v].shape, Shape::Seq(_)) =>
            {
                found.push((*v, None))
            }
            _ => {}
        });
        for (base, ix) in found {
            match ix {
                Some(ix) => self.access(base, &ix, nested),
                None => {
                    self.bad.insert(base);
                }
            }
        }
    }

    fn stmts(&mut self, stmts: &[R], nested: bool) {
        for st in stmts {
            if let R::Let { pat, .. } = st {
                // Declared inside the loop: its adjoint does not exist before the loop.
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                self.bad.extend(vs);
            }
            match st {
                R::Let { init: Some(e), .. } | R::Eval(e) => self.expr(e, nested),
                R::Let { .. } | R::Macro(..) | R::Exit(_) => {}
                R::Assign { place, value } => {
                    self.expr(value, nested);
                    match place {
                        Place::Index(w, ix) => {
                            self.expr(ix, nested);
                            if self.vars[*w].active {
                                self.access(*w, ix, nested);
                            }
                        }
                        Place::Var(w) => {
                            self.bad.insert(*w);
                        }
                    }
                }
                R::Push { vec, value } => {
                    self.expr(value, nested);
                    self.bad.insert(*vec);
                }
                R::If { cond, then, els } => {
                    self.expr(cond, nested);
                    self.stmts(then, true);
                    self.stmts(els, true);
                }
                R::Match { scrut, arms } => {
                    self.expr(scrut, nested);
                    for (_, b) in arms {
                        self.stmts(b, true);
                    }
                }
                // Inner loops run under their own index.
                R::For { .. } | R::While { .. } => {
                    let mut inner = Vec::new();
                    collect_seq_uses(st, &mut inner);
                    self.bad.extend(inner);
                }
            }
        }
    }
}

/// The accesses `arr[e + i + c]` of one sequence in a loop body (one invariant `e`).
#[derive(Clone)]
struct ViewAccesses {
    inv: String,
    inv_expr: Option<Expr>,
    offsets: Vec<i64>,
}

/// Walks a loop body for `plan_views`: per sequence its accesses, or `None` once it is used in
/// any other way (whole, with another invariant, under control flow).
struct ViewPlan<'e, 'a> {
    em: &'e Emitter<'a>,
    index: VarId,
    seqs: HashMap<VarId, Option<ViewAccesses>>,
    written: BTreeSet<VarId>,
}

impl ViewPlan<'_, '_> {
    fn access(&mut self, base: VarId, ix: &Expr) {
        let split = affine_split(ix, self.index, self.em);
        let index = self.index;
        let entry = self.seqs.entry(base).or_insert_with(|| {
            split.as_ref().map(|(inv, _)| ViewAccesses {
                inv: inv.clone(),
                inv_expr: invariant_part(ix, index),
                offsets: Vec::new(),
            })
        });
        match (entry.as_mut(), split) {
            (Some(acc), Some((inv, c))) if acc.inv == inv => acc.offsets.push(c),
            _ => *entry = None,
        }
    }

    fn disqualify(&mut self, v: VarId) {
        self.seqs.insert(v, None);
    }

    fn expr(&mut self, e: &Expr) {
        let mut found: Vec<(VarId, Option<Expr>)> = Vec::new();
        e.visit(&mut |n| match &n.kind {
            ExprKind::Index { base, index } => found.push((*base, Some((**index).clone()))),
            ExprKind::Var(v)
            | ExprKind::CopySeq(v, _)
            | ExprKind::SubSlice { base: v, .. }
            | ExprKind::Len(v) => found.push((*v, None)),
            _ => {}
        });
        for (v, ix) in found {
            match ix {
                Some(ix) => self.access(v, &ix),
                None => self.disqualify(v),
            }
        }
    }

    fn stmts(&mut self, body: &[R]) {
        for st in body {
            if let R::Let { pat, .. } = st {
                // Declared inside the loop: it does not exist before the loop.
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                vs.into_iter().for_each(|v| self.disqualify(v));
            }
            match st {
                R::Let { init: Some(e), .. } | R::Eval(e) => self.expr(e),
                R::Let { .. } | R::Exit(_) => {}
                R::Macro(_, vis) => vis.iter().for_each(|v| self.disqualify(*v)),
                R::Assign { place, value } => {
                    self.expr(value);
                    match place {
                        Place::Index(w, ix) => {
                            self.expr(ix);
                            self.access(*w, ix);
                            self.written.insert(*w);
                        }
                        Place::Var(w) => self.disqualify(*w),
                    }
                }
                R::Push { vec, value } => {
                    self.expr(value);
                    self.disqualify(*vec);
                }
                // Accesses under control flow might not happen on every iteration.
                _ => {
                    let mut inner = Vec::new();
                    collect_seq_uses(st, &mut inner);
                    inner.into_iter().for_each(|v| self.disqualify(v));
                }
            }
        }
    }
}
