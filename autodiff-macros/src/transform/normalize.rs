//! Exit normalisation: takes a function's IR, gives the normalised statement list the reverse
//! sweep is built from (`R`). `return`/`break`/`continue` become assignments to flags, and the
//! rest of a block after a statement that may exit moves into that statement's non-exiting
//! branches, so that every block runs to its end whenever it is entered. Compound assignments
//! become plain ones; nested plain blocks are flattened (every variable has a unique name).

use crate::diag::Diag;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use std::collections::HashMap;

/// Normalises the body (and tail) of `f`; flags it introduces are added to `vars` and declared
/// false at the top. `ret` is the variable the function's value is assigned to.
pub(crate) fn normalize(f: &Function, vars: &mut Vec<Var>, ret: VarId, diag: &mut Diag) -> Vec<R> {
    let mut stmts = f.body.stmts.clone();
    if let Some(t) = &f.tail {
        stmts.push(Stmt::Return {
            value: Some(t.clone()),
            span: t.span,
        });
    }
    let mut norm = Norm {
        vars,
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
    number(&mut body);
    body
}

#[derive(Clone, Debug)]
pub(crate) enum R {
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
    /// The exchange of two whole local `Vec`s (`std::mem::swap(&mut u, &mut next)`): buffer
    /// rotation's form of a copy `u.copy_from_slice(&next)` (`transform/rotate.rs`, made by
    /// `rotate::fold_exchanges`); reversed by exchanging the adjoints (and the values, when
    /// they are restored).
    Swap(VarId, VarId),
}

impl R {
    /// The variables this statement may modify, nested blocks included (`ir::writes`, the same
    /// query over the normalised statements).
    pub(crate) fn writes(&self, vars: &[Var], out: &mut Vec<VarId>) {
        use crate::ir::writes::expr_writes;
        let add = |v: VarId, out: &mut Vec<VarId>| {
            if !out.contains(&v) {
                out.push(v)
            }
        };
        match self {
            R::Let { init: Some(e), .. } | R::Eval(e) => expr_writes(vars, e, out),
            R::Let { init: None, .. } | R::Macro(..) | R::Exit(_) => {}
            R::Swap(a, b) => {
                add(*a, out);
                add(*b, out);
            }
            R::Assign { place, value } => {
                if let Place::Index(_, ix) = place {
                    expr_writes(vars, ix, out);
                }
                expr_writes(vars, value, out);
                add(place.var(), out);
            }
            R::Push { vec, value } => {
                expr_writes(vars, value, out);
                add(*vec, out);
            }
            R::If { cond, then, els } => {
                expr_writes(vars, cond, out);
                then.iter().chain(els).for_each(|s| s.writes(vars, out));
            }
            R::Match { scrut, arms } => {
                expr_writes(vars, scrut, out);
                arms.iter()
                    .flat_map(|(_, b)| b)
                    .for_each(|s| s.writes(vars, out));
            }
            R::For { range, body, .. } => {
                let Range::Bounds {
                    start, end, step, ..
                } = range;
                for e in [Some(start), Some(end), step.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    expr_writes(vars, e, out);
                }
                body.iter().for_each(|s| s.writes(vars, out));
            }
            R::While { cond, body, .. } => {
                if let Some(c) = cond {
                    expr_writes(vars, c, out);
                }
                body.iter().for_each(|s| s.writes(vars, out));
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
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
            name: crate::names::synthetic(what, n),
            mutable: true,
            shape: Shape::Bool,
            origin: VarOrigin::Synthetic,
            ty: None,
            active: false,
            row: None,
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

mod print;
pub(crate) use print::print;

/// Gives every expression node of `body` its own id, in statement order and, within an
/// expression, parents before children. Normalisation copies the rest of a block into several
/// branches, so ids are given to its output; the reverse sweep keys its per-node tables by them.
pub(crate) fn number(body: &mut [R]) {
    let mut next = 0u32;
    for_each_root_mut(body, &mut |root| number_expr(root, &mut next));
}

fn number_expr(e: &mut Expr, next: &mut u32) {
    *next += 1;
    e.id = ExprId(*next);
    for c in e.children_mut() {
        number_expr(c, next);
    }
}

/// Calls `f` on every root expression of `body` (initialisers, assigned values, index
/// expressions of places, conditions, scrutinees, range bounds), in statement order.
pub(crate) fn for_each_root_mut(body: &mut [R], f: &mut dyn FnMut(&mut Expr)) {
    for s in body {
        match s {
            R::Let { init, .. } => {
                if let Some(e) = init {
                    f(e);
                }
            }
            R::Assign { place, value } => {
                if let Place::Index(_, i) = place {
                    f(i);
                }
                f(value);
            }
            R::Push { value, .. } | R::Eval(value) => f(value),
            R::Macro(..) | R::Exit(_) | R::Swap(..) => {}
            R::If { cond, then, els } => {
                f(cond);
                for_each_root_mut(then, f);
                for_each_root_mut(els, f);
            }
            R::Match { scrut, arms } => {
                f(scrut);
                for (_, b) in arms {
                    for_each_root_mut(b, f);
                }
            }
            R::For { range, body, .. } => {
                let Range::Bounds {
                    start, end, step, ..
                } = range;
                f(start);
                f(end);
                if let Some(st) = step {
                    f(st);
                }
                for_each_root_mut(body, f);
            }
            R::While { cond, body, .. } => {
                if let Some(c) = cond {
                    f(c);
                }
                for_each_root_mut(body, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::normalized;
    use syn::parse_quote;

    /// The normalised body, printed.
    fn printed(item: syn::ItemFn) -> String {
        let (_, vars, _, body) = normalized(item);
        super::print(&vars, &body)
    }

    #[test]
    fn every_expression_node_gets_its_own_id() {
        // The rest of the loop body after `if .. { break; }` is copied into the branch that does
        // not exit: the copies must not share ids.
        let (_, _, _, mut body) = normalized(parse_quote! {
            fn f(x: f64, n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    if s > 4.0 {
                        break;
                    }
                    s += x * (i as f64);
                }
                if s > 1.0 {
                    return s.sin();
                }
                s * s
            }
        });
        let mut ids = Vec::new();
        super::for_each_root_mut(&mut body, &mut |root| root.visit(&mut |e| ids.push(e.id)));
        assert!(ids.len() > 10);
        assert!(!ids.contains(&crate::ir::ExprId::NONE));
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "ids are shared: {ids:?}");
    }

    #[test]
    fn early_return_and_break_become_flags() {
        let text = printed(parse_quote! {
            fn f(x: f64, n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    if s > 4.0 {
                        break;
                    }
                    s += x;
                }
                if s < 0.0 {
                    return 0.0;
                }
                s * 2.0
            }
        });
        // The rest of a block after a statement that may exit moves into its other branch (a
        // top-level `return` needs no flag then), so every block runs to its end; the loop
        // records the flag that stops it.
        assert_eq!(
            text,
            "let mut s#2 [scalar, active] = 0.0;
let mut __ad_brk_5#5 [bool] = false;
for i#3 [int] in (0 .. n#1) until mut __ad_brk_5#5 [bool] {
    if (s#2 > 4.0) {
        __ad_brk_5#5 = true;
    } else {
        s#2 = (s#2 + x#0);
    }
}
if (s#2 < 0.0) {
    __ad_ret_4#4 = 0.0;
} else {
    __ad_ret_4#4 = (s#2 * 2.0);
}
"
        );
    }
}
