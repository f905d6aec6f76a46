//! The macro's view of the rule table: takes a method name, gives how the method's derivative
//! rule is called. No derivative is computed here and nothing is declared here: the calling
//! convention and the linearity tag are derived from the primitive table in `primitives.rs`,
//! which the runtime's rules are checked against; the rules themselves live in
//! `autodiff_runtime::rules`.

use crate::primitives;

/// How a float method's rule is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// `x.m()`: rule `m(x, y) -> dy/dx`.
    Unary,
    /// `x.powi(n)`: rule `powi(x, n, y) -> dy/dx`, `n` an integer.
    PowI,
    /// `x.m(a)`: rule `m(x, a, y) -> (dy/dx, dy/da)`.
    Binary,
    /// `x.m(a, b)`: rule `m(x, a, b, y) -> (dy/dx, dy/da, dy/db)`.
    Ternary,
    /// `x.sin_cos()`: rule `sin_cos(x, (s, c)) -> (ds/dx, dc/dx)`.
    SinCos,
    /// `x.is_nan()` and friends: no derivative, a bool result.
    Predicate,
}

/// Whether the rule's partial derivatives depend on the operands' values; drives what the
/// reverse sweep must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linearity {
    /// Constant partials (`to_degrees`, `fract`): operand values are not needed.
    Linear,
    /// Derivative zero everywhere it exists (`floor`, `signum`): nothing propagates.
    Zero,
    /// Partials depend on values.
    General,
}

pub struct MethodRule {
    pub arity: Arity,
    pub linearity: Linearity,
    /// Where its partials can be infinite or NaN.
    pub edge: primitives::Edge,
}

/// The float method `name`'s rule, derived from its entry in the primitive table.
pub fn float_method(name: &str) -> Option<MethodRule> {
    let p = primitives::method(name)?;
    Some(MethodRule {
        arity: p.arity(),
        linearity: p.linearity(),
        edge: p.edge,
    })
}

/// Number of arguments (besides the receiver) a float method takes.
pub fn arg_count(arity: Arity) -> usize {
    match arity {
        Arity::Unary | Arity::SinCos | Arity::Predicate => 0,
        Arity::PowI | Arity::Binary => 1,
        Arity::Ternary => 2,
    }
}

/// The rule of an arithmetic operator (`mul` for `*`), named like its `std::ops` method.
fn binop_rule(op: crate::ir::BinOp) -> Option<&'static primitives::Primitive> {
    use crate::ir::BinOp::*;
    let name = match op {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Div => "div",
        Rem => "rem",
        _ => return None,
    };
    primitives::operator(name)
}

/// The name of an arithmetic operator's rule in `autodiff_runtime::rules` (`mul` for `*`), or
/// `None` for operators without a derivative (comparisons, bitwise operators).
pub fn binop_rule_name(op: crate::ir::BinOp) -> Option<&'static str> {
    binop_rule(op).map(|p| p.name)
}

/// Where the partials of a binary operator can be infinite or NaN (`div`: a pole at 0).
pub fn binop_edge(op: crate::ir::BinOp) -> primitives::Edge {
    binop_rule(op).map_or(primitives::Edge::Smooth, |p| p.edge)
}

/// Which primal values `(a, b, y)` the partial derivative of a binary operator with respect to
/// each operand reads (`mul`: d/da reads b, d/db reads a), from the primitive table. The reverse
/// sweep keeps only these values; the others are passed as zeros. The runtime's
/// `tests/primitive_table.rs` checks, by evaluating the rules, that the others do not matter.
pub fn binop_reads(op: crate::ir::BinOp) -> ([bool; 3], [bool; 3]) {
    let Some(p) = binop_rule(op) else {
        return ([true; 3], [true; 3]);
    };
    let three = |k: usize| -> [bool; 3] {
        let r = p.reads(k);
        [r[0], r[1], r[2]]
    };
    (three(0), three(1))
}
