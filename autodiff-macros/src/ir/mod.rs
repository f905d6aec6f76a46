//! The intermediate representation: takes nothing (built by `lower`), gives the analyses and the
//! emitters one tree of statements and pure expressions in which every name is resolved to a
//! variable and every node keeps the span of the tokens it came from.
//!
//! Control flow lives only in statements; expressions are pure trees of operations (if-expressions
//! and block-expressions are hoisted into statements by lowering). Iterator loops are lowered to
//! index loops over ranges, so emitters only see `For` over a range.

mod na;
mod params;
pub mod print;
mod shape;
mod visit;
pub mod writes;

pub use na::{is_na_rule, NaType};
pub use params::*;
pub use shape::{shape_of, INT_TYPES};
pub use visit::{
    token_names, visit_exprs_mut, visit_stmt_list, visit_stmts, walk_exprs, walk_stmt_exprs,
};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::Ident;

pub type VarId = usize;

/// What a value is, as far as differentiation cares. Inferred from syntax, never from rustc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A float: `f32`, `f64` or a generic float parameter.
    Scalar,
    /// A sequence of floats: slice, `Vec`, or array.
    Seq(SeqKind),
    /// A tuple of shapes.
    Tuple(Vec<Shape>),
    /// An integer (indices, counters, lengths): never differentiated.
    Int,
    /// A bool.
    Bool,
    /// A struct held whole: an argument taken by `&` (or by value, read only) and passed whole
    /// to a differentiated call (`g(s, x)`, `self.force(i)`, `lower/structs.rs`), or a local
    /// holding the struct a call gives or a copy (`let s2 = step(&s, dt);`,
    /// `lower/struct_calls.rs`): its tangent and adjoint are the struct's tangent type, which
    /// the emitters read only field by field (`Member`) and the runtime's traits zero and
    /// accumulate.
    Struct,
    /// Anything else (other types, unknown): passed through, never differentiated.
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeqKind {
    /// `&[T]`, `&Vec<T>`: borrowed, read-only.
    Slice,
    /// `[T; N]` held by value, with its length `N`.
    Array(ArrayLen),
    /// An owned `Vec<T>`.
    Vec,
}

/// The length of an array as written (`3`, `N`, `{ N + 1 }`): its tokens are printed back
/// wherever generated code spells the array's type or a zero of it. Two lengths are the same when
/// their tokens read the same (the macro cannot evaluate constants).
#[derive(Clone)]
pub struct ArrayLen {
    tokens: TokenStream,
    text: String,
}

impl ArrayLen {
    pub fn new(tokens: TokenStream) -> ArrayLen {
        let text = tokens.to_string();
        ArrayLen { tokens, text }
    }

    /// The length of an array of `n` items written out (`[a, b, c]`): an unsuffixed literal.
    pub fn of_items(n: usize) -> ArrayLen {
        ArrayLen::new(proc_macro2::Literal::usize_unsuffixed(n).into_token_stream())
    }

    /// The length as written, to be printed in generated code.
    pub fn tokens(&self) -> &TokenStream {
        &self.tokens
    }

    /// The length when it is a decimal integer literal (`3`, `3usize`, `1_000`); `None` for
    /// constants, expressions and other literals.
    pub fn literal(&self) -> Option<usize> {
        let lit: syn::LitInt = syn::parse2(self.tokens.clone()).ok()?;
        let decimal = !["0x", "0o", "0b"].iter().any(|p| self.text.starts_with(p));
        if decimal && matches!(lit.suffix(), "" | "usize") {
            lit.base10_parse().ok()
        } else {
            None
        }
    }
}

impl PartialEq for ArrayLen {
    fn eq(&self, other: &ArrayLen) -> bool {
        self.text == other.text
    }
}

impl Eq for ArrayLen {}

impl std::fmt::Debug for ArrayLen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ArrayLen({})", self.text)
    }
}

/// The length's tokens, as written.
impl std::fmt::Display for ArrayLen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl ToTokens for ArrayLen {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.tokens.to_tokens(out)
    }
}

impl Shape {
    pub fn is_float(&self) -> bool {
        match self {
            Shape::Scalar | Shape::Seq(_) | Shape::Struct => true,
            Shape::Tuple(items) => items.iter().any(Shape::is_float),
            _ => false,
        }
    }

    /// How deeply tuples nest in this shape (0 for anything but a tuple).
    pub fn depth(&self) -> usize {
        match self {
            Shape::Tuple(items) => 1 + items.iter().map(Shape::depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// The join of two shapes seen for one variable (e.g. `let mut s = T::zero(); s += x;`).
    pub fn join(&self, other: &Shape) -> Shape {
        match (self, other) {
            (Shape::Other, s) | (s, Shape::Other) => s.clone(),
            (a, b) if a == b => a.clone(),
            (Shape::Int, Shape::Scalar) | (Shape::Scalar, Shape::Int) => Shape::Scalar,
            (Shape::Tuple(a), Shape::Tuple(b)) if a.len() == b.len() => {
                Shape::Tuple(a.iter().zip(b).map(|(x, y)| x.join(y)).collect())
            }
            (a, _) => a.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarOrigin {
    /// The n-th function argument.
    Param(usize),
    /// A `let` binding or pattern binding.
    Local,
    /// The index variable of a `for` loop over a range.
    LoopIndex,
    /// Introduced by lowering (temporaries, hoisted if-expression results).
    Synthetic,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: Ident,
    /// Declared `mut`, initialised late, or otherwise assigned more than once.
    pub mutable: bool,
    pub shape: Shape,
    pub origin: VarOrigin,
    /// An explicit type from the source, if any (`let x: f64`, function arguments).
    pub ty: Option<syn::Type>,
    /// Computed by `activity`: depends on an active input.
    pub active: bool,
    /// The row length `C` when the variable holds a nested array (`[[T; C]; R]`, `&[[T; C]]`),
    /// flattened row-major by lowering (`lower/nested.rs`).
    pub row: Option<ArrayLen>,
}

impl Var {
    /// An argument passed as `&mut` with float contents (`r: &mut [f64]`): its name in the body
    /// is a reference, so a copy of its contents is `(*r).to_owned()`, never `r` itself.
    /// An argument taken by `&mut` (`x: &mut f64`, `r: &mut [f64]`): an in-out argument.
    pub fn in_out_ref(&self) -> bool {
        matches!(self.origin, VarOrigin::Param(_))
            && matches!(&self.ty, Some(syn::Type::Reference(r)) if r.mutability.is_some())
    }

    pub fn by_mut_ref(&self) -> bool {
        matches!(self.origin, VarOrigin::Param(_))
            && matches!(self.shape, Shape::Seq(_))
            && matches!(&self.ty, Some(syn::Type::Reference(r)) if r.mutability.is_some())
    }
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub enum Pat {
    Bind(VarId),
    Tuple(Vec<Pat>),
    Wild,
}

impl Pat {
    /// `let (p, q) = (a, b);` as the pairs `(p, a)`, `(q, b)`, so that a component flows to its
    /// own names only; any other `let` as the one pair `(pat, init)`.
    pub fn split_let<'a>(&'a self, init: &'a Expr) -> Vec<(&'a Pat, &'a Expr)> {
        match (self, &init.kind) {
            (Pat::Tuple(ps), ExprKind::Tuple(items)) if ps.len() == items.len() => {
                ps.iter().zip(items).collect()
            }
            _ => vec![(self, init)],
        }
    }

    pub fn vars(&self, out: &mut Vec<VarId>) {
        match self {
            Pat::Bind(v) => out.push(*v),
            Pat::Tuple(items) => items.iter().for_each(|p| p.vars(out)),
            Pat::Wild => {}
        }
    }
}

#[derive(Clone, Debug)]
pub enum Place {
    Var(VarId),
    Index(VarId, Box<Expr>),
}

impl Place {
    pub fn var(&self) -> VarId {
        match self {
            Place::Var(v) | Place::Index(v, _) => *v,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    pub fn is_arith(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Debug)]
pub enum Range {
    /// `start..end` or `start..=end`, optionally `.rev()` and `.step_by(step)`.
    /// `step_by` applies before `rev` when `step_first` is true (`(a..b).step_by(s).rev()`).
    Bounds {
        start: Box<Expr>,
        end: Box<Expr>,
        inclusive: bool,
        rev: bool,
        step: Option<Box<Expr>>,
    },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// The node's identity in the statement list a pass numbered (`ExprId::NONE` until then);
    /// side tables of the reverse sweep are keyed by it.
    pub id: ExprId,
}

/// The identity of an expression node: unique within a numbered statement list (see
/// `transform::normalize::number`), kept by clones, so a pass keys facts by it rather than by an
/// address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExprId(pub u32);

impl ExprId {
    /// Not numbered yet (built by lowering, or by a pass after numbering).
    pub const NONE: ExprId = ExprId(0);
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A literal (float, integer, bool, string...).
    Lit(syn::Lit),
    /// A local variable or argument.
    Var(VarId),
    /// An expression that names no local variable (paths such as `f64::consts::PI`,
    /// `T::zero()`, `T::from_f64(2.5).unwrap()`): emitted verbatim, never active.
    Opaque {
        tokens: TokenStream,
        shape: Shape,
    },
    /// `base[index]` where `base` is a sequence variable.
    Index {
        base: VarId,
        index: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    /// A conversion between number types, written `expr as ty` or as a call or method
    /// (`form`): `f64::from(x)`, `T::from_f64(x).unwrap()`, `x.into()`, `x.to_usize().unwrap()`.
    /// `ty` is the target type, `_` where only rustc knows it (`x.into()`,
    /// `NumCast::from(x).unwrap()`). To a float the derivative passes unchanged (rounded to the
    /// target type); to an integer none does.
    Cast {
        expr: Box<Expr>,
        ty: Box<syn::Type>,
        form: CastForm,
    },
    /// A float method with a derivative rule (`x.sin()`, `x.powi(2)`, `a.max(b)`).
    Method {
        recv: Box<Expr>,
        method: Ident,
        args: Vec<Expr>,
    },
    /// `v.len()`.
    Len(VarId),
    /// Zero (or one) of the element type of sequence `seq`: the start of a `sum` (`product`)
    /// whose type is written nowhere. Reads only the type of `seq`, never its value.
    ElemConst {
        seq: VarId,
        one: bool,
    },
    /// A call of a function that has `_jvp`/`_vjp` companions (another `#[differentiate]`
    /// function, or a user function with hand-written rules).
    /// `shape` is the assumed shape of the result (scalar unless a `let` annotation says more).
    Call {
        func: syn::Path,
        args: Vec<Expr>,
        shape: Shape,
    },
    /// A call none of whose arguments is float-valued, or a conversion such as
    /// `T::from(i).unwrap()` (`suffix` holds `.unwrap()`): emitted as a plain call; never active.
    PlainCall {
        func: TokenStream,
        args: Vec<Expr>,
        shape: Shape,
        suffix: TokenStream,
        /// The callee, when this call becomes differentiable once the arguments' shapes are
        /// known (an argument declared with `let x;` and assigned a float later).
        path: Option<syn::Path>,
    },
    /// A method of an integer or bool receiver (`i.min(j)`, `n.pow(2)`): never active.
    PlainMethod {
        recv: Box<Expr>,
        method: Ident,
        turbofish: TokenStream,
        args: Vec<Expr>,
        shape: Shape,
    },
    Tuple(Vec<Expr>),
    Array(Vec<Expr>),
    /// `[elem; len]`
    ArrayRepeat {
        elem: Box<Expr>,
        len: TokenStream,
    },
    /// `vec![elem; len]`
    VecRepeat {
        elem: Box<Expr>,
        len: Box<Expr>,
    },
    /// `vec![a, b, c]`
    VecList(Vec<Expr>),
    /// `Vec::new()` or `Vec::with_capacity(n)`
    VecNew {
        capacity: Option<Box<Expr>>,
    },
    /// `v.to_vec()`, `v.clone()`, `*v` of an array: a copy of a whole sequence, as an array or
    /// as a `Vec`.
    CopySeq(VarId, CopyTo),
    /// `tuple.0`
    Field {
        base: Box<Expr>,
        index: u32,
    },
    /// `s.x`, `s.body.m`: a field of a struct held whole (`Shape::Struct`: a struct a
    /// differentiated call gave, or a copy of a struct argument; `lower/struct_calls.rs`).
    /// `members` is `.x.y` as written; `shape` is `Scalar` (a float field, checked by rustc at the
    /// field) or `Int` (a field bound by `let n: usize = s.n;`). Its tangent is the same field of
    /// the struct's tangent, its adjoint the same field of the struct's adjoint.
    Member {
        base: VarId,
        members: TokenStream,
        shape: Shape,
    },
    /// `&expr`: only meaningful for sequence arguments of calls.
    Ref(Box<Expr>),
    /// `&mut v`, `v` a mutable sequence variable: only as an argument of a call to a
    /// differentiated function that is a statement of its own (`f(.., &mut v);`,
    /// `let y = f(.., &mut v);`), which reads and overwrites `v` (the convention of in-out
    /// arguments). `true` when `v` is itself a `&mut` argument (printed `&mut *v`). With a range,
    /// `&mut v[a..b]`: the call reads and overwrites that sub-slice only.
    MutRef(VarId, bool, Option<Box<SubRange>>),
    /// `&v[a..b]`: a sub-slice argument. With `array`, part of a nested array (flattened):
    /// a row `&p[i]` borrowed as `&[T; N]`, or all of it borrowed as `&[[T; C]]`.
    SubSlice {
        base: VarId,
        start: Option<Box<Expr>>,
        end: Option<Box<Expr>>,
        inclusive: bool,
        array: Option<Nesting>,
    },
    /// `stop_gradient(expr)`: the value of `expr`, treated as a constant by both modes (never
    /// active: no tangent comes out of it, no adjoint flows into `expr`). Printed as `(expr)`.
    StopGradient(Box<Expr>),
    /// An argument of a call of a function declared with `wrt(...)` at a parameter that `wrt`
    /// leaves out (`registry.rs`): its value is passed alone, with no tangent or adjoint, as the
    /// callee's companions take none. Never active (an active value here is reported by
    /// activity analysis); shaped `Other`, so the emitters pass its value only. Printed as the
    /// value.
    Fixed(Box<Expr>, Box<FixedArg>),
    /// Placeholder after an error was reported; never emitted.
    Poison,
}

/// The call a `Fixed` argument belongs to, for the error when an active value reaches it.
#[derive(Clone, Debug)]
pub struct FixedArg {
    /// The callee's name.
    pub callee: String,
    /// The callee's parameter the argument is passed to.
    pub param: String,
    /// The callee's `wrt(...)` names, joined by `, `.
    pub wrt: String,
}

/// How a conversion is written; every emitter prints it with [`CastForm`]'s own syntax, so the
/// value and its derivative are converted the same way (and rustc infers the same types).
#[derive(Clone, Debug)]
pub enum CastForm {
    /// `expr as ty`.
    As,
    /// `func(expr) suffix`: `f64::from(x)`, `T::from_f64(x).unwrap()`,
    /// `<T as NumCast>::from(x).expect("..")`.
    Call {
        func: TokenStream,
        suffix: TokenStream,
    },
    /// `expr.method() suffix`, the method and suffix in `tokens`: `.into()`,
    /// `.to_f64().unwrap()`.
    Method(TokenStream),
}

/// The range of a sub-slice borrowed `&mut v[start..end]` (`..=` when `inclusive`).
#[derive(Clone, Debug)]
pub struct SubRange {
    pub start: Option<Box<Expr>>,
    pub end: Option<Box<Expr>>,
    pub inclusive: bool,
    /// Part of a nested array: a row (`&mut p[i]`, borrowed as `&mut [T; N]`) or all of it
    /// (`&mut p`, borrowed as `&mut [[T; C]]`).
    pub array: Option<Nesting>,
}

/// How a borrowed range of a flattened nested array (`lower/nested.rs`) is passed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nesting {
    /// A row, `&p[i]`: `&[T; N]`.
    Row(ArrayLen),
    /// The whole array, `&p` (`p: &[[T; C]]`): `&[[T; C]]`.
    Rows(ArrayLen),
}

/// What a copy of a sequence gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyTo {
    /// An array of the same length (`a.clone()`, `*a` of an array `a`).
    Array,
    /// A `Vec` (`v.to_vec()`, or any copy of a slice or `Vec`).
    Vec,
    /// A clone of a struct argument passed whole by value to a differentiated call
    /// (`g(s.clone())`, `g(s)` of a struct taken by value): `true` when the variable is a
    /// reference (`s: &State`, printed `Clone::clone(s)`; else `Clone::clone(&s)`).
    Struct(bool),
}

#[derive(Clone, Debug)]
pub struct Arm {
    /// An integer pattern (literals, ranges, `_`, or-patterns): emitted verbatim.
    pub pat: syn::Pat,
    pub body: Block,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let pat (: ty)? (= init)?;`
    Let {
        pat: Pat,
        init: Option<Expr>,
    },
    /// `place = value` or `place op= value`.
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    /// `v.push(value)`.
    Push {
        vec: VarId,
        value: Expr,
    },
    /// An expression evaluated for its side effects (a call whose value is dropped).
    Eval(Expr),
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    Match {
        scrut: Expr,
        arms: Vec<Arm>,
    },
    For {
        var: VarId,
        range: Range,
        body: Block,
        label: Option<syn::Lifetime>,
    },
    While {
        cond: Expr,
        body: Block,
        label: Option<syn::Lifetime>,
    },
    Loop {
        body: Block,
        label: Option<syn::Lifetime>,
    },
    Break {
        label: Option<syn::Lifetime>,
        span: Span,
    },
    Continue {
        label: Option<syn::Lifetime>,
        span: Span,
    },
    Return {
        value: Option<Expr>,
        span: Span,
    },
    /// A nested block `{ ... }` executed once.
    Block(Block),
    /// `assert!`, `println!`...: kept verbatim in the primal computation, ignored by derivatives.
    /// Lists the variables in scope whose names the macro mentions.
    Macro(TokenStream, Vec<VarId>),
}

/// A `for` loop marked `#[checkpoint]` (keyed by its index variable in `Function::checkpoints`):
/// its body is one call `step(.., &mut state, ..)`; the reverse sweep stores some states before
/// steps and recomputes the others (`reverse/checkpoint.rs`). Lowering checks the form.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// `#[checkpoint(snapshots = e)]`: the most states stored at once (default `⌈√n⌉`).
    pub snapshots: Option<Expr>,
    /// The state: the variable the call takes by `&mut`.
    pub state: VarId,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub item: syn::ItemFn,
    /// The arguments as written (a struct argument is one entry, with `strukt` set).
    pub params: Vec<Param>,
    /// The fields of struct arguments the body uses as floats: arguments of their own for the
    /// IR and the emitters, bound from the struct at the top of every companion.
    pub fields: Vec<Param>,
    /// Checks, by rustc, of what lowering read each field of a struct argument as
    /// (`__private::float_field(&s.k);`), spanned at the field: the top of every companion.
    pub struct_checks: Vec<TokenStream>,
    pub output: Output,
    pub vars: Vec<Var>,
    pub body: Block,
    /// The value the body evaluates to, if it ends in an expression.
    pub tail: Option<Expr>,
    /// Items declared in the body (`const`, `static`, `use`, `fn`): copied to the top of every
    /// generated function.
    pub items: Vec<TokenStream>,
    /// Type parameters the function treats as floats (bounded by `Float`): the generated
    /// companions bound them by the runtime's `Scalar` as well.
    pub float_generics: Vec<syn::Ident>,
    /// The `#[checkpoint]` loops, by their index variable.
    pub checkpoints: std::collections::BTreeMap<VarId, Checkpoint>,
    /// Where `wrt` is written in the attribute, if it is: the names of the public `_jvp`, `_vjp`
    /// and `_vjp_dropped` carry this span, so that rustc's "function defined here" under an
    /// argument-count error at a call (a caller that did not know the callee's `wrt`, README)
    /// shows the `wrt(...)` that fixes the convention.
    pub wrt_span: Option<proc_macro2::Span>,
}

impl Function {
    /// Whether `v` is a `&mut` argument left out of `wrt(...)` (a workspace): its tangent and
    /// adjoint are owned locals of the companions (`zero_tangent(&wk)`), not the caller's
    /// `&mut` buffers, so they are lent as `&mut b`, never re-borrowed as `&mut *b` (which
    /// does not compile for an array).
    pub fn workspace(&self, v: VarId) -> bool {
        self.vars[v].by_mut_ref() && self.body_params().any(|p| p.var == v && !p.active)
    }

    /// The arguments the IR and the emitters see: every argument but struct arguments, then the
    /// fields of struct arguments.
    pub fn body_params(&self) -> impl Iterator<Item = &Param> + '_ {
        self.params
            .iter()
            .filter(|p| p.strukt.is_none())
            .chain(self.fields.iter())
            // Last: a struct passed whole accumulates its adjoint into the caller's buffer after
            // its fields have (their buffers borrow the same struct's fields).
            .chain(self.params.iter().filter(|p| p.shape == Shape::Struct))
    }

    /// The names of every argument and field argument (generated names must avoid them).
    pub fn taken_names(&self) -> Vec<String> {
        let mut taken: Vec<String> = self
            .params
            .iter()
            .chain(self.fields.iter())
            .map(|p| p.name.to_string())
            .collect();
        taken.extend(crate::names::body_idents(&self.item));
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::ArrayLen;
    use quote::quote;

    #[test]
    fn array_lengths_compare_by_text_and_give_literals_only_when_decimal() {
        assert_eq!(ArrayLen::of_items(3), ArrayLen::new(quote!(3)));
        assert_ne!(ArrayLen::new(quote!(N)), ArrayLen::new(quote!(3)));
        assert_eq!(ArrayLen::new(quote!(3)).literal(), Some(3));
        assert_eq!(ArrayLen::new(quote!(3usize)).literal(), Some(3));
        assert_eq!(ArrayLen::new(quote!(1_000)).literal(), Some(1000));
        for not_literal in [
            quote!(N),
            quote!({ N + 1 }),
            quote!(3u32),
            quote!(0x10),
            quote!((3)),
        ] {
            assert_eq!(ArrayLen::new(not_literal).literal(), None);
        }
        assert_eq!(ArrayLen::new(quote!({ N + 1 })).to_string(), "{ N + 1 }");
    }
}
