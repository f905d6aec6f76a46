//! Conversions: takes the ways Rust converts between number types (`f64::from(x)`, `x.into()`,
//! `T::from(x).unwrap()`, `T::from_f64(x).unwrap()`, `NumCast::from(x).unwrap()`,
//! `x.to_f64().unwrap()`, `x.to_usize().unwrap()`), gives `Cast` nodes that keep the form they were
//! written in. A conversion of a float to a float carries the derivative; one to an integer gives
//! an inactive value (an index), as `x as usize` does. A conversion whose target the macro cannot
//! see stays a plain call, which activity analysis rejects if an active value flows in.

use super::*;

/// `from`, `from_f64`, `from_usize`...: the last segment of a conversion path.
pub(super) fn is_from_name(p: &syn::Path) -> bool {
    p.segments.last().is_some_and(|s| {
        let n = s.ident.to_string();
        n == "from" || n.starts_with("from_")
    })
}

/// The target type of `recv.to_f64()`, `recv.to_usize()` (num-traits' `ToPrimitive`).
pub(super) fn to_primitive_target(m: &syn::ExprMethodCall) -> Option<syn::Type> {
    if !m.args.is_empty() || m.turbofish.is_some() {
        return None;
    }
    let name = m.method.to_string();
    let target = name.strip_prefix("to_")?;
    if target == "f32" || target == "f64" || INT_TYPES.contains(&target) {
        let id = crate::names::existing(target, m.method.span());
        return Some(type_of_ident(id));
    }
    None
}

fn type_of_ident(id: syn::Ident) -> syn::Type {
    syn::Type::Path(syn::TypePath {
        qself: None,
        path: id.into(),
    })
}

/// `_`: a target type only rustc knows.
fn infer_type(span: Span) -> syn::Type {
    syn::Type::Infer(syn::TypeInfer {
        underscore_token: syn::Token![_](span),
    })
}

impl Lowerer<'_> {
    /// Whether the segment before a path's last names a float type or a float trait: `f64::`,
    /// `T::` (a float type parameter), `Float::`, `Real::`.
    pub(super) fn float_path_prefix(&self, p: &syn::Path) -> bool {
        let n = p.segments.len();
        n >= 2 && {
            let prefix = p.segments[n - 2].ident.to_string();
            self.is_float_name(&prefix) || prefix == "Float" || prefix == "Real"
        }
    }

    /// The `.unwrap()` / `.expect("..")` after a conversion, when its arguments are constants
    /// (they are printed verbatim, so they may not name locals).
    fn unwrap_suffix(&self, m: &syn::ExprMethodCall) -> Option<TokenStream> {
        if m.turbofish.is_some() || m.args.iter().any(|a| self.refs_locals(a)) {
            return None;
        }
        let (dot, meth, margs) = (&m.dot_token, &m.method, &m.args);
        Some(quote!(#dot #meth (#margs)))
    }

    /// The type a `from`-style conversion path converts to: the type it names (`f64::`, `T::`,
    /// an integer type, `<T as NumCast>::`), `_` for a conversion trait whose target rustc infers
    /// (`NumCast::from`, `FromPrimitive::from_f64`), `None` if the macro cannot tell (an alias,
    /// another type).
    fn conversion_target(&self, p: &syn::ExprPath) -> Option<syn::Type> {
        if let Some(q) = &p.qself {
            return match self.classify(&q.ty) {
                TypeClass::Float | TypeClass::Int => Some((*q.ty).clone()),
                _ => None,
            };
        }
        let n = p.path.segments.len();
        if n < 2 {
            return None;
        }
        let prefix = &p.path.segments[n - 2].ident;
        let name = prefix.to_string();
        if self.is_float_name(&name) || INT_TYPES.contains(&name.as_str()) {
            return Some(type_of_ident(prefix.clone()));
        }
        if matches!(name.as_str(), "NumCast" | "FromPrimitive") {
            return Some(infer_type(prefix.span()));
        }
        None
    }

    /// `T::from(x).unwrap()`, `T::from_f64(x).unwrap()`, `NumCast::from(x).expect("..")`: a
    /// `Cast` when `x` is a float and the target is known; otherwise a plain call (integer
    /// arguments: `T::from(i).unwrap()`), never active.
    pub(super) fn unwrapped_conversion(
        &mut self,
        m: &syn::ExprMethodCall,
        c: &syn::ExprCall,
        p: &syn::ExprPath,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let span = m.span();
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a, out)).collect();
        let (dot, meth, margs) = (&m.dot_token, &m.method, &m.args);
        let verbatim = quote!(#dot #meth (#margs));
        let name = p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let float_source = matches!(name.as_str(), "from" | "from_f64" | "from_f32");
        if args.len() == 1 && float_source && self.shape_of(&args[0]) == Shape::Scalar {
            if let Some(ty) = self.conversion_target(p) {
                let Some(suffix) = self.unwrap_suffix(m) else {
                    return self.poison(
                        &m.args,
                        "naming local variables in the `expect` message of a conversion",
                        "write the message as a literal",
                    );
                };
                let expr = args.into_iter().next().map(Box::new);
                let Some(expr) = expr else {
                    return Expr::new(ExprKind::Poison, span);
                };
                return Expr::new(
                    ExprKind::Cast {
                        expr,
                        ty: Box::new(ty),
                        form: CastForm::Call {
                            func: c.func.to_token_stream(),
                            suffix,
                        },
                    },
                    span,
                );
            }
        }
        let shape = self.path_shape(&p.path);
        Expr::new(
            ExprKind::PlainCall {
                func: c.func.to_token_stream(),
                args,
                shape,
                suffix: verbatim,
                path: None,
            },
            span,
        )
    }

    /// `x.to_f64().unwrap()`, `x.floor().to_usize().unwrap()` (`inner` is the `to_..` call): a
    /// `Cast` of a float receiver; of anything else, the two method calls as they are.
    pub(super) fn primitive_conversion(
        &mut self,
        m: &syn::ExprMethodCall,
        inner: &syn::ExprMethodCall,
        ty: syn::Type,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let recv = self.expr(&inner.receiver, out);
        if self.shape_of(&recv) != Shape::Scalar {
            let r = self.method_on(inner, recv, out);
            return self.method_on(m, r, out);
        }
        let Some(suffix) = self.unwrap_suffix(m) else {
            return self.poison(
                &m.args,
                "naming local variables in the `expect` message of a conversion",
                "write the message as a literal",
            );
        };
        let (dot, meth) = (&inner.dot_token, &inner.method);
        Expr::new(
            ExprKind::Cast {
                expr: Box::new(recv),
                ty: Box::new(ty),
                form: CastForm::Method(quote!(#dot #meth () #suffix)),
            },
            m.span(),
        )
    }

    /// `x.into()` of a float: a conversion whose target rustc infers (from the `let` annotation,
    /// or the function's `T: Into<f64>` bound).
    pub(super) fn conversion_by_into(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        // Its receiver's conversions are not the `let`'s (`let c: f64 = (x * convert(2.0)).into()`).
        self.let_target = None;
        let recv = self.expr(&m.receiver, out);
        if self.shape_of(&recv) != Shape::Scalar {
            return self.method_on(m, recv, out);
        }
        let (dot, meth) = (&m.dot_token, &m.method);
        Expr::new(
            ExprKind::Cast {
                expr: Box::new(recv),
                ty: Box::new(infer_type(m.method.span())),
                form: CastForm::Method(quote!(#dot #meth ())),
            },
            m.span(),
        )
    }

    /// The target of a conversion whose target rustc infers (`convert(x)`, `2.0f32.into()`):
    /// the type of the `let` it initialises, if annotated (`let c: f64 = convert(x);`); in a
    /// generic function whose floats are all of one type parameter `T`, `T` (generated code
    /// keeps converted values in `let`s of their own, where rustc would have nothing to infer
    /// it from); otherwise `_`.
    fn inferred_target(&mut self, span: Span) -> syn::Type {
        if let Some(t) = self.let_target.take() {
            return t;
        }
        let key = self
            .sole_float
            .as_ref()
            .map(|t| t.to_token_stream().to_string());
        match (&self.sole_float, key) {
            (Some(t), Some(k)) if self.float_generics.contains(&k) => t.clone(),
            _ => infer_type(span),
        }
    }

    /// Whether `e` is a conversion whose target rustc infers (`x.into()`, `convert(x)`).
    pub(super) fn is_inferred_conversion(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::MethodCall(m) => m.method == "into" && m.args.is_empty(),
            syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "convert")),
            syn::Expr::Paren(p) => Self::is_inferred_conversion(&p.expr),
            _ => false,
        }
    }

    /// The tokens of a constant expression, with the target of a conversion rustc infers
    /// (`2.0f32.into()`, `nalgebra::convert(2.0)`) written down where `inferred_target` knows
    /// it: generated code keeps constants in `let`s of their own too.
    pub(super) fn typed_constant(&mut self, e: &syn::Expr, shape: &Shape) -> TokenStream {
        // (A constant the macro knows is not a float keeps its tokens.)
        if !Self::is_inferred_conversion(e) || !matches!(shape, Shape::Scalar | Shape::Other) {
            return e.to_token_stream();
        }
        match self.inferred_target(e.span()) {
            syn::Type::Infer(_) => e.to_token_stream(),
            t => quote!(::core::convert::identity::<#t>(#e)),
        }
    }

    /// `nalgebra::convert(x)` (also `na::convert`, `simba::scalar::convert`) of a number: a
    /// conversion whose target rustc infers.
    pub(super) fn nalgebra_convert(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::Path,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        // A bare `convert(x)` of a value that is not a constant may be the user's own
        // (differentiated) function: it stays a call. Of a constant (`convert(0.5)`, nalgebra's
        // imported) it is a conversion: it has no derivative either way.
        let ok = match names.as_slice() {
            [one] => one == "convert" && c.args.len() == 1 && !self.refs_locals(&c.args[0]),
            [first, .., last] => {
                last == "convert" && matches!(first.as_str(), "nalgebra" | "na" | "simba")
            }
            _ => false,
        };
        if !ok || c.args.len() != 1 || path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let target = self.inferred_target(c.span());
        let inner = self.expr(&c.args[0], out);
        if !matches!(self.shape_of(&inner), Shape::Scalar | Shape::Int) {
            let shape = self.path_shape(path);
            return Some(super::calls::plain_call(
                c,
                vec![inner],
                shape,
                None,
                c.span(),
            ));
        }
        Some(Expr::new(
            ExprKind::Cast {
                expr: Box::new(inner),
                ty: Box::new(target),
                form: CastForm::Call {
                    func: c.func.to_token_stream(),
                    suffix: TokenStream::new(),
                },
            },
            c.span(),
        ))
    }

    /// `f64::from(x)`, `f32::from(x)` (as `x as f64`), `T::from(x)` (`From`, written as is); of
    /// a value that is not a float, a plain call.
    pub(super) fn float_from_conversion(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::Path,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let span = c.span();
        let prefix = path.segments[0].ident.clone();
        let inner = self.expr(&c.args[0], out);
        let primitive = prefix == "f64" || prefix == "f32";
        if primitive || self.shape_of(&inner) == Shape::Scalar {
            let form = if primitive {
                CastForm::As
            } else {
                CastForm::Call {
                    func: c.func.to_token_stream(),
                    suffix: TokenStream::new(),
                }
            };
            return Expr::new(
                ExprKind::Cast {
                    expr: Box::new(inner),
                    ty: Box::new(type_of_ident(prefix)),
                    form,
                },
                span,
            );
        }
        let shape = self.path_shape(path);
        super::calls::plain_call(c, vec![inner], shape, None, span)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::print;
    use crate::testing::{analysed, errors, var};
    use syn::parse_quote;

    #[test]
    fn conversions_keep_their_form_and_float_targets_carry_the_derivative() {
        let f = analysed(parse_quote! {
            fn f<T: Float + Into<f64> + FromPrimitive>(p: &[T; 2], y: f64) -> T {
                let x1: f64 = p[0].into();
                let k = p[1].floor().to_usize().unwrap();
                let i: usize = NumCast::from(y).unwrap();
                let z = y.to_f64().unwrap() + f64::from(y);
                T::from_f64(x1 * z).unwrap() + T::from(y).unwrap() + p[k + i]
            }
        });
        assert_eq!(
            print::function(&f),
            "fn f(p#0 [array 2, active]: &[T; 2], y#1 [scalar, active]: f64) -> T {
    let x1#2 [scalar, active] = ::core::convert::identity::< f64 > ((p#0[0]).into());
    let k#3 [int] = ((::autodiff_runtime::__private::Float::floor(p#0[1])).to_usize().unwrap());
    let i#4 [int] = (NumCast::from(y#1).unwrap());
    let z#5 [scalar, active] = (((y#1).to_f64().unwrap()) + (y#1 as f64));
    (((T::from_f64((x1#2 * z#5)).unwrap()) + (T::from(y#1).unwrap())) + p#0[(k#3 + i#4)])
}
"
        );
        let active = |name: &str| f.vars[var(&f, name)].active;
        assert!(active("x1") && active("z"));
        assert!(!active("k") && !active("i"));
    }

    #[test]
    fn conversions_the_macro_cannot_type_are_rejected() {
        // In lowering: an `Option` not unwrapped, a fallback after a conversion.
        let errs = errors(parse_quote! {
            fn f<T: Float>(x: f64, y: T) -> T {
                let b = x.to_f64();
                let d = T::from(x).unwrap_or(y);
                d * y
            }
        });
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].contains("`to_f64()` of a float here"), "{errs:?}");
        assert!(
            errs[1].contains("`unwrap_or` after a conversion"),
            "{errs:?}"
        );
        // In activity: targets the macro cannot see, reported once each.
        let errs = errors(parse_quote! {
            fn f<T: Float>(x: f64, y: T) -> T {
                let a: f64 = Real::from(x);
                let c: T = NumCast::from(x).unwrap_or(y);
                (x as T) * c * y + a
            }
        });
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert!(errs[0].contains("through `Real::from(..)`"), "{errs:?}");
        assert!(errs[1].contains("through `NumCast::from(..)`"), "{errs:?}");
        assert!(
            errs[2].contains("casting an active value to a type parameter"),
            "{errs:?}"
        );
    }
}
