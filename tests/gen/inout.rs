//! In-out arguments (issue 9): a program may take `io: &mut [f64]` (of the common length; the
//! test passes the slice's values as its initial contents) or `ia: &mut [f64; 3]` (three scalar
//! slots), read and write its elements anywhere in the body like a local vector, pass it to
//! helpers (`h(io)`, `h(&io)`, `h(&*io)`), and return `()`: then the value the other output
//! kinds return is written into its first element. Its final contents are outputs of the test.
//! A program may also take a workspace `wk: &mut [f64; 3]` left out of `wrt(...)`, written and
//! read with active values like a local array.

use super::*;

impl FnGen<'_> {
    /// Adds an in-out parameter to a program's parameters (at most one).
    pub(super) fn inout_param(&mut self, params: &mut Vec<Param>) {
        if self.on(Construct::InOutSlice) && !self.slices.is_empty() && self.chance(0.2) {
            self.count(Construct::InOutSlice);
            params.push(Param::InOut("io".into()));
            self.inout = Some("io");
        } else if self.on(Construct::InOutArray) && self.chance(0.12) {
            self.count(Construct::InOutArray);
            params.push(Param::InOutArray("ia".into()));
            self.inout = Some("ia");
        }
        if self.on(Construct::InOutScalar) && self.chance(0.12) {
            self.count(Construct::InOutScalar);
            params.push(Param::InOutScalar("is".into()));
            self.inout_scalar = true;
        }
        if self.on(Construct::Workspace) && self.chance(0.1) {
            self.count(Construct::Workspace);
            params.push(Param::Workspace("wk".into()));
            self.workspace = true;
        }
    }

    /// Declares the in-out parameter and the workspace as writable vectors: their initial
    /// contents lie in [-1, 1].
    pub(super) fn inout_input(&mut self, params: &[Param]) {
        if self.workspace {
            let base: f64 = self.pick(&[1.0, 2.0, 4.0]);
            let room: f64 = self.pick(&[2.0, 8.0, 16.0]);
            self.declare("wk".to_string(), Ty::Vector, true, base, room);
            if let Some(v) = self.vars.last_mut() {
                v.arr_len = Some(3);
            }
        }
        if self.inout_scalar {
            // Read and written through the reference: `(*is)` is an ordinary place in Rust.
            let base: f64 = self.pick(&[1.0, 2.0, 4.0]);
            let room: f64 = self.pick(&[2.0, 8.0]);
            self.declare("(*is)".to_string(), Ty::Float, true, base, room);
        }
        let Some(name) = self.inout else { return };
        let base: f64 = self.pick(&[1.0, 2.0, 4.0]);
        let room: f64 = self.pick(&[2.0, 8.0, 16.0, 40.0]);
        self.declare(name.to_string(), Ty::Vector, true, base, room);
        if params.iter().any(|p| matches!(p, Param::InOutArray(_))) {
            if let Some(v) = self.vars.last_mut() {
                v.arr_len = Some(3);
            }
        }
    }

    /// `()` instead of `out`, sometimes, when the program has an in-out parameter.
    pub(super) fn maybe_unit(&mut self, out: OutKind) -> OutKind {
        let place = self.inout.is_some() || self.unit_place.is_some();
        if place && self.on(Construct::UnitOut) && self.chance(0.4) {
            self.count(Construct::UnitOut);
            if self.inout.is_none() {
                self.count(Construct::StructUnitOut);
            }
            OutKind::Unit
        } else {
            out
        }
    }

    /// Whether `name` is a `&mut` parameter (`&name` would be `&&mut [f64]`).
    pub(super) fn is_mut_ref(&self, name: &str) -> bool {
        self.inout == Some(name)
            || (self.workspace && name == "wk")
            || self.row_refs.iter().any(|r| r == name)
    }

    /// The statement that returns `v` (a value from `ret_value`) early.
    pub(super) fn ret_stmt(&self, v: &str) -> String {
        match self.out {
            OutKind::Unit => format!("{v} return;"),
            _ => format!("return {v};"),
        }
    }
}

/// What the adapters of a program with an in-out parameter add around the call: initial
/// contents, the tangent and adjoint buffers, and where the final contents go.
pub(super) struct InOutAdapter {
    /// The argument expressions (`&mut io`) for the call, the tangent and the adjoint.
    pub arg: String,
    pub tangent: String,
    pub adjoint: String,
    /// Declarations before the primal call (initial contents).
    pub init: String,
    /// ... before the jvp call (tangent of the initial contents).
    pub init_tangent: String,
    /// ... before the vjp call (the seed of the final contents, from `c`).
    pub init_adjoint: String,
    /// After the vjp call: the initial contents' adjoint added to the scalar or slice buffers.
    pub add_adjoint: String,
    /// After the calls: the final contents appended to the outputs `y`, their tangent to `t`.
    pub extend: String,
    pub extend_t: String,
    /// Scalar slots of `s` its initial contents take, and outputs of fixed number it adds (the
    /// slice's `n` outputs come after all others).
    pub slots: usize,
    pub fixed: usize,
    pub slice: bool,
}

impl InOutAdapter {
    /// For parameter `p` at scalar slot `k`, its final contents at `c[at..]`.
    pub(super) fn new(p: &Param, k: usize, at: usize) -> Option<InOutAdapter> {
        let ind = "                ";
        let ext = |y: &str, n: &str| format!("{ind}{y}.extend_from_slice(&{n}[..]);\n");
        match p {
            Param::InOut(n) => Some(InOutAdapter {
                arg: format!("&mut {n}"),
                tangent: format!("&mut t{n}"),
                adjoint: format!("&mut b{n}"),
                init: format!("{ind}let mut {n} = v.to_vec();\n"),
                init_tangent: format!("{ind}let mut t{n} = tv.to_vec();\n"),
                init_adjoint: format!("{ind}let mut b{n} = c[{at}..].to_vec();\n"),
                add_adjoint: format!(
                    "{ind}for (g, b) in gv.iter_mut().zip(&b{n}) {{\n{ind}    *g += b;\n{ind}}}\n"
                ),
                extend: ext("y", n),
                extend_t: ext("t", &format!("t{n}")),
                slots: 0,
                fixed: 0,
                slice: true,
            }),
            Param::InOutArray(n) | Param::InOutRow(n, _) => {
                let m = match p {
                    Param::InOutRow(_, c) => *c,
                    _ => 3,
                };
                let slots = |x: &str, o: usize| {
                    let items: Vec<String> = (o..o + m).map(|j| format!("{x}[{j}]")).collect();
                    format!("[{}]", items.join(", "))
                };
                Some(InOutAdapter {
                    arg: format!("&mut {n}"),
                    tangent: format!("&mut t{n}"),
                    adjoint: format!("&mut b{n}"),
                    init: format!("{ind}let mut {n} = {};\n", slots("s", k)),
                    init_tangent: format!("{ind}let mut t{n} = {};\n", slots("ts", k)),
                    init_adjoint: format!("{ind}let mut b{n} = {};\n", slots("c", at)),
                    add_adjoint: format!(
                        "{ind}for j in 0..{m} {{\n{ind}    gs[{k} + j] += b{n}[j];\n{ind}}}\n"
                    ),
                    extend: ext("y", n),
                    extend_t: ext("t", &format!("t{n}")),
                    slots: m,
                    fixed: m,
                    slice: false,
                })
            }
            Param::Struct(l) if l.kind.mutable() => Some(structs::inout_adapter(l, k, at)),
            Param::InOutScalar(n) => Some(InOutAdapter {
                arg: format!("&mut {n}"),
                tangent: format!("&mut t{n}"),
                adjoint: format!("&mut b{n}"),
                init: format!("{ind}let mut {n} = s[{k}];\n"),
                init_tangent: format!("{ind}let mut t{n} = ts[{k}];\n"),
                init_adjoint: format!("{ind}let mut b{n} = c[{at}];\n"),
                add_adjoint: format!("{ind}gs[{k}] += b{n};\n"),
                extend: format!("{ind}y.push({n});\n"),
                extend_t: format!("{ind}t.push(t{n});\n"),
                slots: 1,
                fixed: 1,
                slice: false,
            }),
            _ => None,
        }
    }
}

/// Number of helpers `hm0`, ... writing through `&mut` (emitted when `inout_call` is on).
pub const INOUT_HELPERS: usize = 3;

impl FnGen<'_> {
    /// `hm{k}(p: f64, [q: f64,] u: &[f64], io: &mut [f64]) [-> f64]`: random statements that read
    /// and write `io` (of `u`'s length), then every element of `io` squashed into [-1, 1] by
    /// `tanh`, so that a caller's vector keeps its bound (no early `return` skips that).
    pub(super) fn inout_helper(mut self, k: usize) -> FnOut {
        self.count(Construct::InOutCall);
        let mut params = vec![Param::Scalar("p".into())];
        if self.chance(0.5) {
            params.push(Param::Scalar("q".into()));
        }
        let scalars = params.len();
        params.push(Param::Slice("u".into()));
        params.push(Param::InOut("io".into()));
        // The last in-out helper takes `is` when no other one does, so that every seed has it.
        let last = k + 1 == INOUT_HELPERS
            && !self
                .helpers
                .iter()
                .any(|h| h.counts[Construct::InOutFloatArg as usize] > 0);
        if self.on(Construct::InOutFloatArg) && (self.chance(0.5) || last) {
            // `is: &mut f64` as well: callers pass `&mut t` of a float local, or their own.
            self.count(Construct::InOutFloatArg);
            params.push(Param::InOutScalar("is".into()));
            self.inout_scalar = true;
            self.declare("(*is)".to_string(), Ty::Float, true, HELPER_ARG_BOUND, 8.0);
        }
        self.slices.push("u");
        self.lens.push("u.len()");
        self.slice_bound = HELPER_SLICE_BOUND;
        self.shuffle_params(&mut params);
        for n in &["p", "q"][..scalars] {
            self.push_input(n, HELPER_ARG_BOUND);
        }
        self.inout = Some("io");
        self.squash_inout = true;
        self.no_early_return = true;
        // What callers pass in is bounded by `HELPER_SLICE_BOUND`.
        self.declare("io".to_string(), Ty::Vector, true, HELPER_SLICE_BOUND, 8.0);
        let out = if self.on(Construct::UnitOut) && self.chance(0.4) {
            self.count(Construct::UnitOut);
            OutKind::Unit
        } else {
            OutKind::F64
        };
        self.budget = self.rng.gen_range(1..=5);
        self.finish(format!("hm{k}"), 800 + k as u64, params, out)
    }

    /// The last loop of an in-out helper: `io[j] = (c * io[j]).tanh();` for every element.
    pub(super) fn squash_epilogue(&mut self) {
        if !self.squash_inout {
            return;
        }
        // `io`, or the row `r` of a row helper.
        let io = self.inout.unwrap_or("io");
        let Some(i) = self.visible(|v| v.name == io).last().copied() else {
            return;
        };
        let e = Ex::atom(format!("{io}[j]"), self.vars[i].bound);
        let e = self.scale(e, ARG_CAP);
        self.line(format!("for j in 0..{io}.len() {{"));
        self.line(format!("    {io}[j] = ({}).tanh();", e.s));
        self.line("}");
        if let Some(i) = self.visible(|v| v.name == "(*is)").last().copied() {
            let e = Ex::atom("(*is)".to_string(), self.vars[i].bound);
            let e = self.scale(e, ARG_CAP);
            self.line(format!("*is = ({}).tanh();", e.s));
        }
    }

    /// Helpers that write through `&mut` this function may call now.
    fn inout_callable(&self) -> Vec<usize> {
        if !self.on(Construct::HelperCall) || !self.on(Construct::InOutCall) || self.is_helper {
            return Vec::new();
        }
        (0..self.helpers.len())
            .filter(|&h| self.helpers[h].takes_inout())
            .collect()
    }

    /// Vectors of the common length a call may write into (not being iterated over or written).
    fn inout_targets(&self) -> Vec<usize> {
        self.writable_vecs()
            .into_iter()
            .filter(|&i| {
                let v = &self.vars[i];
                v.arr_len.is_none()
                    && v.bound <= HELPER_SLICE_BOUND
                    && v.base >= 1.0
                    && self.write_target.as_deref() != Some(v.name.as_str())
                    && (!Self::is_field(&v.name) || self.on(Construct::StructFieldLend))
            })
            .collect()
    }

    /// Whether a struct's field is among the vectors `hm(.., &mut w);` may write into.
    pub(super) fn can_lend_field(&self) -> bool {
        self.inout_targets()
            .into_iter()
            .any(|i| Self::is_field(&self.vars[i].name))
    }

    /// Whether the statement `hm(.., &mut w);` can be emitted here.
    pub(super) fn can_inout_call(&self) -> bool {
        !self.slices.is_empty()
            && !self.inout_callable().is_empty()
            && !self.inout_targets().is_empty()
    }

    /// `hm(.., &mut w);` or `let t = hm(.., &mut w);` with `w` a local vector or the in-out
    /// argument (passed on bare, as `&mut *io` or `&mut io`): afterwards every element of `w`
    /// lies in [-1, 1], within its bound.
    pub(super) fn s_inout_call(&mut self) {
        let h = self.pick(&self.inout_callable());
        let targets = self.inout_targets();
        let fields: Vec<usize> = targets
            .iter()
            .copied()
            .filter(|&i| Self::is_field(&self.vars[i].name))
            .collect();
        let w = if !fields.is_empty() && self.chance(0.5) {
            self.pick(&fields)
        } else {
            self.pick(&targets)
        };
        let wname = self.vars[w].name.clone();
        if Self::is_field(&wname) {
            self.count(Construct::StructFieldLend);
        }
        self.calls.insert(h);
        self.count(Construct::HelperCall);
        let helpers = self.helpers;
        let mut args = Vec::new();
        for p in &helpers[h].params {
            match p {
                Param::Scalar(_) => {
                    // Bound first: an argument reading `w` cannot sit next to `&mut w`.
                    let d = self.rng.gen_range(0..=2);
                    let e = self.expr(d);
                    let e = self.scale(e, HELPER_ARG_BOUND);
                    let t = self.bind_temp(&e);
                    args.push(t);
                }
                Param::Slice(_) => {
                    // Anything but `w` itself (it is borrowed mutably by the same call).
                    let opts: Vec<String> = self
                        .slice_args()
                        .into_iter()
                        .filter(|a| {
                            let n = a.trim_start_matches('&').trim_start_matches('*');
                            n.split('[').next() != Some(wname.as_str())
                        })
                        .collect();
                    let a = match opts.is_empty() {
                        true => self.slices[0].to_string(),
                        false => self.pick(&opts),
                    };
                    self.count(Construct::HelperSliceArg);
                    args.push(a);
                }
                Param::InOutScalar(_) => {
                    // The caller's own `&mut f64` (bare or re-borrowed), a mutable float local,
                    // or a fresh one; afterwards it lies in [-1, 1].
                    let mut forms = Vec::new();
                    if self.inout_scalar && !self.is_helper {
                        forms.push("is".to_string());
                        forms.push("&mut *is".to_string());
                    }
                    for i in
                        self.visible(|v| v.ty == Ty::Float && v.mutable && !v.name.starts_with('('))
                    {
                        let v = &self.vars[i];
                        let lend = !Self::is_field(&v.name) || self.on(Construct::StructFieldLend);
                        if v.bound <= HELPER_ARG_BOUND && v.base >= 1.0 && lend {
                            forms.push(format!("&mut {}", v.name));
                        }
                    }
                    let a = if forms.is_empty() || self.chance(0.3) {
                        let d = self.rng.gen_range(0..=1);
                        let e = self.expr(d);
                        let e = self.scale(e, HELPER_ARG_BOUND);
                        let t = self.fresh("t");
                        // Typed: the local may be read by a method before the call fixes
                        // its type (E0689 for a constant, seed 20005).
                        self.line(format!("let mut {t}: f64 = {};", e.s));
                        self.declare(t.clone(), Ty::Float, true, HELPER_ARG_BOUND, 0.0);
                        format!("&mut {t}")
                    } else {
                        self.pick(&forms)
                    };
                    let name = match a.as_str() {
                        "is" | "&mut *is" => "(*is)".to_string(),
                        a => a.trim_start_matches("&mut ").to_string(),
                    };
                    if Self::is_field(&name) {
                        self.count(Construct::StructFieldLend);
                    }
                    if let Some(v) = self.vars.iter_mut().rev().find(|v| v.name == name) {
                        v.dirty = true;
                    }
                    args.push(a);
                }
                Param::InOut(_) => {
                    let a = if self.on(Construct::InOutSubSlice) && self.chance(0.3) {
                        // A sub-slice of the whole length (helpers index by the common length).
                        self.count(Construct::InOutSubSlice);
                        let len = self.lens[0];
                        let forms = [
                            format!("&mut {wname}[..]"),
                            format!("&mut {wname}[..{len}]"),
                            format!("&mut {wname}[0..{len}]"),
                            format!("&mut {wname}[0..={len} - 1]"),
                            format!("&mut {wname}[..][..{len}]"),
                        ];
                        self.pick(&forms)
                    } else if self.inout == Some(wname.as_str()) {
                        let mut forms = vec![format!("&mut *{wname}")];
                        if self.on(Construct::InOutBareArg) {
                            forms.push(wname.clone());
                        }
                        let a = self.pick(&forms);
                        if a == wname {
                            self.count(Construct::InOutBareArg);
                        }
                        a
                    } else {
                        format!("&mut {wname}")
                    };
                    args.push(a);
                }
                _ => unreachable!("in-out helpers take scalars and slices"),
            }
        }
        let call = format!("{}({})", helpers[h].name, args.join(", "));
        if helpers[h].out == OutKind::F64 && self.chance(0.6) {
            let t = self.fresh("t");
            self.line(format!("let {t} = {call};"));
            let b = helpers[h].ret_bound;
            self.declare(t, Ty::Float, false, b, 0.0);
        } else {
            self.line(format!("{call};"));
        }
        self.vars[w].dirty = true;
    }
}

impl FnGen<'_> {
    /// Whether `w.swap(..)`, `w.fill(..)` or `w.copy_from_slice(..)` can be emitted here.
    pub(super) fn can_slice_method(&self) -> bool {
        !self.slice_method_targets().is_empty()
    }

    fn slice_method_targets(&self) -> Vec<usize> {
        self.writable_vecs()
            .into_iter()
            .filter(|&i| self.write_target.as_deref() != Some(self.vars[i].name.as_str()))
            .collect()
    }

    /// `w.swap(i, j);`, `w.fill(e);`, `w.copy_from_slice(src);` or
    /// `w[..2].copy_from_slice(&src[1..3]);` on a writable vector: every value written stays
    /// within `w`'s base.
    pub(super) fn s_slice_method(&mut self) {
        let w = self.pick(&self.slice_method_targets());
        let name = self.vars[w].name.clone();
        let base = self.vars[w].base;
        let common = self.vars[w].arr_len.is_none();
        // Sources of the same length as `w` whose elements fit under its base.
        let sources: Vec<String> = if common {
            self.seq_sources()
                .into_iter()
                .filter(|(s, b)| *s != name && *b <= base)
                .map(|(s, _)| s)
                .collect()
        } else {
            Vec::new()
        };
        let r: f64 = self.rng.gen();
        if r < 0.35 {
            let i = self.index_into(w);
            let j = self.index_into(w);
            self.line(format!("{name}.swap({i}, {j});"));
        } else if r < 0.65 || sources.is_empty() {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr(d);
            let e = self.squash(e, base);
            // Bound first: `w.fill(w[0])` borrows `w` twice.
            let t = self.bind_temp(&e);
            if common && self.chance(0.3) {
                self.line(format!("{name}[2..].fill({t});"));
            } else {
                self.line(format!("{name}.fill({t});"));
            }
        } else {
            let src = self.pick(&sources);
            let src_ref = if self.is_mut_ref(&src) {
                format!("&*{src}")
            } else {
                format!("&{src}")
            };
            if self.chance(0.3) {
                self.line(format!("{name}[..2].copy_from_slice(&{src}[1..3]);"));
            } else {
                self.line(format!("{name}.copy_from_slice({src_ref});"));
            }
            self.mark_read(&src);
        }
        self.vars[w].dirty = true;
    }
}

impl FnGen<'_> {
    /// `for y in w.iter_mut() { *y = (c * *y + t).sin(); }`, or zipped with a sequence of the same
    /// length, on a writable vector (the body reads nothing else of `w`: it is borrowed).
    pub(super) fn s_iter_mut(&mut self) {
        let w = self.pick(&self.slice_method_targets());
        let name = self.vars[w].name.clone();
        let bound = self.vars[w].bound;
        let t = self.unit_temp();
        let me = Ex::atom("*y".to_string(), bound);
        let me = self.scale(me, 1.0);
        let src = if self.vars[w].arr_len.is_none() {
            let srcs: Vec<String> = self
                .seq_sources()
                .into_iter()
                .filter(|(s, b)| *s != name && *b <= EXPR_CAP)
                .map(|(s, _)| s)
                .collect();
            (!srcs.is_empty() && self.chance(0.4)).then(|| self.pick(&srcs))
        } else {
            None
        };
        let it = if self.is_mut_ref(&name) || src.is_some() || self.chance(0.5) {
            format!("{name}.iter_mut()")
        } else {
            format!("&mut {name}")
        };
        let f = self.pick(&["sin", "tanh"]);
        match src {
            Some(s) => {
                let s_it = format!("{s}.iter()");
                self.line(format!("for (y, &x) in {it}.zip({s_it}) {{"));
                self.line(format!("    *y = ({} + 0.05 * x + {t}).{f}();", me.s));
                self.mark_read(&s);
            }
            None => {
                self.line(format!("for y in {it} {{"));
                self.line(format!("    *y = ({} + {t}).{f}();", me.s));
            }
        }
        self.line("}");
        self.vars[w].dirty = true;
    }
}

impl FnGen<'_> {
    /// Whether a split borrow of a writable vector of the common length can be emitted here.
    pub(super) fn can_split_borrow(&self) -> bool {
        self.slice_method_targets()
            .into_iter()
            .any(|i| self.vars[i].arr_len.is_none())
    }

    /// `{ let (lo, hi) = w.split_at_mut(2); .. }` or `for c in w.chunks_mut(k) { .. }` on a
    /// writable vector of the common length: elements written through the halves and chunks (the
    /// body reads nothing else of `w`: it is borrowed); every value written stays within 1.
    pub(super) fn s_split_borrow(&mut self) {
        let ws: Vec<usize> = self
            .slice_method_targets()
            .into_iter()
            .filter(|&i| self.vars[i].arr_len.is_none())
            .collect();
        let w = self.pick(&ws);
        let name = self.vars[w].name.clone();
        let bound = self.vars[w].bound;
        let t = self.unit_temp();
        // A factor bringing an element under 1 (a product of two under 1 as well).
        let k = SCALES
            .iter()
            .copied()
            .find(|c| c * bound <= 1.0)
            .unwrap_or(SCALES[SCALES.len() - 1]);
        let k = lit(k.min(1.0));
        let split = format!("{name}.split_at_mut(2)");
        let recv = name.clone();
        if self.chance(0.5) {
            self.line("{");
            self.line(format!("    let (lo, hi) = {split};"));
            self.line(format!(
                "    lo[1] = ({k} * lo[1] + {k} * hi[0] + {t}).sin();"
            ));
            self.line(format!("    hi[1] = ({k} * hi[1] * ({k} * lo[0])).tanh();"));
            self.line("    lo.swap(0, 1);");
            if self.on(Construct::SplitPartCall) && self.chance(0.6) {
                // Parts lent to a differentiated function that writes through them.
                self.count(Construct::SplitPartCall);
                let forms = ["lo", "&mut *lo", "hi", "&mut hi[1..]", "&mut hi[..]"];
                let part = self.pick(&forms);
                self.line(format!("    split_rot({part}, {t});"));
            }
            self.line("}");
        } else {
            let size = self.pick(&[2usize, 3]);
            let method = self.pick(&["chunks_mut", "chunks_exact_mut"]);
            self.line(format!("for ch in {recv}.{method}({size}) {{"));
            self.line("    let m = ch.len() - 1;");
            self.line("    ch.swap(0, m);");
            self.line(format!(
                "    ch[0] = ({k} * ch[0] * ({k} * ch[m]) + {t}).tanh();"
            ));
            if self.on(Construct::SplitPartCall) && self.chance(0.6) {
                self.count(Construct::SplitPartCall);
                let part = self.pick(&["ch", "&mut ch[..]", "&mut *ch"]);
                self.line(format!("    split_rot({part}, {t});"));
            }
            self.line("}");
        }
        self.vars[w].dirty = true;
    }
}

impl FnGen<'_> {
    /// `let t = e;` for a fresh float `t`, typed when `e` is made of literals only (else
    /// `t.cosh()` would not compile); gives `t`.
    pub(super) fn bind_temp(&mut self, e: &Ex) -> String {
        let t = self.fresh("t");
        if e.konst {
            self.line(format!("let {t}: f64 = {};", e.s));
        } else {
            self.line(format!("let {t} = {};", e.s));
        }
        self.declare(t.clone(), Ty::Float, false, e.b, 0.0);
        t
    }

    /// A fresh float bound to a small random expression within 1 (read inside a loop that
    /// borrows a vector, where the expression could not read it).
    pub(super) fn unit_temp(&mut self) -> String {
        let d = self.rng.gen_range(0..=1);
        let e = self.expr_nc(d);
        let e = self.scale(e, 1.0);
        self.bind_temp(&e)
    }
}
