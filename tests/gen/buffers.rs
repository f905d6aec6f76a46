//! Double buffers (issue 12, the heat equation's time loop): takes the generator's state where a
//! statement may start, gives two local `Vec`s copied from one slice, a time loop whose body
//! writes one from the other (`b[i] = .. a[i] .. a[i - 1] ..`) and copies it back
//! (`a.copy_from_slice(&b)`), then a sum over `a` into a fresh accumulator: the shape forward
//! mode's buffer rotation (`transform/rotate.rs`) turns into an exchange of the buffers, and
//! variants it must leave as copies (the written buffer read after the loop, written under a
//! branch, or read by its own update). Both modes rotate: a nonlinear update (variant 5, whose
//! reverse sweep reads the old buffer: copied, or with both buffers restored and the exchange
//! undone by exchanging back at the top level) and a second pair exchanged in the same step
//! (variant 6) exercise what the reverse sweep keeps around an exchange.

use super::*;

impl FnGen<'_> {
    /// Whether a time loop over local `Vec`s with nested element loops, summed into a fresh
    /// accumulator after it, may start here (what double buffers and neighbour stencils share).
    pub(super) fn time_loop_ok(&self) -> bool {
        self.on(Construct::ForRange)
            && self.on(Construct::ForNested)
            && self.on(Construct::LocalVec)
            && self.on(Construct::LetMut)
            && self.on(Construct::AddAssign)
            && !self.slices.is_empty()
            && self.has_len()
            && self.loops.len() < 2
            && self.budget >= 2
    }

    /// Whether a double-buffered time loop may start here.
    pub(super) fn double_buffer_ok(&self) -> bool {
        self.on(Construct::DoubleBuffer) && self.on(Construct::SliceMethods) && self.time_loop_ok()
    }

    /// `let mut a = s.to_vec(); let mut b = s.to_vec(); for t in 0..T { for i in 1..len {
    /// b[i] = ..; } a.copy_from_slice(&b); } g += a[k]..`.
    pub(super) fn s_double_buffer(&mut self) {
        self.budget = (self.budget - 2).max(0);
        let g = self.fresh("g");
        let a = self.fresh("ua");
        let b = self.fresh("ub");
        let len = self.len().expect("a common length");
        let slices = self.slices.clone();
        let s = self.pick(&slices);
        self.line(format!("let mut {g}: f64 = 0.0;"));
        self.line(format!("let mut {a} = {s}.to_vec();"));
        self.line(format!("let mut {b} = {s}.to_vec();"));
        // 0, 1: rotated; 2: `b` read after the loop; 3: written under a branch; 4: `b` read by
        // its own update; 5: rotated, nonlinear in `a`; 6: rotated, with a second pair `c`, `d`
        // (`d` written from `c` and `a`) exchanged in the same step.
        let variant = self.rng.gen_range(0..7);
        let (c, d) = (self.fresh("uc"), self.fresh("ud"));
        if variant == 6 {
            self.line(format!("let mut {c} = {s}.to_vec();"));
            self.line(format!("let mut {d} = {s}.to_vec();"));
        }
        let trips = self.rng.gen_range(1..=3usize);
        let t = self.loop_name();
        self.line(format!("for {t} in 0..{trips} {{"));
        self.enter_loop(LoopKind::ContinueOk, trips);
        self.declare_index(t, 0);
        let i = self.loop_name();
        self.line(format!("for {i} in 1..{len} {{"));
        self.enter_loop(LoopKind::ContinueOk, N_MAX);
        self.declare_index(i, 1);
        let depth = self.rng.gen_range(0..=2);
        let e = self.expr(depth);
        let e = self.scale(e, 1.0);
        // An update is within `max(B, 1)` when `a`, `b` are within `B` (the slice's bound):
        // 0.5 B + 0.25 B + 0.25.
        let own = if variant == 4 {
            format!("{b}[{i}]")
        } else {
            format!("{a}[{i}]")
        };
        // `sin` keeps the nonlinear update within the same bound: 0.5 B + 0.25 + 0.25.
        let neighbour = if variant == 5 {
            format!("({a}[{i}] * {a}[{i} - 1]).sin()")
        } else {
            format!("{a}[{i} - 1]")
        };
        let update = format!(
            "{b}[{i}] = 0.5 * {own} + 0.25 * {neighbour} + 0.25 * ({});",
            e.s
        );
        if variant == 6 {
            self.line(format!(
                "{d}[{i}] = 0.5 * {c}[{i}] + 0.25 * {c}[{i} - 1] * {a}[{i}].sin() + 0.25 * {a}[{i}];"
            ));
        }
        if variant == 3 {
            self.line(format!("if {i} % 2 == 1 {{"));
            self.line(format!("    {update}"));
            self.line("}");
        } else {
            self.line(update);
        }
        self.leave_loop(N_MAX);
        self.line("}");
        self.count(Construct::SliceMethods);
        self.line(format!("{a}.copy_from_slice(&{b});"));
        if variant == 6 {
            self.line(format!("{c}.copy_from_slice(&{d});"));
        }
        self.leave_loop(trips);
        self.line("}");
        let k = self.fresh("k");
        self.line(format!("for {k} in 0..{len} {{"));
        self.line(format!("    {g} += {a}[{k}];"));
        if variant == 2 {
            self.line(format!("    {g} += 0.5 * {b}[{k}];"));
        }
        if variant == 6 {
            self.line(format!("    {g} += 0.5 * {c}[{k}];"));
        }
        self.line("}");
        self.count(Construct::AddAssign);
        self.count(Construct::LocalVec);
        // Elements within the slice's bound (or 1): `a` and `b` stay within it.
        let per = 1.5 * self.slice_bound.max(1.0);
        self.declare(g, Ty::Float, true, per * N_MAX as f64, 0.0);
    }
}
