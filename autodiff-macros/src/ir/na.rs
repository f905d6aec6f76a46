//! nalgebra values in the IR: the type of a nalgebra argument or output as written (the IR sees
//! its column-major storage, `lower/na/`), and which calls are the runtime's nalgebra rules.

use super::*;

/// A nalgebra matrix or vector type as written (`DMatrix<T>`, `Vector3<T>`, `SMatrix<T, R, C>`,
/// behind `&` or not), seen by the IR as its flat column-major storage plus its dimensions
/// (`lower/na/`); public companions take and give the type as written (`codegen/na.rs`).
#[derive(Clone, Debug)]
pub struct NaType {
    /// The type as written (references included).
    pub ty: syn::Type,
    /// The owned type (`DMatrix<T>`): tangents, gradients, outputs.
    pub owned: syn::Type,
    /// The element type.
    pub elem: syn::Type,
    /// Rows and columns: the tokens of a fixed size, or `None` when dynamic.
    pub rows: Option<TokenStream>,
    pub cols: Option<TokenStream>,
    /// Taken by `&` (otherwise by value).
    pub by_ref: bool,
    /// A `DMatrix` output: its rows and columns as expressions over the public arguments
    /// (`a.nrows()`, `n`), which the public companions evaluate before the call; `None` for
    /// arguments and outputs whose type fixes what it needs.
    pub out_dims: Option<(TokenStream, TokenStream)>,
}

/// Whether `func` is one of the runtime's nalgebra rules (`__private::na::mat_mul`...), which
/// lowering writes (`lower/na/`) and which have `_pullback` companions: adjoints only, each
/// buffer an `Option` (`None` for an argument whose adjoint nobody wants).
pub fn is_na_rule(func: &syn::Path) -> bool {
    let segs: Vec<String> = func.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.len() >= 2 && segs[segs.len() - 2] == "na" && segs.iter().any(|s| s == "__private")
}

impl Function {
    /// Whether the function takes or gives nalgebra values, or builds them in its body (calls of
    /// the runtime's `na` rules, `lower/na/`).
    pub fn uses_na(&self) -> bool {
        if self.params.iter().any(|p| p.na.is_some()) || self.output.na.is_some() {
            return true;
        }
        let mut found = false;
        let mut look = |e: &Expr| {
            e.visit(&mut |n| {
                if let ExprKind::Call { func, .. } = &n.kind {
                    found |= is_na_rule(func);
                }
            })
        };
        walk_exprs(&self.body, &mut look);
        if let Some(t) = &self.tail {
            look(t);
        }
        found
    }
}
