//! Patterns of the random-program generator from issue 15, written the way users write them:
//! `map` on arrays (destructured by a slice pattern, or kept as an array), helpers returning
//! `[f64; 2]` destructured by slice patterns, names after `..` in slice patterns (with `let`-`else`
//! on slices and `Vec`s), generic helpers `hc*` computing in `f64` through `into`, `to_f64`,
//! `NumCast::from` and `T::from_f64`, indices computed from active values (`to_usize`), and
//! conversions that are the identity on `f64` (`f64::from`, `to_f64`, `NumCast::from`,
//! `from_f64`, `into`).
//!
//! Same invariants as `mod.rs`: values bounded by construction, one random stream per function.
//! An index computed from an active value is piecewise constant in it: its jumps are as rare at
//! random points as the kinks of `min`/`max`, and the test tries other points when a finite
//! difference straddles one.

use super::*;

/// `use` items the conversions need, put first in the function body (the macro copies body items
/// into the generated functions).
const USE_TO_PRIMITIVE: &str = "use num_traits::ToPrimitive as _;";
const USE_FROM_PRIMITIVE: &str = "use num_traits::FromPrimitive as _;";

impl FnGen<'_> {
    /// Puts the `use` item first in the body, once (expressions are drawn before the line that
    /// holds them, sometimes inside a `match` arm list, where no item may go).
    fn use_item(&mut self, item: &str) {
        if !self.lines.iter().any(|l| l.trim() == item) {
            self.lines.insert(0, format!("    {item}"));
        }
    }

    // ---- expressions ------------------------------------------------------------------------

    /// Expression-level idioms of issue 15.
    pub(super) fn idiom_ops2(&self, ops: &mut Vec<(Op, f64)>) {
        self.struct_ops(ops);
        if self.on(Construct::ConvertIdentity) {
            ops.push((Op::Idiom(Construct::ConvertIdentity), 0.3));
        }
    }

    /// An expression-level idiom (of `idioms.rs` or of this file).
    pub(super) fn expr_idiom(&mut self, c: Construct, d: u32) -> Ex {
        match c {
            Construct::ConvertIdentity => self.convert_identity(d),
            Construct::StructPowiField => self.struct_powi(d),
            _ => self.path_lit(c, d),
        }
    }

    /// `f64::from(e)`, `e.to_f64().unwrap()`, `<f64 as NumCast>::from(e).unwrap()`,
    /// `f64::from_f64(e).unwrap()`: the identity, written as a conversion.
    fn convert_identity(&mut self, d: u32) -> Ex {
        self.count(Construct::ConvertIdentity);
        // Not a literal: `0.5.to_f64()` has no float type to pick a method from.
        let e = self.arg(d, EXPR_CAP);
        let s = match self.rng.gen_range(0..4) {
            0 => format!("f64::from({})", e.s),
            1 => {
                self.use_item(USE_TO_PRIMITIVE);
                format!("{}.to_f64().unwrap()", e.at(ATOM))
            }
            2 => format!("<f64 as num_traits::NumCast>::from({}).unwrap()", e.s),
            _ => {
                self.use_item(USE_FROM_PRIMITIVE);
                format!("f64::from_f64({}).unwrap()", e.s)
            }
        };
        Ex::atom(s, e.b)
    }

    // ---- statements -------------------------------------------------------------------------

    /// Statement-level idioms of issue 15.
    pub(super) fn idiom_stmts2(&mut self, opts: &mut Vec<(St, f64)>) {
        if self.on(Construct::ArrayMap) {
            opts.push((St::Idiom(Construct::ArrayMap), 0.5));
        }
        if self.on(Construct::ArrayCallPattern) && !self.array_callable().is_empty() {
            opts.push((St::Idiom(Construct::ArrayCallPattern), 0.7));
        }
        let seqs = !self.seq_sources().is_empty() || !self.array_sources().is_empty();
        if self.on(Construct::SliceRestPattern) && seqs {
            opts.push((St::Idiom(Construct::SliceRestPattern), 0.5));
        }
        if self.on(Construct::IndexFromActive) {
            opts.push((St::Idiom(Construct::IndexFromActive), 0.3));
        }
        if self.on(Construct::ConvertIdentity) {
            opts.push((St::Idiom(Construct::ConvertIdentity), 0.2));
        }
        if self.can_inout_call() {
            // More often when a struct's `Vec` field can be lent (rare otherwise).
            let w = if self.can_lend_field() { 2.0 } else { 0.8 };
            opts.push((St::Idiom(Construct::InOutCall), w));
        }
        if self.on(Construct::SliceMethods) && self.can_slice_method() {
            opts.push((St::Idiom(Construct::SliceMethods), 0.5));
        }
        if self.on(Construct::IterMut) && self.can_slice_method() {
            opts.push((St::Idiom(Construct::IterMut), 0.5));
        }
        if self.on(Construct::SplitBorrow) && self.can_split_borrow() {
            opts.push((St::Idiom(Construct::SplitBorrow), 0.4));
        }
        if self.guarded_neighbour_ok() {
            opts.push((St::Idiom(Construct::GuardedNeighbour), 0.5));
        }
        if self.double_buffer_ok() {
            opts.push((St::Idiom(Construct::DoubleBuffer), 0.3));
        }
        if self.neighbour_stencil_ok() {
            opts.push((St::Idiom(Construct::NeighbourStencil), 0.3));
        }
        self.nested_stmts(opts);
    }

    /// A statement idiom of this file (already counted by `s_idiom`).
    pub(super) fn s_idiom2(&mut self, c: Construct) {
        match c {
            Construct::ArrayMap => self.s_array_map(),
            Construct::ArrayCallPattern => self.s_array_call_pattern(),
            Construct::SliceRestPattern => self.s_slice_rest_pattern(),
            Construct::IndexFromActive => self.s_index_from_active(),
            Construct::ConvertIdentity => self.s_convert_let(),
            Construct::InOutCall => self.s_inout_call(),
            Construct::SliceMethods => self.s_slice_method(),
            Construct::IterMut => self.s_iter_mut(),
            Construct::SplitBorrow => self.s_split_borrow(),
            Construct::GuardedNeighbour => self.s_guarded_neighbour(),
            Construct::DoubleBuffer => self.s_double_buffer(),
            Construct::NeighbourStencil => self.s_neighbour_stencil(),
            c if self.is_nested_stmt(c) => self.s_nested(c),
            _ => unreachable!("not a statement idiom: {}", c.name()),
        }
    }

    /// Visible arrays (name, bound, length).
    fn array_sources(&self) -> Vec<(String, f64, usize)> {
        self.visible(|v| v.ty == Ty::Vector && self.arrays.contains(&v.name))
            .into_iter()
            .map(|i| {
                let v = &self.vars[i];
                (v.name.clone(), v.bound, v.arr_len.unwrap_or(3))
            })
            .collect()
    }

    /// Marks the variable `name` as read.
    pub(super) fn mark_read(&mut self, name: &str) {
        for v in &mut self.vars {
            if v.name == name {
                v.dirty = false;
            }
        }
    }

    /// A slice pattern for `n` elements: names (some `_`) and, with probability `rest`, one `..`;
    /// at least one name. Returns the pattern's parts, the names, and whether it has a `..`.
    fn slice_pattern(&mut self, n: usize, rest: f64) -> (Vec<String>, Vec<String>, bool) {
        let (front, back) = if self.chance(rest) {
            let front = self.rng.gen_range(0..=n.min(2));
            let most = (n - front).min(2);
            let least = usize::from(front == 0);
            (front, Some(self.rng.gen_range(least..=most.max(least))))
        } else {
            (n, None)
        };
        let mut parts = Vec::new();
        let mut names = Vec::new();
        let total = front + back.unwrap_or(0);
        let blank = (total > 1 && self.chance(0.25)).then(|| self.rng.gen_range(0..total));
        let mut k = 0;
        let mut push = |cx: &mut Self, parts: &mut Vec<String>| {
            if blank == Some(k) {
                parts.push("_".to_string());
            } else {
                let t = cx.fresh("t");
                names.push(t.clone());
                parts.push(t);
            }
            k += 1;
        };
        for _ in 0..front {
            push(self, &mut parts);
        }
        if let Some(back) = back {
            parts.push("..".to_string());
            for _ in 0..back {
                push(self, &mut parts);
            }
        }
        (parts, names, back.is_some())
    }

    /// `let [t1, t2, t3] = q.map(|x| ..);`, `let r = [e1, e2].map(|x: f64| ..);`: `map` on an
    /// array variable or literal, destructured or kept as an array.
    fn s_array_map(&mut self) {
        let srcs = self.array_sources();
        let (src, b, n) = if !srcs.is_empty() && self.chance(0.7) {
            let (name, b, n) = self.pick(&srcs);
            self.mark_read(&name);
            (name, b, n)
        } else {
            let n = self.pick(&[2usize, 3]);
            let mut elems = Vec::new();
            let mut b: f64 = 0.0;
            for _ in 0..n {
                let d = self.rng.gen_range(0..=1);
                let e = self.expr_nc(d);
                b = b.max(e.b);
                elems.push(e.s);
            }
            (format!("[{}]", elems.join(", ")), b, n)
        };
        let t = self.fresh("t");
        self.push_scope();
        let p = self.push_param(&t, b);
        let body = self.closure_body(p);
        self.pop_scope();
        let param = if self.chance(0.5) {
            format!("{t}: f64")
        } else {
            t
        };
        let mapped = format!("{src}.map(|{param}| {})", body.s);
        if self.chance(0.6) {
            let (parts, names, _) = self.slice_pattern(n, 0.5);
            self.line(format!("let [{}] = {mapped};", parts.join(", ")));
            for name in names {
                self.declare(name, Ty::Float, false, body.b, 0.0);
            }
        } else {
            let r = self.fresh("r");
            self.line(format!("let {r} = {mapped};"));
            self.declare(r.clone(), Ty::Vector, false, body.b, 0.0);
            let last = self.vars.last_mut().expect("just declared");
            last.arr_len = Some(n);
            last.dirty = true;
            self.arrays.push(r);
        }
    }

    /// Helpers returning `[f64; 2]` or `([f64; 2], f64)` this function may call now.
    fn array_callable(&self) -> Vec<usize> {
        let mut hs = self.callable_returning(OutKind::Array);
        hs.extend(self.callable_returning(OutKind::TupleArray));
        hs
    }

    /// `let [t1, t2] = ha0(..);`, `let [t1, .., t2]: [f64; 2] = ha1(..);`: a call returning an
    /// array, destructured (with `..`, the annotation gives the length).
    fn s_array_call_pattern(&mut self) {
        let hs = self.array_callable();
        let h = self.pick(&hs);
        let d = self.rng.gen_range(0..=2);
        let call = self.call_of(h, d, None, None);
        if self.helpers[h].out == OutKind::TupleArray {
            // `let (w, c): ([f64; 2], f64) = ha(..);`, either part possibly `_`.
            let (w, c) = (self.fresh("w"), self.fresh("t"));
            let (pw, pc) = match self.rng.gen_range(0..4) {
                0 => ("_".to_string(), c.clone()),
                1 => (w.clone(), "_".to_string()),
                _ => (w.clone(), c.clone()),
            };
            self.line(format!("let ({pw}, {pc}): ([f64; 2], f64) = {};", call.s));
            if pc != "_" {
                self.declare(c, Ty::Float, false, call.b, 0.0);
            }
            if pw != "_" {
                self.declare(w.clone(), Ty::Vector, false, call.b, 0.0);
                let last = self.vars.last_mut().expect("just declared");
                last.arr_len = Some(2);
                last.dirty = true;
                self.arrays.push(w);
            }
            return;
        }
        let (parts, names, rest) = self.slice_pattern(2, 0.5);
        let annot = if rest || self.chance(0.2) {
            ": [f64; 2]"
        } else {
            ""
        };
        self.line(format!("let [{}]{annot} = {};", parts.join(", "), call.s));
        for name in names {
            self.declare(name, Ty::Float, false, call.b, 0.0);
        }
    }

    /// `let [t1, .., t2] = v[..] else { .. };` on a slice or `Vec` (at least `N_MIN` long, so the
    /// `else` never runs), `let [t1, .., t2] = *v else { .. };` on a slice, `let [t1, .., t2] = q;`
    /// on an array.
    fn s_slice_rest_pattern(&mut self) {
        let arrays = self.array_sources();
        let seqs = self.seq_sources();
        if !arrays.is_empty() && (seqs.is_empty() || self.chance(0.4)) {
            let (name, b, n) = self.pick(&arrays);
            self.mark_read(&name);
            let (parts, names, _) = self.slice_pattern(n, 0.8);
            self.line(format!("let [{}] = {name};", parts.join(", ")));
            for t in names {
                self.declare(t, Ty::Float, false, b, 0.0);
            }
            return;
        }
        let (src, b) = self.pick(&seqs);
        self.mark_read(&src);
        // Always with `..`: the sequences are `N_MIN` to `N_MAX` long.
        let (parts, names, _) = self.slice_pattern(N_MIN, 1.0);
        let place = if self.slices.contains(&src.as_str()) && self.chance(0.4) {
            format!("*{src}")
        } else {
            format!("{src}[..]")
        };
        let in_continue_loop = self.loops.last() == Some(&LoopKind::ContinueOk);
        let els = if in_continue_loop && self.on(Construct::Continue) && self.chance(0.5) {
            self.count(Construct::Continue);
            "continue;".to_string()
        } else if self.on(Construct::EarlyReturn) && !self.no_early_return && self.chance(0.5) {
            self.count(Construct::EarlyReturn);
            let (v, _) = self.ret_value(false);
            self.ret_stmt(&v)
        } else {
            "panic!(\"too short\");".to_string()
        };
        self.line(format!(
            "let [{}] = {place} else {{ {els} }};",
            parts.join(", ")
        ));
        for t in names {
            self.declare(t, Ty::Float, false, b, 0.0);
        }
    }

    /// `let i = (e.abs() * 1.5).floor().to_usize().unwrap().min(3);` (or through `as usize`,
    /// `NumCast::from`): an index computed from an active value.
    fn s_index_from_active(&mut self) {
        let d = self.rng.gen_range(0..=2);
        let e = self.arg(d, 4.0);
        let c = self.pick(&[1.5, 0.75, 2.5]);
        let top = N_MIN - 1;
        let i = self.fresh("i");
        let x = format!("({}.abs() * {})", e.at(ATOM), lit(c));
        match self.rng.gen_range(0..3) {
            0 => {
                self.use_item(USE_TO_PRIMITIVE);
                self.line(format!(
                    "let {i} = {x}.floor().to_usize().unwrap().min({top});"
                ));
            }
            1 => self.line(format!("let {i} = ({x} as usize).min({top});")),
            _ => self.line(format!(
                "let {i}: usize = <usize as num_traits::NumCast>::from({x}.floor()).unwrap().min({top});"
            )),
        }
        self.declare_index(&i, 0);
    }

    /// `let t: f64 = e.into();` or `let t: f64 = NumCast::from(e).unwrap();`: the identity, its
    /// type given by the annotation.
    fn s_convert_let(&mut self) {
        let d = self.rng.gen_range(0..=2);
        let e = self.arg(d, EXPR_CAP);
        let t = self.fresh("t");
        if self.chance(0.6) {
            self.line(format!("let {t}: f64 = {}.into();", e.at(ATOM)));
        } else {
            self.line(format!(
                "let {t}: f64 = num_traits::NumCast::from({}).unwrap();",
                e.s
            ));
        }
        self.declare(t, Ty::Float, false, e.b, 0.0);
    }

    // ---- helpers ------------------------------------------------------------------------------

    /// `ha{k}(p, [q, r,] [u: &[f64]]) -> [f64; 2]`: a helper returning an array.
    pub(super) fn array_helper(mut self, k: usize) -> FnOut {
        let names = ["p", "q", "r"];
        let scalars = self.rng.gen_range(1..=3);
        let mut params: Vec<Param> = names[..scalars]
            .iter()
            .map(|n| Param::Scalar(n.to_string()))
            .collect();
        if self.on(Construct::HelperSliceArg) && self.chance(0.3) {
            params.push(Param::Slice("u".into()));
            self.count(Construct::HelperSliceArg);
            self.slices.push("u");
            self.lens.push("u.len()");
            self.slice_bound = HELPER_SLICE_BOUND;
        }
        self.shuffle_params(&mut params);
        for n in &names[..scalars] {
            self.push_input(n, HELPER_ARG_BOUND);
        }
        self.budget = self.rng.gen_range(1..=5);
        let out = if self.on(Construct::TupleArrayOut) && self.chance(0.4) {
            self.count(Construct::TupleArrayOut);
            OutKind::TupleArray
        } else {
            OutKind::Array
        };
        self.finish(format!("ha{k}"), 600 + k as u64, params, out)
    }

    /// `hc{k}<T: Float + Into<f64> + FromPrimitive>(p: T, [r: T,] [w: &[T]]) -> T`: converts its
    /// arguments to `f64` (`into`, `to_f64`, `NumCast::from`; an element of `w` at an index
    /// computed from `p`), computes in `f64` with random statements, and converts back
    /// (`T::from_f64`, `T::from`).
    pub(super) fn convert_helper(mut self, k: usize) -> FnOut {
        self.count(Construct::GenericConvert);
        let mut params = vec![Param::Scalar("p".into())];
        if self.chance(0.5) {
            params.push(Param::Scalar("r".into()));
        }
        let slice = self.on(Construct::HelperSliceArg) && self.chance(0.5);
        if slice {
            self.count(Construct::HelperSliceArg);
            params.push(Param::Slice("w".into()));
        }
        self.shuffle_params(&mut params);
        for (j, p) in params.clone().iter().enumerate() {
            let local = ["x", "y", "z"][j];
            match p {
                Param::Scalar(n) => {
                    let conv = self.pick(&[
                        format!("let {local}: f64 = {n}.into();"),
                        format!("let {local} = {n}.to_f64().unwrap();"),
                        format!("let {local}: f64 = num_traits::NumCast::from({n}).unwrap();"),
                    ]);
                    self.line(conv);
                    self.push_input(local, HELPER_ARG_BOUND);
                }
                _ => {
                    let at = if self.on(Construct::IndexFromActive) && self.chance(0.6) {
                        self.count(Construct::IndexFromActive);
                        let top = N_MIN - 1;
                        self.line(format!(
                            "let i = (p.abs() * T::from(1.5).unwrap()).floor().to_usize().unwrap().min({top});"
                        ));
                        "i".to_string()
                    } else {
                        self.rng.gen_range(0..N_MIN).to_string()
                    };
                    self.line(format!("let {local}: f64 = w[{at}].into();"));
                    self.push_input(local, HELPER_SLICE_BOUND);
                }
            }
        }
        self.no_early_return = true;
        self.budget = self.rng.gen_range(1..=4);
        while self.budget > 0 {
            self.stmt();
        }
        let (v, b) = self.ret_value(true);
        let (back, bound) = if self.chance(0.5) {
            (format!("T::from_f64({v}).unwrap()"), b)
        } else {
            (format!("T::from({v}).unwrap() * p"), b * HELPER_ARG_BOUND)
        };
        self.line(back);
        let sig: Vec<String> = params
            .iter()
            .map(|p| match p {
                Param::Scalar(n) => format!("{n}: T"),
                Param::Slice(n) => format!("{n}: &[T]"),
                _ => unreachable!("conversion helpers take floats and one slice"),
            })
            .collect();
        let name = format!("hc{k}");
        let mut source = String::new();
        if !self.cfg.primal_only {
            source.push_str("#[differentiate]\n");
        }
        source.push_str(&format!(
            "fn {name}<T: num_traits::Float + Into<f64> + num_traits::FromPrimitive>({}) -> T {{\n",
            sig.join(", ")
        ));
        for l in &self.lines {
            source.push_str(l);
            source.push('\n');
        }
        source.push_str("}\n");
        FnOut {
            name,
            index: 700 + k as u64,
            params,
            out: OutKind::F64,
            source,
            calls: self.calls,
            counts: self.counts,
            ret_bound: bound,
            generic: true,
            wrt_no_slice: false,
            fixed: Vec::new(),
        }
    }
}
