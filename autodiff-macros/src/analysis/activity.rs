//! Activity analysis: takes the IR with its active arguments marked, gives every variable its
//! `active` flag (it depends on an active argument) by a fixpoint over all assignments, and
//! reports active values flowing where no derivative rule exists.

use crate::diag::Diag;
use crate::ir::visit_stmts;
use crate::ir::*;

pub fn analyze(f: &mut Function, diag: &mut Diag) {
    let marks: Vec<(VarId, bool)> = f.body_params().map(|p| (p.var, p.active)).collect();
    for (v, active) in marks {
        f.vars[v].active = active;
    }
    // Only float-shaped variables can carry a derivative; iterate to a fixpoint. It ends within
    // `vars + 1` rounds: a round continues the loop only if it turns some flag on, and flags are
    // never turned off.
    loop {
        let mut newly = Vec::new();
        visit_stmts(&f.body, &mut |s| match s {
            Stmt::Let {
                pat, init: Some(e), ..
            } if expr_active(&f.vars, e) => {
                let mut vs = Vec::new();
                pat.vars(&mut vs);
                newly.extend(vs);
                // What the call writes through `&mut` depends on what it reads.
                newly.extend(e.mut_borrows());
            }
            Stmt::Eval(e) if expr_active(&f.vars, e) => newly.extend(e.mut_borrows()),
            Stmt::Assign { place, value, .. } if expr_active(&f.vars, value) => {
                newly.push(place.var());
            }
            Stmt::Push { vec, value, .. } if expr_active(&f.vars, value) => {
                newly.push(*vec);
            }
            _ => {}
        });
        let mut changed = false;
        for v in newly {
            let var = &mut f.vars[v];
            if !var.active && var.shape.is_float() {
                var.active = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    check(f, diag);
}

/// Whether an expression's value depends on an active variable.
pub fn expr_active(vars: &[Var], e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_)
        | ExprKind::Opaque { .. }
        | ExprKind::Len(_)
        | ExprKind::ElemConst { .. }
        | ExprKind::PlainCall { .. }
        | ExprKind::PlainMethod { .. }
        | ExprKind::VecNew { .. }
        | ExprKind::StopGradient(_)
        | ExprKind::Fixed(..)
        | ExprKind::Poison => false,
        ExprKind::Var(v) | ExprKind::CopySeq(v, _) | ExprKind::MutRef(v, ..) => vars[*v].active,
        ExprKind::Index { base, .. } | ExprKind::SubSlice { base, .. } => vars[*base].active,
        ExprKind::Member { base, shape, .. } => vars[*base].active && shape.is_float(),
        ExprKind::Binary { op, lhs, rhs } => {
            op.is_arith() && (expr_active(vars, lhs) || expr_active(vars, rhs))
        }
        ExprKind::Unary { op, expr } => *op == UnOp::Neg && expr_active(vars, expr),
        ExprKind::Cast { expr, .. } => {
            crate::ir::shape_of(vars, e) == Shape::Scalar && expr_active(vars, expr)
        }
        ExprKind::Method { recv, args, method } => {
            let predicate = crate::methods::float_method(&method.to_string())
                .is_some_and(|r| r.arity == crate::methods::Arity::Predicate);
            !predicate && (expr_active(vars, recv) || args.iter().any(|a| expr_active(vars, a)))
        }
        ExprKind::Call { args, .. } => args.iter().any(|a| expr_active(vars, a)),
        ExprKind::Tuple(items) | ExprKind::Array(items) | ExprKind::VecList(items) => {
            items.iter().any(|i| expr_active(vars, i))
        }
        ExprKind::ArrayRepeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
            expr_active(vars, elem)
        }
        ExprKind::Field { base, .. } | ExprKind::Ref(base) => expr_active(vars, base),
    }
}

/// Tokens printed without the spaces `to_string` puts between them (but around `as`).
fn compact(ts: &proc_macro2::TokenStream) -> String {
    ts.to_string()
        .split(' ')
        .map(|t| if t == "as" { " as " } else { t })
        .collect()
}

/// A plain call or method (no derivative) with an active argument or receiver: reported.
fn plain_with_active_input(vars: &[Var], e: &Expr) -> bool {
    match &e.kind {
        ExprKind::PlainCall { args, .. } => args.iter().any(|a| expr_active(vars, a)),
        ExprKind::PlainMethod { recv, args, .. } => {
            expr_active(vars, recv) || args.iter().any(|a| expr_active(vars, a))
        }
        _ => false,
    }
}

/// Active values reaching operations without a derivative: errors at their tokens.
fn check(f: &Function, diag: &mut Diag) {
    let vars = &f.vars;
    let mut visit = |e: &Expr| {
        e.visit(&mut |n| match &n.kind {
            ExprKind::PlainCall { args, func, .. } if args.iter().any(|a| expr_active(vars, a)) => {
                let func = compact(func);
                let conversion = func
                    .rsplit("::")
                    .next()
                    .is_some_and(|l| l == "from" || l.starts_with("from_"));
                let msg = if conversion {
                    format!(
                        "#[differentiate] cannot differentiate through `{func}(..)` applied to \
                         a value that depends on the active arguments: a conversion carries the \
                         derivative when written `f64::from(x)`, `x as f32`, `x.into()`, \
                         `T::from(x).unwrap()`, `T::from_f64(x).unwrap()`, \
                         `NumCast::from(x).unwrap()` or `x.to_f64().unwrap()`, with `T` f32, f64 \
                         or a type parameter bounded by `Float`"
                    )
                } else {
                    format!(
                        "#[differentiate] cannot differentiate through `{func}(..)`: its \
                         argument depends on the active arguments; keep active values in \
                         floats, arrays, `Vec`s and tuples of them"
                    )
                };
                diag.error(n.span, msg);
            }
            // An argument the callee takes without a tangent (`registry.rs`).
            ExprKind::Fixed(inner, fixed) if expr_active(vars, inner) => {
                let FixedArg { callee, param, wrt } = &**fixed;
                diag.error(
                    inner.span,
                    format!(
                        "`{callee}` is differentiated only with respect to `{wrt}` \
                         (`wrt({wrt})`); its argument `{param}` receives a value that depends on \
                         the inputs here: add `{param}` to `{callee}`'s `wrt(...)`, or pass \
                         `stop_gradient(..)`"
                    ),
                );
            }
            // A method of a plain call that is itself reported (`NumCast::from(x).unwrap_or(y)`):
            // one error, at the inner call.
            ExprKind::PlainMethod { recv, .. } if plain_with_active_input(vars, recv) => {}
            ExprKind::PlainMethod {
                recv, args, method, ..
            } if expr_active(vars, recv) || args.iter().any(|a| expr_active(vars, a)) => {
                // An argument of a user type left out of `wrt(...)` (`&mut self` calling
                // `self.step(dt)` with `dt` active): its methods are plain code.
                let left_out = match &recv.kind {
                    ExprKind::Var(v) if !expr_active(vars, recv) => {
                        let var = &vars[*v];
                        let user_type = |t: &syn::Type| matches!(t, syn::Type::Path(_));
                        let ty = match &var.ty {
                            Some(syn::Type::Reference(r)) => Some(&*r.elem),
                            t => t.as_ref(),
                        };
                        (matches!(var.origin, VarOrigin::Param(_)) && ty.is_some_and(user_type))
                            .then(|| var.name.to_string())
                    }
                    _ => None,
                };
                let hint = match left_out {
                    Some(name) => format!(
                        "; `{name}` is not differentiated (left out of `wrt(...)`), so its \
                         methods are plain code and cannot take active values: name it in \
                         `wrt(..)` if the method changes or reads its floats"
                    ),
                    None => String::new(),
                };
                diag.error(
                    method.span(),
                    format!(
                        "no derivative rule for the method `{method}` on an active value{hint}"
                    ),
                );
            }
            ExprKind::Binary { op, lhs, rhs }
                if matches!(
                    op,
                    BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr
                ) && (expr_active(vars, lhs) || expr_active(vars, rhs)) =>
            {
                diag.error(
                    n.span,
                    "bitwise operators cannot be applied to active floats",
                );
            }
            ExprKind::Cast { expr, .. }
                if expr_active(vars, expr) && crate::ir::shape_of(vars, n) == Shape::Other =>
            {
                diag.unsupported(
                    n.span,
                    "casting an active value to a type parameter or unknown type",
                    "cast only to f32 or f64, or keep the value in its own type",
                );
            }
            _ => {}
        });
    };
    walk_exprs(&f.body, &mut visit);
    if let Some(t) = &f.tail {
        visit(t);
    }
    // An argument left out of `wrt(...)` and written with active values (a `&mut` workspace,
    // a `mut` argument) gets a tangent and an adjoint of its own, zero at entry: nothing to
    // check here.
    // An active value stored where the macro keeps no derivative (`let o: Option<f64> = ..`).
    visit_stmts(&f.body, &mut |s| {
        let (targets, value) = match s {
            Stmt::Let {
                pat: Pat::Bind(v),
                init: Some(e),
            } => (vec![*v], e),
            Stmt::Assign { place, value, .. } => (vec![place.var()], value),
            Stmt::Push { vec, value } => (vec![*vec], value),
            _ => return,
        };
        for v in targets {
            let var = &vars[v];
            if !var.shape.is_float() && expr_active(vars, value) {
                let ty = var
                    .ty
                    .as_ref()
                    .map(|t| format!(" (`{}`)", quote::ToTokens::to_token_stream(t)))
                    .unwrap_or_default()
                    .replace(" <", "<")
                    .replace("< ", "<")
                    .replace(" >", ">");
                diag.unsupported(
                    value.span,
                    &format!(
                        "storing a value that depends on the active arguments in `{}`, whose \
                         type{ty} carries no derivative",
                        var.name
                    ),
                    "keep active values in floats, arrays, `Vec`s and tuples of them",
                );
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::testing::{analysed, errors, var};
    use syn::parse_quote;

    #[test]
    fn activity_follows_dependencies_through_assignments() {
        let f = analysed(parse_quote! {
            fn f(x: f64, c: f64, n: usize) -> f64 {
                let k = 2.0 * c;
                let mut s = 0.0;
                let mut count = 0;
                for i in 0..n {
                    s += k;
                    count += 1;
                    if i > 1 {
                        s = s * x;
                    }
                }
                let unused = c * 3.0;
                s + unused + count as f64
            }
        });
        let active = |name: &str| f.vars[var(&f, name)].active;
        // Every float argument is active by default; integers never are.
        assert!(active("x") && active("c") && !active("n"));
        // `s` starts as a constant but is later assigned active values: active from its
        // declaration (the fixpoint).
        assert!(active("s") && active("k") && active("unused"));
        assert!(!active("count") && !active("i"));
    }

    #[test]
    fn wrt_selects_the_active_arguments() {
        let item: syn::ItemFn = parse_quote! {
            fn f(x: f64, c: f64) -> f64 {
                let k = 2.0 * c;
                x * k
            }
        };
        let attr: crate::attr::Attr = parse_quote!(wrt(x));
        let mut diag = crate::diag::Diag::default();
        let mut f = crate::lower::lower(&item, &attr, &mut diag).expect("lowered");
        super::analyze(&mut f, &mut diag);
        assert!(diag.finish().is_ok());
        assert!(f.vars[var(&f, "x")].active);
        assert!(!f.vars[var(&f, "c")].active && !f.vars[var(&f, "k")].active);
    }

    #[test]
    fn active_values_without_rules_are_rejected() {
        let errs = errors(parse_quote! {
            fn f(x: f64, n: u32) -> f64 {
                let k = n as f64;
                let y = x as Real;
                let o = Some(x * k);
                y + o.unwrap()
            }
        });
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(
            errs[0].contains("casting an active value to a type parameter"),
            "{errs:?}"
        );
        assert!(errs[1].contains("through `Some(..)`"), "{errs:?}");
    }
}
