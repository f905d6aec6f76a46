//! A struct output once the body is lowered: takes the lowered output (the tuple of the fields
//! the body's value lists, planned by `struct_values.rs` as `OutPlan`), gives the float fields
//! the emitters see (`Output::ty`/`shape`) and the others as constants computed before the body
//! (`Output::strukt`); anything else is reported.

use super::struct_values::OutPlan;
use super::*;

impl Lowerer<'_> {
    /// A struct output once the body is lowered: its value, the tuple of the literal's fields
    /// (`tail`), split into the float fields the emitters see (`o.ty`, `o.shape`: the one float,
    /// or a tuple of them) and the others, constants computed before the body from their
    /// expressions in `block` (the body before struct arguments' fields are replaced), which may
    /// read only arguments the body does not write.
    pub(super) fn finish_struct_output(
        &mut self,
        o: &mut Output,
        plan: &OutPlan,
        block: &syn::Block,
        tail: &mut Option<Expr>,
        body: &mut [Stmt],
    ) {
        let Some(so) = o.strukt.as_mut() else {
            return;
        };
        if plan.whole {
            self.whole_struct_output(o, tail.as_mut(), block);
            return;
        }
        let syntax: Vec<syn::Expr> = match block.stmts.last() {
            Some(syn::Stmt::Expr(syn::Expr::Tuple(t), None)) => t.elems.iter().cloned().collect(),
            _ => Vec::new(),
        };
        let items = match tail.as_ref().map(|t| &t.kind) {
            // `s` or `State { ..s }`: nothing listed (the body's value is `()`).
            _ if plan.members.is_empty() && plan.base.is_some() => Vec::new(),
            Some(ExprKind::Tuple(items))
                if items.len() == plan.members.len() && syntax.len() == items.len() =>
            {
                items.clone()
            }
            // An error was reported where the value was lowered.
            _ => return,
        };
        let span = tail.as_ref().map_or_else(Span::call_site, |t| t.span);
        let mut floats = Vec::new();
        let mut shapes = Vec::new();
        let mut kept = Vec::new();
        let mut copies = Vec::new();
        for ((item, (member, tokens)), syntax) in items.into_iter().zip(&plan.members).zip(syntax) {
            // The sequence field of a copy whose elements the body writes (`t.x` of `t`): the
            // companions give the copy itself (`codegen/copies.rs`).
            if let ExprKind::Var(v) = &item.kind {
                let name = &self.vars[*v].name;
                // (Given twice, `State { x: t.x, y: t.x }`, it is reported below as a
                // sequence field: one clone cannot be moved into two fields.)
                if self.copy_seqs.iter().any(|(id, ..)| id == name)
                    && !copies.iter().any(|(_, n)| n == name)
                {
                    copies.push((member.clone(), name.clone()));
                    continue;
                }
            }
            let shape = self.shape_of(&item);
            match shape {
                Shape::Scalar | Shape::Seq(SeqKind::Array(_)) => {
                    floats.push((member.clone(), tokens.clone()));
                    shapes.push(shape);
                    kept.push(item);
                }
                Shape::Int | Shape::Bool | Shape::Other => {
                    let mut reads = Vec::new();
                    item.reads(&mut reads);
                    let locals = reads.iter().any(|v| {
                        let var = &self.vars[*v];
                        !matches!(var.origin, VarOrigin::Param(_))
                            || var.mutable
                            || var.in_out_ref()
                    });
                    // An integer or a bool carries no derivative whatever it is computed
                    // from; a value of a type the macro cannot see must not be computed from
                    // floats (no rule would carry their derivative into it).
                    let floats = shape == Shape::Other
                        && reads.iter().any(|v| self.vars[*v].shape.is_float());
                    if locals {
                        self.diag.unsupported_at(
                            tokens,
                            "a field of a struct output that is not a float and is computed from \
                             local variables, from arguments the function writes, or differently \
                             in different branches (yet)",
                            "compute it from the arguments and constants only, by the same \
                             tokens wherever the function gives its value (`steps: s.steps + \
                             1`), or make it a float",
                        );
                    } else if floats {
                        self.diag.unsupported_at(
                            tokens,
                            "a field of a struct output of a type it cannot see computed from \
                             float arguments",
                            "compute the field from integers and constants, or make it a float \
                             computed by arithmetic and float methods",
                        );
                    }
                    so.consts.push((member.clone(), tokens.clone(), syntax));
                }
                Shape::Seq(_) => self.diag.unsupported_at(
                    tokens,
                    "a `Vec` or slice field in a struct output (yet)",
                    "give the struct an array field (`[f64; N]`), or compute the `Vec` in a \
                     function of its own",
                ),
                Shape::Tuple(_) | Shape::Struct => self.diag.unsupported_at(
                    tokens,
                    "a tuple or struct field in a struct output (yet)",
                    "give the struct float and array fields",
                ),
            }
        }
        // `return (a, n, b);` (`lower/struct_exits.rs`) gives the float fields the tail gives.
        let floats_at: Vec<bool> = plan
            .members
            .iter()
            .map(|(m, _)| floats.iter().any(|(f, _)| f == m))
            .collect();
        keep_float_returns(body, &floats_at, span);
        so.path = plan.path.clone();
        so.base = plan.base.clone();
        so.copies = copies;
        if floats.is_empty() {
            if plan.base.is_none() {
                self.diag.unsupported_at(
                    &so.ty,
                    "a struct output none of whose fields is a float (as read from the literal)",
                    "return a float value, or give the struct a float field",
                );
                return;
            }
            // Every float field is the base's: the emitters see a constant output, whose seed
            // the companions pass as zero (`codegen/structs.rs`).
            o.ty = syn::parse_quote!(f64);
            o.shape = Shape::Scalar;
            *tail = Some(Expr::new(ExprKind::Lit(syn::parse_quote!(0.0_f64)), span));
            return;
        }
        let ty_of = |s: &Shape| -> syn::Type {
            match s {
                Shape::Seq(SeqKind::Array(n)) => syn::parse_quote!([_; #n]),
                _ => syn::parse_quote!(_),
            }
        };
        if shapes.len() == 1 {
            o.ty = ty_of(&shapes[0]);
            o.shape = shapes[0].clone();
            *tail = kept.pop();
        } else {
            let tys = shapes.iter().map(ty_of);
            o.ty = syn::parse_quote!((#(#tys,)*));
            o.shape = Shape::Tuple(shapes);
            *tail = Some(Expr::new(ExprKind::Tuple(kept), span));
        }
        so.floats = floats;
    }
}

impl Lowerer<'_> {
    /// A struct output given whole by the body (`let a = step(s, dt); a`, `step(s, dt)`,
    /// `a.clone()`): the emitters see one value of `Shape::Struct` (its tangent and adjoint the
    /// struct's `Tangent`), the companions give it as it is (`codegen/structs.rs`). Any other
    /// value is reported at its tokens.
    fn whole_struct_output(&mut self, o: &mut Output, tail: Option<&mut Expr>, block: &syn::Block) {
        let ok = match tail.map(|t| &mut t.kind) {
            Some(ExprKind::Var(v)) => {
                self.vars[*v].shape == Shape::Struct
                    && !matches!(self.vars[*v].origin, VarOrigin::Param(_))
            }
            Some(ExprKind::CopySeq(v, CopyTo::Struct(_))) => self.vars[*v].shape == Shape::Struct,
            // A differentiated call in the place of a value of the output's type.
            Some(ExprKind::Call { shape, .. }) => {
                *shape = Shape::Struct;
                true
            }
            Some(ExprKind::Poison) => return,
            _ => false,
        };
        if !ok {
            let at: TokenStream = match block.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => e.to_token_stream(),
                _ => o.ty.to_token_stream(),
            };
            let ty = o.strukt.as_ref().map(|so| &so.ty);
            report_struct_output(self.diag, &at, ty);
            return;
        }
        let Some(so) = o.strukt.as_mut() else { return };
        so.whole = true;
        o.ty = so.ty.clone();
        o.elem_ty = syn::parse_quote!(_);
        o.shape = Shape::Struct;
    }
}

/// A struct output's value of a form the macro does not take, at `at`; an output type that reads
/// like a type parameter of an enclosing `impl` (`T`), which the macro cannot see, named as such.
pub(super) fn report_struct_output(
    diag: &mut Diag,
    at: &dyn quote::ToTokens,
    ty: Option<&syn::Type>,
) {
    if let Some(t) = ty.and_then(super::impl_param_like) {
        diag.unsupported_at(
            ty.map_or(at, |t| t as &dyn quote::ToTokens),
            &format!(
                "an output of type `{t}`, read as a struct: the macro cannot see the `impl`'s type \
                 parameters (yet)"
            ),
            &format!(
                "if `{t}` is a float type parameter of the `impl` (`impl<{t}: Float> ..`), name \
                 it: `#[differentiate(float({t}))]`"
            ),
        );
        return;
    }
    diag.unsupported_at(
        at,
        "this value as a struct output (yet)",
        "end the function with a struct literal (`State { x, v: 2.0 * v }`, `State { x, \
         ..*s }`), a struct built in it (`let s2 = State { .. }; ...; s2`), a struct \
         argument taken by value (`s`), or a struct a differentiated call gives (`let a \
         = step(s, dt); a`, `step(s, dt)`)",
    );
}

/// The `return`s of a struct output's body, each the tuple of the output's fields
/// (`lower/struct_exits.rs`), cut to the float fields (`floats_at`): the one float, a tuple of
/// them, or `0.0` when there are none (the output then is the base's).
fn keep_float_returns(stmts: &mut [Stmt], floats_at: &[bool], span: Span) {
    for s in stmts {
        match s {
            Stmt::Return { value: Some(v), .. } => {
                let ExprKind::Tuple(items) = &mut v.kind else {
                    continue;
                };
                if items.len() != floats_at.len() {
                    continue;
                }
                let mut kept: Vec<Expr> = std::mem::take(items)
                    .into_iter()
                    .zip(floats_at)
                    .filter(|(_, f)| **f)
                    .map(|(e, _)| e)
                    .collect();
                *v = match kept.len() {
                    0 => Expr::new(ExprKind::Lit(syn::parse_quote!(0.0_f64)), span),
                    1 => kept
                        .pop()
                        .unwrap_or_else(|| Expr::new(ExprKind::Poison, span)),
                    _ => Expr::new(ExprKind::Tuple(kept), v.span),
                };
            }
            Stmt::If { then, els, .. } => {
                keep_float_returns(&mut then.stmts, floats_at, span);
                if let Some(b) = els {
                    keep_float_returns(&mut b.stmts, floats_at, span);
                }
            }
            Stmt::Match { arms, .. } => {
                for a in arms {
                    keep_float_returns(&mut a.body.stmts, floats_at, span);
                }
            }
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::Block(body) => keep_float_returns(&mut body.stmts, floats_at, span),
            _ => {}
        }
    }
}
