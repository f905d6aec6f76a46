//! The IR printer: takes a function's IR (or a statement list), gives readable text in a
//! Rust-like syntax where every variable is `name#id`, annotated with its shape and activity at
//! its declaration. Used by the `AUTODIFF_DUMP_IR` dump and by the passes' unit tests.

use super::*;
use crate::codegen::primal::Printer;
use quote::ToTokens;
use std::fmt::Write;

/// The whole function: signature with the parameters' activity, body, tail.
pub fn function(f: &Function) -> String {
    let mut out = String::new();
    let params: Vec<String> = f
        .body_params()
        .map(|p| format!("{}: {}", decl(&f.vars, p.var), tokens(&p.ty)))
        .collect();
    let _ = writeln!(
        out,
        "fn {}({}) -> {} {{",
        f.item.sig.ident,
        params.join(", "),
        tokens(&f.output.ty)
    );
    block_into(&f.vars, &f.body.stmts, 1, &mut out);
    if let Some(t) = &f.tail {
        let _ = writeln!(out, "    {}", expr(&f.vars, t));
    }
    out.push_str("}\n");
    out
}

/// An expression, with variables printed as `name#id`.
pub fn expr(vars: &[Var], e: &Expr) -> String {
    let name = |v: VarId| marked(vars, v);
    let p = Printer {
        name: &name,
        index: None,
        reborrow: None,
    };
    squeeze(&p.expr(e).to_string())
}

/// `name#id` cannot be a token (`name#` is a reserved prefix): the printers get an identifier
/// with the id in a marker, which `squeeze` turns into `#id`.
fn marked(vars: &[Var], v: VarId) -> proc_macro2::TokenStream {
    let n = vars.get(v).map_or("unknown".into(), |x| {
        let s = x.name.to_string();
        s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
    });
    quote::format_ident!("{n}__ID{v}__").to_token_stream()
}

/// A range, as `expr` prints it.
pub fn range(vars: &[Var], r: &Range) -> String {
    let name = |v: VarId| marked(vars, v);
    let p = Printer {
        name: &name,
        index: None,
        reborrow: None,
    };
    squeeze(&p.range(r).to_string())
}

/// A variable at its declaration: `mut x#3 [scalar, active]`.
pub fn decl(vars: &[Var], v: VarId) -> String {
    let Some(var) = vars.get(v) else {
        return format!("?#{v}");
    };
    let m = if var.mutable { "mut " } else { "" };
    let act = if var.active { ", active" } else { "" };
    format!("{m}{}#{v} [{}{act}]", var.name, shape(&var.shape))
}

/// A pattern with its variables declared.
pub fn pat(vars: &[Var], p: &Pat) -> String {
    match p {
        Pat::Bind(v) => decl(vars, *v),
        Pat::Wild => "_".into(),
        Pat::Tuple(ps) => {
            let items: Vec<String> = ps.iter().map(|q| pat(vars, q)).collect();
            format!("({})", items.join(", "))
        }
    }
}

/// A place: `x#3` or `v#2[i#4]`.
pub fn place(vars: &[Var], p: &Place) -> String {
    let name = |v: VarId| {
        format!(
            "{}#{v}",
            vars.get(v).map_or("?".into(), |x| x.name.to_string())
        )
    };
    match p {
        Place::Var(v) => name(*v),
        Place::Index(v, i) => format!("{}[{}]", name(*v), expr(vars, i)),
    }
}

pub fn shape(s: &Shape) -> String {
    match s {
        Shape::Scalar => "scalar".into(),
        Shape::Seq(SeqKind::Slice) => "slice".into(),
        Shape::Seq(SeqKind::Vec) => "vec".into(),
        Shape::Seq(SeqKind::Array(n)) => format!("array {n}"),
        Shape::Tuple(items) => {
            let items: Vec<String> = items.iter().map(shape).collect();
            format!("({})", items.join(", "))
        }
        Shape::Int => "int".into(),
        Shape::Bool => "bool".into(),
        Shape::Other => "other".into(),
        Shape::Struct => "struct".into(),
    }
}

/// Statements, one per line, indented by `depth` levels.
pub fn block_into(vars: &[Var], stmts: &[Stmt], depth: usize, out: &mut String) {
    for s in stmts {
        stmt_into(vars, s, depth, out);
    }
}

fn stmt_into(vars: &[Var], s: &Stmt, depth: usize, out: &mut String) {
    let ind = "    ".repeat(depth);
    let e = |x: &Expr| expr(vars, x);
    let label =
        |l: &Option<syn::Lifetime>| l.as_ref().map(|l| format!("{l}: ")).unwrap_or_default();
    match s {
        Stmt::Let { pat: p, init } => match init {
            Some(i) => {
                let _ = writeln!(out, "{ind}let {} = {};", pat(vars, p), e(i));
            }
            None => {
                let _ = writeln!(out, "{ind}let {};", pat(vars, p));
            }
        },
        Stmt::Assign {
            place: p,
            op,
            value,
        } => {
            let o = op
                .map(|o| format!("{}=", binop(o)))
                .unwrap_or_else(|| "=".into());
            let _ = writeln!(out, "{ind}{} {o} {};", place(vars, p), e(value));
        }
        Stmt::Push { vec, value } => {
            let _ = writeln!(
                out,
                "{ind}{}.push({});",
                place(vars, &Place::Var(*vec)),
                e(value)
            );
        }
        Stmt::Eval(x) => {
            let _ = writeln!(out, "{ind}{};", e(x));
        }
        Stmt::If { cond, then, els } => {
            let _ = writeln!(out, "{ind}if {} {{", e(cond));
            block_into(vars, &then.stmts, depth + 1, out);
            if let Some(b) = els {
                let _ = writeln!(out, "{ind}}} else {{");
                block_into(vars, &b.stmts, depth + 1, out);
            }
            let _ = writeln!(out, "{ind}}}");
        }
        Stmt::Match { scrut, arms } => {
            let _ = writeln!(out, "{ind}match {} {{", e(scrut));
            for a in arms {
                let _ = writeln!(out, "{ind}    {} => {{", tokens(&a.pat));
                block_into(vars, &a.body.stmts, depth + 2, out);
                let _ = writeln!(out, "{ind}    }}");
            }
            let _ = writeln!(out, "{ind}}}");
        }
        Stmt::For {
            var,
            range: r,
            body,
            label: l,
        } => {
            let _ = writeln!(
                out,
                "{ind}{}for {} in {} {{",
                label(l),
                decl(vars, *var),
                range(vars, r)
            );
            block_into(vars, &body.stmts, depth + 1, out);
            let _ = writeln!(out, "{ind}}}");
        }
        Stmt::While {
            cond,
            body,
            label: l,
        } => {
            let _ = writeln!(out, "{ind}{}while {} {{", label(l), e(cond));
            block_into(vars, &body.stmts, depth + 1, out);
            let _ = writeln!(out, "{ind}}}");
        }
        Stmt::Loop { body, label: l } => {
            let _ = writeln!(out, "{ind}{}loop {{", label(l));
            block_into(vars, &body.stmts, depth + 1, out);
            let _ = writeln!(out, "{ind}}}");
        }
        Stmt::Break { label: l, .. } => {
            let l = l.as_ref().map(|l| format!(" {l}")).unwrap_or_default();
            let _ = writeln!(out, "{ind}break{l};");
        }
        Stmt::Continue { label: l, .. } => {
            let l = l.as_ref().map(|l| format!(" {l}")).unwrap_or_default();
            let _ = writeln!(out, "{ind}continue{l};");
        }
        Stmt::Return { value, .. } => match value {
            Some(v) => {
                let _ = writeln!(out, "{ind}return {};", e(v));
            }
            None => {
                let _ = writeln!(out, "{ind}return;");
            }
        },
        Stmt::Block(b) => {
            let _ = writeln!(out, "{ind}{{");
            block_into(vars, &b.stmts, depth + 1, out);
            let _ = writeln!(out, "{ind}}}");
        }
        Stmt::Macro(m, _) => {
            let _ = writeln!(out, "{ind}{};", squeeze(&m.to_string()));
        }
    }
}

fn binop(op: BinOp) -> String {
    crate::codegen::primal::binop_tokens(op).to_string()
}

fn tokens(t: &dyn quote::ToTokens) -> String {
    squeeze(&t.to_token_stream().to_string())
}

/// Token text with the spaces `TokenStream::to_string` puts around punctuation taken out where
/// they hurt reading (`x #3` → `x#3`, `f (a)` → `f(a)`, `v [i]` → `v[i]`).
fn squeeze(s: &str) -> String {
    let mut t = unmark(s);
    for (a, b) in [
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" . ", "."),
        (" ,", ","),
        (" :: ", "::"),
        (":: ", "::"),
        (" ;", ";"),
        ("& ", "&"),
        ("! (", "!("),
    ] {
        t = t.replace(a, b);
    }
    // Keep a space before `(` after a binary operator: `a + (b)`.
    for op in ["+", "-", "*", "/", "%", "<", ">", "=", "&&", "||"] {
        t = t.replace(&format!("{op}("), &format!("{op} ("));
    }
    t
}

/// `x__ID3__` → `x#3`.
fn unmark(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("__ID") {
        let after = &rest[i + 4..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with("__") {
            out.push_str(&rest[..i]);
            out.push('#');
            out.push_str(&after[..digits]);
            rest = &after[digits + 2..];
        } else {
            out.push_str(&rest[..i + 4]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}
