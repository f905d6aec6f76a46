//! `#[checkpoint]` loops (README, "Long loops"): helpers `hk0`, `hk1`, ... that update one state
//! in place (`io: &mut [f64]` of the common length, `ia: &mut [f64; 3]` or `is: &mut f64`,
//! squashed into [-1, 1] at the end, like `inout.rs`'s `hm*`), and programs that call one of them
//! as the whole body of a checkpointed loop:
//!
//! ```text
//! #[checkpoint(snapshots = 2)]
//! for i in 1..=n {
//!     hk1(&mut w3, 0.5 * a + v[i].sin(), v, i);
//! }
//! ```
//!
//! The state is a local `Vec` (of the common length), a local array, a float local, or the
//! program's in-out or workspace argument (`io`, `&mut *io`, `ia`, `wk`), an existing one or one
//! declared just before the loop; the other arguments read only the loop index and values that
//! cannot change (arguments, immutable `let`s, elements indexed by the loop index), as the macro
//! requires. Ranges start at zero or not, are inclusive or not, and some run zero times; the
//! snapshot budget is the default or a small `snapshots = k`.
//!
//! Every program with such a loop gets a twin `<p>_plain`, the same source without the
//! attributes, and its `vjp` adapter checks that both give the same value and adjoints, bit for
//! bit (`twin_check`): the reverse sweep recomputes the steps it did not store with the same
//! operations, so nothing may differ.

use super::*;

/// Number of step helpers `hk0`, ... (emitted when `checkpoint_loop` and `helper_call` are on).
pub const STEP_HELPERS: usize = 6;
/// Bound callers guarantee for a float state they pass (`is: &mut f64`).
const FLOAT_STATE_BOUND: f64 = 4.0;
/// Bound of the loop index read as a float (`i as f64`): ranges end below it.
const INDEX_BOUND: f64 = 2.0 * N_MAX as f64 + 6.0;

/// What a step helper updates in place.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StateKind {
    /// `io: &mut [f64]` of the common length.
    Slice,
    /// `ia: &mut [f64; 3]`.
    Array,
    /// `is: &mut f64`.
    Float,
}

impl FnOut {
    /// A step helper of this file (called only as the body of a checkpointed loop).
    pub(super) fn is_step(&self) -> bool {
        self.name.starts_with("hk")
    }

    fn state_kind(&self) -> Option<StateKind> {
        if !self.is_step() {
            return None;
        }
        self.params.iter().find_map(|p| match p {
            Param::InOut(_) => Some(StateKind::Slice),
            Param::InOutArray(_) => Some(StateKind::Array),
            Param::InOutScalar(_) => Some(StateKind::Float),
            _ => None,
        })
    }
}

/// Appends the step helpers `cfg` asks for to `helpers`: two of each state kind enabled.
pub(super) fn step_helpers(cfg: &Config, helpers: &mut Vec<FnOut>) {
    if !cfg.enabled(Construct::CheckpointLoop) || !cfg.enabled(Construct::HelperCall) {
        return;
    }
    let mut kinds = Vec::new();
    if cfg.enabled(Construct::HelperSliceArg) {
        kinds.push(StateKind::Slice);
    }
    if cfg.enabled(Construct::CheckpointArray) {
        kinds.push(StateKind::Array);
    }
    if cfg.enabled(Construct::CheckpointFloat) {
        kinds.push(StateKind::Float);
    }
    if kinds.is_empty() {
        return;
    }
    for k in 0..STEP_HELPERS {
        let kind = kinds[k % kinds.len()];
        let f = FnGen::new(cfg, 7_000_000 + k as u64, helpers, true).step_helper(k, kind);
        helpers.push(f);
    }
}

/// The largest listed factor `c` with `c * b <= cap`.
fn factor(b: f64, cap: f64) -> f64 {
    SCALES
        .iter()
        .copied()
        .find(|c| c * b <= cap)
        .unwrap_or(SCALES[SCALES.len() - 1])
        .min(1.0)
}

impl FnGen<'_> {
    /// `hk{k}(p: f64, [q: f64,] [u: &[f64],] [ix: usize,] <state>) [-> f64]`, parameters in any
    /// order: random statements reading and writing the state, which ends squashed into [-1, 1]
    /// (so that a loop of calls keeps every bound); `ix` is read as `(0.3 * ix as f64).sin()`.
    fn step_helper(mut self, k: usize, kind: StateKind) -> FnOut {
        let mut params = vec![Param::Scalar("p".into())];
        if self.chance(0.5) {
            params.push(Param::Scalar("q".into()));
        }
        let scalars = params.len();
        let slice =
            kind == StateKind::Slice || (self.on(Construct::HelperSliceArg) && self.chance(0.4));
        if slice {
            params.push(Param::Slice("u".into()));
            self.slices.push("u");
            self.lens.push("u.len()");
            self.slice_bound = HELPER_SLICE_BOUND;
        }
        let index = self.chance(0.5);
        if index {
            params.push(Param::Len("ix".into()));
        }
        params.push(match kind {
            StateKind::Slice => Param::InOut("io".into()),
            StateKind::Array => Param::InOutArray("ia".into()),
            StateKind::Float => Param::InOutScalar("is".into()),
        });
        self.shuffle_params(&mut params);
        for n in &["p", "q"][..scalars] {
            self.push_input(n, HELPER_ARG_BOUND);
        }
        self.no_early_return = true;
        match kind {
            StateKind::Slice | StateKind::Array => {
                let name = if kind == StateKind::Slice { "io" } else { "ia" };
                self.inout = Some(name);
                self.squash_inout = true;
                self.declare(name.to_string(), Ty::Vector, true, HELPER_SLICE_BOUND, 8.0);
                if kind == StateKind::Array {
                    if let Some(v) = self.vars.last_mut() {
                        v.arr_len = Some(3);
                    }
                }
            }
            StateKind::Float => {
                self.inout_scalar = true;
                self.unit_place = Some("*is".to_string());
                self.declare("(*is)".to_string(), Ty::Float, true, FLOAT_STATE_BOUND, 8.0);
            }
        }
        if index {
            let t = self.fresh("t");
            self.line(format!("let {t} = (0.3 * ix as f64).sin();"));
            self.declare(t, Ty::Float, false, 1.0, 0.0);
        }
        let out = if self.on(Construct::UnitOut) && self.chance(0.4) {
            self.count(Construct::UnitOut);
            OutKind::Unit
        } else {
            OutKind::F64
        };
        self.budget = self.rng.gen_range(1..=4);
        if kind != StateKind::Float {
            return self.finish(format!("hk{k}"), 950 + k as u64, params, out);
        }
        // A float state is squashed here, before a returned value (`finish` squashes only
        // sequences), or after the `()` tail, which writes the value into it.
        self.out = out;
        while self.budget > 0 {
            self.stmt();
        }
        let b = self
            .visible(|v| v.name == "(*is)")
            .last()
            .map(|&i| self.vars[i].bound);
        let b = b.unwrap_or(FLOAT_STATE_BOUND);
        if out == OutKind::F64 {
            let c = factor(b, ARG_CAP);
            self.line(format!("*is = ({} * *is).tanh();", lit(c)));
        }
        let mut f = self.finish(format!("hk{k}"), 950 + k as u64, params, out);
        if out == OutKind::Unit {
            let c = factor(b.max(f.ret_bound), ARG_CAP);
            let body = f
                .source
                .strip_suffix("}\n")
                .unwrap_or(&f.source)
                .to_string();
            f.source = format!("{body}    *is = ({} * *is).tanh();\n}}\n", lit(c));
        }
        f
    }
}

/// A place a checkpointed loop's call may write: the variable and how it is passed.
struct State {
    var: usize,
    arg: String,
}

impl FnGen<'_> {
    /// Offers the checkpointed loop to the statement picker when one can be emitted here.
    pub(super) fn checkpoint_stmts(&self, opts: &mut Vec<(St, f64)>) {
        if self.on(Construct::CheckpointLoop)
            && self.on(Construct::HelperCall)
            && !self.is_helper
            && self.nest < 3
            && self.has_len()
            && !self.step_callable().is_empty()
        {
            opts.push((St::Checkpoint, 0.7));
        }
    }

    /// Step helpers this program can call: a slice state needs a sequence to lend as `u`.
    fn step_callable(&self) -> Vec<usize> {
        let seqs = !self.frozen_seqs().is_empty();
        (0..self.helpers.len())
            .filter(|&h| self.helpers[h].state_kind().is_some())
            .filter(|&h| seqs || !self.helpers[h].has_slice())
            .collect()
    }

    /// Whether `name` is (or may be) declared `mut` or without a value in the source so far: the
    /// macro takes it as a variable that may change (a deferred `let t;` too).
    fn declared_mut(&self, name: &str) -> bool {
        let m = format!("mut {name}");
        let deferred = format!("let {name};");
        self.lines.iter().any(|l| {
            let l = l.trim();
            l == deferred
                || l.match_indices(&m).any(|(at, _)| {
                    let next = l[at + m.len()..].chars().next();
                    !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
        })
    }

    /// Whether variable `i` cannot change, for the macro: what a step's arguments may read.
    fn frozen_value(&self, i: usize) -> bool {
        let v = &self.vars[i];
        !v.mutable
            && !v.name.starts_with('(')
            && !Self::is_field(&v.name)
            && !self.row_refs.contains(&v.name)
            && !self.declared_mut(&v.name)
    }

    /// Sequences of the common length that cannot change (what `u` may be), with their bounds.
    fn frozen_seqs(&self) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = self
            .slices
            .iter()
            .map(|s| (s.to_string(), self.slice_bound))
            .collect();
        for i in self.visible(|v| v.ty == Ty::Vector && v.arr_len.is_none()) {
            if self.frozen_value(i) && self.vars[i].bound <= HELPER_SLICE_BOUND {
                out.push((self.vars[i].name.clone(), self.vars[i].bound));
            }
        }
        out
    }

    /// Existing variables a step of `kind` may update, with how each is passed.
    fn states(&self, kind: StateKind) -> Vec<State> {
        let mut out = Vec::new();
        let ok = |v: &Var, bound: f64| {
            v.mutable
                && v.bound <= bound
                && v.base >= 1.0
                && !Self::is_field(&v.name)
                && !self.frozen.contains(&v.name)
                && !self.row_refs.contains(&v.name)
                && self.write_target.as_deref() != Some(v.name.as_str())
        };
        for i in self.visible(|v| ok(v, HELPER_SLICE_BOUND) || ok(v, FLOAT_STATE_BOUND)) {
            let v = &self.vars[i];
            let param = self.is_mut_ref(&v.name);
            let forms: Vec<String> = match (kind, v.ty, v.arr_len) {
                (StateKind::Slice, Ty::Vector, None) if ok(v, HELPER_SLICE_BOUND) => {
                    // (`&mut w[..]` is the whole of `w`: the macro takes it as `&mut w`.)
                    if param {
                        vec![
                            v.name.clone(),
                            format!("&mut *{0}", v.name),
                            format!("&mut {0}[..]", v.name),
                        ]
                    } else {
                        vec![format!("&mut {}", v.name), format!("&mut {}[..]", v.name)]
                    }
                }
                (StateKind::Array, Ty::Vector, Some(3)) if ok(v, HELPER_SLICE_BOUND) => {
                    if param && (v.name == "ia" || v.name == "wk") {
                        vec![v.name.clone(), format!("&mut *{}", v.name)]
                    } else if !param && self.arrays.contains(&v.name) {
                        vec![format!("&mut {}", v.name)]
                    } else {
                        Vec::new()
                    }
                }
                (StateKind::Float, Ty::Float, _)
                    if ok(v, FLOAT_STATE_BOUND) && !v.name.starts_with('(') =>
                {
                    vec![format!("&mut {}", v.name)]
                }
                _ => Vec::new(),
            };
            out.extend(forms.into_iter().map(|arg| State { var: i, arg }));
        }
        out
    }

    /// The state of a step of `kind`: an existing variable, or one declared here.
    fn pick_state(&mut self, kind: StateKind) -> State {
        let states = self.states(kind);
        if !states.is_empty() && self.chance(0.7) {
            let k = self.rng.gen_range(0..states.len());
            let s = &states[k];
            let param = self.is_mut_ref(&self.vars[s.var].name);
            if !param || self.on(Construct::CheckpointInOut) {
                if param {
                    self.count(Construct::CheckpointInOut);
                }
                return State {
                    var: s.var,
                    arg: s.arg.clone(),
                };
            }
        }
        let room: f64 = self.pick(&[0.0, 2.0, 8.0]);
        match kind {
            StateKind::Slice => {
                let name = self.fresh("w");
                let len = self.len().expect("programs have a length");
                let base = if !self.slices.is_empty() && self.chance(0.5) {
                    let s = self.pick(&self.slices.clone());
                    self.line(format!("let mut {name} = {s}.to_vec();"));
                    self.slice_bound.max(1.0)
                } else {
                    let e = self.ck_expr(1, None);
                    let e = self.scale(e, EXPR_CAP);
                    self.line(format!("let mut {name}: Vec<f64> = vec![{}; {len}];", e.s));
                    e.b.max(1.0)
                };
                self.declare(name.clone(), Ty::Vector, true, base, room);
                State {
                    var: self.vars.len() - 1,
                    arg: format!("&mut {name}"),
                }
            }
            StateKind::Array => {
                let name = self.fresh("r");
                let mut b: f64 = 1.0;
                let mut elems = Vec::new();
                for _ in 0..3 {
                    let e = self.ck_expr(1, None);
                    let e = self.scale(e, EXPR_CAP);
                    b = b.max(e.b);
                    elems.push(e.s);
                }
                self.line(format!(
                    "let mut {name}: [f64; 3] = [{}];",
                    elems.join(", ")
                ));
                self.declare(name.clone(), Ty::Vector, true, b, room);
                self.vars.last_mut().expect("just declared").arr_len = Some(3);
                self.arrays.push(name.clone());
                State {
                    var: self.vars.len() - 1,
                    arg: format!("&mut {name}"),
                }
            }
            StateKind::Float => {
                let name = self.fresh("s");
                let e = self.ck_expr(1, None);
                let e = self.scale(e, FLOAT_STATE_BOUND);
                self.line(format!("let mut {name}: f64 = {};", e.s));
                let room = room.min(FLOAT_STATE_BOUND - 1.0);
                self.declare(name.clone(), Ty::Float, true, e.b.max(1.0), room);
                State {
                    var: self.vars.len() - 1,
                    arg: format!("&mut {name}"),
                }
            }
        }
    }
}

/// The loop index of a checkpointed loop as its arguments may read it.
#[derive(Clone)]
struct Index {
    name: String,
    /// Below the common length whenever the body runs (`v[i]` is valid).
    valid: bool,
    read: bool,
}

impl FnGen<'_> {
    /// The range of a checkpointed loop: (range, inclusive, runs zero times, index valid).
    fn ck_range(&mut self) -> (String, bool, bool, bool) {
        let len = self.len().expect("programs have a length");
        // (range, inclusive, zero trips, index valid)
        let mut forms: Vec<(String, bool, bool, bool)> = vec![
            (format!("0..{len}"), false, false, true),
            (format!("0..{len}"), false, false, true),
            (format!("1..{len}"), false, false, true),
            (format!("2..{len}"), false, false, true),
            (format!("{len} - 2..{len}"), false, false, true),
            ("0..3".into(), false, false, true),
            ("1..4".into(), false, false, true),
            (format!("0..2 * {len}"), false, false, false),
            (format!("3..{len} + 5"), false, false, false),
            ("0..11".into(), false, false, false),
        ];
        if self.on(Construct::CheckpointInclusive) {
            forms.extend([
                (format!("0..={len} - 1"), true, false, true),
                (format!("1..={len} - 2"), true, false, true),
                ("1..=3".into(), true, false, true),
                ("2..=2".into(), true, false, true),
                (format!("1..={len} + 4"), true, false, false),
            ]);
        }
        let mut empty: Vec<(String, bool, bool, bool)> = vec![
            (format!("{len}..{len}"), false, true, true),
            ("0..0".into(), false, true, true),
            (format!("{len}..2"), false, true, true),
        ];
        if self.on(Construct::CheckpointInclusive) {
            empty.push(("3..=2".into(), true, true, true));
        }
        let outer: Vec<usize> = self
            .index_vars()
            .into_iter()
            .filter(|&o| self.frozen_value(o))
            .collect();
        if !outer.is_empty() {
            let o = self.pick(&outer);
            let on = self.vars[o].name.clone();
            forms.push((format!("0..{on}"), false, false, true));
            forms.push((format!("{on}..{len}"), false, false, true));
            if self.on(Construct::CheckpointInclusive) {
                forms.push((format!("{on}..={on}"), true, false, true));
            }
        }
        // Loops that run zero times now and then.
        let f = if self.on(Construct::CheckpointZeroTrip) && self.chance(0.08) {
            self.pick(&empty)
        } else {
            self.pick(&forms)
        };
        if f.1 {
            self.count(Construct::CheckpointInclusive);
        }
        if f.2 {
            self.count(Construct::CheckpointZeroTrip);
        }
        f
    }

    /// A leaf of a step's argument: a value that cannot change, the loop index as a float, an
    /// element indexed by it, or a literal.
    fn ck_leaf(&mut self, ix: Option<&mut Index>) -> Ex {
        let floats: Vec<usize> = self
            .visible(|v| v.ty == Ty::Float)
            .into_iter()
            .filter(|&i| self.frozen_value(i))
            .collect();
        let seqs = self.frozen_seqs();
        let arrays: Vec<usize> = self
            .visible(|v| v.ty == Ty::Vector && v.arr_len.is_some())
            .into_iter()
            .filter(|&i| self.frozen_value(i))
            .collect();
        let mut opts = vec![(0, 1.0)];
        if !floats.is_empty() {
            opts.push((1, 4.0));
        }
        if !seqs.is_empty() {
            opts.push((2, 2.0));
        }
        if !arrays.is_empty() {
            opts.push((3, 1.0));
        }
        if ix.is_some() {
            opts.push((4, 1.5));
        }
        let len = self.lens[0];
        let mut ix = ix;
        // An index into a sequence of the common length, and into an array of `m`.
        let mut at = |cx: &mut Self, m: Option<usize>| -> String {
            match ix.as_deref_mut() {
                Some(ix) if cx.chance(0.8) => {
                    ix.read = true;
                    let i = ix.name.clone();
                    match m {
                        Some(m) => format!("{i} % {m}"),
                        None if ix.valid && cx.chance(0.6) => i,
                        None => format!("({i} + 1) % {len}"),
                    }
                }
                _ => cx.rng.gen_range(0..m.unwrap_or(N_MIN)).to_string(),
            }
        };
        match self.pick_weighted(&opts) {
            1 => {
                let i = self.pick(&floats);
                self.read_var(i)
            }
            2 => {
                let (s, b) = self.pick(&seqs);
                let k = at(self, None);
                self.mark_read(&s);
                let e = Ex::atom(format!("{s}[{k}]"), b);
                self.scale(e, EXPR_CAP)
            }
            3 => {
                let a = self.pick(&arrays);
                let m = self.vars[a].arr_len.expect("an array");
                let k = at(self, Some(m));
                let e = Ex::atom(format!("{}[{k}]", self.vars[a].name), self.vars[a].bound);
                self.scale(e, EXPR_CAP)
            }
            4 => {
                let ix = ix.expect("offered with an index");
                ix.read = true;
                let e = Ex::atom(format!("({} as f64)", ix.name), INDEX_BOUND);
                self.scale(e, 1.0)
            }
            _ => self.literal(),
        }
    }

    /// A small expression of [`FnGen::ck_leaf`]s.
    fn ck_expr(&mut self, depth: u32, mut ix: Option<&mut Index>) -> Ex {
        if depth == 0 || self.chance(0.35) {
            return self.ck_leaf(ix);
        }
        let l = self.ck_expr(depth - 1, ix.as_deref_mut());
        let fs = self.unary_fns();
        if !fs.is_empty() && self.chance(0.3) {
            let f = self.pick(&fs);
            let a = self.scale(l, ARG_CAP);
            if a.konst {
                // (A method of a literal does not compile: its type is not known.)
                return a;
            }
            self.count(f);
            return Ex::atom(self.meth(&a, f.name(), &[]), 1.6);
        }
        let r = self.ck_expr(depth - 1, ix);
        self.combine(l, r)
    }

    /// `#[checkpoint(..)] for i in range { hk(.., &mut w, ..); }`.
    pub(super) fn s_checkpoint(&mut self) {
        let h = self.pick(&self.step_callable());
        let helpers = self.helpers;
        let kind = helpers[h].state_kind().expect("a step helper");
        self.count(Construct::CheckpointLoop);
        self.count(Construct::HelperCall);
        match kind {
            StateKind::Array => self.count(Construct::CheckpointArray),
            StateKind::Float => self.count(Construct::CheckpointFloat),
            StateKind::Slice => {}
        }
        self.calls.insert(h);
        let state = self.pick_state(kind);
        let (range, _, _, valid) = self.ck_range();
        let mut ix = Index {
            name: self.loop_name().to_string(),
            valid,
            read: false,
        };
        let index_on = self.on(Construct::CheckpointIndexArg);
        let mut args = Vec::new();
        for p in &helpers[h].params {
            let a = match p {
                Param::Scalar(_) => {
                    let d = self.rng.gen_range(0..=2);
                    let e = self.ck_expr(d, index_on.then_some(&mut ix));
                    self.scale(e, HELPER_ARG_BOUND).s
                }
                Param::Slice(_) => {
                    self.count(Construct::HelperSliceArg);
                    let seqs = self.frozen_seqs();
                    let (s, _) = self.pick(&seqs);
                    self.mark_read(&s);
                    let param = self.slices.contains(&s.as_str());
                    let len = self.lens[0];
                    let forms = match param {
                        true => vec![s.clone(), format!("&{s}[..]"), format!("&{s}[..{len}]")],
                        false => vec![format!("&{s}"), format!("&{s}[..]")],
                    };
                    self.pick(&forms)
                }
                Param::Len(_) => {
                    let i = ix.name.clone();
                    let len = self.lens[0];
                    let forms = [
                        i.clone(),
                        i.clone(),
                        format!("{i} + 1"),
                        format!("2 * {i}"),
                        len.to_string(),
                    ];
                    let a = match index_on {
                        true => self.pick(&forms),
                        false => len.to_string(),
                    };
                    ix.read |= a.contains(&i);
                    a
                }
                _ => state.arg.clone(),
            };
            args.push(a);
        }
        if ix.read {
            self.count(Construct::CheckpointIndexArg);
        }
        let var = if ix.read || self.chance(0.5) {
            ix.name.clone()
        } else {
            "_".to_string()
        };
        if !self.cfg.primal_only {
            if self.on(Construct::CheckpointSnapshots) && self.chance(0.5) {
                self.count(Construct::CheckpointSnapshots);
                let len = self.lens[0];
                let k = self.pick(&[
                    "1".to_string(),
                    "2".to_string(),
                    "3".to_string(),
                    "1".to_string(),
                    "2".to_string(),
                    format!("{len} / 2"),
                    format!("{len} + 1"),
                ]);
                self.line(format!("#[checkpoint(snapshots = {k})]"));
            } else {
                self.line("#[checkpoint]");
            }
        }
        self.line(format!("for {var} in {range} {{"));
        self.line(format!("    {}({});", helpers[h].name, args.join(", ")));
        self.line("}");
        let w = &mut self.vars[state.var];
        w.dirty = true;
        w.zero = false;
    }
}

/// The name of `name`'s twin without `#[checkpoint]`.
fn twin_name(name: &str) -> String {
    format!("{name}_plain")
}

/// Whether `f` has a checkpointed loop (and so a twin).
fn has_twin(f: &FnOut) -> bool {
    f.counts[Construct::CheckpointLoop as usize] > 0 && f.source.contains("#[checkpoint")
}

/// Appends to a program with a checkpointed loop its twin `<p>_plain`: the same function
/// without the attributes (and with the `#[differentiate..]` the program has now: called before
/// `second::mark`, the twin never gets `hvp`).
pub(super) fn add_twin(f: &mut FnOut) {
    if !has_twin(f) {
        return;
    }
    let sig = format!("fn {}(", f.name);
    let twin_sig = format!("fn {}(", twin_name(&f.name));
    let mut twin = String::new();
    for l in f.source.lines() {
        if l.trim_start().starts_with("#[checkpoint") {
            continue;
        }
        twin.push_str(&l.replacen(&sig, &twin_sig, 1));
        twin.push('\n');
    }
    f.source.push('\n');
    f.source.push_str(&twin);
}

/// The body of `f`'s `vjp` adapter, `body` (statements ending with the value `y`), or for a
/// program with a twin: the twin's `vjp` run on copies of the adjoint buffers, then `f`'s, and
/// a panic (reported by the test as a failure of `f`) unless value and adjoints agree exactly.
pub(super) fn twin_check(f: &FnOut, body: &str) -> String {
    if !has_twin(f) {
        return body.to_string();
    }
    let ind = " ".repeat(16);
    let name = &f.name;
    let twin = twin_name(name);
    let plain = body.replace(&format!("{name}_vjp("), &format!("{twin}_vjp("));
    let indent = |b: &str| -> String { b.lines().map(|l| format!("    {l}\n")).collect() };
    let mut s = String::new();
    s.push_str(&format!(
        "{ind}let (mut gs2, mut gv2) = (gs.to_vec(), gv.to_vec());\n"
    ));
    s.push_str(&format!("{ind}let y2: Vec<f64> = {{\n"));
    s.push_str(&format!(
        "{ind}    let (gs, gv) = (&mut gs2[..], &mut gv2[..]);\n"
    ));
    s.push_str(&indent(&plain));
    s.push_str(&format!("{ind}}};\n{ind}let y: Vec<f64> = {{\n"));
    s.push_str(&indent(body));
    s.push_str(&format!("{ind}}};\n"));
    s.push_str(&format!(
        "{ind}if y != y2 || gs[..] != gs2[..] || gv[..] != gv2[..] {{\n\
         {ind}    panic!(\"{name}_vjp differs from {twin}_vjp (the same loops without \
         #[checkpoint]): value {{y:?}} / {{y2:?}}, scalar adjoints {{gs:?}} / {{gs2:?}}, \
         slice adjoints {{gv:?}} / {{gv2:?}}\");\n{ind}}}\n{ind}y\n"
    ));
    s
}
