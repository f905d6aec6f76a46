//! Reduction loops (issue 12, item 1): takes the generator's state at the top level of a
//! program, gives a `for` loop whose iterations meet only in sums (`s += e`, `s -= e` into
//! accumulators declared just before it, read nowhere else in the body), the shape the reverse
//! emitter fuses into one loop. The body reads anything in scope through `let`s, sometimes
//! accumulates under a branch or in an inner loop over the indices before `i`; what follows
//! the loop (later statements, the returned value) may read the sums in any way, so fused and
//! unfused emission are both exercised. Sometimes the body fills a *scratch* vector declared
//! before the loop over the common length and reads it back at the index of a loop over the
//! same range (`analysis/scratch.rs`), and counts its iterations in a *counter* (`c += 1.0`, split
//! out of the loop by `transform/fission.rs`) that what follows may read.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

impl FnGen<'_> {
    /// Whether a reduction loop may be emitted here (the top level of a program body).
    pub(super) fn reduction_loop_ok(&self) -> bool {
        self.on(Construct::ReductionLoop)
            && self.on(Construct::AddAssign)
            && self.on(Construct::ForRange)
            && self.loops.is_empty()
            && self.nest == 0
            && !self.is_helper
            && self.has_len()
            && self.budget >= 3
    }

    /// Whether to end a program body with a reduction loop (the returned value is then the
    /// only statement after it, which the emitter most often fuses).
    pub(super) fn reduction_loop_last(&mut self) -> bool {
        self.on(Construct::ReductionLoop)
            && self.on(Construct::AddAssign)
            && self.on(Construct::ForRange)
            && self.loops.is_empty()
            && self.nest == 0
            && !self.is_helper
            && self.has_len()
            && self.chance(0.35)
    }

    /// `let mut s = 0.0; [let mut r = 0.0;] for i in range { lets; s += e; [r -= e'] }`.
    pub(super) fn s_reduction_loop(&mut self) {
        self.budget = (self.budget - 2).max(0);
        let two = self.on(Construct::SubAssign) && self.chance(0.4);
        let sums: Vec<String> = (0..if two { 2 } else { 1 })
            .map(|_| self.fresh("s"))
            .collect();
        for s in &sums {
            self.line(format!("let mut {s}: f64 = 0.0;"));
        }
        let len = self.len().expect("a common length");
        let mut forms: Vec<(String, usize, usize)> = vec![
            (format!("0..{len}"), N_MAX, 0),
            (format!("0..{len}"), N_MAX, 0),
            (format!("1..{len}"), N_MAX - 1, 1),
            ("0..3".into(), 3, 0),
        ];
        if self.on(Construct::ForRev) {
            forms.push((format!("(0..{len}).rev()"), N_MAX, 0));
        }
        if self.on(Construct::ForStepBy) {
            forms.push((format!("(0..{len}).step_by(2)"), N_MAX / 2, 0));
        }
        let (range, trips, lo) = self.pick(&forms);
        let i = self.loop_name();
        self.line(format!("for {i} in {range} {{"));
        let mut header = self.lines.len() - 1;
        // The sums are declared in the generator's table only after the loop: the body cannot
        // read them.
        self.enter_loop(LoopKind::ContinueOk, trips);
        self.declare_index(i, lo);
        let k = self.rng.gen_range(0..=2);
        for _ in 0..k {
            self.s_let(false);
        }
        // Bound of each sum: executions times the bound of what is added.
        let mut bounds = vec![0.0; sums.len()];
        // Scratch vectors and counters draw from a stream of their own: the rest of the program
        // (and so the coverage of the default seed) is drawn as without them.
        let mut fork = ChaCha8Rng::seed_from_u64(self.rng.clone().gen::<u64>());
        std::mem::swap(&mut self.rng, &mut fork);
        if self.on(Construct::ScratchSeq) && self.on(Construct::ForNested) && self.chance(0.3) {
            self.scratch_fill_read(header, &sums[0], len, &mut bounds[0], trips);
            header += 1;
        }
        let counter = (self.on(Construct::LoopCounter) && self.chance(0.3)).then(|| {
            self.count(Construct::LoopCounter);
            let c = self.fresh("c");
            self.line(format!("{c} += 1.0;"));
            c
        });
        std::mem::swap(&mut self.rng, &mut fork);
        let add = |me: &mut Self, bounds: &mut Vec<f64>, k: usize, per: f64| -> String {
            let d = me.rng.gen_range(0..=2);
            let e = me.expr(d);
            let e = me.scale(e, 2.0);
            bounds[k] += per * e.b;
            let op = if k == 1 { "-=" } else { "+=" };
            me.count(if k == 1 {
                Construct::SubAssign
            } else {
                Construct::AddAssign
            });
            format!("{} {op} {};", sums[k], e.s)
        };
        if self.on(Construct::IfStmt) && self.can_cond() && self.chance(0.3) {
            self.count(Construct::IfStmt);
            let c = self.cond();
            let k_else = sums.len() - 1;
            let a = add(self, &mut bounds, 0, trips as f64);
            let b = add(self, &mut bounds, k_else, trips as f64);
            self.line(format!("if {c} {{"));
            self.line(format!("    {a}"));
            self.line("} else {");
            self.line(format!("    {b}"));
            self.line("}");
        }
        if self.on(Construct::ForNested) && self.chance(0.3) {
            self.count(Construct::ForNested);
            let j = ["i", "j", "l"][self.loops.len().min(2)];
            self.line(format!("for {j} in 0..{i} {{"));
            self.enter_loop(LoopKind::ContinueOk, N_MAX);
            self.declare_index(j, 0);
            let a = add(self, &mut bounds, 0, (trips * N_MAX) as f64);
            self.line(a);
            self.leave_loop(N_MAX);
            self.line("}");
        }
        for k in 0..sums.len() {
            let a = add(self, &mut bounds, k, trips as f64);
            self.line(a);
        }
        self.leave_loop(trips);
        self.line("}");
        if let Some(c) = counter {
            // Declared above the loop, read right after it (a factor in [0, 1]: the sum's bound
            // holds), invisible to the rest of the program.
            let pad = " ".repeat(self.lines[header].len() - self.lines[header].trim_start().len());
            self.lines
                .insert(header, format!("{pad}let mut {c}: f64 = 0.0;"));
            let s = &sums[0];
            self.line(format!("{s} = {s} * ({c} / ({c} + 1.0));"));
        }
        for (s, b) in sums.into_iter().zip(bounds) {
            let room: f64 = self.pick(&[0.0, 8.0, 16.0]);
            self.declare(s, Ty::Float, true, b.max(1.0), room);
            let v = self.vars.last_mut().expect("just declared");
            v.dirty = true;
        }
    }

    /// In a reduction loop's body (header at line `header`): a scratch vector (declared above the
    /// loop, invisible to the
    /// rest of the program) filled over `0..len`, then read at the index of a loop over the same
    /// range into the sum `s` (bound `bound`, the loop running `trips` times).
    fn scratch_fill_read(
        &mut self,
        header: usize,
        s: &str,
        len: &str,
        bound: &mut f64,
        trips: usize,
    ) {
        self.count(Construct::ScratchSeq);
        let sc = self.fresh("sc");
        let pad = " ".repeat(self.lines[header].len() - self.lines[header].trim_start().len());
        self.lines
            .insert(header, format!("{pad}let mut {sc} = vec![0.0; {len}];"));
        let j = ["i", "j", "l"][self.loops.len().min(2)];
        // Fill: a saturated value (its rule reads the written value, read back in reverse).
        self.line(format!("for {j} in 0..{len} {{"));
        self.enter_loop(LoopKind::ContinueOk, N_MAX);
        self.declare_index(j, 0);
        let d = self.rng.gen_range(0..=2);
        let e = self.expr_nc(d);
        let e = self.scale(e, ARG_CAP);
        let mut fs = vec![];
        for c in [Construct::Tanh, Construct::Sin, Construct::Exp] {
            if self.on(c) {
                fs.push(c);
            }
        }
        let (v, vb) = match fs.is_empty() {
            true => (e.s.clone(), e.b),
            false => {
                let f = self.pick(&fs);
                self.count(f);
                let b = if f == Construct::Exp {
                    ARG_CAP.exp()
                } else {
                    1.0
                };
                (self.meth(&e, f.name(), &[]), b)
            }
        };
        self.line(format!("{sc}[{j}] = {v};"));
        self.leave_loop(N_MAX);
        self.line("}");
        // Read back over the same range, sometimes inside another loop.
        let outer = self.on(Construct::ForNested) && self.chance(0.3);
        if outer {
            let r = ["i", "j", "l"][self.loops.len().min(2)];
            self.line(format!("for {r} in 0..2 {{"));
            self.enter_loop(LoopKind::ContinueOk, 2);
            self.declare_index(r, 0);
        }
        let j = ["i", "j", "l"][self.loops.len().min(2)];
        self.line(format!("for {j} in 0..{len} {{"));
        self.enter_loop(LoopKind::ContinueOk, N_MAX);
        self.declare_index(j, 0);
        let d = self.rng.gen_range(0..=1);
        let e = self.expr(d);
        let e = self.scale(e, 2.0);
        self.count(Construct::AddAssign);
        self.line(format!("{s} += {sc}[{j}] * {};", e.at(PROD)));
        *bound += (trips * N_MAX * if outer { 2 } else { 1 }) as f64 * vb * e.b;
        for _ in 0..if outer { 2 } else { 1 } {
            self.pop_scope();
            self.nest -= 1;
            self.indent -= 1;
            self.loops.pop();
            self.line("}");
        }
        self.k_mult /= (N_MAX * if outer { 2 } else { 1 }) as f64;
    }
}
