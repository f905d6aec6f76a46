//! The function's interface in the IR: its parameters (`Param`: which are active, how they are
//! passed, struct fields and nested arrays behind them) and its output (`Output`, `StructOut`),
//! as lowering builds them and the emitters and companions read them.

use super::*;

/// How a function argument takes part in differentiation.
#[derive(Clone, Debug)]
pub struct Param {
    pub var: VarId,
    pub name: Ident,
    pub ty: syn::Type,
    pub shape: Shape,
    /// The element type of a sequence argument, or the argument's type for a scalar.
    pub elem_ty: Option<syn::Type>,
    pub active: bool,
    /// Passed as `&mut` with float contents (`&mut [T]`, `&mut [T; N]`, `&mut Vec<T>`): an
    /// in-out argument when active, a workspace when not. Its contents are mutable in the body.
    pub inout: bool,
    /// A nested array (`[[T; C]; R]`, `&[[T; C]]`, `Vec<[T; C]>`...): `ty` is its flat type,
    /// which the IR and the inner companions see.
    pub nest: Option<Nest>,
    /// A struct argument (`s: &State`, `&self`): the body sees only its fields, each a
    /// [`Function::fields`] entry; the argument itself is a pass-through `Other` variable.
    pub strukt: Option<StructArg>,
    /// A field of a struct argument read or written in the body (`s.k`, `self.x[i]`), seen by
    /// the IR and the emitters as an argument of its own: its place in the struct.
    pub field: Option<FieldOf>,
    /// A nalgebra matrix or vector (`m: &DMatrix<T>`, `v: Vector3<T>`): the IR sees its flat
    /// column-major storage (`ty` is `&[T]`); the companions take the type as written.
    pub na: Option<NaType>,
}

/// How a struct argument is passed (`lower/structs.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructArg {
    /// `s: State`, `self`.
    Value,
    /// `s: &State`, `&self`.
    Ref,
    /// `s: &mut State`, `&mut self`: its fields may be written (in-out).
    MutRef,
}

/// The place of a field argument: `root.a.b` (`members` after the root argument's name).
#[derive(Clone, Debug)]
pub struct FieldOf {
    /// The struct argument's name (`s`, `self`).
    pub root: Ident,
    /// `.a.b`, as written (spans of the first use).
    pub members: TokenStream,
    /// A field of a struct the body also lends whole (`lower/struct_mut.rs`): bound without a
    /// borrow held across the lending calls, synced around them (`codegen/lend.rs`).
    pub lent: bool,
    /// An array of arrays (`r: [[f64; 3]; 3]`, `p: Vec<[f64; 3]>`, its row length from
    /// `struct_rows.rs`): bound flat (`s.r.as_flattened()`), its tangent and adjoint too.
    pub flat: bool,
    /// The field of a copy of the struct argument whose elements the body writes (`let mut t =
    /// s.clone(); t.x[i] += ..`, `lower/struct_copies.rs`): an in-out sequence bound to a clone
    /// of the field made by the companions before the body (`&mut copy[..]`), its tangent a
    /// clone of the field's tangent, its adjoint a zero (or the output seed's field when the
    /// copy is the output) added into the field's adjoint after the body (`codegen/copies.rs`).
    pub copy: bool,
}

/// A nested array argument or output, flattened row-major (`p[i][j]` is `p[i * C + j]`): the
/// type as written and the length of its rows. Public companions take and give the type as
/// written and convert at the boundary (`codegen/nested.rs`).
#[derive(Clone, Debug)]
pub struct Nest {
    pub ty: syn::Type,
    pub row: ArrayLen,
    /// Rows of any length (`&[Vec<T>]`, `&mut [Vec<T>]`, `Vec<Vec<T>>`, `lower/ragged.rs`): the
    /// field argument holding the row offsets (`row` is unused). The flat form is the rows one
    /// after another.
    pub ragged: Option<VarId>,
}

impl Nest {
    /// `R` when the number of rows is fixed (`[[T; C]; R]`, `&[[T; C]; R]`).
    pub fn fixed_rows(&self) -> Option<&syn::Expr> {
        fixed_rows(&self.ty)
    }
}

/// `R` of an array of arrays with a fixed number of rows (`[[T; C]; R]`, `&[[T; C]; R]`,
/// `&mut [[T; C]; R]`); `None` for slices and `Vec`s of rows and any other type.
pub fn fixed_rows(ty: &syn::Type) -> Option<&syn::Expr> {
    match ty {
        syn::Type::Reference(r) => fixed_rows(&r.elem),
        syn::Type::Paren(p) => fixed_rows(&p.elem),
        syn::Type::Array(a) => Some(&a.len),
        _ => None,
    }
}

impl Param {
    /// A parameter of its own the macro adds, passed through unchanged and never active (a
    /// ragged argument's row offsets, a `DMatrix` argument's dimension, a ragged output's rows).
    pub fn pass_through(var: VarId, name: Ident, ty: syn::Type) -> Param {
        Param {
            var,
            name,
            ty,
            shape: Shape::Other,
            elem_ty: None,
            active: false,
            inout: false,
            nest: None,
            strukt: None,
            field: None,
            na: None,
        }
    }

    /// An active in-out argument: its tangent and adjoint buffers are the caller's, updated in
    /// place (README, "Functions that write through `&mut`").
    pub fn active_inout(&self) -> bool {
        self.active && self.inout
    }

    /// A float passed by reference (`x: &f64`, `x: &mut f64`): `Some(mutable)`. The generated
    /// companions rebind it by value at the top (`let x: f64 = *x;`) and, for `&mut`, write it
    /// back through the reference at every exit.
    pub fn scalar_ref(&self) -> Option<bool> {
        match (&self.shape, &self.ty) {
            (Shape::Scalar, syn::Type::Reference(r)) => Some(r.mutability.is_some()),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Output {
    pub ty: syn::Type,
    pub shape: Shape,
    /// The float type of the output's elements (`f64`, `T`).
    pub elem_ty: syn::Type,
    /// A nested array output (`-> [[T; C]; R]`, `-> Vec<[T; C]>`): `ty` is the flat type.
    pub nest: Option<Nest>,
    /// A nalgebra vector or fixed-size matrix output: `ty` is `Vec<T>`, its column-major storage.
    pub na: Option<NaType>,
    /// A struct output (`-> State`): `ty` is the tuple of its float fields (or the one float
    /// field), which the body gives; the companions build the struct (`codegen/structs.rs`).
    pub strukt: Option<StructOut>,
}

/// A struct output built by a literal at the end of the body (`lower/struct_values.rs`).
#[derive(Clone, Debug)]
pub struct StructOut {
    /// The output type as written (`State`, `State<T>`, `Self`).
    pub ty: syn::Type,
    /// The literal's path as written (`State`, `Self`); `None` until the body is lowered.
    pub path: Option<syn::Path>,
    /// The float fields, in the order of the tuple the body gives, with the tokens of each
    /// field in the literal (for spans).
    pub floats: Vec<(syn::Member, TokenStream)>,
    /// The other fields: computed from the arguments only, before the body, from these
    /// expressions (`steps: s.steps + 1`); their tangents are zero.
    pub consts: Vec<(syn::Member, TokenStream, syn::Expr)>,
    /// The struct argument (read only) the fields not listed come from (`..*s`, `..s`), or the
    /// whole output when nothing is listed (`s`): their tangents are its tangent's, their seeds
    /// added into its adjoint.
    pub base: Option<syn::Ident>,
    /// The body gives a struct held whole (`let a = step(s, dt); a`): the output is that
    /// variable (`Output::shape` is `Struct`, `ty` the struct), its tangent the struct's own.
    pub whole: bool,
    /// Fields given by the sequence field of a written copy (`FieldOf::copy`): the field and the
    /// field argument; the companions build the output's field from the copy and its tangent,
    /// and seed the copy's adjoint with the output seed's field (`codegen/copies.rs`).
    pub copies: Vec<(syn::Member, syn::Ident)>,
}

impl Output {
    /// `()`: the function gives its results through `&mut` arguments only.
    pub fn is_unit(&self) -> bool {
        self.shape == Shape::Tuple(Vec::new())
    }
}
