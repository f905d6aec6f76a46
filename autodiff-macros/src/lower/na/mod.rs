//! nalgebra values: takes nalgebra matrix and vector types in the signature and nalgebra
//! operations in the body, gives the IR of their flat column-major storage. A nalgebra argument
//! `m: &DMatrix<T>` is seen as the slice `m.as_slice()` plus its dimensions (integer field
//! arguments bound from `m.nrows()` and `m.ncols()`, or the sizes its type fixes); each local
//! holding a nalgebra value is a `Vec<T>` with dimensions this pass keeps (`Lowerer::na`); each
//! operation is a call of a rule of the runtime's `na` module (`mat_mul`, `add`, `transpose`,
//! `dot`, ...), which generated code differentiates through its `_jvp`/`_vjp` like any custom
//! rule; `map` and `from_fn` are index loops over the storage, element `(i, j)` at
//! `i + j * rows`. The public companions convert at the boundary (`codegen/na.rs`).

use super::*;

mod assign;
mod build;
mod output;
mod values;

pub(crate) use output::NaOut;

/// The dimensions of a nalgebra value: integer expressions that read only immutable variables
/// (dimension arguments, or lets bound where the value was built) and literals.
#[derive(Clone)]
pub(crate) struct NaDims {
    pub rows: Expr,
    pub cols: Expr,
}

/// What a nalgebra type name says of its dimensions.
enum Dims {
    /// `DMatrix<T>`.
    Dynamic,
    /// `DVector<T>`: a column of any length.
    Column,
    /// `RowDVector<T>`.
    Row,
    /// Fixed sizes: `Matrix3<T>` (3, 3), `Vector3<T>` (3, 1), `SMatrix<T, R, C>`.
    Fixed(TokenStream, TokenStream),
}

/// The dimensions a nalgebra type's name and generic arguments give, and its element type;
/// `None` for anything that is not one of the matrix and vector types supported.
fn type_dims(seg: &syn::PathSegment) -> Option<(Dims, Option<syn::Type>)> {
    let name = seg.ident.to_string();
    let args: Vec<&syn::GenericArgument> = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    };
    let ty = |k: usize| match args.get(k) {
        Some(syn::GenericArgument::Type(t)) => Some(t.clone()),
        _ => None,
    };
    let size = |k: usize| match args.get(k) {
        Some(syn::GenericArgument::Type(t)) => Some(t.to_token_stream()),
        Some(syn::GenericArgument::Const(c)) => Some(c.to_token_stream()),
        _ => None,
    };
    let n = |s: &str| -> Option<TokenStream> {
        let d: usize = s.parse().ok().filter(|d| (1..=6).contains(d))?;
        let lit = syn::LitInt::new(&format!("{d}usize"), seg.ident.span());
        Some(lit.to_token_stream())
    };
    let dims = match name.as_str() {
        "DMatrix" => Dims::Dynamic,
        "DVector" => Dims::Column,
        "RowDVector" => Dims::Row,
        "SMatrix" => Dims::Fixed(size(1)?, size(2)?),
        "SVector" => Dims::Fixed(size(1)?, quote!(1usize)),
        "SRowVector" => Dims::Fixed(quote!(1usize), size(1)?),
        _ => {
            if let Some(d) = name.strip_prefix("RowVector") {
                Dims::Fixed(quote!(1usize), n(d)?)
            } else if let Some(d) = name.strip_prefix("Vector") {
                Dims::Fixed(n(d)?, quote!(1usize))
            } else if let Some(d) = name.strip_prefix("Matrix") {
                match d.split_once('x') {
                    Some((r, c)) => Dims::Fixed(n(r)?, n(c)?),
                    None => {
                        let s = n(d)?;
                        Dims::Fixed(s.clone(), s)
                    }
                }
            } else {
                return None;
            }
        }
    };
    Some((dims, ty(0)))
}

/// The last segment of a type path (`nalgebra::DMatrix<f64>` → `DMatrix<f64>`).
fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        syn::Type::Paren(p) => last_segment(&p.elem),
        syn::Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

/// The nalgebra constructors lowered, by name.
const CONSTRUCTORS: &[&str] = &[
    "zeros",
    "from_fn",
    "from_element",
    "repeat",
    "from_row_slice",
    "from_column_slice",
    "from_vec",
    "new",
];

/// Methods of nalgebra values that give another matrix or vector.
const MATRIX_METHODS: &[&str] = &[
    "transpose",
    "map",
    "component_mul",
    "component_div",
    "add_scalar",
    "scale",
    "clone",
    "column",
    "row",
];

/// Methods of nalgebra values that give a number.
const SCALAR_METHODS: &[&str] = &[
    "determinant",
    "trace",
    "dot",
    "sum",
    "mean",
    "norm",
    "norm_squared",
    "nrows",
    "ncols",
    "len",
];

fn var_expr(v: VarId, span: Span) -> Expr {
    Expr::new(ExprKind::Var(v), span)
}

/// Dimensions of a value already reported.
fn zero_dims(span: Span) -> NaDims {
    NaDims {
        rows: int_lit(0, span),
        cols: int_lit(0, span),
    }
}

/// A size written as a number (`3usize`, `3`).
fn lit_usize(t: &TokenStream) -> Option<usize> {
    let s = t.to_string();
    s.trim_end_matches("usize").trim().parse().ok()
}

/// Finds a path segment naming a nalgebra matrix or vector type.
struct NaTypeFinder(bool);

impl<'ast> syn::visit::Visit<'ast> for NaTypeFinder {
    fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
        if type_dims(s).is_some() {
            self.0 = true;
        }
        syn::visit::visit_path_segment(self, s);
    }
}

/// Whether an expression names a nalgebra matrix or vector type (a constructor's path).
pub(super) fn names_na_type_in(e: &syn::Expr) -> bool {
    let mut f = NaTypeFinder(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// Whether a function body names a nalgebra matrix or vector type anywhere (so constructors such
/// as `Vector3::new(..)` may build values even without nalgebra arguments).
pub(super) fn names_na_type(b: &syn::Block) -> bool {
    let mut f = NaTypeFinder(false);
    syn::visit::Visit::visit_block(&mut f, b);
    f.0
}

impl Lowerer<'_> {
    /// `ty` (behind `&` or not) as a nalgebra matrix or vector type, if it names one.
    pub(super) fn na_type(&self, ty: &syn::Type) -> Option<NaType> {
        let (inner, by_ref) = match ty {
            syn::Type::Reference(r) => (&*r.elem, true),
            t => (t, false),
        };
        let seg = last_segment(inner)?;
        let (dims, elem) = type_dims(seg)?;
        let elem = elem?;
        let (rows, cols) = match dims {
            Dims::Dynamic => (None, None),
            Dims::Column => (None, Some(quote!(1usize))),
            Dims::Row => (Some(quote!(1usize)), None),
            Dims::Fixed(r, c) => (Some(r), Some(c)),
        };
        Some(NaType {
            ty: ty.clone(),
            owned: inner.clone(),
            elem,
            rows,
            cols,
            by_ref,
            out_dims: None,
        })
    }

    /// `f32` or `f64` (generic elements need rules bounded by what nalgebra's `RealField` has).
    fn na_elem_ok(&self, elem: &syn::Type) -> bool {
        let t = elem.to_token_stream().to_string();
        t == "f32" || t == "f64" || self.float_generics.contains(&t)
    }

    /// Whether `ty` names a nalgebra type at all (supported or not).
    pub(super) fn mentions_na(ty: &syn::Type) -> bool {
        let inner = match ty {
            syn::Type::Reference(r) => &*r.elem,
            t => t,
        };
        last_segment(inner).is_some_and(|s| {
            let n = s.ident.to_string();
            n == "Matrix"
                || n == "OMatrix"
                || n == "OVector"
                || n.starts_with("DMatrix")
                || n.starts_with("DVector")
                || type_dims(s).is_some()
        })
    }

    /// A nalgebra argument: the variable of its storage (a slice), its dimensions as field
    /// arguments (dynamic ones) or literals (fixed ones). Reports what is not supported.
    pub(super) fn na_param(
        &mut self,
        i: usize,
        pt: &syn::PatType,
        name: &syn::Ident,
        mutable: bool,
        selected: bool,
    ) -> Option<Param> {
        let ty = &*pt.ty;
        if !Self::mentions_na(ty) {
            return None;
        }
        let Some(na) = self.na_type(ty) else {
            self.diag.unsupported_at(
                ty,
                "this nalgebra type",
                "take `DMatrix<T>`, `DVector<T>`, `RowDVector<T>`, `SMatrix<T, R, C>`, \
                 `SVector<T, D>` or an alias such as `Matrix3<T>`, `Vector3<T>` (by value or by \
                 `&`)",
            );
            self.poisoned_names.push(name.to_string());
            return Some(self.dead_param(i, name, ty));
        };
        // `m: &mut DMatrix<T>`: its storage is an in-out `&mut [T]` argument (README
        // "Functions that write through `&mut`"); its elements may be written, its dimensions
        // stay.
        let inout = matches!(ty, syn::Type::Reference(r) if r.mutability.is_some());
        if mutable {
            self.diag.unsupported_at(
                &pt.pat,
                "a nalgebra argument declared `mut` (yet)",
                "bind a copy in the body (`let mut m2 = m.clone();`) and change that",
            );
        }
        if !self.na_elem_ok(&na.elem) {
            self.diag.unsupported_at(
                &na.elem,
                "nalgebra values of this element type (only `f32` and `f64` matrices and \
                 vectors are differentiated, not generic ones yet)",
                "use `f64` or `f32` elements",
            );
            self.poisoned_names.push(name.to_string());
            return Some(self.dead_param(i, name, ty));
        }
        let elem = na.elem.clone();
        let flat: syn::Type = if inout {
            syn::parse_quote!(&mut [#elem])
        } else {
            syn::parse_quote!(&[#elem])
        };
        let shape = Shape::Seq(SeqKind::Slice);
        let var = self.new_var(
            name.clone(),
            inout,
            shape.clone(),
            VarOrigin::Param(i),
            Some(flat.clone()),
        );
        self.bind(name, var);
        let span = name.span();
        let dim = |cx: &mut Self, fixed: &Option<TokenStream>, method: &str| match fixed {
            Some(t) => Expr::new(
                ExprKind::Opaque {
                    tokens: t.clone(),
                    shape: Shape::Int,
                },
                span,
            ),
            None => {
                let id = crate::names::synthetic(method, cx.vars.len());
                let ty: syn::Type = syn::parse_quote!(usize);
                let d = cx.new_var(
                    id.clone(),
                    false,
                    Shape::Int,
                    VarOrigin::Param(1000 + cx.na_fields.len()),
                    Some(ty.clone()),
                );
                let m = crate::names::existing(method, span);
                cx.na_out.dims_of.insert(d, quote!(#name.#m()));
                cx.na_fields.push(Param {
                    var: d,
                    name: id,
                    ty,
                    shape: Shape::Int,
                    elem_ty: None,
                    active: false,
                    inout: false,
                    nest: None,
                    strukt: None,
                    field: Some(FieldOf {
                        root: name.clone(),
                        members: quote!(.#m()),
                        lent: false,
                        flat: false,
                        copy: false,
                    }),
                    na: None,
                });
                var_expr(d, span)
            }
        };
        let rows = dim(self, &na.rows, "nrows");
        let cols = dim(self, &na.cols, "ncols");
        self.na.insert(var, NaDims { rows, cols });
        Some(Param {
            var,
            name: name.clone(),
            ty: flat,
            shape,
            elem_ty: Some(elem),
            active: selected,
            inout,
            nest: None,
            strukt: None,
            field: None,
            na: Some(na),
        })
    }

    /// An argument already reported: passed through, never active.
    fn dead_param(&mut self, i: usize, name: &syn::Ident, ty: &syn::Type) -> Param {
        let var = self.new_var(
            name.clone(),
            false,
            Shape::Other,
            VarOrigin::Param(i),
            Some(ty.clone()),
        );
        self.bind(name, var);
        Param::pass_through(var, name.clone(), ty.clone())
    }

    /// The output, when it is a nalgebra type: a `Vec<T>` of its storage for vectors and
    /// fixed-size matrices; a `DMatrix` output is reported (its dimensions are not known
    /// outside the body).
    pub(super) fn na_output(&mut self, ty: &syn::Type) -> Option<Option<Output>> {
        if !Self::mentions_na(ty) {
            return None;
        }
        let na = match self.na_type(ty) {
            Some(na) if !na.by_ref => na,
            _ => {
                self.diag.unsupported_at(
                    ty,
                    "this nalgebra output",
                    "return `DVector<T>`, `RowDVector<T>` or a fixed-size matrix or vector \
                     (`Matrix3<T>`, `SVector<T, D>`, ...) by value",
                );
                return Some(None);
            }
        };
        // A `DMatrix`: its dimensions are read from the values returned (`output.rs`).
        self.na_out.dynamic = na.rows.is_none() && na.cols.is_none();
        if !self.na_elem_ok(&na.elem) {
            self.diag.unsupported_at(
                &na.elem,
                "nalgebra outputs of this element type (only `f32` and `f64`, not generic ones \
                 yet)",
                "use `f64` or `f32` elements",
            );
            return Some(None);
        }
        let elem = na.elem.clone();
        Some(Some(Output {
            ty: syn::parse_quote!(::std::vec::Vec<#elem>),
            shape: Shape::Seq(SeqKind::Vec),
            elem_ty: elem,
            nest: None,
            na: Some(na),
            strukt: None,
        }))
    }
}
