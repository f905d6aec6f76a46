//! The macro's view of the rule table: takes a method name, gives how the method's derivative
//! rule is called. No derivative is computed here: the rules themselves live in
//! `autodiff_runtime::rules`; this table only says which exist and what arguments they take.

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
}

pub fn float_method(name: &str) -> Option<MethodRule> {
    use Arity::*;
    use Linearity::*;
    let (arity, linearity) = match name {
        "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" | "asinh"
        | "acosh" | "atanh" | "exp" | "exp2" | "exp_m1" | "ln" | "log2" | "log10" | "ln_1p"
        | "sqrt" | "cbrt" | "recip" | "abs" => (Unary, General),
        "to_degrees" | "to_radians" | "fract" => (Unary, Linear),
        "signum" | "floor" | "ceil" | "round" | "trunc" => (Unary, Zero),
        "powi" => (PowI, General),
        "atan2" | "hypot" | "powf" | "log" | "max" | "min" => (Binary, General),
        "mul_add" | "clamp" => (Ternary, General),
        "sin_cos" => (SinCos, General),
        "is_nan" | "is_finite" | "is_infinite" | "is_normal" | "is_sign_positive"
        | "is_sign_negative" => (Predicate, Zero),
        _ => return None,
    };
    Some(MethodRule { arity, linearity })
}

/// Number of arguments (besides the receiver) a float method takes.
pub fn arg_count(arity: Arity) -> usize {
    match arity {
        Arity::Unary | Arity::SinCos | Arity::Predicate => 0,
        Arity::PowI | Arity::Binary => 1,
        Arity::Ternary => 2,
    }
}

/// Which primal values `(a, b, y)` the partial derivative of a binary operator with respect to
/// each operand reads, as `rules.rs` computes them (`mul`: d/da = b, d/db = a; `div`: d/da = 1/b,
/// d/db = -y/b; `rem`: d/da = 1, d/db from a, b, y). The reverse sweep keeps only these values;
/// the others are passed as zeros. Must match `autodiff_runtime::rules`: the dot-product tests
/// fail otherwise.
pub fn binop_reads(op: crate::ir::BinOp) -> ([bool; 3], [bool; 3]) {
    use crate::ir::BinOp::*;
    match op {
        Add | Sub => ([false; 3], [false; 3]),
        Mul => ([false, true, false], [true, false, false]),
        Div => ([false, true, false], [false, true, true]),
        Rem => ([false; 3], [true, true, true]),
        _ => ([true; 3], [true; 3]),
    }
}
