//! A struct taken by `&mut` lent whole (`struct_lend`): the helpers it is lent to, defined with
//! its type (`<ty>_lend` stepping every float place by a contraction, the method `lend` passing
//! `self` on, `<ty>_peek` reading it), the statement lending it, and (`struct_lend_fields`) the
//! same statement among the program's own, once the program also reads and writes its fields.

use super::structs::{Layout, ARR_LEN, FLOAT_FIELDS};
use super::*;

impl Layout {
    /// The helpers a lent struct is passed to: `<ty>_lend(s: &mut <ty>, x)` stepping every
    /// float place (each a contraction plus a bounded term, so values stay in [-1.5, 1.5]),
    /// the method `lend` passing `self` on to it, and `<ty>_peek(s: &<ty>) -> f64`.
    pub(super) fn lend_definition(&self) -> String {
        let (t, lt) = (&self.ty, self.ty.to_lowercase());
        let mut body = String::new();
        for f in &FLOAT_FIELDS[..self.floats] {
            body.push_str(&format!(
                "    s.{f} = 0.5 * s.{f} + 0.25 * (x.sin() * s.{f}).cos();\n"
            ));
        }
        if self.arr {
            body.push_str(&format!(
                "    for j in 0..{ARR_LEN} {{\n        s.q[j] = 0.5 * s.q[j] + 0.25 * x.sin() * s.{}.tanh();\n    }}\n",
                FLOAT_FIELDS[0]
            ));
        }
        if self.vec {
            body.push_str(
                "    let n = s.w.len();\n    for i in 0..n {\n        s.w[i] = 0.5 * s.w[i] + 0.25 * (x + s.w[i]).sin();\n    }\n",
            );
        }
        if self.nested {
            body.push_str("    s.sub.x = 0.5 * s.sub.x + 0.25 * (x.sin() * s.sub.y).sin();\n");
            body.push_str("    s.sub.y = 0.5 * s.sub.y - 0.25 * s.sub.x.sin();\n");
        }
        let k = FLOAT_FIELDS[0];
        format!(
            "#[differentiate]\nfn {lt}_lend(s: &mut {t}, x: f64) {{\n{body}}}\n\n\
             #[differentiate]\nfn {lt}_peek(s: &{t}) -> f64 {{\n    s.{k} * (0.5 * s.{k}).cos()\n}}\n\n\
             impl {t} {{\n    #[differentiate]\n    fn lend(&mut self, x: f64) {{\n        \
             {lt}_lend(self, x);\n    }}\n}}\n\n"
        )
    }

    /// A statement lending the struct whole to the stepping helper (`x` its float argument).
    pub(super) fn lend_call(&self, x: &str) -> Option<String> {
        let root = self.kind.root();
        let (t, lt) = (&self.ty, self.ty.to_lowercase());
        Some(match self.lend? {
            0 => format!("{lt}_lend({root}, {x});"),
            1 => format!("{root}.lend({x});"),
            _ => format!("{t}::lend({root}, {x});"),
        })
    }
}

impl FnGen<'_> {
    /// Whether the struct can be lent again here: lent, its fields used, and none of them
    /// iterated by an enclosing loop (`for &x in st.w.iter()` borrows it).
    pub(super) fn lend_ok(&self) -> bool {
        let Some(l) = self.strukt.as_ref().filter(|l| l.lend_fields) else {
            return false;
        };
        let root = format!("{}.", l.kind.root());
        !self.is_helper && !self.frozen.iter().any(|w| w.starts_with(&root))
    }

    /// The struct lent whole again, to the stepping helper (a contraction of every float place,
    /// so the bounds of its fields hold), its argument read from anything, fields included.
    pub(super) fn s_lend(&mut self) {
        let Some(l) = self.strukt.clone() else {
            return;
        };
        self.count(Construct::StructLendFields);
        // Half the time a field of the struct lent (bound to a local before the call).
        let a = if self.chance(0.5) {
            format!("(0.5 * {}.{}).atan()", l.kind.root(), FLOAT_FIELDS[0])
        } else {
            let d = self.rng.gen_range(0..=1);
            self.arg(d, ARG_CAP).s
        };
        if let Some(call) = l.lend_call(&a) {
            self.line(call);
        }
    }
}
