//! Traversals of the IR: takes statement lists and expressions, gives visits of every statement
//! or expression node in them (shared and mutable), so passes do not write their own recursion.

use super::*;

/// Visits every expression in a statement list, in evaluation order (children before parents is
/// not guaranteed; callers that care recurse themselves).
pub fn walk_exprs<'a>(block: &'a Block, f: &mut dyn FnMut(&'a Expr)) {
    for s in &block.stmts {
        walk_stmt_exprs(s, f);
    }
}

pub fn walk_stmt_exprs<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    match s {
        Stmt::Let { init, .. } => {
            if let Some(e) = init {
                f(e)
            }
        }
        Stmt::Assign { place, value, .. } => {
            if let Place::Index(_, i) = place {
                f(i)
            }
            f(value)
        }
        Stmt::Push { value, .. } => f(value),
        Stmt::Eval(e) => f(e),
        Stmt::If { cond, then, els } => {
            f(cond);
            walk_exprs(then, f);
            if let Some(b) = els {
                walk_exprs(b, f)
            }
        }
        Stmt::Match { scrut, arms } => {
            f(scrut);
            for a in arms {
                walk_exprs(&a.body, f)
            }
        }
        Stmt::For { range, body, .. } => {
            let Range::Bounds {
                start, end, step, ..
            } = range;
            f(start);
            f(end);
            if let Some(s) = step {
                f(s)
            }
            walk_exprs(body, f)
        }
        Stmt::While { cond, body, .. } => {
            f(cond);
            walk_exprs(body, f)
        }
        Stmt::Loop { body, .. } | Stmt::Block(body) => walk_exprs(body, f),
        Stmt::Return { value, .. } => {
            if let Some(e) = value {
                f(e)
            }
        }
        Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Macro(..) => {}
    }
}

/// The direct sub-expressions of an `ExprKind` (borrowed shared or mutable), pushed onto `out`
/// in evaluation order: one list for `Expr::children` and `Expr::children_mut`.
macro_rules! children_of {
    ($kind:expr, $out:ident, $iter:ident) => {
        match $kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::Opaque { .. }
            | ExprKind::Len(_)
            | ExprKind::Member { .. }
            | ExprKind::ElemConst { .. }
            | ExprKind::CopySeq(..)
            | ExprKind::MutRef(_, _, None)
            | ExprKind::Poison => {}
            ExprKind::MutRef(_, _, Some(r)) => {
                if let Some(s) = r.start.$iter().next() {
                    $out.push(s)
                }
                if let Some(x) = r.end.$iter().next() {
                    $out.push(x)
                }
            }
            ExprKind::Index { index, .. } => $out.push(index),
            ExprKind::Binary { lhs, rhs, .. } => {
                $out.push(lhs);
                $out.push(rhs)
            }
            ExprKind::Unary { expr, .. }
            | ExprKind::Cast { expr, .. }
            | ExprKind::Ref(expr)
            | ExprKind::StopGradient(expr)
            | ExprKind::Fixed(expr, _) => $out.push(expr),
            ExprKind::Field { base, .. } => $out.push(base),
            ExprKind::Method { recv, args, .. } | ExprKind::PlainMethod { recv, args, .. } => {
                $out.push(recv);
                $out.extend(args.$iter())
            }
            ExprKind::Call { args, .. } | ExprKind::PlainCall { args, .. } => {
                $out.extend(args.$iter())
            }
            ExprKind::Tuple(items) | ExprKind::Array(items) | ExprKind::VecList(items) => {
                $out.extend(items.$iter())
            }
            ExprKind::ArrayRepeat { elem, .. } => $out.push(elem),
            ExprKind::VecRepeat { elem, len } => {
                $out.push(elem);
                $out.push(len)
            }
            ExprKind::VecNew { capacity } => {
                if let Some(c) = capacity {
                    $out.push(c)
                }
            }
            ExprKind::SubSlice { start, end, .. } => {
                if let Some(s) = start {
                    $out.push(s)
                }
                if let Some(x) = end {
                    $out.push(x)
                }
            }
        }
    };
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            id: ExprId::NONE,
        }
    }

    /// Calls `f` on this node and every sub-expression.
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        self.for_each_child(&mut |c| c.visit(f));
    }

    /// The direct sub-expressions, in evaluation order.
    pub fn children(&self) -> Vec<&Expr> {
        let mut out: Vec<&Expr> = Vec::new();
        children_of!(&self.kind, out, iter);
        out
    }

    /// Calls `f` on every node, children first.
    pub fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        for c in self.children_mut() {
            c.visit_mut(f);
        }
        f(self);
    }

    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        let mut out: Vec<&mut Expr> = Vec::new();
        children_of!(&mut self.kind, out, iter_mut);
        out
    }

    pub fn for_each_child(&self, f: &mut dyn FnMut(&Expr)) {
        for c in self.children() {
            f(c)
        }
    }

    /// Variables this expression reads (including sequence bases of index reads).
    pub fn reads(&self, out: &mut Vec<VarId>) {
        self.visit(&mut |e| out.extend(e.own_read()));
    }

    /// The variable this node itself reads (not its children): a variable, the sequence of an
    /// element, length, copy, borrow or sub-slice.
    pub fn own_read(&self) -> Option<VarId> {
        match &self.kind {
            ExprKind::Var(v)
            | ExprKind::Index { base: v, .. }
            | ExprKind::Len(v)
            | ExprKind::Member { base: v, .. }
            | ExprKind::CopySeq(v, _)
            | ExprKind::MutRef(v, ..)
            | ExprKind::SubSlice { base: v, .. } => Some(*v),
            _ => None,
        }
    }

    /// The sequences a call statement overwrites: `v` for each argument `&mut v` of the call
    /// `self` (empty for anything but such a call).
    pub fn mut_borrows(&self) -> Vec<VarId> {
        match &self.kind {
            ExprKind::Call { args, .. } => args
                .iter()
                .filter_map(|a| match a.kind {
                    ExprKind::MutRef(v, ..) => Some(v),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the expression is made of unsuffixed numeric literals only (`0.5`, `-1.0`,
    /// `2.0 * 3.0`): its type comes from where it is used, so it cannot be a method receiver.
    pub fn is_untyped_constant(&self) -> bool {
        match &self.kind {
            ExprKind::Lit(syn::Lit::Float(f)) => f.suffix().is_empty(),
            ExprKind::Lit(syn::Lit::Int(i)) => i.suffix().is_empty(),
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => expr.is_untyped_constant(),
            ExprKind::Binary { op, lhs, rhs } => {
                op.is_arith() && lhs.is_untyped_constant() && rhs.is_untyped_constant()
            }
            _ => false,
        }
    }

    /// Whether the expression calls a function with derivative companions (costly to redo).
    pub fn has_call_to_companion(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            if matches!(e.kind, ExprKind::Call { .. }) {
                found = true
            }
        });
        found
    }

    pub fn has_call(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            if matches!(e.kind, ExprKind::Call { .. } | ExprKind::PlainCall { .. }) {
                found = true
            }
        });
        found
    }
}

/// Calls `f` on every expression node of a statement list (nested blocks included).
pub fn visit_exprs_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in stmts {
        match s {
            Stmt::Let { init, .. } => {
                if let Some(e) = init {
                    e.visit_mut(f)
                }
            }
            Stmt::Assign { place, value, .. } => {
                if let Place::Index(_, i) = place {
                    i.visit_mut(f)
                }
                value.visit_mut(f)
            }
            Stmt::Push { value, .. } => value.visit_mut(f),
            Stmt::Eval(e) => e.visit_mut(f),
            Stmt::If { cond, then, els } => {
                cond.visit_mut(f);
                visit_exprs_mut(&mut then.stmts, f);
                if let Some(b) = els {
                    visit_exprs_mut(&mut b.stmts, f)
                }
            }
            Stmt::Match { scrut, arms } => {
                scrut.visit_mut(f);
                for a in arms {
                    visit_exprs_mut(&mut a.body.stmts, f)
                }
            }
            Stmt::For { range, body, .. } => {
                let Range::Bounds {
                    start, end, step, ..
                } = range;
                start.visit_mut(f);
                end.visit_mut(f);
                if let Some(s) = step {
                    s.visit_mut(f)
                }
                visit_exprs_mut(&mut body.stmts, f)
            }
            Stmt::While { cond, body, .. } => {
                cond.visit_mut(f);
                visit_exprs_mut(&mut body.stmts, f)
            }
            Stmt::Loop { body, .. } | Stmt::Block(body) => visit_exprs_mut(&mut body.stmts, f),
            Stmt::Return { value, .. } => {
                if let Some(e) = value {
                    e.visit_mut(f)
                }
            }
            Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Macro(..) => {}
        }
    }
}

impl Function {
    /// Whether the body uses variable `v` whole as a value, other than borrowed (`&v`): moved
    /// into a variable, a tuple or a call.
    pub fn moves(&self, v: VarId) -> bool {
        fn moves(e: &Expr, v: VarId) -> bool {
            match &e.kind {
                ExprKind::Var(w) => *w == v,
                ExprKind::Ref(inner) if matches!(inner.kind, ExprKind::Var(_)) => false,
                _ => e.children().into_iter().any(|c| moves(c, v)),
            }
        }
        let mut moved = self.tail.as_ref().is_some_and(|t| moves(t, v));
        walk_exprs(&self.body, &mut |e| moved |= moves(e, v));
        moved
    }
}

/// Visits every statement (pre-order), descending into nested blocks.
pub fn visit_stmts<'a>(b: &'a Block, f: &mut dyn FnMut(&'a Stmt)) {
    visit_stmt_list(&b.stmts, f)
}

/// [`visit_stmts`] over a statement list.
pub fn visit_stmt_list<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in stmts {
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

impl Expr {
    /// Whether two expressions compute the same value from the same variables: the same tree,
    /// whatever their spans and ids. Syntax the IR keeps verbatim (opaque paths, the types and
    /// suffixes of conversions, plain calls) compares by its tokens.
    pub fn same(&self, other: &Expr) -> bool {
        use ExprKind as K;
        let all =
            |a: &[Expr], b: &[Expr]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y));
        let opt = |a: &Option<Box<Expr>>, b: &Option<Box<Expr>>| match (a, b) {
            (Some(x), Some(y)) => x.same(y),
            (None, None) => true,
            _ => false,
        };
        match (&self.kind, &other.kind) {
            (K::Lit(a), K::Lit(b)) => a == b,
            (K::Var(a), K::Var(b)) | (K::Len(a), K::Len(b)) => a == b,
            (
                K::Member {
                    base: a,
                    members: ma,
                    ..
                },
                K::Member {
                    base: b,
                    members: mb,
                    ..
                },
            ) => a == b && ma.to_string() == mb.to_string(),
            (K::Opaque { tokens: a, .. }, K::Opaque { tokens: b, .. }) => same_tokens(a, b),
            (K::Index { base: a, index: i }, K::Index { base: b, index: j }) => a == b && i.same(j),
            (
                K::Binary { op, lhs, rhs },
                K::Binary {
                    op: op2,
                    lhs: l2,
                    rhs: r2,
                },
            ) => op == op2 && lhs.same(l2) && rhs.same(r2),
            (K::Unary { op, expr }, K::Unary { op: op2, expr: e2 }) => op == op2 && expr.same(e2),
            (
                K::Cast { expr, ty, form },
                K::Cast {
                    expr: e2,
                    ty: t2,
                    form: f2,
                },
            ) => expr.same(e2) && ty == t2 && form.same(f2),
            (
                K::Method { recv, method, args },
                K::Method {
                    recv: r2,
                    method: m2,
                    args: a2,
                },
            ) => method == m2 && recv.same(r2) && all(args, a2),
            (K::ElemConst { seq, one }, K::ElemConst { seq: s2, one: o2 }) => {
                seq == s2 && one == o2
            }
            (
                K::Call { func, args, .. },
                K::Call {
                    func: f2, args: a2, ..
                },
            ) => func == f2 && all(args, a2),
            (
                K::PlainCall {
                    func, args, suffix, ..
                },
                K::PlainCall {
                    func: f2,
                    args: a2,
                    suffix: s2,
                    ..
                },
            ) => same_tokens(func, f2) && same_tokens(suffix, s2) && all(args, a2),
            (
                K::PlainMethod {
                    recv,
                    method,
                    turbofish,
                    args,
                    ..
                },
                K::PlainMethod {
                    recv: r2,
                    method: m2,
                    turbofish: t2,
                    args: a2,
                    ..
                },
            ) => method == m2 && same_tokens(turbofish, t2) && recv.same(r2) && all(args, a2),
            (K::Tuple(a), K::Tuple(b))
            | (K::Array(a), K::Array(b))
            | (K::VecList(a), K::VecList(b)) => all(a, b),
            (K::ArrayRepeat { elem, len }, K::ArrayRepeat { elem: e2, len: l2 }) => {
                elem.same(e2) && same_tokens(len, l2)
            }
            (K::VecRepeat { elem, len }, K::VecRepeat { elem: e2, len: l2 }) => {
                elem.same(e2) && len.same(l2)
            }
            (K::VecNew { capacity }, K::VecNew { capacity: c2 }) => opt(capacity, c2),
            (K::CopySeq(a, t), K::CopySeq(b, t2)) => a == b && t == t2,
            (
                K::Field { base, index },
                K::Field {
                    base: b2,
                    index: i2,
                },
            ) => index == i2 && base.same(b2),
            (K::Ref(a), K::Ref(b))
            | (K::StopGradient(a), K::StopGradient(b))
            | (K::Fixed(a, _), K::Fixed(b, _)) => a.same(b),
            (K::MutRef(a, _, r), K::MutRef(b, _, r2)) => {
                a == b
                    && match (r, r2) {
                        (None, None) => true,
                        (Some(r), Some(r2)) => {
                            r.inclusive == r2.inclusive
                                && opt(&r.start, &r2.start)
                                && opt(&r.end, &r2.end)
                        }
                        _ => false,
                    }
            }
            (
                K::SubSlice {
                    base,
                    start,
                    end,
                    inclusive,
                    array,
                },
                K::SubSlice {
                    base: b2,
                    start: s2,
                    end: e2,
                    inclusive: i2,
                    array: a2,
                },
            ) => base == b2 && inclusive == i2 && array == a2 && opt(start, s2) && opt(end, e2),
            _ => false,
        }
    }
}

impl CastForm {
    fn same(&self, other: &CastForm) -> bool {
        match (self, other) {
            (CastForm::As, CastForm::As) => true,
            (
                CastForm::Call { func, suffix },
                CastForm::Call {
                    func: f2,
                    suffix: s2,
                },
            ) => same_tokens(func, f2) && same_tokens(suffix, s2),
            (CastForm::Method(a), CastForm::Method(b)) => same_tokens(a, b),
            _ => false,
        }
    }
}

/// Verbatim user syntax (a path, a type, a suffix) compared token by token.
fn same_tokens(a: &TokenStream, b: &TokenStream) -> bool {
    a.to_string() == b.to_string()
}

/// The identifiers in verbatim tokens (a type, a macro's arguments), groups included; with
/// `format_strings`, also the names a string literal captures (`"{x}"`, `"{x:.3}"`).
pub fn token_names(ts: &TokenStream, format_strings: bool) -> Vec<String> {
    let mut out = Vec::new();
    for t in ts.clone() {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => {
                out.extend(token_names(&g.stream(), format_strings))
            }
            proc_macro2::TokenTree::Literal(l) if format_strings => {
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
