//! A `DMatrix` output: the body gives its column-major storage (a `Vec<T>`), so the public
//! companions must know its dimensions to rebuild it. They are read from the values the body
//! returns: each dimension must be an expression over the public arguments (a nalgebra argument's
//! `nrows()`/`ncols()`, an integer argument, literals, `+ - * /` of those), the same for every
//! `return`, which the public companions evaluate before calling the body (`codegen/na.rs`).
//! Immutable integer `let`s are followed to what they were bound to (`let n = x.len();`).
//! Anything else is reported at the returned value, never guessed: rebuilding a 2 x 3 matrix as
//! 3 x 2 would compile and run.

use super::*;

/// What lowering keeps for a `DMatrix` output.
#[derive(Default)]
pub(crate) struct NaOut {
    /// The output is a `DMatrix` (dimensions not fixed by its type).
    pub dynamic: bool,
    /// The dimension variables of nalgebra arguments, as the public companions read them
    /// (`m.nrows()`).
    pub dims_of: HashMap<VarId, TokenStream>,
    /// Integer `let`s lowering made for dimensions (`int_let`), with what they were bound to.
    pub inits: HashMap<VarId, Expr>,
    /// The dimensions of each value returned, with its tokens.
    returned: Vec<(NaDims, TokenStream)>,
}

impl Lowerer<'_> {
    /// A value the function returns when its output is a `DMatrix`: lowered as a nalgebra
    /// value, its dimensions kept for the public companions.
    pub(in crate::lower) fn na_returned(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let Some((value, dims)) = self.na_value(e, out) else {
            self.diag.unsupported_at(
                e,
                "this value of a `DMatrix` output (the macro reads the output's dimensions from \
                 the nalgebra value returned)",
                "return a nalgebra expression or variable (`a * b`, `m`) directly, here and at \
                 every `return`",
            );
            return self.expr(e, out);
        };
        self.na_out.returned.push((dims, e.to_token_stream()));
        value
    }

    /// A dimension as tokens over the public arguments, if it is one.
    pub(in crate::lower) fn public_dim(&self, e: &Expr, depth: usize) -> Option<TokenStream> {
        if depth > 32 {
            return None;
        }
        match &e.kind {
            ExprKind::Lit(l @ syn::Lit::Int(_)) => Some(quote!(#l)),
            ExprKind::Opaque {
                tokens,
                shape: Shape::Int,
            } => Some(quote!((#tokens))),
            ExprKind::Var(v) => {
                if let Some(t) = self.na_out.dims_of.get(v) {
                    return Some(t.clone());
                }
                if let Some(init) = self.na_out.inits.get(v) {
                    return self.public_dim(init, depth + 1);
                }
                let var = &self.vars[*v];
                let int_arg = matches!(var.origin, VarOrigin::Param(i) if i < 1000)
                    && var.shape == Shape::Int
                    && !var.mutable;
                let name = &var.name;
                int_arg.then(|| quote!(#name))
            }
            // `x.len()` of a flat sequence argument (not a nested or ragged one, whose public
            // length counts rows).
            ExprKind::Len(v) => {
                let var = &self.vars[*v];
                // An array's length is a constant (`from_row_slice(&[a, b, c])`).
                if let Shape::Seq(SeqKind::Array(n)) = &var.shape {
                    if var.row.is_none() && !self.rows.contains_key(v) {
                        let t = n.tokens();
                        return Some(quote!((#t)));
                    }
                }
                let flat_arg = matches!(var.origin, VarOrigin::Param(i) if i < 1000)
                    && matches!(var.shape, Shape::Seq(_))
                    && !self.rows.contains_key(v)
                    && !self.ragged.contains_key(v);
                let name = &var.name;
                flat_arg.then(|| quote!(#name.len()))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let op = match op {
                    BinOp::Add => quote!(+),
                    BinOp::Sub => quote!(-),
                    BinOp::Mul => quote!(*),
                    BinOp::Div => quote!(/),
                    _ => return None,
                };
                let (a, b) = (
                    self.public_dim(lhs, depth + 1)?,
                    self.public_dim(rhs, depth + 1)?,
                );
                Some(quote!((#a #op #b)))
            }
            _ => None,
        }
    }

    /// After the body: the dimensions every return agrees on go into the output's type.
    pub(in crate::lower) fn na_output_dims(&mut self, output: &mut Output, body: &[Stmt]) {
        if !self.na_out.dynamic {
            return;
        }
        // Immutable integer `let`s of the body, followed by `public_dim`.
        crate::ir::visit_stmt_list(body, &mut |s| {
            if let Stmt::Let {
                pat: Pat::Bind(v),
                init: Some(init),
            } = s
            {
                if self.vars[*v].shape == Shape::Int && !self.vars[*v].mutable {
                    self.na_out.inits.entry(*v).or_insert_with(|| init.clone());
                }
            }
        });
        let returned = std::mem::take(&mut self.na_out.returned);
        let mut first: Option<(String, String)> = None;
        for (dims, at) in &returned {
            let (Some(r), Some(c)) = (
                self.public_dim(&dims.rows, 0),
                self.public_dim(&dims.cols, 0),
            ) else {
                self.diag.unsupported_at(
                    at,
                    "a `DMatrix` output whose dimensions are computed in the body (the public \
                     functions rebuild the matrix from its storage, with dimensions read from \
                     the arguments)",
                    "build it with dimensions taken from the arguments (`a.nrows()`, `x.len()`, \
                     an integer argument `n`, sums and products of those), or return a \
                     `DVector` or a fixed-size matrix",
                );
                continue;
            };
            let key = (r.to_string(), c.to_string());
            match &first {
                None => {
                    first = Some(key);
                    if let Some(na) = output.na.as_mut() {
                        na.out_dims = Some((r, c));
                    }
                }
                Some(k) if *k == key => {}
                Some(_) => self.diag.unsupported_at(
                    at,
                    "returning `DMatrix` values whose dimensions are written differently \
                     (the public functions rebuild the matrix with the dimensions of the first \
                     value returned)",
                    "bind the result to one variable and return it once, at the end",
                ),
            }
        }
    }
}
