//! Neighbour stencils (issue 12, the spring chain's force loop): takes the generator's state
//! where a statement may start, gives a time loop whose first inner loop writes a local `Vec`
//! from differences of neighbours of a state it does not write (`o[i] = e (d + 0.1 d³) + ..`,
//! `d = u[i] - u[i - 1]`, offsets -1..=0 or -2..=0, from the state and from a slice), whose
//! second inner loop writes the state from it, then a sum over the state into a fresh
//! accumulator: the shape whose reverse loop keeps the state's adjoint in an *adding window*
//! (`reverse/addwin.rs`: slots starting at zero, added into the element leaving them).

use super::*;

impl FnGen<'_> {
    /// Whether a neighbour-stencil time loop may start here.
    pub(super) fn neighbour_stencil_ok(&self) -> bool {
        self.on(Construct::NeighbourStencil) && self.time_loop_ok()
    }

    /// `let mut u = vec![0.0; len]; (u[j] = s[j] / B) let mut o = vec![0.0; len]; for t in 0..T { for i in 1..len {
    /// let d = u[i] - u[i - 1]; o[i] = ..; } for i in 0..len { u[i] = 0.5 u[i] + 0.1 o[i]; } }
    /// g += u[k]..`.
    pub(super) fn s_neighbour_stencil(&mut self) {
        self.budget = (self.budget - 2).max(0);
        let g = self.fresh("g");
        let u = self.fresh("su");
        let o = self.fresh("so");
        let len = self.len().expect("a common length");
        let slices = self.slices.clone();
        let s = self.pick(&slices);
        let r = self.pick(&slices);
        // The state starts within 1 (the slice scaled by its bound), and stays there.
        let sc = format!("{:?}", 1.0 / self.slice_bound.max(1.0));
        self.line(format!("let mut {g}: f64 = 0.0;"));
        self.line(format!("let mut {u} = vec![0.0; {len}];"));
        self.line(format!("let mut {o} = vec![0.0; {len}];"));
        let j0 = self.fresh("j");
        self.line(format!("for {j0} in 0..{len} {{"));
        self.line(format!("    {u}[{j0}] = {sc} * {s}[{j0}];"));
        self.line("}");
        // 0: offsets -1..=0 of the state and of a slice; 1: -2..=0 of the state; 2: the
        // difference read twice (`d * d`, one value on both sides) with the slice at `i` only.
        let variant = self.rng.gen_range(0..3);
        let trips = self.rng.gen_range(1..=3usize);
        let t = self.loop_name();
        self.line(format!("for {t} in 0..{trips} {{"));
        self.enter_loop(LoopKind::ContinueOk, trips);
        self.declare_index(t, 0);
        let i = self.loop_name();
        let first = if variant == 1 { 2 } else { 1 };
        self.line(format!("for {i} in {first}..{len} {{"));
        self.enter_loop(LoopKind::ContinueOk, N_MAX);
        self.declare_index(i, first);
        let depth = self.rng.gen_range(0..=2);
        let e = self.expr(depth);
        let e = self.scale(e, 1.0);
        let d = self.fresh("d");
        // With the state within 1: `|d| <= 2` and `|o[i]| <= 2 + 0.8 + 0.6` (0: the largest),
        // so the state's update `0.5 u + 0.1 o` keeps it within 1.
        match variant {
            0 => {
                self.line(format!("let {d} = {u}[{i}] - {u}[{i} - 1];"));
                self.line(format!(
                    "{o}[{i}] = ({}) * ({d} + 0.1 * {d} * {d} * {d}) + {sc} * 0.3 * ({r}[{i}] - {r}[{i} - 1]);",
                    e.s
                ));
            }
            1 => {
                self.line(format!(
                    "let {d} = 0.5 * ({u}[{i}] - {u}[{i} - 2]) + 0.25 * {u}[{i} - 1];"
                ));
                self.line(format!("{o}[{i}] = ({}) * {d} + 0.1 * {d} * {d};", e.s));
            }
            _ => {
                self.line(format!("let {d} = {u}[{i} - 1] - {u}[{i}];"));
                self.line(format!(
                    "{o}[{i}] = {d} * {d} * ({}) + {sc} * 0.3 * {r}[{i}];",
                    e.s
                ));
            }
        }
        self.leave_loop(N_MAX);
        self.line("}");
        let j = self.fresh("j");
        self.line(format!("for {j} in 0..{len} {{"));
        self.line(format!("    {u}[{j}] = 0.5 * {u}[{j}] + 0.1 * {o}[{j}];"));
        self.line("}");
        self.leave_loop(trips);
        self.line("}");
        let k = self.fresh("k");
        self.line(format!("for {k} in 0..{len} {{"));
        self.line(format!("    {g} += {u}[{k}];"));
        self.line("}");
        self.count(Construct::AddAssign);
        self.count(Construct::LocalVec);
        self.declare(g, Ty::Float, true, N_MAX as f64, 0.0);
    }
}
