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
    "dot",
    "sum",
    "mean",
    "norm",
    "norm_squared",
    "nrows",
    "ncols",
    "len",
];

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
        })
    }

    /// `f32` or `f64` (generic elements need rules bounded by what nalgebra's `RealField` has).
    fn na_elem_ok(&self, elem: &syn::Type) -> bool {
        let t = elem.to_token_stream().to_string();
        t == "f32" || t == "f64"
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
        Param {
            var,
            name: name.clone(),
            ty: ty.clone(),
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
        if na.rows.is_none() && na.cols.is_none() {
            self.diag.unsupported_at(
                ty,
                "a `DMatrix` output (yet: its dimensions are not known outside the body)",
                "return a scalar, a `DVector` (`DVector::from_column_slice(m.as_slice())`) or \
                 a fixed-size matrix, or write the result into a `&mut [T]` argument",
            );
            return Some(None);
        }
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
        }))
    }

    /// The nalgebra variable `e` names (through `&`, parentheses and `*`).
    fn na_var(&self, e: &syn::Expr) -> Option<VarId> {
        match e {
            syn::Expr::Reference(r) => self.na_var(&r.expr),
            syn::Expr::Paren(p) => self.na_var(&p.expr),
            syn::Expr::Group(g) => self.na_var(&g.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.na_var(&u.expr),
            _ => self.var_of_path(e).filter(|v| self.na.contains_key(v)),
        }
    }

    /// The nalgebra type a constructor path names (`DMatrix::from_fn`,
    /// `SMatrix::<f64, 2, 3>::zeros`, `na::Vector3::new`) and the constructor.
    /// The element type, when the path writes it (`DMatrix::<f64>::zeros`), comes third.
    fn na_constructor(&self, p: &syn::Path) -> Option<(Dims, String, Option<syn::Type>)> {
        let n = p.segments.len();
        if n < 2 {
            return None;
        }
        let last = p.segments[n - 1].ident.to_string();
        if !CONSTRUCTORS.contains(&last.as_str()) {
            return None;
        }
        let (dims, elem) = type_dims(&p.segments[n - 2])?;
        Some((dims, last, elem))
    }

    /// Whether `e` is, by its syntax, a nalgebra matrix or vector value.
    pub(super) fn is_na(&self, e: &syn::Expr) -> bool {
        if self.na.is_empty() && !self.any_na_syntax {
            return false;
        }
        match e {
            syn::Expr::Reference(r) => self.is_na(&r.expr),
            syn::Expr::Paren(p) => self.is_na(&p.expr),
            syn::Expr::Group(g) => self.is_na(&g.expr),
            syn::Expr::Path(_) => self.na_var(e).is_some(),
            syn::Expr::Unary(u) => self.is_na(&u.expr),
            syn::Expr::Binary(b) => {
                matches!(
                    b.op,
                    syn::BinOp::Add(_)
                        | syn::BinOp::Sub(_)
                        | syn::BinOp::Mul(_)
                        | syn::BinOp::Div(_)
                ) && (self.is_na(&b.left) || self.is_na(&b.right))
            }
            syn::Expr::MethodCall(m) => {
                MATRIX_METHODS.contains(&m.method.to_string().as_str()) && self.is_na(&m.receiver)
            }
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) if p.qself.is_none() => self.na_constructor(&p.path).is_some(),
                _ => false,
            },
            _ => false,
        }
    }

    /// `e` lowered, if it is a nalgebra value or an operation on one (a method giving a number,
    /// an element `m[(i, j)]`); `None` for any other expression.
    pub(super) fn na_expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Expr> {
        if self.na.is_empty() && !self.any_na_syntax {
            return None;
        }
        if let Some((v, _)) = self.na_value(e, out) {
            return Some(v);
        }
        match e {
            syn::Expr::MethodCall(m) if self.is_na(&m.receiver) => {
                let name = m.method.to_string();
                if name == "as_slice" && m.args.is_empty() {
                    // The storage itself (column-major), e.g. for `nn::mse(y.as_slice(), t)`.
                    let (v, _) = self.na_bound(&m.receiver, out)?;
                    let span = m.span();
                    return Some(Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span));
                }
                if !SCALAR_METHODS.contains(&name.as_str())
                    && (ADAPTORS.contains(&name.as_str()) || CONSUMERS.contains(&name.as_str()))
                {
                    // `m.iter()...`: a chain over the storage, in nalgebra's (column-major) order.
                    return None;
                }
                Some(self.na_scalar_method(m, out))
            }
            syn::Expr::Index(ix) if self.is_na(&ix.expr) => Some(self.na_index(ix, out)),
            _ => None,
        }
    }

    /// A nalgebra value: its expression (a `Vec<T>` or a storage variable) and dimensions.
    pub(super) fn na_value(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        if !self.is_na(e) {
            return None;
        }
        let span = e.span();
        match e {
            syn::Expr::Reference(r) => self.na_value(&r.expr, out),
            syn::Expr::Paren(p) => self.na_value(&p.expr, out),
            syn::Expr::Group(g) => self.na_value(&g.expr, out),
            syn::Expr::Path(_) => {
                let v = self.na_var(e)?;
                // An argument's storage is borrowed: as a value (returned, assigned) it is copied.
                let value = match self.vars[v].shape {
                    Shape::Seq(SeqKind::Vec) => var_expr(v, span),
                    _ => Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span),
                };
                Some((value, self.na[&v].clone()))
            }
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    let (a, d) = self.na_operand(&u.expr, out)?;
                    Some((self.rule("neg", vec![a], span), d))
                }
                _ => self.na_value(&u.expr, out),
            },
            syn::Expr::Binary(b) => self.na_binary(b, out),
            syn::Expr::MethodCall(m) => self.na_method(m, out),
            syn::Expr::Call(c) => self.na_construct(c, out),
            _ => None,
        }
    }

    /// A nalgebra operand bound to a variable (a storage variable as it is; any other value to
    /// a new `let`), given as `&v` for a rule's argument.
    fn na_operand(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<(Expr, NaDims)> {
        let span = e.span();
        let (v, d) = self.na_bound(e, out)?;
        Some((
            Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span),
            d,
        ))
    }

    /// A nalgebra value as a variable.
    fn na_bound(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Option<(VarId, NaDims)> {
        let span = e.span();
        if let Some(v) = self.na_var(e) {
            return Some((v, self.na[&v].clone()));
        }
        let (value, d) = self.na_value(e, out)?;
        if matches!(value.kind, ExprKind::Poison) {
            return None;
        }
        let t = self.synthetic("na", Shape::Seq(SeqKind::Vec), span);
        self.vars[t].mutable = false;
        out.push(Stmt::Let {
            pat: Pat::Bind(t),
            init: Some(value),
        });
        self.na.insert(t, d.clone());
        Some((t, d))
    }

    /// The run-time check that two operands have the same shape (as nalgebra's operators
    /// check), before an element-wise operation or a dot product of them.
    fn check_shapes(&self, a: &NaDims, b: &NaDims, span: Span, out: &mut Vec<Stmt>) {
        let rt = crate::names::rt();
        let args = vec![
            a.rows.clone(),
            a.cols.clone(),
            b.rows.clone(),
            b.cols.clone(),
        ];
        out.push(Stmt::Eval(Expr::new(
            ExprKind::PlainCall {
                func: quote!(#rt::na::same_shape),
                args,
                shape: Shape::Tuple(Vec::new()),
                suffix: quote!(),
                path: None,
            },
            span,
        )));
    }

    /// A number multiplying, dividing or added to a nalgebra value: a float expression (the
    /// rule takes a tangent or adjoint for it), or an error at it.
    fn na_factor(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let x = self.expr(e, out);
        match self.shape_of(&x) {
            Shape::Scalar => x,
            _ if matches!(x.kind, ExprKind::Poison) => x,
            _ => self.poison(
                e,
                "this factor of a nalgebra value (its type is not known to be a float here)",
                "bind it to a float first (`let k: f64 = ..;`) and use `k`",
            ),
        }
    }

    /// A call of the runtime rule `na::<name>` giving a `Vec<T>`.
    fn rule(&self, name: &str, args: Vec<Expr>, span: Span) -> Expr {
        self.rule_shaped(name, args, Shape::Seq(SeqKind::Vec), span)
    }

    fn rule_shaped(&self, name: &str, args: Vec<Expr>, shape: Shape, span: Span) -> Expr {
        let rt = crate::names::rt();
        let f = crate::names::existing(name, span);
        let func: syn::Path = syn::parse_quote!(#rt::na::#f);
        Expr::new(ExprKind::Call { func, args, shape }, span)
    }

    /// `a + b`, `a - b`, `a * b` (product of matrices, or by a number), `a / s`.
    fn na_binary(&mut self, b: &syn::ExprBinary, out: &mut Vec<Stmt>) -> Option<(Expr, NaDims)> {
        let span = b.span();
        let (l, r) = (self.is_na(&b.left), self.is_na(&b.right));
        match b.op {
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) if l && r => {
                let (x, d) = self.na_operand(&b.left, out)?;
                let (y, dy) = self.na_operand(&b.right, out)?;
                self.check_shapes(&d, &dy, span, out);
                let name = if matches!(b.op, syn::BinOp::Add(_)) {
                    "add"
                } else {
                    "sub"
                };
                Some((self.rule(name, vec![x, y], span), d))
            }
            syn::BinOp::Mul(_) if l && r => {
                let (x, dx) = self.na_operand(&b.left, out)?;
                let (y, dy) = self.na_operand(&b.right, out)?;
                let args = vec![x, y, dx.rows.clone(), dx.cols, dy.cols.clone()];
                let d = NaDims {
                    rows: dx.rows,
                    cols: dy.cols,
                };
                Some((self.rule("mat_mul", args, span), d))
            }
            syn::BinOp::Mul(_) => {
                let (m, s) = if l {
                    (&b.left, &b.right)
                } else {
                    (&b.right, &b.left)
                };
                let (x, d) = self.na_operand(m, out)?;
                let s = self.na_factor(s, out);
                Some((self.rule("scale", vec![x, s], span), d))
            }
            syn::BinOp::Div(_) if l && !r => {
                let (x, d) = self.na_operand(&b.left, out)?;
                let s = self.na_factor(&b.right, out);
                Some((self.rule("div_scalar", vec![x, s], span), d))
            }
            _ => {
                let what = if l && r {
                    "this operator between nalgebra values"
                } else {
                    "this operator between a nalgebra value and a number"
                };
                Some((
                    self.poison(
                        &b.op,
                        what,
                        "write `a + b`, `a - b`, `a * b` (matrix product), `a * s`, `s * a`, `a / s`, \
                         `a.add_scalar(s)` or `a.component_mul(&b)`",
                    ),
                    zero_dims(span),
                ))
            }
        }
    }

    /// Methods giving a matrix or vector.
    fn na_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = m.span();
        let name = m.method.to_string();
        let nargs = |k: usize| m.args.len() == k;
        match name.as_str() {
            "transpose" if nargs(0) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let args = vec![x, d.rows.clone(), d.cols.clone()];
                let t = NaDims {
                    rows: d.cols,
                    cols: d.rows,
                };
                Some((self.rule("transpose", args, span), t))
            }
            "component_mul" | "component_div" if nargs(1) && self.is_na(&m.args[0]) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let (y, dy) = self.na_operand(&m.args[0], out)?;
                self.check_shapes(&d, &dy, span, out);
                Some((self.rule(&name, vec![x, y], span), d))
            }
            "add_scalar" | "scale" if nargs(1) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let s = self.na_factor(&m.args[0], out);
                Some((self.rule(&name, vec![x, s], span), d))
            }
            "clone" if nargs(0) => {
                let (v, d) = self.na_bound(&m.receiver, out)?;
                Some((Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span), d))
            }
            "column" | "row" if nargs(1) => {
                let (x, d) = self.na_operand(&m.receiver, out)?;
                let k = self.expr(&m.args[0], out);
                let k = self.int_let("nak", k, out);
                let args = vec![x, d.rows.clone(), d.cols.clone(), k];
                let one = int_lit(1, span);
                let r = if name == "column" {
                    NaDims {
                        rows: d.rows,
                        cols: one,
                    }
                } else {
                    NaDims {
                        rows: one,
                        cols: d.cols,
                    }
                };
                Some((self.rule(&name, args, span), r))
            }
            "map" if nargs(1) => self.na_map(m, out),
            _ => Some((
                self.poison(
                    &m.method,
                    &format!(
                        "`{name}` with {} arguments on a nalgebra value",
                        m.args.len()
                    ),
                    "nalgebra values support `transpose()`, `map(|x| ..)`, `component_mul(&b)`, \
                     `component_div(&b)`, `add_scalar(s)`, `scale(s)`, `clone()`, `column(j)`, \
                     `row(i)`, `dot(&b)`, `sum()`, `mean()`, `norm()`, `norm_squared()`, \
                     `nrows()`, `ncols()`, `len()`",
                ),
                zero_dims(span),
            )),
        }
    }

    /// Methods giving a number (`dot`, `sum`, `norm`, `nrows`...), and the others reported.
    fn na_scalar_method(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Expr {
        let span = m.span();
        let name = m.method.to_string();
        let nargs = m.args.len();
        match name.as_str() {
            "nrows" | "ncols" | "len" if nargs == 0 => {
                let Some((_, d)) = self.na_bound(&m.receiver, out) else {
                    return Expr::new(ExprKind::Poison, span);
                };
                match name.as_str() {
                    "nrows" => d.rows,
                    "ncols" => d.cols,
                    _ => bin(BinOp::Mul, d.rows, d.cols),
                }
            }
            "dot" if nargs == 1 && self.is_na(&m.args[0]) => {
                let x = self.na_operand(&m.receiver, out);
                let y = self.na_operand(&m.args[0], out);
                // nalgebra sums a dot product column by column in blocks of rows: the rule
                // takes the shape to add in the same order.
                match (x, y) {
                    (Some((x, d)), Some((y, dy))) => {
                        self.check_shapes(&d, &dy, span, out);
                        let args = vec![x, y, d.rows, d.cols];
                        self.rule_shaped("dot_mat", args, Shape::Scalar, span)
                    }
                    _ => Expr::new(ExprKind::Poison, span),
                }
            }
            "sum" | "mean" if nargs == 0 => match self.na_operand(&m.receiver, out) {
                Some((x, _)) => self.rule_shaped(&name, vec![x], Shape::Scalar, span),
                None => Expr::new(ExprKind::Poison, span),
            },
            "norm" | "norm_squared" if nargs == 0 => match self.na_operand(&m.receiver, out) {
                Some((x, d)) => {
                    let rule = format!("{name}_mat");
                    self.rule_shaped(&rule, vec![x, d.rows, d.cols], Shape::Scalar, span)
                }
                None => Expr::new(ExprKind::Poison, span),
            },
            _ => self.poison(
                &m.method,
                &format!("`{name}` with {nargs} arguments on a nalgebra value"),
                "nalgebra values support `transpose()`, `map(|x| ..)`, `component_mul(&b)`, \
                 `component_div(&b)`, `add_scalar(s)`, `scale(s)`, `clone()`, `column(j)`, \
                 `row(i)`, `dot(&b)`, `sum()`, `mean()`, `norm()`, `norm_squared()`, `nrows()`, \
                 `ncols()`, `len()`; index elements with `m[(i, j)]` or `v[i]`",
            ),
        }
    }

    /// `m[(i, j)]` (element `i + j * rows` of the storage) and `v[k]` (element `k`).
    fn na_index(&mut self, ix: &syn::ExprIndex, out: &mut Vec<Stmt>) -> Expr {
        let span = ix.span();
        let Some((v, d)) = self.na_bound(&ix.expr, out) else {
            return Expr::new(ExprKind::Poison, span);
        };
        let index = match &*ix.index {
            syn::Expr::Tuple(t) if t.elems.len() == 2 => {
                let i = self.expr(&t.elems[0], out);
                let j = self.expr(&t.elems[1], out);
                bin(BinOp::Add, i, bin(BinOp::Mul, j, d.rows))
            }
            syn::Expr::Range(_) => {
                return self.poison(
                    &ix.index,
                    "a range of a nalgebra value",
                    "read elements one at a time (`v[i]`, `m[(i, j)]`), or take `column(j)` / \
                     `row(i)`",
                )
            }
            other => self.expr(other, out),
        };
        Expr::new(
            ExprKind::Index {
                base: v,
                index: Box::new(index),
            },
            span,
        )
    }

    /// `m.map(|x| ..)`: a new storage written element by element.
    fn na_map(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Option<(Expr, NaDims)> {
        let span = m.span();
        let (a, d) = self.na_bound(&m.receiver, out)?;
        let c = self.closure_of(&m.args[0])?;
        let res = self.synthetic("namap", Shape::Seq(SeqKind::Vec), span);
        let zero = Expr::new(ExprKind::ElemConst { seq: a, one: false }, span);
        out.push(Stmt::Let {
            pat: Pat::Bind(res),
            init: Some(Expr::new(
                ExprKind::VecRepeat {
                    elem: Box::new(zero),
                    len: Box::new(Expr::new(ExprKind::Len(a), span)),
                },
                span,
            )),
        });
        let k = self.loop_index(span);
        let item = Expr::new(
            ExprKind::Index {
                base: a,
                index: Box::new(var_expr(k, span)),
            },
            span,
        );
        let mut body = Body::new();
        let r = self.apply(&c, vec![Item::Val(item)], &mut body)?;
        let mut stmts = body.finish();
        stmts.push(Stmt::Assign {
            place: Place::Index(res, Box::new(var_expr(k, span))),
            op: None,
            value: r,
        });
        let len = Expr::new(ExprKind::Len(a), span);
        out.push(super::inplace::index_loop(k, len, stmts, span));
        self.vars[res].mutable = true;
        Some((var_expr(res, span), d))
    }

    /// An integer bound to a new immutable `let` (a dimension or index read later).
    fn int_let(&mut self, what: &str, e: Expr, out: &mut Vec<Stmt>) -> Expr {
        let span = e.span;
        if matches!(e.kind, ExprKind::Lit(_) | ExprKind::Opaque { .. }) {
            return e;
        }
        let t = self.synthetic(what, Shape::Int, span);
        self.vars[t].mutable = false;
        out.push(Stmt::Let {
            pat: Pat::Bind(t),
            init: Some(e),
        });
        var_expr(t, span)
    }

    /// Constructors: `zeros`, `from_element`, `from_fn`, `from_row_slice`,
    /// `from_column_slice`, `from_vec`, `new`.
    fn na_construct(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) -> Option<(Expr, NaDims)> {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let (dims, ctor, elem) = self.na_constructor(&p.path)?;
        // The element type the path writes, given to the elements built here (literals alone
        // have none, and nothing else in the generated code names it).
        let typed = |e: Expr| match &elem {
            Some(t) if matches!(t.to_token_stream().to_string().as_str(), "f32" | "f64") => {
                let span = e.span;
                Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(e),
                        ty: Box::new(t.clone()),
                        form: CastForm::As,
                    },
                    span,
                )
            }
            _ => e,
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        // The dimensions the type fixes and those the call passes first.
        let fixed = |t: &TokenStream| {
            Expr::new(
                ExprKind::Opaque {
                    tokens: t.clone(),
                    shape: Shape::Int,
                },
                span,
            )
        };
        // Vectors built from data take their length from it; `DMatrix` takes both dimensions.
        let from_data = matches!(
            ctor.as_str(),
            "from_row_slice" | "from_column_slice" | "from_vec"
        );
        let dynamic_count = match &dims {
            Dims::Dynamic => 2,
            Dims::Column | Dims::Row if from_data => 0,
            Dims::Column | Dims::Row => 1,
            Dims::Fixed(..) => 0,
        };
        let bad = |cx: &mut Self, want: &str| {
            Some((
                cx.poison(
                    c,
                    &format!("`{ctor}` with these arguments"),
                    &format!("write {want}"),
                ),
                zero_dims(span),
            ))
        };
        // `new(a, b, c)` of a fixed-size vector or matrix: the elements, row by row.
        if ctor == "new" {
            let Dims::Fixed(r, cl) = &dims else {
                return bad(self, "`DVector::from_vec(vec![..])` for dynamic vectors");
            };
            let (Some(rn), Some(cn)) = (lit_usize(r), lit_usize(cl)) else {
                return bad(
                    self,
                    "`from_row_slice(&[..])` for sizes that are not numbers",
                );
            };
            if args.len() != rn * cn {
                return bad(self, &format!("{} elements", rn * cn));
            }
            let items: Vec<Expr> = args.iter().map(|a| typed(self.expr(a, out))).collect();
            let mut col_major = Vec::with_capacity(items.len());
            for j in 0..cn {
                for i in 0..rn {
                    col_major.push(items[i * cn + j].clone());
                }
            }
            let d = NaDims {
                rows: fixed(r),
                cols: fixed(cl),
            };
            return Some((Expr::new(ExprKind::VecList(col_major), span), d));
        }
        if args.len() < dynamic_count {
            return bad(self, "the dimensions first, as nalgebra does");
        }
        let mut given = Vec::new();
        for a in &args[..dynamic_count] {
            let e = self.expr(a, out);
            given.push(self.int_let("nadim", e, out));
        }
        let rest = &args[dynamic_count..];
        // The data of a vector built from it, and its length.
        let mut data = None;
        if from_data && matches!(dims, Dims::Column | Dims::Row) {
            let [s] = rest else {
                return bad(self, "one slice or `Vec` of elements");
            };
            let e = self.expr(s, out);
            let v = self.seq_var(e, elem.as_ref(), out)?;
            let n = self.int_let("nadim", Expr::new(ExprKind::Len(v), span), out);
            given.push(n);
            data = Some(v);
        }
        let d = match &dims {
            Dims::Dynamic => NaDims {
                rows: given[0].clone(),
                cols: given[1].clone(),
            },
            Dims::Column => NaDims {
                rows: given[0].clone(),
                cols: int_lit(1, span),
            },
            Dims::Row => NaDims {
                rows: int_lit(1, span),
                cols: given[0].clone(),
            },
            Dims::Fixed(r, cl) => NaDims {
                rows: fixed(r),
                cols: fixed(cl),
            },
        };
        let len = bin(BinOp::Mul, d.rows.clone(), d.cols.clone());
        match (ctor.as_str(), rest) {
            ("zeros", []) => {
                let zero = typed(Expr::new(
                    ExprKind::Lit(syn::Lit::Float(syn::LitFloat::new("0.0", span))),
                    span,
                ));
                let e = Expr::new(
                    ExprKind::VecRepeat {
                        elem: Box::new(zero),
                        len: Box::new(len),
                    },
                    span,
                );
                Some((e, d))
            }
            ("from_element" | "repeat", [x]) => {
                let x = typed(self.expr(x, out));
                let e = Expr::new(
                    ExprKind::VecRepeat {
                        elem: Box::new(x),
                        len: Box::new(len),
                    },
                    span,
                );
                Some((e, d))
            }
            ("from_fn", [f]) => {
                let zero = typed(Expr::new(
                    ExprKind::Lit(syn::Lit::Float(syn::LitFloat::new("0.0", span))),
                    span,
                ));
                self.na_from_fn(f, d, zero, out)
            }
            ("from_column_slice" | "from_vec", [s]) => {
                let v = match data {
                    Some(v) => v,
                    None => {
                        let e = self.expr(s, out);
                        self.seq_var(e, elem.as_ref(), out)?
                    }
                };
                Some((Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span), d))
            }
            ("from_row_slice", [s]) => {
                let v = match data {
                    Some(v) => v,
                    None => {
                        let e = self.expr(s, out);
                        self.seq_var(e, elem.as_ref(), out)?
                    }
                };
                let x = Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span);
                // A row-major `rows x cols` array is the column-major `cols x rows` one.
                let args = vec![x, d.cols.clone(), d.rows.clone()];
                Some((self.rule("transpose", args, span), d))
            }
            _ => bad(
                self,
                "`zeros(..)`, `from_element(.., x)`, `from_fn(.., |i, j| ..)`, \
                 `from_row_slice(.., &v)`, `from_column_slice(.., &v)`, `from_vec(v)` or \
                 `new(..)` with the dimensions nalgebra's type needs",
            ),
        }
    }

    /// A sequence expression as a variable (a `let` for anything else).
    /// `elem`: the element type the constructor's path writes, given to literal elements.
    fn seq_var(&mut self, e: Expr, elem: Option<&syn::Type>, out: &mut Vec<Stmt>) -> Option<VarId> {
        let span = e.span;
        let mut e = match e.kind {
            ExprKind::Ref(inner) => *inner,
            _ => e,
        };
        let float =
            elem.filter(|t| matches!(t.to_token_stream().to_string().as_str(), "f32" | "f64"));
        if let (Some(t), ExprKind::Array(items) | ExprKind::VecList(items)) = (float, &mut e.kind) {
            for item in items.iter_mut() {
                let sp = item.span;
                let inner = std::mem::replace(item, Expr::new(ExprKind::Poison, sp));
                *item = Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(inner),
                        ty: Box::new(t.clone()),
                        form: CastForm::As,
                    },
                    sp,
                );
            }
        }
        match &e.kind {
            ExprKind::Var(v) if matches!(self.vars[*v].shape, Shape::Seq(_)) => Some(*v),
            ExprKind::Poison => None,
            _ if matches!(self.shape_of(&e), Shape::Seq(_)) => {
                let shape = self.shape_of(&e);
                let t = self.synthetic("seq", shape, span);
                self.vars[t].mutable = false;
                out.push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(e),
                });
                Some(t)
            }
            _ => {
                self.diag.unsupported(
                    span,
                    "this value as the elements of a nalgebra value",
                    "pass a slice, array or `Vec` of floats",
                );
                None
            }
        }
    }

    /// `from_fn(.., |i, j| ..)`: a new storage written column by column.
    /// `zero`: the initial element (typed when the path gives the element type).
    fn na_from_fn(
        &mut self,
        f: &syn::Expr,
        d: NaDims,
        zero: Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, NaDims)> {
        let span = f.span();
        let c = self.closure_of(f)?;
        let res = self.synthetic("nafromfn", Shape::Seq(SeqKind::Vec), span);
        out.push(Stmt::Let {
            pat: Pat::Bind(res),
            init: Some(Expr::new(
                ExprKind::VecRepeat {
                    elem: Box::new(zero),
                    len: Box::new(bin(BinOp::Mul, d.rows.clone(), d.cols.clone())),
                },
                span,
            )),
        });
        let (i, j) = (self.loop_index(span), self.loop_index(span));
        let mut body = Body::new();
        let items = vec![Item::Val(var_expr(i, span)), Item::Val(var_expr(j, span))];
        let r = self.apply(&c, items, &mut body)?;
        let mut stmts = body.finish();
        let at = bin(
            BinOp::Add,
            var_expr(i, span),
            bin(BinOp::Mul, var_expr(j, span), d.rows.clone()),
        );
        stmts.push(Stmt::Assign {
            place: Place::Index(res, Box::new(at)),
            op: None,
            value: r,
        });
        let inner = super::inplace::index_loop(i, d.rows.clone(), stmts, span);
        out.push(super::inplace::index_loop(
            j,
            d.cols.clone(),
            vec![inner],
            span,
        ));
        self.vars[res].mutable = true;
        Some((var_expr(res, span), d))
    }

    /// `let h = <nalgebra value>;` (with or without an annotation naming a nalgebra type):
    /// `h` holds the storage and keeps the dimensions. `false` when `init` is no nalgebra value.
    pub(super) fn na_let(
        &mut self,
        pi: &syn::PatIdent,
        ty: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        if !self.is_na(init) {
            if let Some(t) = ty.filter(|t| Self::mentions_na(t)) {
                self.diag.unsupported_at(
                    t,
                    "a nalgebra variable initialised with this value",
                    "build nalgebra values with their constructors (`DMatrix::from_fn`, \
                     `zeros`, `from_row_slice`, ...) or operations on other nalgebra values",
                );
                return true;
            }
            return false;
        }
        let span = pi.ident.span();
        let Some((value, d)) = self.na_value(init, out) else {
            return false;
        };
        // Each dimension read once more where it is known to be in scope.
        let rows = self.int_let("narows", d.rows, out);
        let cols = self.int_let("nacols", d.cols, out);
        let shape = Shape::Seq(SeqKind::Vec);
        let var = self.new_var(
            pi.ident.clone(),
            pi.mutability.is_some(),
            shape,
            VarOrigin::Local,
            None,
        );
        // A storage this pass just built (`map`, `from_fn`) is named as it is; a variable's
        // (`let w = v;`, of a `Copy` fixed-size value `v` still used after) is copied.
        let fresh = self.na_var(init).is_none();
        if let ExprKind::Var(v) = value.kind {
            if fresh && self.vars[v].origin == VarOrigin::Synthetic && self.vars[v].mutable {
                self.vars[v].mutable = pi.mutability.is_some() || self.vars[v].mutable;
                self.bind(&pi.ident, v);
                self.na.insert(v, NaDims { rows, cols });
                return true;
            }
        }
        // A copy of a storage variable (`let y = x;`, `x.clone()`) owns its elements.
        let value = match value.kind {
            ExprKind::Var(v) => Expr::new(ExprKind::CopySeq(v, CopyTo::Vec), span),
            _ => value,
        };
        out.push(Stmt::Let {
            pat: Pat::Bind(var),
            init: Some(value),
        });
        self.bind(&pi.ident, var);
        self.na.insert(var, NaDims { rows, cols });
        true
    }
}

impl Lowerer<'_> {
    /// Assignments to nalgebra variables: `h = <value>;` (a rustc-visible check that the new
    /// value has the variable's dimensions, then the storage replaced), `h += &x;`, `h -= &x;`,
    /// `h *= s;`, `h *= &m;`, `h /= s;`, and element writes `m[(i, j)] = e;`, `m[(i, j)] += e;`.
    /// `false` when `e` assigns no nalgebra variable.
    pub(super) fn na_assign(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        if self.na.is_empty() {
            return false;
        }
        let (left, right, op) = match e {
            syn::Expr::Assign(a) => (&*a.left, &*a.right, None),
            syn::Expr::Binary(b) => match b.op {
                syn::BinOp::AddAssign(_) => (&*b.left, &*b.right, Some(BinOp::Add)),
                syn::BinOp::SubAssign(_) => (&*b.left, &*b.right, Some(BinOp::Sub)),
                syn::BinOp::MulAssign(_) => (&*b.left, &*b.right, Some(BinOp::Mul)),
                syn::BinOp::DivAssign(_) => (&*b.left, &*b.right, Some(BinOp::Div)),
                _ => return false,
            },
            _ => return false,
        };
        let span = e.span();
        // `m[(i, j)] = e`, `v[k] += e`: an element of the storage.
        if let syn::Expr::Index(ix) = left {
            let Some(v) = self.na_var(&ix.expr) else {
                return false;
            };
            if !self.vars[v].mutable
                && !matches!(self.vars[v].origin, VarOrigin::Local | VarOrigin::Synthetic)
            {
                self.diag.unsupported_at(
                    left,
                    "writing an element of a nalgebra argument taken by `&` or by value",
                    "take it by `&mut` (an in-out argument), or write into a copy \
                     (`let mut m2 = m.clone();`)",
                );
                return true;
            }
            let rows = self.na[&v].rows.clone();
            let index = match &*ix.index {
                syn::Expr::Tuple(t) if t.elems.len() == 2 => {
                    let i = self.expr(&t.elems[0], out);
                    let j = self.expr(&t.elems[1], out);
                    bin(BinOp::Add, i, bin(BinOp::Mul, j, rows))
                }
                other => self.expr(other, out),
            };
            let value = self.expr(right, out);
            self.vars[v].mutable = true;
            out.push(Stmt::Assign {
                place: Place::Index(v, Box::new(index)),
                op,
                value,
            });
            return true;
        }
        let Some(v) = self.na_var(left) else {
            return false;
        };
        // A local, or the storage `map`/`from_fn` built, which a `let` names as it is.
        if !matches!(self.vars[v].origin, VarOrigin::Local | VarOrigin::Synthetic) {
            self.diag.unsupported_at(
                left,
                "assigning a nalgebra argument",
                "bind a copy first (`let mut m2 = m.clone();`) and assign that",
            );
            return true;
        }
        let d = self.na[&v].clone();
        let (value, nd) = match op {
            // `h = v;`: a copy of `v`'s storage (a fixed-size `v` is `Copy` and may be used after).
            None => match self.na_value(right, out) {
                Some((
                    Expr {
                        kind: ExprKind::Var(w),
                        span: sp,
                        ..
                    },
                    d,
                )) => (Expr::new(ExprKind::CopySeq(w, CopyTo::Vec), sp), d),
                Some(x) => x,
                None => {
                    self.diag.unsupported_at(
                        right,
                        "assigning this value to a nalgebra variable",
                        "assign a nalgebra value of the same dimensions",
                    );
                    return true;
                }
            },
            Some(o) => {
                let me = Expr::new(ExprKind::Ref(Box::new(var_expr(v, span))), span);
                let other_na = self.is_na(right);
                match (o, other_na) {
                    (BinOp::Add | BinOp::Sub, true) => {
                        let Some((y, yd)) = self.na_operand(right, out) else {
                            return true;
                        };
                        self.check_shapes(&d, &yd, span, out);
                        let name = if o == BinOp::Add { "add" } else { "sub" };
                        (self.rule(name, vec![me, y], span), yd)
                    }
                    (BinOp::Mul, true) => {
                        let Some((y, yd)) = self.na_operand(right, out) else {
                            return true;
                        };
                        let args = vec![me, y, d.rows.clone(), d.cols.clone(), yd.cols.clone()];
                        let nd = NaDims {
                            rows: d.rows.clone(),
                            cols: yd.cols,
                        };
                        (self.rule("mat_mul", args, span), nd)
                    }
                    (BinOp::Mul | BinOp::Div, false) => {
                        let s = self.na_factor(right, out);
                        let name = if o == BinOp::Mul {
                            "scale"
                        } else {
                            "div_scalar"
                        };
                        (self.rule(name, vec![me, s], span), d.clone())
                    }
                    _ => {
                        self.diag.unsupported_at(
                            e,
                            "this compound assignment of a nalgebra variable",
                            "write `h += &x`, `h -= &x`, `h *= s`, `h *= &m` or `h /= s`",
                        );
                        return true;
                    }
                }
            }
        };
        // The variable keeps its dimensions: the new value must have them (checked at run time,
        // as nalgebra's own operators check theirs).
        let rt = crate::names::rt();
        let check = Expr::new(
            ExprKind::PlainCall {
                func: quote!(#rt::na::same_dims),
                args: vec![d.rows, d.cols, nd.rows, nd.cols],
                shape: Shape::Tuple(Vec::new()),
                suffix: quote!(),
                path: None,
            },
            span,
        );
        out.push(Stmt::Eval(check));
        self.vars[v].mutable = true;
        out.push(Stmt::Assign {
            place: Place::Var(v),
            op: None,
            value,
        });
        true
    }
}

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
