//! Struct outputs of the programs taking a struct (`structs.rs`): takes a program giving a pair
//! of floats as its last line, gives it back giving the struct `<ty>Out { a, b, n }` built by a
//! literal (also by an `if`/`else` of two literals or an early `return` of one) or, with
//! `Layout::out_whole`, the struct `<ty>P` held whole (`<ty>_pmk(a, b)` as the value, bound
//! first, or stepped in a loop first), and the `Out` views of the output and its tangent.

use super::structs::Layout;
use super::*;

/// Turns a program giving `(a, b)` as its last line (no `return`, no `if` tail, no twin) into
/// one giving `<ty>Out { a: a, b: b, n: .. }`; false (nothing changed) for any other program.
pub(super) fn struct_output(f: &mut FnOut, l: &Layout) -> bool {
    // (Not a program with a `#[checkpoint]` twin after it: one function only.)
    if f.source.contains("return") || f.source.matches("fn ").count() != 1 {
        return false;
    }
    let mut lines: Vec<String> = f.source.lines().map(str::to_string).collect();
    let Some(at) = lines.len().checked_sub(2) else {
        return false;
    };
    let last = lines[at].trim().to_string();
    let Some(inner) = last.strip_prefix('(').and_then(|x| x.strip_suffix(')')) else {
        return false;
    };
    // The top-level comma of the pair.
    let mut depth = 0i32;
    let mut comma = None;
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                if comma.is_some() {
                    return false;
                }
                comma = Some(i);
            }
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    let Some(i) = comma else {
        return false;
    };
    let (a, b) = (inner[..i].trim(), inner[i + 1..].trim());
    let Some(sig) = lines.iter().position(|x| x.contains(") -> (f64, f64) {")) else {
        return false;
    };
    let t = &l.ty;
    let lt = t.to_lowercase();
    if let Some(w) = l.out_whole {
        // The struct `<ty>P` held whole as the output.
        lines[sig] = lines[sig].replace(") -> (f64, f64) {", &format!(") -> {t}P {{"));
        lines[at] = match w {
            0 => format!("    {lt}_pmk({a}, {b})"),
            1 => format!("    let pwo = {lt}_pmk({a}, {b});\n    pwo"),
            _ => format!(
                "    let mut pwo = {lt}_pmk({a}, {b});\n    for _ in 0..2 {{\n        \
                 pwo = {lt}_pstep(&pwo, 0.5);\n    }}\n    pwo"
            ),
        };
        f.source = lines.join("\n") + "\n";
        return true;
    }
    lines[sig] = lines[sig].replace(") -> (f64, f64) {", &format!(") -> {}Out {{", l.ty));
    let n = match l.count {
        Some(_) => format!("{}.m + 1", l.kind.root()),
        None => "3".to_string(),
    };
    lines[at] = match l.out_branch {
        1 => format!(
            "    if ({a}) < ({b}) {{\n        {t}Out {{ n: {n}, a: {a}, b: {b} }}\n    }} else {{\n        \
             {t}Out {{ a: {b}, b: ({a}) * 0.5, n: {n} }}\n    }}"
        ),
        2 => format!(
            "    if ({a}) > ({b}) {{\n        return {t}Out {{ b: {a}, a: ({b}) * 0.5, n: {n} }};\n    }}\n    \
             {t}Out {{ n: {n}, a: {a}, b: {b} }}"
        ),
        _ => format!("    {t}Out {{ n: {n}, a: {a}, b: {b} }}"),
    };
    f.source = lines.join("\n") + "\n";
    true
}

impl Layout {
    /// The output struct of a program giving one, its `Copy` tangent, and their `Out` views.
    pub(super) fn out_definition(&self) -> String {
        let t = &self.ty;
        if self.out_whole.is_some() {
            return format!(
                "impl Out for {t}P {{\n    \
                     fn flat(self) -> Vec<f64> {{\n        vec![self.a, self.b]\n    }}\n    \
                     fn unflat(c: &[f64]) -> Self {{\n        {t}P {{ a: c[0], b: c[1] }}\n    }}\n\
                 }}\n\n\
                 impl Out for {t}PTangent {{\n    \
                     fn flat(self) -> Vec<f64> {{\n        vec![self.a, self.b]\n    }}\n    \
                     fn unflat(c: &[f64]) -> Self {{\n        {t}PTangent {{ a: c[0], b: c[1] }}\n    }}\n\
                 }}\n\n"
            );
        }
        let n = match self.count {
            Some(m) => m + 1,
            None => 3,
        };
        format!(
            "#[derive(autodiff_runtime::Differentiable, Clone, Copy)]\n\
             struct {t}Out {{\n    a: f64,\n    b: f64,\n    n: usize,\n}}\n\n\
             impl Copy for {t}OutTangent {{}}\n\n\
             impl Out for {t}Out {{\n    \
                 fn flat(self) -> Vec<f64> {{\n        assert_eq!(self.n, {n});\n        vec![self.a, self.b]\n    }}\n    \
                 fn unflat(c: &[f64]) -> Self {{\n        {t}Out {{ a: c[0], b: c[1], n: {n} }}\n    }}\n\
             }}\n\n\
             impl Out for {t}OutTangent {{\n    \
                 fn flat(self) -> Vec<f64> {{\n        vec![self.a, self.b]\n    }}\n    \
                 fn unflat(c: &[f64]) -> Self {{\n        {t}OutTangent {{ a: c[0], b: c[1], n: () }}\n    }}\n\
             }}\n\n"
        )
    }
}
