//! The normalised body as text (`AUTODIFF_DUMP_IR`, unit tests), in the style of `ir::print`.

use super::R;
use crate::ir::*;

/// The normalised body as text, in the style of `ir::print` (the IR dump, unit tests).
pub(crate) fn print(vars: &[Var], body: &[R]) -> String {
    let mut out = String::new();
    print_into(vars, body, 0, &mut out);
    out
}

fn print_into(vars: &[Var], body: &[R], depth: usize, out: &mut String) {
    use crate::ir::print::{decl, expr, pat, place, range};
    let ind = "    ".repeat(depth);
    for s in body {
        match s {
            R::Let { pat: p, init } => match init {
                Some(i) => line(
                    out,
                    &ind,
                    format!("let {} = {};", pat(vars, p), expr(vars, i)),
                ),
                None => line(out, &ind, format!("let {};", pat(vars, p))),
            },
            R::Assign { place: p, value } => line(
                out,
                &ind,
                format!("{} = {};", place(vars, p), expr(vars, value)),
            ),
            R::Push { vec, value } => line(
                out,
                &ind,
                format!(
                    "{}.push({});",
                    place(vars, &Place::Var(*vec)),
                    expr(vars, value)
                ),
            ),
            R::Eval(e) => line(out, &ind, format!("{};", expr(vars, e))),
            R::Macro(m, _) => line(out, &ind, format!("{m};")),
            R::If { cond, then, els } => {
                line(out, &ind, format!("if {} {{", expr(vars, cond)));
                print_into(vars, then, depth + 1, out);
                out.push_str(&format!("{ind}}} else {{\n"));
                print_into(vars, els, depth + 1, out);
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            R::Match { scrut, arms } => {
                line(out, &ind, format!("match {} {{", expr(vars, scrut)));
                for (p, b) in arms {
                    out.push_str(&format!(
                        "{ind}    {} => {{\n",
                        quote::ToTokens::to_token_stream(p)
                    ));
                    print_into(vars, b, depth + 2, out);
                    out.push_str(&format!("{ind}    }}\n"));
                }
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            R::For {
                var,
                range: r,
                body: b,
                brk,
            } => {
                let until = brk
                    .map(|f| format!(" until {}", decl(vars, f)))
                    .unwrap_or_default();
                line(
                    out,
                    &ind,
                    format!("for {} in {}{until} {{", decl(vars, *var), range(vars, r)),
                );
                print_into(vars, b, depth + 1, out);
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            R::While { cond, body: b, brk } => {
                let c = cond
                    .as_ref()
                    .map(|c| expr(vars, c))
                    .unwrap_or_else(|| "true".into());
                let until = brk
                    .map(|f| format!(" until {}", decl(vars, f)))
                    .unwrap_or_default();
                line(out, &ind, format!("while {c}{until} {{"));
                print_into(vars, b, depth + 1, out);
                out.push_str(&format!("{ind}}}\n"));
                continue;
            }
            R::Exit(e) => line(out, &ind, format!("exit {e:?};")),
            R::Swap(a, b) => line(
                out,
                &ind,
                format!(
                    "swap({}, {});",
                    place(vars, &Place::Var(*a)),
                    place(vars, &Place::Var(*b))
                ),
            ),
        }
    }
}

fn line(out: &mut String, ind: &str, s: String) {
    out.push_str(ind);
    out.push_str(&s);
    out.push('\n');
}
