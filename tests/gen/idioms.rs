//! Patterns of the random-program generator written the way users write them (issue 7): local
//! closures (capturing a later-shadowed local, parameters named like locals, literal arguments),
//! path calls with a literal first argument, typed and tuple `let`s and `Vec` locals inside loop
//! bodies, `chunks`/`windows` loops with chains over their items, `const` items passed to helpers,
//! exact zeros under `sqrt` and norms, `[f64; 3]` parameters, `Vec<f64>` outputs with a constant
//! early return, `wrt(...)` programs passing their slice to a helper, and generic helpers reducing
//! local `Vec`s.
//!
//! Same invariants as `mod.rs`: values bounded by construction, smooth enough for central
//! differences, one random stream per function. The one deliberate exception: `zero_sqrt` and
//! `zero_norm` put `sqrt` exactly at zero, on values that are identically zero (so the function is
//! constant there and finite differences are exact).

use super::*;

/// Literals of the constant typed `let`s in loop bodies.
const TYPED_CONSTS: &[f64] = &[0.36, 1.2, 0.5, 0.25, 1.5, 0.75, 2.0];
/// Values of `const` items passed to helpers (within [`HELPER_ARG_BOUND`]).
const CONST_ITEMS: &[f64] = &[1.01, 0.5, 1.5, -0.75, 0.25, 2.0];

/// `T::from(c).unwrap()`, a constant in a generic function.
fn tconst(c: f64) -> String {
    format!("T::from({}).unwrap()", lit(c))
}

/// `e * T::from(c).unwrap()`, or `e` when `c` is 1.
fn tscaled(e: &str, c: f64) -> String {
    if c == 1.0 {
        e.to_string()
    } else {
        format!("{e} * {}", tconst(c))
    }
}

/// The largest of 1 and [`SCALES`] that brings `b` under `cap` (else the smallest scale).
fn factor_for(b: f64, cap: f64) -> f64 {
    std::iter::once(1.0)
        .chain(SCALES.iter().copied())
        .find(|c| c * b <= cap)
        .unwrap_or(SCALES[SCALES.len() - 1])
}

impl FnGen<'_> {
    // ---- function-level choices -----------------------------------------------------------

    /// Declares the `[f64; 3]` parameter `name` (elements in [-1, 1]) as a read-only array.
    pub(super) fn array_input(&mut self, name: &'static str) {
        self.count(Construct::ArrayParam);
        self.array_param = Some(name);
        self.arrays.push(name.to_string());
        self.vars.push(Var {
            name: name.to_string(),
            ty: Ty::Vector,
            mutable: false,
            bound: 1.0,
            base: 1.0,
            room: 0.0,
            decl_k: 1.0,
            dirty: false,
            zero: false,
            arr_len: Some(3),
        });
    }

    /// Whether this program is declared `wrt(...)` without its slice (it then passes the slice
    /// to a helper in its prologue).
    pub(super) fn wants_wrt_no_slice(&mut self) -> bool {
        if !self.on(Construct::WrtSliceCall) || self.slices.is_empty() {
            return false;
        }
        let slice_callee = self.callable().iter().any(|&h| self.helpers[h].has_slice());
        slice_callee && self.chance(0.25)
    }

    /// Statements before the random body: the helper call of a `wrt` program that passes its
    /// non-differentiated slice, and the constant early return of a `Vec` output.
    pub(super) fn prologue(&mut self) {
        if self.wrt_no_slice {
            self.count(Construct::WrtSliceCall);
            let name = self.fresh("t");
            let d = self.rng.gen_range(0..=2);
            let slice = self.slices[0];
            let e = self.call_with(d, None, Some(slice));
            self.line(format!("let {name} = {};", e.s));
            self.declare(name, Ty::Float, false, e.b, 0.0);
        }
        if self.out == OutKind::Vec
            && self.on(Construct::VecOutConstReturn)
            && self.on(Construct::EarlyReturn)
            && self.has_len()
            && self.chance(0.5)
        {
            self.count(Construct::VecOutConstReturn);
            self.count(Construct::EarlyReturn);
            let len = self.len().expect("checked above");
            let cond = self.pick(&[
                format!("{len} == 0"),
                format!("{len} > 4"),
                format!("{len} % 2 == 1"),
            ]);
            let c = self.signed(&[0.0, 0.0, 0.5, -1.5]);
            self.line(format!("if {cond} {{"));
            self.line(format!("    return vec![{}; {VEC_OUT_LEN}];", lit(c)));
            self.line("}");
            self.ret_bound = self.ret_bound.max(c.abs());
        }
    }

    /// One of `xs`, negative ones only if `neg` is on (then counted).
    fn signed(&mut self, xs: &[f64]) -> f64 {
        let ok: Vec<f64> = xs
            .iter()
            .copied()
            .filter(|&x| x >= 0.0 || self.on(Construct::Neg))
            .collect();
        let x = self.pick(&ok);
        if x < 0.0 {
            self.count(Construct::Neg);
        }
        x
    }

    // ---- expressions ------------------------------------------------------------------------

    /// Expression-level idioms the node picker may choose.
    pub(super) fn idiom_ops(&self, ops: &mut Vec<(Op, f64)>) {
        self.idiom_ops2(ops);
        if !self.on(Construct::Ufcs) {
            return;
        }
        let smooth = [
            Construct::Hypot,
            Construct::Powf,
            Construct::Atan2,
            Construct::MulAdd,
        ];
        if self.on(Construct::PathLitFirst) && smooth.iter().any(|&c| self.on(c)) {
            ops.push((Op::Idiom(Construct::PathLitFirst), 0.35));
        }
        if self.on(Construct::PathLitMinMax) {
            // Kinks where the argument meets the literal: rare at random points, and rare here.
            ops.push((Op::Idiom(Construct::PathLitMinMax), 0.12));
        }
    }

    /// `f64::name(literal, e)`: `min`/`max`, or a method that is smooth wherever its first
    /// argument is a non-zero constant (`hypot`, `powf`, `atan2`, `mul_add`).
    pub(super) fn path_lit(&mut self, c: Construct, d: u32) -> Ex {
        self.count(c);
        self.count(Construct::Ufcs);
        if c == Construct::PathLitMinMax {
            let f = self.pick(&["min", "max"]);
            let l = self.signed(&[0.5, 0.25, -0.5, 1.5, 0.0]);
            // Sometimes a helper call: where the literal wins, the reverse sweep passes the
            // helper a zero seed (a strong caller skips the `_vjp` of a helper with a pole).
            let e = if self.on(Construct::SelectedCall)
                && !self.callable().is_empty()
                && self.chance(0.5)
            {
                self.count(Construct::SelectedCall);
                self.call(d)
            } else {
                self.arg(d, EXPR_CAP)
            };
            return Ex::atom(format!("f64::{f}({}, {})", lit(l), e.s), e.b.max(l.abs()));
        }
        let fs: Vec<Construct> = [
            Construct::Hypot,
            Construct::Powf,
            Construct::Atan2,
            Construct::MulAdd,
        ]
        .into_iter()
        .filter(|&f| self.on(f))
        .collect();
        let f = self.pick(&fs);
        self.count(f);
        match f {
            Construct::Hypot => {
                let l = self.signed(&[0.5, 1.5, 2.0, -1.0]);
                let e = self.arg(d, EXPR_CAP);
                Ex::atom(format!("f64::hypot({}, {})", lit(l), e.s), l.abs() + e.b)
            }
            Construct::Powf => {
                let l: f64 = self.pick(&[0.5, 1.5, 2.0, 1.25]);
                let e = self.arg(d, 3.0);
                let b = l.max(1.0 / l).powf(e.b);
                Ex::atom(format!("f64::powf({}, {})", lit(l), e.s), b)
            }
            Construct::Atan2 => {
                let l = self.signed(&[0.5, -0.75, 1.5]);
                let e = self.arg(d, EXPR_CAP);
                Ex::atom(format!("f64::atan2({}, {})", lit(l), e.s), 3.2)
            }
            _ => {
                let l = self.signed(&[0.5, 1.5, -0.25]);
                let e = self.arg(d, EXPR_CAP / 2.0);
                let z = self.expr(d);
                let b = l.abs() * e.b + z.b;
                Ex::atom(format!("f64::mul_add({}, {}, {})", lit(l), e.s, z.s), b)
            }
        }
    }

    // ---- statements -------------------------------------------------------------------------

    /// Statement-level idioms the statement picker may choose; `loop_ok`: a new loop may start.
    pub(super) fn idiom_stmts(&mut self, opts: &mut Vec<(St, f64)>, loop_ok: bool) {
        let mut add = |c: Construct, w: f64| opts.push((St::Idiom(c), w));
        let in_loop = !self.loops.is_empty();
        let seqs = !self.seq_sources().is_empty();
        let nest_ok = self.nest < 3 && self.budget >= 2;
        if self.on(Construct::ClosureShadowedCapture) && self.on(Construct::Shadowing) {
            add(Construct::ClosureShadowedCapture, 0.4);
        }
        if self.on(Construct::ClosureParamShadows) {
            add(Construct::ClosureParamShadows, 0.4);
        }
        if self.on(Construct::ClosureLiteralArg) {
            add(Construct::ClosureLiteralArg, 0.4);
        }
        if in_loop {
            if self.on(Construct::LoopTypedLet) && self.on(Construct::TypedLet) {
                add(Construct::LoopTypedLet, 0.8);
            }
            if self.on(Construct::LoopTupleLet)
                && self.on(Construct::TupleLet)
                && self.on(Construct::TypedLet)
                && self.on(Construct::IfStmt)
                && self.on(Construct::ActiveCond)
                && nest_ok
            {
                add(Construct::LoopTupleLet, 0.6);
            }
            if self.on(Construct::LoopToVec) && seqs {
                add(Construct::LoopToVec, 0.6);
            }
            if self.on(Construct::LoopCollect) && seqs {
                add(Construct::LoopCollect, 0.6);
            }
        }
        if self.on(Construct::BodyConstArg) && !self.callable().is_empty() {
            add(Construct::BodyConstArg, 0.4);
        }
        let acc = self.on(Construct::LetMut) || !self.accumulators().is_empty();
        if self.on(Construct::ChunksWindows)
            && self.on(Construct::AddAssign)
            && loop_ok
            && seqs
            && acc
        {
            add(Construct::ChunksWindows, 0.6);
        }
        if self.on(Construct::ArrayParamToVec) && self.array_param.is_some() {
            add(Construct::ArrayParamToVec, 0.6);
        }
        if self.on(Construct::ZeroSqrt) && self.on(Construct::Sqrt) {
            add(Construct::ZeroSqrt, 0.3);
        }
        if self.on(Construct::ZeroNorm) && self.on(Construct::Sqrt) && seqs {
            add(Construct::ZeroNorm, 0.3);
        }
        self.idiom_stmts2(opts);
    }

    pub(super) fn s_idiom(&mut self, c: Construct) {
        self.count(c);
        match c {
            Construct::ClosureShadowedCapture => self.s_closure_shadowed_capture(),
            Construct::ClosureParamShadows => self.s_closure_param_shadows(),
            Construct::ClosureLiteralArg => self.s_closure_literal_arg(),
            Construct::LoopTypedLet => self.s_loop_typed_let(),
            Construct::LoopTupleLet => self.s_loop_tuple_let(),
            Construct::LoopToVec => self.s_loop_to_vec(),
            Construct::LoopCollect => self.s_loop_collect(),
            Construct::BodyConstArg => self.s_body_const_arg(),
            Construct::ChunksWindows => self.s_chunks_windows(),
            Construct::ArrayParamToVec => self.s_array_param_to_vec(),
            Construct::ZeroSqrt => self.s_zero_sqrt(),
            Construct::ZeroNorm => self.s_zero_norm(),
            Construct::ReductionLoop => self.s_reduction_loop(),
            _ => self.s_idiom2(c),
        }
    }

    /// Sequences of the common length that may be read whole (slices, local vectors other than
    /// the one being written), with the bound of their elements.
    pub(super) fn seq_sources(&self) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = self
            .slices
            .iter()
            .map(|s| (s.to_string(), self.slice_bound))
            .collect();
        for i in self.visible(|v| v.ty == Ty::Vector && v.arr_len.is_none()) {
            let v = &self.vars[i];
            if self.write_target.as_deref() != Some(&v.name) {
                out.push((v.name.clone(), v.bound));
            }
        }
        out
    }

    /// Mutable float variables that may take `+=`.
    fn accumulators(&self) -> Vec<usize> {
        self.visible(|v| v.ty == Ty::Float && v.mutable)
    }

    /// Declares a float parameter of a closure for the body about to be generated.
    pub(super) fn push_param(&mut self, name: &str, bound: f64) -> usize {
        self.vars.push(Var {
            name: name.to_string(),
            ty: Ty::Float,
            mutable: false,
            bound,
            base: bound,
            room: 0.0,
            decl_k: self.k_mult,
            dirty: false,
            zero: false,
            arr_len: None,
        });
        self.vars.len() - 1
    }

    /// The body of a closure whose parameter is variable `p`: an expression that reads it.
    pub(super) fn closure_body(&mut self, p: usize) -> Ex {
        let d = self.rng.gen_range(0..=2);
        let me = self.read_var(p);
        let fs = self.unary_fns();
        let core = match self.rng.gen_range(0..3) {
            0 if !fs.is_empty() => {
                let f = self.pick(&fs);
                self.count(f);
                let a = self.scale(me, ARG_CAP);
                let b = if f == Construct::Atan { 1.6 } else { 1.0 };
                let m = Ex::atom(self.meth(&a, f.name(), &[]), b);
                let other = self.expr_nc(d);
                self.product(m, other)
            }
            1 => {
                let other = self.var_leaf();
                self.combine(me, other)
            }
            _ => {
                let other = self.expr(d);
                self.product(me, other)
            }
        };
        let e = if self.chance(0.3) {
            let other = self.expr(d);
            self.combine(core, other)
        } else {
            core
        };
        self.scale(e, EXPR_CAP)
    }

    /// `let f = |t: f64| ..a..; let a = ..; let r = f(e) + a;`
    fn s_closure_shadowed_capture(&mut self) {
        self.count(Construct::Shadowing);
        let floats = self.shadowable();
        let x = self.pick(&floats);
        let xname = self.vars[x].name.clone();
        let f = self.fresh("f");
        let t = self.fresh("t");
        let d = self.rng.gen_range(0..=2);
        // The argument is drawn after the shadowing `let` (it may read the new variable), so the
        // parameter is only known to be within the bound of every expression.
        self.push_scope();
        let p = self.push_param(&t, EXPR_CAP);
        // The body reads the captured variable next to the parameter.
        let me = self.read_var(p);
        let cap = self.read_var(x);
        let core = self.combine(me, cap);
        let core = self.self_wrap(core);
        let body = if self.chance(0.4) {
            let other = self.expr(d);
            self.combine(core, other)
        } else {
            core
        };
        let body = self.scale(body, EXPR_CAP);
        self.pop_scope();
        self.line(format!("let {f} = |{t}: f64| {};", body.s));
        let me = self.read_var(x);
        let other = self.expr(d);
        let e = self.combine(me, other);
        let e = self.self_wrap(e);
        let e = self.scale(e, EXPR_CAP);
        self.line(format!("let {xname} = {};", e.s));
        self.declare(xname, Ty::Float, false, e.b, 0.0);
        let shadow = self.vars.len() - 1;
        let arg = self.expr(d);
        let call = Ex::atom(format!("{f}({})", arg.s), body.b);
        let now = self.read_var(shadow);
        let r = self.combine(call, now);
        let name = self.fresh("t");
        self.line(format!("let {name} = {};", r.s));
        self.declare(name, Ty::Float, false, r.b, 0.0);
    }

    /// A closure parameter named like a variable of the enclosing scope: one in scope at the
    /// closure (`|a: f64| a * 2.0`), or one declared after it (`let f = |t: f64| ..;
    /// let t = ..; let r = f(b);`).
    fn s_closure_param_shadows(&mut self) {
        let f = self.fresh("f");
        let d = self.rng.gen_range(0..=2);
        let later = self.chance(0.5);
        let t = if later {
            self.fresh("t")
        } else {
            let floats = self.shadowable();
            let y = self.pick(&floats);
            self.vars[y].name.clone()
        };
        let arg_now = if later { None } else { Some(self.expr(d)) };
        let pb = arg_now.as_ref().map_or(EXPR_CAP, |a| a.b);
        self.push_scope();
        let p = self.push_param(&t, pb);
        let body = self.closure_body(p);
        self.pop_scope();
        self.line(format!("let {f} = |{t}: f64| {};", body.s));
        let arg = match arg_now {
            Some(a) => a,
            None => {
                let e = self.expr_nc(d);
                self.line(format!("let {t} = {};", e.s));
                self.declare(t, Ty::Float, false, e.b, 0.0);
                // The argument often reads the new local named like the parameter.
                let e = self.expr(d);
                self.scale(e, EXPR_CAP)
            }
        };
        let name = self.fresh("t");
        self.line(format!("let {name} = {f}({});", arg.s));
        self.declare(name, Ty::Float, false, body.b, 0.0);
    }

    /// `let g = |t: f64| ..; let r = g(0.5) (+ g(-1.5));`
    fn s_closure_literal_arg(&mut self) {
        let f = self.fresh("f");
        let t = self.fresh("t");
        let calls = self.rng.gen_range(1..=2);
        let mut lits = Vec::new();
        for _ in 0..calls {
            let l = self.literal();
            lits.push(l);
        }
        let pb = lits.iter().fold(0.0, |m: f64, l| m.max(l.b));
        self.push_scope();
        let p = self.push_param(&t, pb);
        let body = self.closure_body(p);
        self.pop_scope();
        self.line(format!("let {f} = |{t}: f64| {};", body.s));
        let mut acc: Option<Ex> = None;
        for l in lits {
            let call = Ex::atom(format!("{f}({})", l.s), body.b);
            acc = Some(match acc {
                None => call,
                Some(a) => self.sum(a, "+", call),
            });
        }
        let mut e = acc.expect("at least one call");
        if self.chance(0.4) {
            let other = self.var_leaf();
            e = self.product(e, other);
        }
        let e = self.scale(e, EXPR_CAP);
        let name = self.fresh("t");
        self.line(format!("let {name} = {};", e.s));
        self.declare(name, Ty::Float, false, e.b, 0.0);
    }

    /// `let g: f64 = 0.36 - 1.2;` (or a typed non-constant value), then often a method call on it.
    fn s_loop_typed_let(&mut self) {
        self.count(Construct::TypedLet);
        let g = self.fresh("t");
        let b = if self.chance(0.6) {
            let l1: f64 = self.pick(TYPED_CONSTS);
            let l2: f64 = self.pick(TYPED_CONSTS);
            let mut forms = vec![
                (format!("{} - {}", lit(l1), lit(l2)), l1 + l2),
                (format!("{} + {}", lit(l1), lit(l2)), l1 + l2),
                (format!("{} * {}", lit(l1), lit(l2)), l1 * l2),
                (lit(l1), l1),
            ];
            if self.on(Construct::Neg) {
                forms.push((format!("-{}", lit(l1)), l1));
            }
            let (s, b) = self.pick(&forms);
            if s.starts_with('-') {
                self.count(Construct::Neg);
            }
            self.line(format!("let {g}: f64 = {s};"));
            b
        } else {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr_nc(d);
            self.line(format!("let {g}: f64 = {};", e.s));
            e.b
        };
        self.declare(g, Ty::Float, false, b, 0.0);
        let fs = self.unary_fns();
        if !fs.is_empty() && self.chance(0.6) {
            let i = self.vars.len() - 1;
            let f = self.pick(&fs);
            self.count(f);
            let me = self.read_var(i);
            let a = self.scale(me, ARG_CAP);
            let m = Ex::atom(self.meth(&a, f.name(), &[]), 1.6);
            let d = self.rng.gen_range(0..=1);
            let other = self.expr_nc(d);
            let e = self.product(other, m);
            let name = self.fresh("t");
            self.line(format!("let {name} = {};", e.s));
            self.declare(name, Ty::Float, false, e.b, 0.0);
        }
    }

    /// `let (p, q): (f64, f64) = (0.5, e);` and a branch on `q`.
    fn s_loop_tuple_let(&mut self) {
        self.count(Construct::TupleLet);
        self.count(Construct::TypedLet);
        self.count(Construct::IfStmt);
        self.count(Construct::ActiveCond);
        let (p, q) = (self.fresh("t"), self.fresh("t"));
        let k: f64 = self.pick(TYPED_CONSTS);
        let kneg = self.on(Construct::Neg) && self.chance(0.3);
        let ks = if kneg {
            self.count(Construct::Neg);
            format!("-{}", lit(k))
        } else {
            lit(k)
        };
        let d = self.rng.gen_range(0..=2);
        let e = self.expr_nc(d);
        let (vals, qfirst) = if self.chance(0.5) {
            (format!("({ks}, {})", e.s), false)
        } else {
            (format!("({}, {ks})", e.s), true)
        };
        let (first, second) = if qfirst { (&q, &p) } else { (&p, &q) };
        self.line(format!("let ({first}, {second}): (f64, f64) = {vals};"));
        self.declare(p.clone(), Ty::Float, false, k, 0.0);
        self.declare(q.clone(), Ty::Float, false, e.b, 0.0);
        let qi = self.vars.len() - 1;
        self.ensure_target();
        self.vars[qi].dirty = false;
        let op = self.pick(&[">", "<", ">=", "<="]);
        let l = self.signed(&[-5.0, -0.5, 0.0, 0.25, 0.5]);
        self.line(format!("if {q} {op} {} {{", lit(l)));
        let n = self.child_len(3);
        self.block(n, Tail::None);
        if self.chance(0.4) {
            self.line("} else {");
            let n = self.child_len(2);
            self.block(n, Tail::None);
        }
        self.line("}");
    }

    /// `let ys = v.to_vec();` in a loop body, then indexed (`acc += ys[i]`) or iterated.
    fn s_loop_to_vec(&mut self) {
        let srcs = self.seq_sources();
        let (src, b) = self.pick(&srcs);
        let ys = self.fresh("w");
        if self.chance(0.3) {
            let base = b.max(1.0);
            let room: f64 = self.pick(&[2.0, 8.0]);
            self.line(format!("let mut {ys} = {src}.to_vec();"));
            self.declare(ys.clone(), Ty::Vector, true, base, room);
        } else {
            self.line(format!("let {ys} = {src}.to_vec();"));
            self.declare(ys.clone(), Ty::Vector, false, b, 0.0);
        }
        self.use_local_vec(&ys);
    }

    /// `let ys: Vec<f64> = s.iter().map(|&t| t * x).collect();` in a loop body, then iterated
    /// (`for &t in ys.iter()`) or indexed.
    fn s_loop_collect(&mut self) {
        let srcs = self.seq_sources();
        let (src, b) = self.pick(&srcs);
        let ys = self.fresh("w");
        let d = self.rng.gen_range(0..=1);
        let (map, eb) = match self.rng.gen_range(0..3) {
            0 => {
                let x = self.arg(d, (EXPR_CAP / b).max(0.01));
                (format!("|&t| t * {}", x.at(UNARY)), b * x.b)
            }
            1 if !self.unary_fns().is_empty() => {
                let x = self.arg(d, ARG_CAP / b);
                let f = self.pick(&self.unary_fns());
                self.count(f);
                (format!("|&t| ({} * t).{}()", x.at(PROD), f.name()), 1.6)
            }
            _ => {
                let x = self.arg(d, (EXPR_CAP / b).max(0.01));
                (format!("|t| t * {}", x.at(UNARY)), b * x.b)
            }
        };
        if self.on(Construct::TypedLet) && self.chance(0.7) {
            self.count(Construct::TypedLet);
            self.line(format!(
                "let {ys}: Vec<f64> = {src}.iter().map({map}).collect();"
            ));
        } else {
            self.line(format!(
                "let {ys} = {src}.iter().map({map}).collect::<Vec<f64>>();"
            ));
        }
        self.declare(ys.clone(), Ty::Vector, false, eb, 0.0);
        self.use_local_vec(&ys);
    }

    /// Uses the local vector just declared: a loop over it, or a read of one element folded
    /// into an outer variable.
    fn use_local_vec(&mut self, ys: &str) {
        let i = self.vars.len() - 1;
        self.vars[i].dirty = true;
        let nested_ok = self.loops.len() < 2
            && self.on(Construct::ForNested)
            && (self.on(Construct::ForIter) || self.on(Construct::ForEnumerate))
            && self.nest < 3
            && self.budget >= 2;
        if nested_ok && self.chance(0.5) {
            let b = self.vars[i].bound;
            self.vars[i].dirty = false;
            self.for_iter_over(Some((ys.to_string(), b, Some(ys.to_string()))));
        } else if self.chance(0.7) {
            let mark = *self.scope_marks.last().expect("inside a loop scope");
            self.absorb(i, mark);
        }
    }

    /// `const K: f64 = 1.01;` then `let r = h(K, ..) * e;`
    fn s_body_const_arg(&mut self) {
        let k = self.fresh("K");
        let c = self.signed(CONST_ITEMS);
        self.line(format!("const {k}: f64 = {};", lit(c)));
        let d = self.rng.gen_range(0..=2);
        let call = self.call_with(d, Some(k.as_str()), None);
        let d = self.rng.gen_range(0..=1);
        let other = self.expr_nc(d);
        let e = self.product(call, other);
        let e = self.scale(e, EXPR_CAP);
        let name = self.fresh("t");
        self.line(format!("let {name} = {};", e.s));
        self.declare(name, Ty::Float, false, e.b, 0.0);
    }

    /// `for row in v.chunks(3) { acc += row.windows(2).map(|wn| (wn[1] - wn[0]) * a).sum::<f64>(); .. }`
    /// (or over `v.windows(3)`, with other chains over the item).
    fn s_chunks_windows(&mut self) {
        let srcs = self.seq_sources();
        let (src, b) = self.pick(&srcs);
        let mut accs = self.accumulators();
        if accs.is_empty() || (self.on(Construct::LetMut) && self.chance(0.4)) {
            let name = self.fresh("s");
            self.zero_init(&name);
            accs = vec![self.vars.len() - 1];
        }
        let acc = self.pick(&accs);
        let chunks = self.chance(0.6);
        let size: usize = self.pick(&[2, 3]);
        let (method, trips) = if chunks {
            ("chunks", N_MAX.div_ceil(size))
        } else {
            ("windows", N_MAX - size + 1)
        };
        let row = self.fresh("row");
        // A local vector iterated here must not be written in the loop.
        let frozen = self.vars.iter().any(|v| v.name == src);
        if frozen {
            self.frozen.push(src.clone());
        }
        self.line(format!("for {row} in {src}.{method}({size}) {{"));
        self.enter_loop(LoopKind::ContinueOk, trips);
        let d = self.rng.gen_range(0..=1);
        let items = size as f64;
        let chain = match self.rng.gen_range(0..5) {
            0 => {
                let x = self.arg(d, EXPR_CAP);
                let b = (items - 1.0) * 2.0 * b * x.b;
                let s = format!(
                    "{row}.windows(2).map(|wn| (wn[1] - wn[0]) * {}).sum::<f64>()",
                    x.at(UNARY)
                );
                Ex::atom(s, b)
            }
            1 => {
                let x = self.arg(d, EXPR_CAP);
                let s = format!("{row}.iter().map(|&t| t * {}).sum::<f64>()", x.at(UNARY));
                Ex::atom(s, items * b * x.b)
            }
            2 => {
                let x = self.arg(d, EXPR_CAP);
                let s = format!(
                    "{row}.windows(2).map(|wn| wn[0] * wn[1]).sum::<f64>() * {}",
                    x.at(UNARY)
                );
                Ex::new(s, PROD, (items - 1.0) * b * b * x.b, false)
            }
            3 if !self.unary_fns().is_empty() => {
                let x = self.arg(d, ARG_CAP / b);
                let f = self.pick(&self.unary_fns());
                self.count(f);
                Ex::atom(format!("({row}[0] * {}).{}()", x.at(UNARY), f.name()), 1.6)
            }
            _ => {
                let x = self.arg(d, EXPR_CAP);
                let s = format!(
                    "{row}.iter().copied().fold(0.0, |m, t| m + t * {})",
                    x.at(UNARY)
                );
                Ex::atom(s, items * b * x.b)
            }
        };
        if let Some(e) = self.charge(acc, chain) {
            self.count(Construct::AddAssign);
            let name = self.vars[acc].name.clone();
            self.line(format!("{name} += {};", e.s));
            self.vars[acc].dirty = true;
            self.vars[acc].zero = false;
        }
        self.loop_body(trips, &[]);
        if frozen {
            self.frozen.pop();
        }
        self.line("}");
    }

    /// `let u = q.to_vec();` (or `let mut`) from the `[f64; 3]` parameter.
    fn s_array_param_to_vec(&mut self) {
        let q = self
            .array_param
            .expect("offered only with an array parameter");
        let u = self.fresh("w");
        if self.chance(0.4) {
            let base: f64 = self.pick(&[1.0, 2.0]);
            let room: f64 = self.pick(&[2.0, 8.0]);
            self.line(format!("let mut {u} = {q}.to_vec();"));
            self.declare(u, Ty::Vector, true, base, room);
        } else {
            self.line(format!("let {u} = {q}.to_vec();"));
            self.declare(u, Ty::Vector, false, 1.0, 0.0);
        }
        let last = self.vars.last_mut().expect("just declared");
        last.arr_len = Some(3);
        last.dirty = true;
    }

    /// `let z = 0.0 * x; let r = (z * z).sqrt() + e;`: `sqrt` exactly at an identically-zero value.
    fn s_zero_sqrt(&mut self) {
        self.count(Construct::Sqrt);
        let z = self.fresh("t");
        let x = self.var_leaf();
        let zero = self.pick(&[
            format!("0.0 * {}", x.at(UNARY)),
            format!("{} * 0.0", x.at(PROD)),
            format!("({} * 0.0).sin()", x.at(PROD)),
        ]);
        self.line(format!("let {z} = {zero};"));
        let mut roots = vec![
            format!("({z} * {z}).sqrt()"),
            format!("(2.0 * {z} * {z}).sqrt()"),
        ];
        if self.on(Construct::Powi) {
            roots.push(format!("{z}.powi(2).sqrt()"));
        }
        let root = self.pick(&roots);
        if root.contains("powi") {
            self.count(Construct::Powi);
        }
        let d = self.rng.gen_range(0..=2);
        let e = self.expr_nc(d);
        let (s, b) = if self.chance(0.5) {
            (format!("{root} + {}", e.at(PROD)), e.b)
        } else {
            (format!("({root} + 1.0) * {}", e.at(UNARY)), e.b)
        };
        let name = self.fresh("t");
        self.line(format!("let {name} = {s};"));
        self.declare(name, Ty::Float, false, b, 0.0);
    }

    /// `let w: Vec<f64> = s.iter().map(|&t| t * (x * 0.0).sin()).collect();
    /// let nrm = w.iter().map(|&t| t * t).sum::<f64>().sqrt() + 0.5;`: the norm of a zero vector.
    fn s_zero_norm(&mut self) {
        self.count(Construct::Sqrt);
        let srcs = self.seq_sources();
        let (src, _) = self.pick(&srcs);
        let x = self.var_leaf();
        let zero = self.pick(&[
            format!("({} * 0.0).sin()", x.at(PROD)),
            format!("(0.0 * {})", x.at(UNARY)),
        ]);
        let w = self.fresh("w");
        if self.on(Construct::TypedLet) && self.chance(0.7) {
            self.count(Construct::TypedLet);
            self.line(format!(
                "let {w}: Vec<f64> = {src}.iter().map(|&t| t * {zero}).collect();"
            ));
        } else {
            self.line(format!(
                "let {w} = {src}.iter().map(|&t| t * {zero}).collect::<Vec<f64>>();"
            ));
        }
        let nrm = self.fresh("t");
        let (norm, lo) = self.pick(&[
            (
                format!("{w}.iter().map(|&t| t * t).sum::<f64>().sqrt() + 0.5"),
                0.5,
            ),
            (
                format!("({w}.iter().map(|&t| t * t).sum::<f64>() + 0.0).sqrt() + 1.0"),
                1.0,
            ),
            (
                format!("{w}.iter().fold(0.0, |m, &t| m + t * t).sqrt() + 0.5"),
                0.5,
            ),
        ]);
        self.line(format!("let {nrm} = {norm};"));
        let d = self.rng.gen_range(0..=2);
        let e = self.expr_nc(d);
        let name = self.fresh("t");
        if self.on(Construct::Div) {
            self.count(Construct::Div);
            self.line(format!("let {name} = {} / {nrm};", e.at(PROD)));
            self.declare(name, Ty::Float, false, e.b / lo, 0.0);
        } else {
            self.line(format!("let {name} = {} * {nrm};", e.at(PROD)));
            // The norm of the zero vector is 0, so `nrm` is exactly `lo`.
            self.declare(name, Ty::Float, false, e.b * lo, 0.0);
        }
    }

    // ---- generic helpers --------------------------------------------------------------------

    /// `hg{k}<T: num_traits::Float + std::iter::Sum>(p: T, [r: T,] w: &[T]) -> T` (also
    /// `+ std::iter::Product` when it takes a product): copies `w`
    /// into a local `Vec` (`w.to_vec()`, a rescaled copy, or a mapped `collect`) and combines
    /// reductions of it (`sum`, sums of maps, `product`, a mean, a `for` accumulation), using
    /// only enabled methods and loops.
    pub(super) fn generic_helper(mut self, k: usize) -> FnOut {
        self.count(Construct::GenericSum);
        let (pb, eb, len) = (HELPER_ARG_BOUND, HELPER_SLICE_BOUND, N_MAX as f64);
        let mut params = vec![Param::Scalar("p".into())];
        let mut scalars = vec!["p"];
        if self.chance(0.4) {
            params.push(Param::Scalar("r".into()));
            scalars.push("r");
        }
        params.push(Param::Slice("w".into()));
        self.shuffle_params(&mut params);
        let typed = self.on(Construct::TypedLet);
        let mut lines: Vec<String> = Vec::new();
        let mut copies = vec![0, 2];
        if self.on(Construct::Sin) && self.on(Construct::ForRange) {
            copies.push(1);
        }
        let wb = match self.pick(&copies) {
            0 => {
                lines.push("let work = w.to_vec();".into());
                eb
            }
            1 => {
                self.count(Construct::Sin);
                self.count(Construct::ForRange);
                let c = factor_for(eb, ARG_CAP);
                let s = self.pick(&scalars);
                lines.push("let mut work = w.to_vec();".into());
                lines.push("for i in 0..work.len() {".into());
                lines.push(format!(
                    "    work[i] = (work[i] * {}).sin() * {s};",
                    tconst(c)
                ));
                lines.push("}".into());
                pb
            }
            _ => {
                let s = self.pick(&scalars);
                let map = format!("w.iter().map(|&t| t * {s})");
                if typed {
                    self.count(Construct::TypedLet);
                    lines.push(format!("let work: Vec<T> = {map}.collect();"));
                } else {
                    lines.push(format!("let work = {map}.collect::<Vec<T>>();"));
                }
                eb * pb
            }
        };
        let sum = self.pick(&["copied().sum", "cloned().sum", "map(|&t| t).sum", "fold"]);
        let sum = match (sum, typed) {
            ("fold", _) => "fold(T::zero(), |a, &t| a + t)".to_string(),
            (s, true) => format!("{s}()"),
            (s, false) => format!("{s}::<T>()"),
        };
        if typed {
            self.count(Construct::TypedLet);
            lines.push(format!("let r0: T = work.iter().{sum};"));
        } else {
            lines.push(format!("let r0 = work.iter().{sum};"));
        }
        let rb = len * wb;
        let mut terms: Vec<(String, f64)> = Vec::new();
        let mut firsts = vec![None];
        for c in [Construct::Sin, Construct::Tanh] {
            if self.on(c) {
                firsts.push(Some(c));
            }
        }
        match self.pick(&firsts) {
            Some(Construct::Sin) => {
                self.count(Construct::Sin);
                let c = factor_for(rb, ARG_CAP);
                terms.push((format!("(r0 * {}).sin()", tconst(c)), 1.0));
            }
            Some(_) => {
                self.count(Construct::Tanh);
                let c = factor_for(rb, ARG_CAP);
                let s = self.pick(&scalars);
                terms.push((format!("(r0 * {}).tanh() * {s}", tconst(c)), pb));
            }
            None => {
                let c = factor_for(rb, 4.0);
                terms.push((tscaled("r0", c), c * rb));
            }
        }
        // Further reductions, each with the constructs it needs.
        let needs: [(&[Construct], usize); 5] = [
            (&[Construct::Sqrt], 0),
            (&[Construct::Sin], 1),
            (&[Construct::Cos], 2),
            (&[Construct::Div], 3),
            (&[Construct::Tanh, Construct::ForIter], 4),
        ];
        let mut kinds: Vec<usize> = needs
            .iter()
            .filter(|(cs, _)| cs.iter().all(|&c| self.on(c)))
            .map(|(_, kind)| *kind)
            .collect();
        kinds.shuffle(&mut self.rng);
        kinds.truncate(self.rng.gen_range(1..=2));
        let annot = if typed { ": T" } else { "" };
        let sum_t = if typed { "sum()" } else { "sum::<T>()" };
        let product_t = if typed { "product()" } else { "product::<T>()" };
        let mut bounds = "num_traits::Float + std::iter::Sum".to_string();
        for (j, kind) in kinds.into_iter().enumerate() {
            for &c in needs[kind].0 {
                self.count(c);
            }
            let m = format!("m{j}");
            match kind {
                0 => {
                    lines.push(format!(
                        "let {m}{annot} = work.iter().map(|&t| t * t).{sum_t};"
                    ));
                    let b = len * wb * wb;
                    let c = factor_for(b, 4.0);
                    let s = format!("({} + T::one()).sqrt()", tscaled(&m, c));
                    terms.push((s, (c * b + 1.0).sqrt()));
                }
                1 => {
                    let c = factor_for(wb, ARG_CAP);
                    let s = self.pick(&scalars);
                    lines.push(format!(
                        "let {m}{annot} = work.iter().map(|&t| (t * {}).sin() * {s}).{sum_t};",
                        tconst(c)
                    ));
                    terms.push((m, len * pb));
                }
                2 => {
                    let c = factor_for(wb, ARG_CAP);
                    lines.push(format!(
                        "let {m}{annot} = work.iter().map(|&t| (t * {}).cos()).{product_t};",
                        tconst(c)
                    ));
                    terms.push((m, 1.0));
                    bounds.push_str(" + std::iter::Product");
                }
                3 => {
                    lines.push(format!("let {m} = r0 / T::from(work.len()).unwrap();"));
                    let c = factor_for(wb, 4.0);
                    terms.push((tscaled(&m, c), c * wb));
                }
                _ => {
                    let c = factor_for(wb, ARG_CAP);
                    let s = self.pick(&scalars);
                    lines.push(format!("let mut {m} = T::zero();"));
                    lines.push("for &t in work.iter() {".into());
                    lines.push(format!("    {m} = {m} + (t * {}).tanh() * {s};", tconst(c)));
                    lines.push("}".into());
                    terms.push((m, len * pb));
                }
            }
        }
        let mut ret = String::new();
        let mut bound = 0.0;
        for (i, (t, b)) in terms.iter().enumerate() {
            if i > 0 {
                ret.push_str(if self.chance(0.75) { " + " } else { " - " });
            }
            ret.push_str(t);
            bound += b;
        }
        lines.push(ret);
        let sig: Vec<String> = params
            .iter()
            .map(|p| match p {
                Param::Scalar(n) => format!("{n}: T"),
                Param::Slice(n) => format!("{n}: &[T]"),
                _ => unreachable!("generic helpers take floats and one slice"),
            })
            .collect();
        let name = format!("hg{k}");
        let mut source = String::new();
        if !self.cfg.primal_only {
            source.push_str("#[differentiate]\n");
        }
        source.push_str(&format!(
            "fn {name}<T: {bounds}>({}) -> T {{\n",
            sig.join(", ")
        ));
        for l in &lines {
            source.push_str(&format!("    {l}\n"));
        }
        source.push_str("}\n");
        FnOut {
            name,
            // Streams of the test points: above the plain helpers', below the programs'.
            index: 500 + k as u64,
            params,
            out: OutKind::F64,
            source,
            calls: BTreeSet::new(),
            counts: self.counts,
            ret_bound: bound,
            generic: true,
            wrt_no_slice: false,
            fixed: Vec::new(),
        }
    }
}
