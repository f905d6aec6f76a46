//! In-place slice methods: takes a statement `v.swap(i, j);`, `v.fill(x);`,
//! `dst.copy_from_slice(src);` or `dst.clone_from_slice(src);` on sequence variables (or their
//! sub-slices `v[a..b]`), gives the element reads and writes they stand for (a swap through a
//! temporary, an index loop), so both modes differentiate them like hand-written loops.

use super::build::{int_lit, shifted, var};
use super::chains::ISeq;
use super::*;

/// Whether `path` names `std::mem::{swap, replace, take}` (as `mem::swap`, `std::mem::swap` or
/// `core::mem::swap`): `Some(name)`.
pub(super) fn mem_function(path: &syn::Path) -> Option<String> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let n = names.len();
    let last = names.last()?;
    let in_mem =
        n >= 2 && names[n - 2] == "mem" && (n == 2 || matches!(names[0].as_str(), "std" | "core"));
    (in_mem && matches!(last.as_str(), "swap" | "replace" | "take")).then(|| last.clone())
}

impl Lowerer<'_> {
    /// The statement `std::mem::swap(&mut a, &mut b);` of two float variables: `a` and `b`
    /// exchanged through a temporary. `true` when handled (errors included); other uses of
    /// `mem::swap`/`replace`/`take` are reported by `call`.
    pub(super) fn mem_swap(&mut self, c: &syn::ExprCall, out: &mut Vec<Stmt>) -> bool {
        let syn::Expr::Path(p) = &*c.func else {
            return false;
        };
        if mem_function(&p.path).as_deref() != Some("swap") || c.args.len() != 2 {
            return false;
        }
        let var_of = |cx: &Self, a: &syn::Expr| match a {
            syn::Expr::Reference(r) if r.mutability.is_some() => cx.var_of_path(&r.expr),
            _ => None,
        };
        let (Some(a), Some(b)) = (var_of(self, &c.args[0]), var_of(self, &c.args[1])) else {
            return false;
        };
        let plain = |cx: &Self, v: VarId| {
            matches!(cx.vars[v].shape, Shape::Scalar | Shape::Int | Shape::Bool)
                && !cx.views.contains_key(&v)
                && !cx.elem_aliases.contains_key(&v)
                && !cx.is_float_mut_ref_param(v)
        };
        if !plain(self, a) || !plain(self, b) {
            return false;
        }
        let span = c.span();
        let t = self.synthetic("swap", self.vars[a].shape.clone(), span);
        self.vars[t].mutable = false;
        self.vars[a].mutable = true;
        self.vars[b].mutable = true;
        out.push(Stmt::Let {
            pat: Pat::Bind(t),
            init: Some(var(a, span)),
        });
        out.push(Stmt::Assign {
            place: Place::Var(a),
            op: None,
            value: var(b, span),
        });
        out.push(Stmt::Assign {
            place: Place::Var(b),
            op: None,
            value: var(t, span),
        });
        true
    }

    /// Lowers `m` if it is one of the in-place methods; `false` leaves it to the caller.
    pub(super) fn inplace_method(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> bool {
        let name = m.method.to_string();
        let known = matches!(
            (name.as_str(), m.args.len()),
            ("swap", 2) | ("fill", 1) | ("copy_from_slice", 1) | ("clone_from_slice", 1)
        );
        if !known {
            return false;
        }
        // The receiver: a sequence variable or a window `v[a..b]` of one.
        let Some(ISeq::Slice {
            var: v,
            offset,
            len,
        }) = self.parse_seq(&m.receiver, out)
        else {
            return false;
        };
        if !matches!(self.vars[v].shape, Shape::Seq(_)) {
            return false;
        }
        self.vars[v].mutable = true;
        let span = m.span();
        let at = |off: &Option<Expr>, k: Expr| Place::Index(v, Box::new(shifted(off, k)));
        let elem = |off: &Option<Expr>, k: Expr| {
            Expr::new(
                ExprKind::Index {
                    base: v,
                    index: Box::new(shifted(off, k)),
                },
                span,
            )
        };
        match name.as_str() {
            "swap" => {
                let i = self.expr(&m.args[0], out);
                let i = self.once(i, out);
                let j = self.expr(&m.args[1], out);
                let j = self.once(j, out);
                let t = self.synthetic("swap", Shape::Scalar, span);
                self.vars[t].mutable = false;
                out.push(Stmt::Let {
                    pat: Pat::Bind(t),
                    init: Some(elem(&offset, i.clone())),
                });
                out.push(Stmt::Assign {
                    place: at(&offset, i),
                    op: None,
                    value: elem(&offset, j.clone()),
                });
                out.push(Stmt::Assign {
                    place: at(&offset, j),
                    op: None,
                    value: var(t, span),
                });
            }
            "fill" => {
                let x = self.expr(&m.args[0], out);
                let x = self.once(x, out);
                let n = self.seq_len(
                    &ISeq::Slice {
                        var: v,
                        offset: offset.clone(),
                        len,
                    },
                    span,
                );
                let n = self.once(n, out);
                let k = self.loop_index(span);
                let body = vec![Stmt::Assign {
                    place: at(&offset, var(k, span)),
                    op: None,
                    value: x,
                }];
                out.push(index_loop(k, n, body, span));
            }
            _ => {
                // `dst.copy_from_slice(src)`: lengths must agree, as the method checks.
                let Some(src) = self.parse_seq(&m.args[0], out) else {
                    return true;
                };
                let ISeq::Slice {
                    var: s,
                    offset: soff,
                    len: slen,
                } = src
                else {
                    self.diag.unsupported_at(
                        &m.args[0],
                        &format!("`{name}` from this expression"),
                        "copy from a sequence variable or a sub-slice `&w[a..b]` of one",
                    );
                    return true;
                };
                let n = self.seq_len(
                    &ISeq::Slice {
                        var: v,
                        offset: offset.clone(),
                        len,
                    },
                    span,
                );
                let n = self.once(n, out);
                let sn = self.seq_len(
                    &ISeq::Slice {
                        var: s,
                        offset: soff.clone(),
                        len: slen,
                    },
                    span,
                );
                let sn = self.once(sn, out);
                let (rt, r) = (
                    crate::names::rt(),
                    crate::names::runtime_item("check_same_len"),
                );
                out.push(Stmt::Eval(Expr::new(
                    ExprKind::PlainCall {
                        func: quote!(#rt::#r),
                        args: vec![n.clone(), sn],
                        shape: Shape::Other,
                        suffix: TokenStream::new(),
                        path: None,
                    },
                    span,
                )));
                let k = self.loop_index(span);
                let read = Expr::new(
                    ExprKind::Index {
                        base: s,
                        index: Box::new(shifted(&soff, var(k, span))),
                    },
                    span,
                );
                let body = vec![Stmt::Assign {
                    place: at(&offset, var(k, span)),
                    op: None,
                    value: read,
                }];
                out.push(index_loop(k, n, body, span));
            }
        }
        true
    }
}

/// `for k in 0..n { body }`.
pub(super) fn index_loop(k: VarId, n: Expr, body: Vec<Stmt>, span: Span) -> Stmt {
    Stmt::For {
        var: k,
        range: Range::Bounds {
            start: Box::new(int_lit(0, span)),
            end: Box::new(n),
            inclusive: false,
            rev: false,
            step: None,
        },
        body: Block { stmts: body },
        label: None,
    }
}
