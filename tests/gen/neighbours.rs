//! Guarded neighbour reads (issue 12, item 3): takes the generator's state where a statement may
//! start, gives a loop over `0..len` whose body reads a slice at `i - 1` or `i + 1` under a test
//! of the index against the loop's bounds (`if i > 0`, `if i + 1 < len`, both, `&&`, the
//! complement `i == 0` with an `else`), the shape the reverse sweep peels into first and last
//! iterations (`transform/peel.rs`), summed into a fresh accumulator declared before the loop.

use super::*;

impl FnGen<'_> {
    /// Whether a guarded-neighbour loop may start here.
    pub(super) fn guarded_neighbour_ok(&self) -> bool {
        self.on(Construct::GuardedNeighbour)
            && self.on(Construct::ForRange)
            && self.on(Construct::IfStmt)
            && self.on(Construct::LetMut)
            && self.on(Construct::AddAssign)
            && !self.slices.is_empty()
            && self.has_len()
            && self.nest < 3
            && (self.loops.is_empty() || self.on(Construct::ForNested))
            && self.budget >= 2
    }

    /// `let mut g = 0.0; for i in 0..len { let mut a = e; if <guard> { a = .. s[i ± 1] .. } g += a..; }`.
    pub(super) fn s_guarded_neighbour(&mut self) {
        self.budget = (self.budget - 2).max(0);
        let g = self.fresh("g");
        self.line(format!("let mut {g}: f64 = 0.0;"));
        let len = self.len().expect("a common length");
        let slices = self.slices.clone();
        let i = self.loop_name();
        self.line(format!("for {i} in 0..{len} {{"));
        self.enter_loop(LoopKind::ContinueOk, N_MAX);
        self.declare_index(i, 0);
        let depth = self.rng.gen_range(0..=2);
        let e = self.expr(depth);
        let e = self.scale(e, 2.0);
        let a = self.fresh("a");
        self.line(format!("let mut {a} = {};", e.s));
        let s = self.pick(&slices);
        let t = self.pick(&slices);
        // Each update keeps |a| <= 2 + 0.5 + 0.5 (a slice element is at most 1).
        let left = |me: &mut Self| -> String {
            if me.chance(0.5) {
                format!("{a} = {a} + 0.5 * {s}[{i} - 1];")
            } else {
                format!("{a} = {a} * {s}[{i} - 1];")
            }
        };
        let right = |me: &mut Self| -> String {
            if me.chance(0.5) {
                format!("{a} = {a} - 0.5 * {t}[{i} + 1];")
            } else {
                format!("{a} = {a} * ({t}[{i} + 1] * {t}[{i}]);")
            }
        };
        match self.rng.gen_range(0..5) {
            0 => {
                let l = left(self);
                self.line(format!("if {i} > 0 {{"));
                self.line(format!("    {l}"));
                self.line("}");
            }
            1 => {
                let r = right(self);
                self.line(format!("if {i} + 1 < {len} {{"));
                self.line(format!("    {r}"));
                self.line("}");
            }
            2 => {
                let (l, r) = (left(self), right(self));
                self.line(format!("if {i} > 0 {{"));
                self.line(format!("    {l}"));
                self.line("}");
                self.line(format!("if {i} + 1 < {len} {{"));
                self.line(format!("    {r}"));
                self.line("}");
            }
            3 => {
                self.line(format!("if {i} > 0 && {i} + 1 < {len} {{"));
                self.line(format!(
                    "    {a} = {a} + 0.25 * ({s}[{i} - 1] - {t}[{i} + 1]) * {s}[{i}];"
                ));
                self.line("} else {");
                self.line(format!("    {a} = {a} * 0.5;"));
                self.line("}");
            }
            _ => {
                let l = left(self);
                self.line(format!("if {i} == 0 {{"));
                self.line(format!("    {a} = {a} * 0.5;"));
                self.line("} else {");
                self.line(format!("    {l}"));
                self.line("}");
            }
        }
        let (sum, per) = if self.chance(0.4) {
            (format!("{g} += 0.1 * {a} * {a};"), 0.1 * 9.0)
        } else {
            (format!("{g} += {a};"), 3.0)
        };
        self.count(Construct::AddAssign);
        self.line(sum);
        self.leave_loop(N_MAX);
        self.line("}");
        let bound = per * N_MAX as f64;
        self.declare(g, Ty::Float, true, bound, 0.0);
    }
}
