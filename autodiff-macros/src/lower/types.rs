//! Types and signatures: takes Rust types and the function's signature, gives shapes, the
//! parameters with their activity and the output; the one place that knows which Rust types are
//! floats and sequences.

use super::*;

impl Lowerer<'_> {
    pub(super) fn is_float_name(&self, s: &str) -> bool {
        s == "f32" || s == "f64" || self.float_generics.iter().any(|g| g == s)
    }

    pub(super) fn classify(&self, ty: &syn::Type) -> TypeClass {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => {
                let last = match tp.path.segments.last() {
                    Some(s) => s,
                    None => return TypeClass::Other,
                };
                let name = last.ident.to_string();
                if tp.path.segments.len() == 1 && self.is_float_name(&name) {
                    return TypeClass::Float;
                }
                if INT_TYPES.contains(&name.as_str()) {
                    return TypeClass::Int;
                }
                if name == "bool" {
                    return TypeClass::Bool;
                }
                if name == "Vec" {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                        if let Some(syn::GenericArgument::Type(inner)) = a.args.first() {
                            return match self.classify(inner) {
                                TypeClass::Float => TypeClass::Seq(SeqKind::Vec),
                                TypeClass::Int | TypeClass::Bool | TypeClass::Other => {
                                    TypeClass::Other
                                }
                                _ => TypeClass::UnsupportedFloat("nested vectors of floats"),
                            };
                        }
                    }
                    return TypeClass::Other;
                }
                if matches!(
                    name.as_str(),
                    "DMatrix"
                        | "DVector"
                        | "SMatrix"
                        | "SVector"
                        | "Matrix"
                        | "Vector2"
                        | "Vector3"
                        | "Vector4"
                        | "Matrix2"
                        | "Matrix3"
                        | "Matrix4"
                        | "RowDVector"
                ) {
                    return TypeClass::UnsupportedFloat(
                        "nalgebra matrices and vectors in this position (arguments, `let`s and \
                         outputs are supported)",
                    );
                }
                if self.mentions_float(ty) {
                    return TypeClass::UnsupportedFloat("this container type");
                }
                TypeClass::Other
            }
            syn::Type::Array(a) => match self.classify(&a.elem) {
                TypeClass::Float => {
                    TypeClass::Seq(SeqKind::Array(ArrayLen::new(a.len.to_token_stream())))
                }
                TypeClass::Int | TypeClass::Bool | TypeClass::Other => TypeClass::Other,
                // `[[T; C]; R]` is flattened before it gets here (`lower/nested.rs`).
                _ => TypeClass::UnsupportedFloat(
                    "arrays nested more than two deep, or arrays of `Vec`s",
                ),
            },
            syn::Type::Slice(s) => match self.classify(&s.elem) {
                TypeClass::Float => TypeClass::Seq(SeqKind::Slice),
                TypeClass::Int | TypeClass::Bool | TypeClass::Other => TypeClass::Other,
                _ => TypeClass::UnsupportedFloat("slices of `Vec`s or of arrays of arrays"),
            },
            syn::Type::Paren(p) => self.classify(&p.elem),
            syn::Type::Group(g) => self.classify(&g.elem),
            syn::Type::Tuple(t) if t.elems.is_empty() => TypeClass::Other,
            _ if self.mentions_float(ty) => TypeClass::UnsupportedFloat("this type"),
            _ => TypeClass::Other,
        }
    }

    pub(super) fn mentions_float(&self, ty: &syn::Type) -> bool {
        struct Finder<'b> {
            names: &'b Lowerer<'b>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_ident(&mut self, i: &'ast syn::Ident) {
                if self.names.is_float_name(&i.to_string()) {
                    self.found = true;
                }
            }
        }
        let mut f = Finder {
            names: self,
            found: false,
        };
        f.visit_type(ty);
        f.found
    }

    pub(super) fn check_signature(&mut self, sig: &syn::Signature) {
        if let Some(t) = &sig.asyncness {
            self.diag.unsupported_at(
                &t,
                "`async fn`",
                "differentiate a synchronous function and call it from async code",
            );
        }
        if let Some(t) = &sig.unsafety {
            self.diag.unsupported_at(
                &t,
                "`unsafe fn`",
                "move the unsafe code out of the differentiated function",
            );
        }
        if let Some(t) = &sig.constness {
            self.diag.unsupported_at(&t, "`const fn`", "remove `const`");
        }
        if let Some(a) = &sig.abi {
            self.diag
                .unsupported_at(&a, "`extern` functions", "remove the ABI");
        }
        if let Some(v) = &sig.variadic {
            self.diag
                .unsupported_at(&v, "variadic functions", "take a slice instead");
        }
    }

    pub(super) fn params(&mut self, sig: &syn::Signature, attr: &Attr) -> Vec<Param> {
        let mut params = Vec::new();
        for (i, input) in sig.inputs.iter().enumerate() {
            let pt = match input {
                syn::FnArg::Receiver(r) => {
                    let name = syn::Ident::new("self", r.self_token.span);
                    params.push(self.struct_param(i, name, (*r.ty).clone(), attr));
                    continue;
                }
                syn::FnArg::Typed(pt) => pt,
            };
            let (name, mutable) = match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (pi.ident.clone(), pi.mutability.is_some())
                }
                other => {
                    self.diag.unsupported_at(
                        &other,
                        "patterns in argument position",
                        "name the argument and destructure it in the body",
                    );
                    continue;
                }
            };
            if self.structs.is_root(&name.to_string()) {
                params.push(self.struct_param(i, name, (*pt.ty).clone(), attr));
                continue;
            }
            let selected = attr.wrt.as_ref().is_none_or(|w| w.contains(&name));
            if let Some(p) = self.na_param(i, pt, &name, mutable, selected) {
                params.push(p);
                continue;
            }
            // Rows of any length: a flat sequence and its row offsets (`lower/ragged.rs`).
            if let Some(p) = self.ragged_param(i, pt, &name, mutable, selected) {
                params.push(p);
                continue;
            }
            // A nested array is seen in its flat form (`lower/nested.rs`).
            let (ty, nest) = match self.flat_type(&pt.ty) {
                Some((flat, row)) => (
                    flat,
                    Some(Nest {
                        ty: (*pt.ty).clone(),
                        row,
                        ragged: None,
                    }),
                ),
                None => ((*pt.ty).clone(), None),
            };
            let (shape, elem_ty, inout) = self.param_shape(&ty, selected, &name);
            let active = selected && shape.is_float();
            let var = self.new_var(
                name.clone(),
                // The contents of a `&mut` argument change in the body, floats or not (an
                // integer buffer written by a call or a method is not stable: the reverse
                // sweep cannot read its earlier values by name).
                mutable
                    || inout
                    || matches!(&ty, syn::Type::Reference(r) if r.mutability.is_some()),
                shape.clone(),
                VarOrigin::Param(i),
                Some(ty.clone()),
            );
            self.bind(&name, var);
            if let Some(n) = &nest {
                self.rows.insert(var, n.row.clone());
                if n.fixed_rows().is_some() {
                    self.rows_fixed.insert(var);
                }
            }
            params.push(Param {
                var,
                name,
                ty,
                shape,
                elem_ty,
                active,
                inout,
                nest,
                strukt: None,
                field: None,
                na: None,
            });
        }
        if let Some(wrt) = &attr.wrt {
            for n in wrt {
                match params.iter().find(|p| p.name == *n) {
                    None => self.diag.error_at(
                        &n,
                        format!("`wrt` names `{n}`, which is not an argument of this function"),
                    ),
                    Some(p)
                        if !p.shape.is_float()
                            && p.strukt.is_none()
                            && !self.poisoned_names.contains(&n.to_string()) =>
                    {
                        self.diag.error_at(
                            &n,
                            format!(
                            "`wrt` names `{n}`, which is not float-valued; only float arguments \
                             (f32, f64, float type parameters, and slices, arrays or Vecs of \
                             them) can be differentiated"
                        ),
                        )
                    }
                    _ => {}
                }
            }
        }
        if !self.diag.has_errors() && !params.iter().any(|p| p.active) {
            self.diag.error_at(
                &sig.ident,
                format!(
                    "`{}` has no active argument: nothing to differentiate with respect to; \
                     give it a float argument (f32, f64, a float type parameter, or a slice, \
                     array or Vec of them)",
                    sig.ident
                ),
            );
        }
        params
    }

    /// The float type of what a function giving `()` writes through `p`: `_` for a struct
    /// argument (its fields' types are not written in the function).
    fn written_elem(p: &Param, params: &[Param]) -> Option<syn::Type> {
        match &p.elem_ty {
            Some(t) => Some(t.clone()),
            None if p.strukt.is_some() => params
                .iter()
                .find_map(|q| q.elem_ty.clone())
                .or_else(|| Some(syn::parse_quote!(_))),
            None => None,
        }
    }

    /// A struct argument (`s: &State`, `&mut self`): a pass-through variable; active when it is
    /// selected and the body uses a float field of it, or `wrt(...)` names it.
    fn struct_param(&mut self, i: usize, name: syn::Ident, ty: syn::Type, attr: &Attr) -> Param {
        let key = name.to_string();
        let named = attr
            .wrt
            .as_ref()
            .is_some_and(|w| w.iter().any(|n| *n == key));
        let active = named || (attr.wrt.is_none() && self.structs.has_float_fields(&key));
        let kind = self
            .structs
            .roots
            .iter()
            .find(|(n, _)| *n == key)
            .map(|(_, k)| k.clone())
            .unwrap_or(StructArg::Value);
        // An active struct by `&` may be passed whole to differentiated calls; one by `&mut` is
        // only read through its fields.
        // So may one by value whose fields the body does not write (a clone of the argument is
        // then the struct as it came in).
        // (One left out of `wrt(...)` too: it is lent a zero tangent and a scratch adjoint.)
        let shape = match kind {
            StructArg::Ref => Shape::Struct,
            StructArg::Value if !self.structs.writes_fields(&key) => Shape::Struct,
            // One by `&mut` passed whole to calls is lent to them (`lower/struct_mut.rs`), when
            // active: one left out of `wrt(...)` is passed through, its methods plain calls (a
            // random-number generator's `rng.draw()`).
            StructArg::MutRef if active && self.structs.lent(&key) => Shape::Struct,
            _ => Shape::Other,
        };
        let var = self.new_var(
            name.clone(),
            kind == StructArg::MutRef,
            shape.clone(),
            VarOrigin::Param(i),
            Some(ty.clone()),
        );
        self.bind(&name, var);
        Param {
            var,
            name,
            ty,
            shape,
            elem_ty: None,
            active,
            inout: kind == StructArg::MutRef,
            nest: None,
            na: None,
            strukt: Some(kind),
            field: None,
        }
    }

    /// Shape, element type and whether the argument is passed as `&mut` with float contents.
    pub(super) fn param_shape(
        &mut self,
        ty: &syn::Type,
        selected: bool,
        name: &syn::Ident,
    ) -> (Shape, Option<syn::Type>, bool) {
        let (inner, is_ref) = match ty {
            syn::Type::Reference(r) => {
                if r.mutability.is_some() && self.mentions_float(&r.elem) {
                    return self.mut_ref_shape(ty, &r.elem, selected, name);
                }
                (&*r.elem, true)
            }
            t => (t, false),
        };
        let (shape, elem) = self.value_param_shape(ty, inner, is_ref, selected, name);
        (shape, elem, false)
    }

    /// A `&mut` argument with float contents: an in-out argument when selected, a workspace
    /// when not. Slices, arrays and `Vec`s of floats (a `&mut Vec<T>` is used as a slice: its
    /// length is fixed in the body).
    fn mut_ref_shape(
        &mut self,
        ty: &syn::Type,
        inner: &syn::Type,
        selected: bool,
        name: &syn::Ident,
    ) -> (Shape, Option<syn::Type>, bool) {
        match self.classify(inner) {
            TypeClass::Seq(kind) => {
                let kind = match kind {
                    SeqKind::Vec => SeqKind::Slice,
                    k => k,
                };
                (Shape::Seq(kind), seq_elem(inner), true)
            }
            // `x: &mut f64`: an in-out float (`*x` in the body).
            TypeClass::Float if selected => (Shape::Scalar, Some(inner.clone()), true),
            _ => {
                let (shape, elem) = self.value_param_shape(ty, inner, true, selected, name);
                (shape, elem, false)
            }
        }
    }

    fn value_param_shape(
        &mut self,
        ty: &syn::Type,
        inner: &syn::Type,
        is_ref: bool,
        selected: bool,
        name: &syn::Ident,
    ) -> (Shape, Option<syn::Type>) {
        match self.classify(inner) {
            // `x: &f64`: read through `*x` (or auto-deref) like a float by value.
            TypeClass::Float if is_ref && selected => (Shape::Scalar, Some(inner.clone())),
            TypeClass::Float if is_ref => (Shape::Other, None),
            TypeClass::Float => (Shape::Scalar, Some(inner.clone())),
            TypeClass::Seq(kind) => {
                let kind = match kind {
                    SeqKind::Vec if is_ref => SeqKind::Slice,
                    k => k,
                };
                (Shape::Seq(kind), seq_elem(inner))
            }
            TypeClass::Int => (Shape::Int, None),
            TypeClass::Bool => (Shape::Bool, None),
            TypeClass::UnsupportedFloat(what) => {
                if selected {
                    self.diag.error_at(
                        &ty,
                        format!(
                            "#[differentiate] cannot differentiate with respect to `{name}`: \
                             arguments of {what} cannot be active; pass f32/f64 values, slices, \
                             arrays or Vecs of them, or, if `{name}` holds constants, leave it \
                             out with `#[differentiate(wrt(...))]`"
                        ),
                    );
                    self.poisoned_names.push(name.to_string());
                }
                (Shape::Other, None)
            }
            TypeClass::Other => (Shape::Other, None),
        }
    }

    pub(super) fn output(&mut self, sig: &syn::Signature, params: &[Param]) -> Option<Output> {
        let writes = params.iter().find(|p| p.active_inout());
        let unit = |elem_ty: syn::Type| Output {
            ty: syn::parse_quote!(()),
            shape: Shape::Tuple(Vec::new()),
            elem_ty,
            nest: None,
            na: None,
            strukt: None,
        };
        let ty = match &sig.output {
            syn::ReturnType::Default => {
                if let Some(p) = writes {
                    return Some(unit(Self::written_elem(p, params)?));
                }
                let hint = match params.iter().find(|p| p.inout) {
                    Some(p) => format!(
                        "; `{0}` is left out of `wrt(...)`, which makes it a workspace: name it \
                         there (`wrt(.., {0})`) to differentiate what is written into it",
                        p.name
                    ),
                    None => String::new(),
                };
                self.diag.error_at(
                    &sig.ident,
                    format!(
                        "`{}` returns nothing: a differentiated function must return a float \
                         value (f32, f64, a float type parameter, or a tuple, array or Vec of \
                         them) or write its results through an active `&mut` argument{hint}",
                        sig.ident
                    ),
                );
                return None;
            }
            syn::ReturnType::Type(_, t) => (**t).clone(),
        };
        if let (syn::Type::Tuple(t), Some(p)) = (&ty, writes) {
            if t.elems.is_empty() {
                return Some(unit(Self::written_elem(p, params)?));
            }
        }
        if let Some(o) = self.na_output(&ty) {
            return o;
        }
        if let Some((flat, _)) = self.ragged_type(&ty) {
            // `-> Vec<Vec<T>>`: the flat rows, with their offsets written into an argument of
            // its own (`lower/ragged.rs`, `ragged_output`).
            if matches!(ty, syn::Type::Reference(_)) {
                self.diag.unsupported_at(
                    &ty,
                    "outputs borrowing rows of `Vec`s",
                    "return the rows by value (`-> Vec<Vec<T>>`)",
                );
                return None;
            }
            let rows = self.ragged_output_rows();
            return self.output_of(&flat).map(|o| Output {
                nest: Some(Nest {
                    ty,
                    row: ArrayLen::of_items(0),
                    ragged: Some(rows),
                }),
                ..o
            });
        }
        // `-> State`: the tuple of its float fields, known once the body is lowered
        // (`lower/struct_values.rs`).
        // (A tuple output is a tuple, not a struct: tuples are read as structs only as
        // arguments.)
        if !matches!(ty, syn::Type::Reference(_) | syn::Type::Tuple(_))
            && self.struct_type(&ty, &sig.generics).is_some()
        {
            return Some(Output {
                ty: syn::parse_quote!(_),
                shape: Shape::Scalar,
                elem_ty: syn::parse_quote!(_),
                nest: None,
                na: None,
                strukt: Some(StructOut {
                    ty,
                    path: None,
                    floats: Vec::new(),
                    consts: Vec::new(),
                    base: None,
                    whole: false,
                    copies: Vec::new(),
                }),
            });
        }
        // `-> [[T; C]; R]`, `-> Vec<[T; C]>`: the flat form, converted by the public companions.
        if !matches!(ty, syn::Type::Reference(_)) {
            if let Some((flat, row)) = self.flat_type(&ty) {
                let out = self.output_of(&flat);
                return out.map(|o| Output {
                    nest: Some(Nest {
                        ty,
                        row,
                        ragged: None,
                    }),
                    ..o
                });
            }
        }
        self.output_of(&ty)
    }

    /// The output of type `ty` (not `()`).
    fn output_of(&mut self, ty: &syn::Type) -> Option<Output> {
        let ty = ty.clone();
        let bad = |me: &mut Self| {
            me.diag.error_at(
                &ty,
                "the output of a differentiated function must be float-valued: f32, f64, a \
                 float type parameter, an array or `Vec` of them, or a tuple of floats and \
                 arrays of floats",
            );
            None
        };
        match self.classify(&ty) {
            TypeClass::Float => Some(Output {
                elem_ty: ty.clone(),
                ty,
                shape: Shape::Scalar,
                nest: None,
                na: None,
                strukt: None,
            }),
            TypeClass::Seq(kind @ (SeqKind::Vec | SeqKind::Array(_))) => {
                let elem = seq_elem(&ty)?;
                Some(Output {
                    elem_ty: elem,
                    ty,
                    shape: Shape::Seq(kind),
                    nest: None,
                    na: None,
                    strukt: None,
                })
            }
            _ => {
                if let syn::Type::Tuple(t) = &ty {
                    // A tuple of floats and arrays of floats (a `Vec` component would need a
                    // seed convention of its own).
                    let mut elem = None;
                    let mut shapes = Vec::new();
                    for e in &t.elems {
                        match self.classify(e) {
                            TypeClass::Float => {
                                shapes.push(Shape::Scalar);
                                elem = Some(e.clone());
                            }
                            TypeClass::Seq(kind @ SeqKind::Array(_)) => {
                                shapes.push(Shape::Seq(kind));
                                elem = Some(seq_elem(e)?);
                            }
                            _ => return bad(self),
                        }
                    }
                    if let Some(elem_ty) = elem {
                        return Some(Output {
                            shape: Shape::Tuple(shapes),
                            elem_ty,
                            ty,
                            nest: None,
                            na: None,
                            strukt: None,
                        });
                    }
                }
                bad(self)
            }
        }
    }

    pub(super) fn shape_of_type(&self, ty: &syn::Type) -> Shape {
        match ty {
            syn::Type::Reference(r) => match self.classify(&r.elem) {
                TypeClass::Seq(_) => Shape::Seq(SeqKind::Slice),
                _ => Shape::Other,
            },
            syn::Type::Tuple(t) => {
                Shape::Tuple(t.elems.iter().map(|e| self.shape_of_type(e)).collect())
            }
            _ => match self.classify(ty) {
                TypeClass::Float => Shape::Scalar,
                TypeClass::Seq(k) => Shape::Seq(k),
                TypeClass::Int => Shape::Int,
                TypeClass::Bool => Shape::Bool,
                _ => Shape::Other,
            },
        }
    }

    /// The shape of a path-headed constant expression (`f64::consts::PI`, `T::zero()`).
    pub(super) fn path_shape(&self, p: &syn::Path) -> Shape {
        if let Some(ty) = p
            .get_ident()
            .and_then(|id| self.item_shapes.get(&id.to_string()))
        {
            return self.shape_of_type(ty);
        }
        let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if names
            .iter()
            .any(|n| self.is_float_name(n) || n == "Float" || n == "FloatConst")
        {
            Shape::Scalar
        } else if names.iter().any(|n| INT_TYPES.contains(&n.as_str())) {
            Shape::Int
        } else {
            Shape::Other
        }
    }

    pub(super) fn opaque_shape(&self, e: &syn::Expr) -> Shape {
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(_) => Shape::Scalar,
                syn::Lit::Int(i) => {
                    if matches!(i.suffix(), "f32" | "f64") {
                        Shape::Scalar
                    } else {
                        Shape::Int
                    }
                }
                syn::Lit::Bool(_) => Shape::Bool,
                _ => Shape::Other,
            },
            syn::Expr::Path(p) => self.path_shape(&p.path),
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => self.path_shape(&p.path),
                _ => Shape::Other,
            },
            syn::Expr::MethodCall(m) => {
                if methods::float_method(&m.method.to_string())
                    .is_some_and(|r| r.arity == methods::Arity::Predicate)
                {
                    Shape::Bool
                } else {
                    self.opaque_shape(&m.receiver)
                }
            }
            syn::Expr::Paren(p) => self.opaque_shape(&p.expr),
            syn::Expr::Group(g) => self.opaque_shape(&g.expr),
            syn::Expr::Unary(u) => self.opaque_shape(&u.expr),
            syn::Expr::Binary(b) => match bin_op(&b.op) {
                Some(op) if op.is_arith() => self
                    .opaque_shape(&b.left)
                    .join(&self.opaque_shape(&b.right)),
                Some(_) => Shape::Bool,
                None => Shape::Other,
            },
            syn::Expr::Cast(c) => self.shape_of_type(&c.ty),
            _ => Shape::Other,
        }
    }

    /// What copying sequence `v` gives: an array stays an array unless `to_vec` asks for a `Vec`.
    pub(super) fn copy_to(&self, v: VarId, to_vec: bool) -> CopyTo {
        match self.vars[v].shape {
            Shape::Seq(SeqKind::Array(_)) if !to_vec => CopyTo::Array,
            _ => CopyTo::Vec,
        }
    }

    pub(super) fn shape_of(&self, e: &Expr) -> Shape {
        shape_of(&self.vars, e)
    }

    /// Whether a called path is a constructor (`Some`, `Ok`, `Point`, `Shape::Circle`) or an
    /// associated function of a type other than a float (`Box::new`, `Cell::new`): by Rust's
    /// naming conventions, an upper-case last or second-to-last segment.
    pub(super) fn is_constructor(&self, p: &syn::Path) -> bool {
        let upper = |s: &syn::PathSegment| {
            let name = s.ident.to_string();
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && !self.is_float_name(&name)
                && !matches!(name.as_str(), "Float" | "Real" | "FloatConst" | "Self")
        };
        let n = p.segments.len();
        p.segments.last().is_some_and(upper) || (n >= 2 && upper(&p.segments[n - 2]))
    }
}
