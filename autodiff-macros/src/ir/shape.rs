//! The shape query: takes an expression and the variable table, gives the expression's shape
//! (scalar, sequence, tuple, integer...) as far as syntax shows it.

use super::*;
use crate::methods;

/// Integer type names (a cast to one of them gives an index, never a derivative).
pub const INT_TYPES: &[&str] = &[
    "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
];

pub fn shape_of(vars: &[Var], e: &Expr) -> Shape {
    match &e.kind {
        ExprKind::Lit(l) => match l {
            syn::Lit::Float(_) => Shape::Scalar,
            syn::Lit::Int(i) if matches!(i.suffix(), "f32" | "f64") => Shape::Scalar,
            syn::Lit::Int(_) => Shape::Int,
            syn::Lit::Bool(_) => Shape::Bool,
            _ => Shape::Other,
        },
        ExprKind::Var(v) | ExprKind::MutRef(v, _, None) => vars[*v].shape.clone(),
        ExprKind::MutRef(v, _, Some(_)) => match vars[*v].shape {
            Shape::Seq(_) => Shape::Seq(SeqKind::Slice),
            _ => Shape::Other,
        },
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
        ExprKind::Cast { ty, form, .. } => {
            let n = match &**ty {
                syn::Type::Path(p) => p
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default(),
                _ => String::new(),
            };
            if n == "f32" || n == "f64" {
                Shape::Scalar
            } else if INT_TYPES.contains(&n.as_str()) {
                Shape::Int
            } else if matches!(form, CastForm::As) {
                // `x as T`: not a cast Rust allows to a type parameter; an alias the macro
                // cannot read.
                Shape::Other
            } else {
                // Lowering writes other conversions only to float type parameters and to
                // targets rustc infers from a float source (`x.into()`).
                Shape::Scalar
            }
        }
        ExprKind::Method { method, .. } => match methods::float_method(&method.to_string()) {
            Some(r) if r.arity == methods::Arity::SinCos => {
                Shape::Tuple(vec![Shape::Scalar, Shape::Scalar])
            }
            Some(r) if r.arity == methods::Arity::Predicate => Shape::Bool,
            _ => Shape::Scalar,
        },
        ExprKind::PlainMethod { shape, .. } => shape.clone(),
        ExprKind::Len(_) => Shape::Int,
        ExprKind::Member { shape, .. } => shape.clone(),
        ExprKind::ElemConst { .. } => Shape::Scalar,
        ExprKind::Call { shape, .. } => shape.clone(),
        ExprKind::PlainCall { shape, .. } => shape.clone(),
        ExprKind::StopGradient(inner) => shape_of(vars, inner),
        // Passed without a tangent: to the emitters, not a float.
        ExprKind::Fixed(..) => Shape::Other,
        ExprKind::Tuple(items) => Shape::Tuple(items.iter().map(|i| shape_of(vars, i)).collect()),
        ExprKind::Array(items) => {
            if items.iter().any(|i| shape_of(vars, i) == Shape::Scalar) {
                Shape::Seq(SeqKind::Array(ArrayLen::of_items(items.len())))
            } else {
                Shape::Other
            }
        }
        ExprKind::ArrayRepeat { elem, len } => {
            if shape_of(vars, elem) == Shape::Scalar {
                Shape::Seq(SeqKind::Array(ArrayLen::new(len.clone())))
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
        ExprKind::SubSlice { base, array, .. } => match (&vars[*base].shape, array) {
            // A row of a nested array, borrowed as `&[T; N]`.
            (Shape::Seq(_), Some(Nesting::Row(n))) => Shape::Seq(SeqKind::Array(n.clone())),
            (Shape::Seq(_), _) => Shape::Seq(SeqKind::Slice),
            _ => Shape::Other,
        },
        ExprKind::Poison => Shape::Other,
    }
}
