//! Small syntax helpers shared by the lowering passes: which `syn` expressions are constants,
//! ranges, unit statements or literal arithmetic, operator mapping, the element type of a
//! sequence type, the source of a slice pattern.

use super::*;

pub(super) fn push_eval(out: &mut Vec<Stmt>, e: Expr) {
    // A bare value statement (`x;`) has no effect; only calls are kept, and methods of values
    // never differentiated (`v.sort()`, `out.clear()` on integer buffers change them).
    let mut plain = false;
    e.visit(&mut |x| plain |= matches!(x.kind, ExprKind::PlainMethod { .. }));
    if e.has_call() || plain {
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
pub(super) fn is_const_syntax(e: &syn::Expr) -> bool {
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

pub(super) fn pattern_binds(p: &syn::Pat) -> bool {
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

pub(super) fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
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
pub(super) fn compound_op(op: &syn::BinOp) -> Option<Option<BinOp>> {
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
pub(super) fn mentioned_names(ts: &TokenStream) -> Vec<String> {
    crate::ir::token_names(ts, true)
}

/// Gives an unsuffixed numeric literal, or a constant expression of them, the float type `ty`
/// (`0.5` becomes `0.5f64`, `-1.0` becomes `-1.0f64`).
pub(super) fn suffix_literal(e: &mut Expr, ty: &str) {
    if !e.is_untyped_constant() {
        return;
    }
    // `-1.0`, `0.5 * 3.0`: every literal of the constant gets the type.
    if let ExprKind::Unary { expr, .. } = &mut e.kind {
        return suffix_literal(expr, ty);
    }
    if let ExprKind::Binary { lhs, rhs, .. } = &mut e.kind {
        suffix_literal(lhs, ty);
        return suffix_literal(rhs, ty);
    }
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

/// Numeric literals combined by arithmetic only: `-1.0`, `(0.5 * 3.0)`.
pub(super) fn is_literal_arithmetic(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
        syn::Expr::Paren(p) => is_literal_arithmetic(&p.expr),
        syn::Expr::Group(g) => is_literal_arithmetic(&g.expr),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && is_literal_arithmetic(&u.expr),
        syn::Expr::Binary(b) => {
            bin_op(&b.op).is_some_and(BinOp::is_arith)
                && is_literal_arithmetic(&b.left)
                && is_literal_arithmetic(&b.right)
        }
        _ => false,
    }
}

pub(super) fn is_range_syntax(e: &syn::Expr) -> bool {
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
pub(super) fn slice_pattern_source(init: &syn::Expr) -> &syn::Expr {
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

/// `e` without the parentheses (or invisible groups) around it: `((x))` is `x`.
pub(super) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}
