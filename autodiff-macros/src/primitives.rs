//! The primitive table: every operation with a derivative rule, declared once.
//!
//! Each entry gives a primitive's name (the name of its rule in `autodiff_runtime::rules`, and of
//! the float method or `std::ops` method it differentiates), its operands, its output(s), and,
//! for each partial derivative the rule returns, the values that partial reads:
//!
//! ```text
//! div(a, b) -> y = [b], [b, y];      // d/da reads b; d/db reads b and y
//! floor(x) -> y = 0;                 // the partial is zero everywhere
//! fract(x) -> y = [];                // the partial reads nothing: it is a constant
//! is_nan(x) -> bool;                 // a predicate: no rule, no partial
//! ```
//!
//! Partials are listed in the order the rule returns them: one per float operand, or, for the
//! two outputs of `sin_cos`, one per output. Everything else is derived from this table:
//!
//! - in this crate, [`crate::methods`]: a method's calling convention ([`Arity`], from its
//!   operands and outputs) and its [`Linearity`] (zero if every partial is `0`, linear if no
//!   partial reads anything), and which values a binary operator's partials read;
//! - in the runtime, through the hidden `__primitive_table!` macro (`primitives/runtime.rs`):
//!   the `Dual` method lists, a build-time check that `rules.rs` has every rule with the signature
//!   its entry gives, and the data its `tests/primitive_table.rs` uses to check, by evaluating the
//!   rules, that a partial does not depend on a value its entry says it does not read (so a wrong
//!   tag fails a test instead of making the reverse sweep pass zeros).
//!
//! At this crate's build time the table is checked too: a name a partial reads that is not an
//! operand or output of its entry is an error at that name, and the const checks at the end of
//! this file reject duplicate names, operand lists no calling convention fits, partial counts
//! that do not match, and tags the emitters cannot follow.

use crate::methods::{Arity, Linearity};

pub(crate) mod runtime;

/// Builds [`METHODS`] and [`OPERATORS`] from the table below, and checks that every name a
/// partial reads is declared by its entry (an undeclared name is "cannot find value").
macro_rules! primitive_table {
    (
        methods { $( $(#[$flag:ident])? $m:ident ( $($ma:ident $(: $mt:ident)?),+ ) -> $mo:tt $(= $($mp:tt),+)? ; )+ }
        operators { $( $(#[$oflag:ident])? $o:ident ( $($oa:ident),+ ) -> $oo:ident = $($op:tt),+ ; )+ }
    ) => {
        /// Float methods the macro differentiates (or, for predicates, lets through), in table
        /// order.
        pub const METHODS: &[Primitive] = &[$(
            Primitive {
                name: stringify!($m),
                operands: &[$(primitive_table!(@operand $ma $(: $mt)?)),+],
                outputs: primitive_table!(@outputs $mo),
                partials: &[$($(primitive_table!(@partial $mp)),+)?],
                edge: primitive_table!(@flag $($flag)?),
            }
        ),+];

        /// Arithmetic operators (`std::ops`, one trait method each), in table order.
        pub const OPERATORS: &[Primitive] = &[$(
            Primitive {
                name: stringify!($o),
                operands: &[$(primitive_table!(@operand $oa)),+],
                outputs: &[stringify!($oo)],
                partials: &[$(primitive_table!(@partial $op)),+],
                edge: primitive_table!(@flag $($oflag)?),
            }
        ),+];

        // Every name a partial reads is an operand or an output of its own entry.
        #[allow(unused_variables)]
        const _: () = {
            $({
                $(let $ma = 0u8;)+
                primitive_table!(@bind $mo);
                $($(primitive_table!(@reads $mp);)+)?
            })+
            $({
                $(let $oa = 0u8;)+
                let $oo = 0u8;
                $(primitive_table!(@reads $op);)+
            })+
        };
    };
    (@flag) => { Edge::Smooth };
    (@flag singular) => { Edge::Singular };
    (@flag pole) => { Edge::Pole };
    (@flag selects) => { Edge::Selects };
    (@operand $n:ident) => { Operand { name: stringify!($n), int: false } };
    (@operand $n:ident : i32) => { Operand { name: stringify!($n), int: true } };
    (@outputs bool) => { &[] };
    (@outputs ($($o:ident),+)) => { &[$(stringify!($o)),+] };
    (@outputs $o:ident) => { &[stringify!($o)] };
    (@partial 0) => { Partial::Zero };
    (@partial [$($r:ident),*]) => { Partial::Reads(&[$(stringify!($r)),*]) };
    (@bind bool) => { () };
    (@bind ($($o:ident),+)) => { $(let $o = 0u8;)+ };
    (@bind $o:ident) => { let $o = 0u8; };
    (@reads 0) => { () };
    (@reads [$($r:ident),*]) => { $(let _ = $r;)* };
}

// The table. Operand and output names are free; a partial names the values it reads.
// `#[singular]`, `#[pole]`, `#[selects]`: how infinite or NaN partials can arise (`Edge`); they
// decide where the reverse sweep multiplies adjoints by partials with the strong zero.
// To add a float method: one line here and its rule in `autodiff-runtime/src/rules.rs`
// (ARCHITECTURE.md, "adding a new float method rule").
primitive_table! {
    methods {
        // Trigonometric
        sin(x) -> y = [x];
        cos(x) -> y = [x];
        tan(x) -> y = [y];
        #[singular] asin(x) -> y = [x];
        #[singular] acos(x) -> y = [x];
        atan(x) -> y = [x];
        #[singular] atan2(x, other) -> y = [x, other], [x, other];
        sin_cos(x) -> (s, c) = [c], [s];
        // Hyperbolic
        sinh(x) -> y = [x];
        cosh(x) -> y = [x];
        tanh(x) -> y = [y];
        asinh(x) -> y = [x];
        #[singular] acosh(x) -> y = [x];
        #[pole] atanh(x) -> y = [x];
        // Exponentials and logarithms
        exp(x) -> y = [y];
        exp2(x) -> y = [y];
        exp_m1(x) -> y = [y];
        #[pole] ln(x) -> y = [x];
        #[pole] log2(x) -> y = [x];
        #[pole] log10(x) -> y = [x];
        #[pole] ln_1p(x) -> y = [x];
        #[pole] log(x, base) -> y = [x, base], [base, y];
        // Powers and roots
        #[singular] sqrt(x) -> y = [y];
        #[singular] cbrt(x) -> y = [y];
        #[pole] powi(x, n: i32) -> y = [x, n, y];
        #[singular] powf(x, p) -> y = [x, p, y], [x, y];
        #[pole] recip(x) -> y = [y];
        hypot(x, other) -> y = [x, y], [other, y];
        // Sign, rounding and piecewise functions
        abs(x) -> y = [x];
        signum(x) -> y = 0;
        floor(x) -> y = 0;
        ceil(x) -> y = 0;
        round(x) -> y = 0;
        trunc(x) -> y = 0;
        fract(x) -> y = [];
        to_degrees(x) -> y = [];
        to_radians(x) -> y = [];
        #[selects] max(x, other) -> y = [x, other], [x, other];
        #[selects] min(x, other) -> y = [x, other], [x, other];
        #[selects] clamp(x, lo, hi) -> y = [x, lo, hi], [x, lo], [x, lo, hi];
        mul_add(x, a, b) -> y = [a], [x], [];
        // Predicates: no derivative
        is_nan(x) -> bool;
        is_finite(x) -> bool;
        is_infinite(x) -> bool;
        is_normal(x) -> bool;
        is_sign_positive(x) -> bool;
        is_sign_negative(x) -> bool;
    }
    operators {
        neg(x) -> y = [];
        add(a, b) -> y = [], [];
        sub(a, b) -> y = [], [];
        mul(a, b) -> y = [b], [a];
        #[pole] div(a, b) -> y = [b], [b, y];
        rem(a, b) -> y = [], [a, b, y];
    }
}

/// Methods that are one output of a primitive computing several values at once: `sin(x)` is
/// `sin_cos(x).0`, `cos(x)` is `sin_cos(x).1` (the same bits). Where the forward sweep computes
/// such a method for the reverse sweep, it calls the joint primitive instead, and the reverse
/// sweep takes this output's partial from the joint primitive's rule (`sin_cos`'s partials read
/// the other output: no second evaluation of the sine or cosine). `(method, joint, output)`.
pub const JOINT: &[(&str, &str, usize)] = &[("sin", "sin_cos", 0), ("cos", "sin_cos", 1)];

/// Methods that cost a few instructions (no library call): the reverse sweep recomputes a value
/// built from these and arithmetic rather than saving it; a value computed by any other method
/// (`exp`, `sin`, `powf`, ...: a library call each) is saved (the cost model of
/// `reverse/stmts.rs`, ARCHITECTURE.md).
pub const CHEAP: &[&str] = &[
    "abs",
    "signum",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "to_degrees",
    "to_radians",
    "max",
    "min",
    "clamp",
    "mul_add",
    "sqrt",
    "recip",
];

/// The joint primitive computing method `name` as one of its outputs, and which output.
pub fn joint(name: &str) -> Option<(&'static Primitive, usize)> {
    let (_, of, k) = JOINT.iter().find(|(m, _, _)| *m == name)?;
    Some((method(of)?, *k))
}

/// One entry of the table.
#[derive(Debug)]
pub struct Primitive {
    /// The rule's name, and the method's (`sin`) or the `std::ops` trait method's (`add`).
    pub name: &'static str,
    /// Receiver first.
    pub operands: &'static [Operand],
    /// One name; two for `sin_cos`; none for a predicate.
    pub outputs: &'static [&'static str],
    /// In the order the rule returns them.
    pub partials: &'static [Partial],
    /// Where its partials can be infinite or NaN.
    pub edge: Edge,
}

/// Where a primitive's partials can be infinite or NaN, which decides whether the reverse sweep
/// needs the strong zero (a zero factor wins over an infinite one) in a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// Finite partials wherever the value is finite.
    Smooth,
    /// A partial is infinite or NaN where the value is finite (`sqrt` and `cbrt` at 0,
    /// `asin`/`acos` at ±1, `acosh` at 1, `atan2` at the origin, `powf` at 0 or a negative base).
    Singular,
    /// A partial is infinite only where the value is infinite too (`ln` at 0, `recip` at 0, a
    /// division by 0): harmless unless something downstream turns the value finite again.
    Pole,
    /// Picks one operand (`max`, `min`, `clamp`): turns an infinite value finite again, leaving
    /// a zero partial for the operand not picked.
    Selects,
}

#[derive(Debug)]
pub struct Operand {
    pub name: &'static str,
    /// An `i32` operand (`powi`'s exponent): no partial with respect to it.
    pub int: bool,
}

#[derive(Debug)]
pub enum Partial {
    /// Zero everywhere (jumps included).
    Zero,
    /// Depends on these operand and output values only.
    Reads(&'static [&'static str]),
}

impl Primitive {
    /// The rule's arguments in order: the operands, then the outputs.
    pub fn args(&self) -> impl Iterator<Item = (&'static str, bool)> + '_ {
        let ops = self.operands.iter().map(|o| (o.name, o.int));
        ops.chain(self.outputs.iter().map(|o| (*o, false)))
    }

    /// Whether partial `k` reads each of the rule's arguments (in [`Primitive::args`] order).
    pub fn reads(&self, k: usize) -> Vec<bool> {
        let reads: &[&str] = match &self.partials[k] {
            Partial::Zero => &[],
            Partial::Reads(r) => r,
        };
        self.args().map(|(a, _)| reads.contains(&a)).collect()
    }

    /// The calling convention, from the operands and outputs.
    pub const fn arity(&self) -> Arity {
        let (ops, outs) = (self.operands, self.outputs.len());
        let mut floats = 0;
        let mut i = 0;
        while i < ops.len() {
            if !ops[i].int {
                floats += 1;
            }
            i += 1;
        }
        match (ops.len(), floats, outs) {
            (1, 1, 0) => Arity::Predicate,
            (1, 1, 1) => Arity::Unary,
            (1, 1, 2) => Arity::SinCos,
            (2, 1, 1) if ops[1].int => Arity::PowI,
            (2, 2, 1) => Arity::Binary,
            (3, 3, 1) => Arity::Ternary,
            _ => no_calling_convention_fits_the_operands_and_outputs_of(self.name),
        }
    }

    /// What the reverse sweep must keep for this primitive.
    pub const fn linearity(&self) -> Linearity {
        let mut zero = true;
        let mut reads_nothing = true;
        let mut k = 0;
        while k < self.partials.len() {
            if let Partial::Reads(r) = self.partials[k] {
                zero = false;
                if !r.is_empty() {
                    reads_nothing = false;
                }
            }
            k += 1;
        }
        if zero {
            Linearity::Zero
        } else if reads_nothing {
            Linearity::Linear
        } else {
            Linearity::General
        }
    }
}

/// The float method `name`, if the table has it.
pub fn method(name: &str) -> Option<&'static Primitive> {
    METHODS.iter().find(|p| p.name == name)
}

/// The operator whose rule is `name` (`add`, `neg`, ...), if the table has it.
pub fn operator(name: &str) -> Option<&'static Primitive> {
    OPERATORS.iter().find(|p| p.name == name)
}

// ---------------------------------------------------------------------------------------------
// Build-time checks of the table. A failure reads "evaluation panicked: <primitive name>", inside
// the function below whose name says what is wrong.

const _: () = {
    check_entries(METHODS, false);
    check_entries(OPERATORS, true);
    let mut i = 0;
    while i < METHODS.len() {
        let mut j = 0;
        while j < OPERATORS.len() {
            if str_eq(METHODS[i].name, OPERATORS[j].name) {
                a_name_is_declared_twice(METHODS[i].name);
            }
            j += 1;
        }
        i += 1;
    }
    // A joint entry names a unary method and an output of a one-operand method with several.
    let mut k = 0;
    while k < JOINT.len() {
        let (m, of, out) = JOINT[k];
        match (method_const(m), method_const(of)) {
            (Some(p), Some(j))
                if matches!(p.arity(), Arity::Unary)
                    && matches!(j.arity(), Arity::SinCos)
                    && out < j.outputs.len() => {}
            _ => a_joint_entry_names_no_such_output(m),
        }
        k += 1;
    }
    // The reverse sweep calls `neg`'s rule with zeros for its values (reverse/backprop.rs).
    match operator_const("neg") {
        Some(p) if matches!(p.linearity(), Linearity::Linear) => {}
        _ => the_reverse_sweep_needs_a_linear("neg"),
    }
};

const fn check_entries(table: &[Primitive], operators: bool) {
    let mut i = 0;
    while i < table.len() {
        let p = &table[i];
        let mut j = i + 1;
        while j < table.len() {
            if str_eq(p.name, table[j].name) {
                a_name_is_declared_twice(p.name);
            }
            j += 1;
        }
        let arity = p.arity();
        let expected = match arity {
            Arity::Predicate => 0,
            Arity::Unary | Arity::PowI => 1,
            Arity::Binary | Arity::SinCos => 2,
            Arity::Ternary => 3,
        };
        if p.partials.len() != expected {
            the_number_of_partials_does_not_match_the_operands_of(p.name);
        }
        if operators && !matches!(arity, Arity::Unary | Arity::Binary) {
            an_operator_is_unary_or_binary(p.name);
        }
        // The reverse sweep keeps no value for a linear method and passes zeros for the
        // receiver and the output (reverse/values.rs, reverse/backprop.rs); it evaluates other
        // operands only for methods that read values.
        if !operators
            && matches!(p.linearity(), Linearity::Linear)
            && !matches!(arity, Arity::Unary)
        {
            a_linear_method_must_be_unary(p.name);
        }
        i += 1;
    }
}

const fn method_const(name: &str) -> Option<&'static Primitive> {
    let mut i = 0;
    while i < METHODS.len() {
        if str_eq(METHODS[i].name, name) {
            return Some(&METHODS[i]);
        }
        i += 1;
    }
    None
}

const fn operator_const(name: &str) -> Option<&'static Primitive> {
    let mut i = 0;
    while i < OPERATORS.len() {
        if str_eq(OPERATORS[i].name, name) {
            return Some(&OPERATORS[i]);
        }
        i += 1;
    }
    None
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn no_calling_convention_fits_the_operands_and_outputs_of(name: &str) -> ! {
    panic!("{}", name)
}
const fn the_number_of_partials_does_not_match_the_operands_of(name: &str) {
    panic!("{}", name)
}
const fn a_name_is_declared_twice(name: &str) {
    panic!("{}", name)
}
const fn an_operator_is_unary_or_binary(name: &str) {
    panic!("{}", name)
}
const fn a_linear_method_must_be_unary(name: &str) {
    panic!("{}", name)
}
const fn a_joint_entry_names_no_such_output(name: &str) {
    panic!("{}", name)
}
const fn the_reverse_sweep_needs_a_linear(name: &str) {
    panic!("{}", name)
}
