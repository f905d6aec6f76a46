//! Struct fields that are arrays of arrays (`r: [[f64; 3]; 3]`, `p: Vec<[f64; 3]>`): takes a
//! field of a struct argument, gives its row length when `#[derive(Differentiable)]` recorded it
//! earlier in the crate (`crate::struct_rows`), so that `lower/structs.rs` makes the field
//! argument its flat form with rows (indexed, iterated and taken by rows as a nested array
//! argument, `lower/nested.rs`), bound flat by `codegen/structs.rs`; and reports a field the
//! body indexes twice (`s.r[i][j]`) whose rows it cannot know.

use super::structs::{strip_ref, StructPlan};
use super::*;
use syn::visit::Visit;

/// The last name of a struct argument's type (`Pose` of `&Pose`, `geo::Pose<f64>`).
pub(super) fn type_name(ty: &syn::Type) -> Option<String> {
    match strip_ref(ty) {
        syn::Type::Path(tp) if tp.qself.is_none() => {
            Some(tp.path.segments.last()?.ident.to_string())
        }
        _ => None,
    }
}

impl StructPlan {
    /// The row length of field `root.m` when it is an array of arrays of a struct derived earlier
    /// in the crate (`struct_rows.rs`); a field of a field (`s.a.b`) is not looked up.
    pub(super) fn nested_row(&self, root: &str, members: &[syn::Member]) -> Option<ArrayLen> {
        let [syn::Member::Named(m)] = members else {
            return None;
        };
        let field = m.to_string();
        let row = match self.type_names.iter().find(|(n, _)| n == root) {
            Some((_, ty)) => crate::struct_rows::row_of(ty, &field),
            None if root == "self" => crate::struct_rows::row_of_field(&field),
            None => None,
        };
        row.map(ArrayLen::new)
    }
}

/// The first `root.members[i][j]` in `block`, if any: a field indexed twice.
pub(super) fn double_index(
    block: &syn::Block,
    root: &syn::Ident,
    members: &[syn::Member],
) -> Option<TokenStream> {
    struct F<'r> {
        root: &'r syn::Ident,
        members: &'r [syn::Member],
        found: Option<TokenStream>,
    }
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_expr_index(&mut self, ix: &'ast syn::ExprIndex) {
            if self.found.is_none() {
                // (`s.w[..][..n]`, `s.w[a..b][i]`: a range of a flat sequence indexed again.)
                if let syn::Expr::Index(inner) = &*ix.expr {
                    let range = matches!(strip(&inner.index), syn::Expr::Range(_));
                    if !range && is_field(&inner.expr, self.root, self.members) {
                        self.found = Some(ix.to_token_stream());
                    }
                }
            }
            syn::visit::visit_expr_index(self, ix);
        }
    }
    let mut f = F {
        root,
        members,
        found: None,
    };
    f.visit_block(block);
    f.found
}

/// `e` without parentheses.
fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        e => e,
    }
}

/// Whether `e` is `root.members` (through parentheses and `*`).
fn is_field(e: &syn::Expr, root: &syn::Ident, members: &[syn::Member]) -> bool {
    match e {
        syn::Expr::Paren(p) => is_field(&p.expr, root, members),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
            is_field(&u.expr, root, members)
        }
        syn::Expr::Field(f) => match members.split_last() {
            Some((last, rest)) => f.member == *last && is_field(&f.base, root, rest),
            None => false,
        },
        syn::Expr::Path(p) => members.is_empty() && p.path.is_ident(root),
        _ => false,
    }
}
