//! Struct arguments: a program may take a `#[derive(Differentiable)]` struct of its own type
//! `Sddd` (float fields `k` and `g`, a `w: Vec<f64>` of the common length, a `q: [f64; 3]`, an
//! integer `m: usize` that bounds loops, an integer `e: i32` that is a `powi` exponent, a nested
//! `sub: SdddIn { x, y }`), by `&` (`st: &Sddd`), by value (`st: Sddd`), by `&mut` (its float
//! fields and sequence elements written), or be a method of it (`&self`, `&mut self`) in an
//! `impl` block.
//!
//! The fields are variables of the generator named by their place (`st.k`, `self.sub.x`,
//! `st.w`, `st.q`): floats and vectors of the usual kinds, read-only unless the struct is taken
//! by `&mut`; their values lie in [-1, 1] on entry, like the other inputs. The test's adapters
//! build the struct from its scalar slots (the float fields, the array, the nested floats, in
//! that order) and the slice (the `Vec` field takes the slice's values), its tangent likewise,
//! and add the adjoint struct back into the scalar and slice adjoints. A struct taken by `&mut`
//! is in-out: its final float contents are outputs after the other fixed ones, its `Vec` field's
//! final contents are the `n` outputs of the slice (so the program takes no `io` then), and its
//! adjoint buffer holds their seeds on entry and the initial contents' adjoints on exit.
//! A struct read only may also be copied into a struct local with some fields replaced
//! (`let lc3 = S017 { k: e, ..*st };`, `..st.clone()`) and taken apart by a pattern
//! (`let S017 { g: pk4, .. } = *st;`), whose fields and names are then read like the argument's. Such a program may give
//! a struct `S017Out { a, b, n }` built by a literal at the end of its body instead of its pair
//! of floats (`n` carried from the integer field `m`, checked by the test's `Out` view), also by
//! an `if`/`else` of two literals or an early `return` of one. A struct read only may be passed
//! whole to helpers defined with its type (`s017_by_ref(st, x)`, `s017_by_value(st.clone(), x)`,
//! `st.whole(x)`), or copied into a local (`let cp5 = st.clone();`) whose float fields are
//! read like the argument's; one taken by `&mut` may have a counter `c` the program only writes, or be
//! lent whole (`lend`): passed to a helper that steps its float fields (`s017_lend(st, x)`,
//! `st.lend(x)`, a method passing `self` on, or `S017::lend(st, x)`) and to one that reads it
//! (`s017_peek(&*st)`), the program then reading none of its float fields itself or (with
//! `struct_lend_fields`) reading and writing them too and lending it again among its statements,
//! in loops and branches, the argument of the call reading anything (`st.lend(0.5 * st.k);`).
//! A program with a struct may also hold whole the struct `S017P { a, b }` that differentiated
//! helpers give (`let pc5 = s017_pseed(e1, e2);`), step it in a loop (`pc6 = s017_pstep(&pc6,
//! t);`) and read its fields (`pc6.a`), annotated (`let pc6: S017P = ..`) or not, also the
//! struct a helper gives back whole after stepping a copy of its argument in a loop
//! (`s017_ptraj`), and may give such a struct whole as its output instead of `S017Out`
//! (`s017_pmk(a, b)` as its value, bound first, or stepped in a loop first). A struct read only
//! may also be copied into a `let mut` local whose float fields are then written (`let mut cw5
//! = st.clone(); cw5.k = ..;`), its fields read after, and the elements of its `Vec` and array
//! fields written (`cw5.w[0] += ..`), those fields then written and read by the body's
//! statements like a `&mut` struct's.

use super::*;

/// How a program takes its struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum StructKind {
    Ref,
    Value,
    Mut,
    SelfRef,
    SelfMut,
}

impl StructKind {
    pub(super) fn mutable(self) -> bool {
        matches!(self, StructKind::Mut | StructKind::SelfMut)
    }

    pub(super) fn method(self) -> bool {
        matches!(self, StructKind::SelfRef | StructKind::SelfMut)
    }

    /// The name the body reads the struct by.
    pub(super) fn root(self) -> &'static str {
        if self.method() {
            "self"
        } else {
            "st"
        }
    }
}

/// The shape of a program's struct type, and how the program takes it.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    /// The type's name (`S017`; the nested one is `S017In`).
    pub ty: String,
    pub kind: StructKind,
    /// Number of float fields (`k`, then `g`).
    pub floats: usize,
    /// Has `w: Vec<f64>` of the common length.
    pub vec: bool,
    /// Has `q: [f64; 3]`.
    pub arr: bool,
    /// `m: usize` and its value (a loop bound, at most `N_MIN`).
    pub count: Option<usize>,
    /// `e: i32` and its value (a `powi` exponent).
    pub exp: Option<i32>,
    /// Has `sub: <ty>In { x: f64, y: f64 }`.
    pub nested: bool,
    /// Has `r: [[f64; 2]; 2]`, read by `r[i][j]` or by rows (`for row in st.r.iter()`).
    pub rows: bool,
    /// The program gives a struct `<ty>Out { a: f64, b: f64, n: usize }` (built by a literal
    /// from its pair of floats; `n` from the integer field or a constant) instead of the pair.
    pub out: bool,
    /// How the struct output is given: 0 one literal, 1 an `if`/`else` of two literals, 2 an
    /// early `return` of one before the last.
    pub out_branch: u8,
    /// A struct read only is also passed whole to differentiated helpers defined with the type
    /// (`<ty>_by_ref(st, x)`, `<ty>_by_value(st.clone(), x)`, `st.whole(x)`): which of the three.
    pub whole: Option<u8>,
    /// A struct taken by `&mut` has a counter `c: usize` the program only writes
    /// (`st.c += 1;`).
    pub counter: bool,
    /// The program holds whole the struct `<ty>P` that helpers give and steps it this many
    /// times in a loop (`lower/struct_calls.rs`).
    pub calls: Option<usize>,
    /// A struct taken by `&mut` is lent whole to helpers defined with the type instead of having
    /// its float fields read by the program: how the stepping helper is called (a free function,
    /// a method, a path).
    pub lend: Option<u8>,
    /// A lent struct's float fields are also read and written by the program, which lends it
    /// again among its statements (in loops and branches too: `S017::lend(st, 0.5 * st.k);`).
    pub lend_fields: bool,
    /// The program gives the struct `<ty>P` held whole instead of `<ty>Out` (with `out`): 0 the
    /// call `<ty>_pmk(a, b)` as its value, 1 bound first, 2 stepped in a loop first.
    pub out_whole: Option<u8>,
}

pub(super) const FLOAT_FIELDS: &[&str] = &["k", "g"];
pub(super) const ARR_LEN: usize = 3;

impl Layout {
    /// Scalar slots: the float fields, the array, the nested floats.
    pub(super) fn slots(&self) -> usize {
        self.places().len()
    }

    /// The float places of the struct in slot order (`k`, `q[0]`, `sub.x`).
    fn places(&self) -> Vec<String> {
        let mut out: Vec<String> = FLOAT_FIELDS[..self.floats]
            .iter()
            .map(|f| f.to_string())
            .collect();
        if self.arr {
            out.extend((0..ARR_LEN).map(|j| format!("q[{j}]")));
        }
        if self.nested {
            out.push("sub.x".into());
            out.push("sub.y".into());
        }
        if self.rows {
            out.extend(["r[0][0]", "r[0][1]", "r[1][0]", "r[1][1]"].map(String::from));
        }
        out
    }

    /// The type definitions (the nested struct first), and the helpers taking it whole.
    pub(super) fn definition(&self) -> String {
        let derive = "#[derive(autodiff_runtime::Differentiable, Clone)]\n";
        let mut s = String::new();
        if self.nested {
            s.push_str(&format!(
                "{derive}struct {}In {{\n    x: f64,\n    y: f64,\n}}\n\n",
                self.ty
            ));
        }
        s.push_str(&format!("{derive}struct {} {{\n", self.ty));
        for f in &FLOAT_FIELDS[..self.floats] {
            s.push_str(&format!("    {f}: f64,\n"));
        }
        if self.vec {
            s.push_str("    w: Vec<f64>,\n");
        }
        if self.arr {
            s.push_str(&format!("    q: [f64; {ARR_LEN}],\n"));
        }
        if self.count.is_some() {
            s.push_str("    m: usize,\n");
        }
        if self.exp.is_some() {
            s.push_str("    e: i32,\n");
        }
        if self.counter {
            s.push_str("    c: usize,\n");
        }
        if self.nested {
            s.push_str(&format!("    sub: {}In,\n", self.ty));
        }
        if self.rows {
            s.push_str("    r: [[f64; 2]; 2],\n");
        }
        s.push_str("}\n\n");
        if self.calls.is_some() || self.out_whole.is_some() {
            let (t, lt) = (&self.ty, self.ty.to_lowercase());
            s.push_str(&format!(
                "#[derive(autodiff_runtime::Differentiable, Clone, Copy)]\n\
                 struct {t}P {{\n    a: f64,\n    b: f64,\n}}\n\n\
                 impl Copy for {t}PTangent {{}}\n\n\
                 #[differentiate]\nfn {lt}_pseed(a: f64, b: f64) -> {t}P {{\n    \
                 {t}P {{ a: a.sin(), b: 0.5 * b }}\n}}\n\n\
                 #[differentiate]\nfn {lt}_pstep(p: &{t}P, x: f64) -> {t}P {{\n    \
                 let b = p.b - 0.25 * (p.a * x).sin();\n    {t}P {{ a: p.a + 0.25 * b, b }}\n}}\n\n\
                 #[differentiate]\nfn {lt}_ptraj(p: &{t}P, x: f64) -> {t}P {{\n    \
                 let mut c = p.clone();\n    for _ in 0..2 {{\n        c = {lt}_pstep(&c, x);\n    }}\n    c\n}}\n\n\
                 #[differentiate]\nfn {lt}_pmk(a: f64, b: f64) -> {t}P {{\n    {t}P {{ a, b }}\n}}\n\n"
            ));
        }
        if self.lend.is_some() {
            s.push_str(&self.lend_definition());
        }
        if self.whole.is_some() {
            let (t, lt) = (&self.ty, self.ty.to_lowercase());
            s.push_str(&format!(
                "#[differentiate]\nfn {lt}_by_ref(s: &{t}, x: f64) -> f64 {{\n    \
                 s.k * x.sin() + s.k\n}}\n\n\
                 #[differentiate]\nfn {lt}_by_value(s: {t}, x: f64) -> f64 {{\n    \
                 s.k * s.k * x.cos()\n}}\n\n\
                 impl {t} {{\n    #[differentiate]\n    fn whole(&self, x: f64) -> f64 {{\n        \
                 (self.k * x).sin()\n    }}\n}}\n\n"
            ));
        }
        s
    }

    /// A call passing the struct whole to one of the helpers (`x` its float argument); its
    /// value lies in [-2, 2].
    fn whole_call(&self, x: &str) -> Option<String> {
        let root = self.kind.root();
        let lt = self.ty.to_lowercase();
        let by_ref = match self.kind {
            StructKind::Value => format!("&{root}"),
            _ => root.to_string(),
        };
        Some(match self.whole? {
            0 => format!("{lt}_by_ref({by_ref}, {x})"),
            1 => format!("{lt}_by_value({root}.clone(), {x})"),
            _ => format!("{root}.whole({x})"),
        })
    }

    /// A struct literal (of the type, or of its tangent type) whose float places are
    /// `slot(0)`, `slot(1)`, ... and whose `Vec` field is `vec`.
    fn literal(&self, tangent: bool, slot: &dyn Fn(usize) -> String, vec: &str) -> String {
        let t = if tangent { "Tangent" } else { "" };
        let mut fields = Vec::new();
        let mut j = 0;
        for f in &FLOAT_FIELDS[..self.floats] {
            fields.push(format!("{f}: {}", slot(j)));
            j += 1;
        }
        if self.vec {
            fields.push(format!("w: {vec}"));
        }
        if self.arr {
            let xs: Vec<String> = (j..j + ARR_LEN).map(slot).collect();
            fields.push(format!("q: [{}]", xs.join(", ")));
            j += ARR_LEN;
        }
        if let Some(m) = self.count {
            fields.push(format!(
                "m: {}",
                if tangent { "()".into() } else { m.to_string() }
            ));
        }
        if let Some(e) = self.exp {
            fields.push(format!(
                "e: {}",
                if tangent { "()".into() } else { e.to_string() }
            ));
        }
        if self.counter {
            fields.push(format!("c: {}", if tangent { "()" } else { "0" }));
        }
        if self.nested {
            fields.push(format!(
                "sub: {}In{t} {{ x: {}, y: {} }}",
                self.ty,
                slot(j),
                slot(j + 1)
            ));
            j += 2;
        }
        if self.rows {
            fields.push(format!(
                "r: [[{}, {}], [{}, {}]]",
                slot(j),
                slot(j + 1),
                slot(j + 2),
                slot(j + 3)
            ));
        }
        format!("{}{t} {{ {} }}", self.ty, fields.join(", "))
    }
}

/// The layout of `p` if it is a struct parameter.
pub(super) fn layout(p: &Param) -> Option<&Layout> {
    match p {
        Param::Struct(l) => Some(l),
        _ => None,
    }
}

/// The signature item of a struct parameter.
pub(super) fn sig(l: &Layout) -> String {
    match l.kind {
        StructKind::Ref => format!("st: &{}", l.ty),
        StructKind::Value => format!("st: {}", l.ty),
        StructKind::Mut => format!("st: &mut {}", l.ty),
        StructKind::SelfRef => "&self".into(),
        StructKind::SelfMut => "&mut self".into(),
    }
}

/// The source of a program with the type definitions before it and, for a method, the `impl`
/// block around it.
pub(super) fn wrap(f: &mut FnOut) {
    let Some(l) = f.params.iter().find_map(layout).cloned() else {
        return;
    };
    let mut s = l.definition();
    if l.out && f.out == OutKind::Tuple && super::struct_out::struct_output(f, &l) {
        f.counts[Construct::StructOutput as usize] += 1;
        if l.out_branch != 0 {
            f.counts[Construct::StructOutBranch as usize] += 1;
        }
        s.push_str(&l.out_definition());
        if l.out_whole.is_some() {
            f.counts[Construct::StructWholeOut as usize] += 1;
        }
    }
    if l.kind.method() {
        s.push_str(&format!("impl {} {{\n{}}}\n", l.ty, f.source));
    } else {
        s.push_str(&f.source);
    }
    f.source = s;
}

/// What the adapters pass for a struct taken by `&` or by value (`arg` empty for a method's
/// receiver): built from the scalar slots at `k` and the slice; its adjoint buffer is loaded
/// from the scalar adjoints and stored back, its `Vec` field's adjoint added into `gv`.
pub(super) fn adapter(l: &Layout, k: usize) -> nested_rows::Adapter {
    let ind = "                ";
    let slot = |x: &'static str| move |j: usize| format!("{x}[{}]", k + j);
    let by_value = l.kind == StructKind::Value;
    let amp = if by_value { "" } else { "&" };
    let mut store = String::new();
    for (j, p) in l.places().iter().enumerate() {
        store.push_str(&format!("{ind}gs[{}] = bst.{p};\n", k + j));
    }
    if l.vec {
        store.push_str(&format!(
            "{ind}for (g, b) in gv.iter_mut().zip(&bst.w) {{\n{ind}    *g += b;\n{ind}}}\n"
        ));
    }
    nested_rows::Adapter {
        arg: if l.kind.method() {
            String::new()
        } else {
            format!("{amp}st")
        },
        tangent: format!("{amp}tst"),
        adjoint: "&mut bst".into(),
        load: format!(
            "{ind}let mut bst = {};\n",
            l.literal(true, &slot("gs"), "vec![0.0; n]")
        ),
        store,
        slots: l.slots(),
    }
}

/// The declarations of the struct `st` and of its tangent `tst` (from the scalar slots at `k`
/// and the slice).
pub(super) fn init(l: &Layout, k: usize) -> (String, String) {
    let ind = "                ";
    let slot = |x: &'static str| move |j: usize| format!("{x}[{}]", k + j);
    let m = if l.kind.mutable() { "mut " } else { "" };
    (
        format!(
            "{ind}let {m}st = {};\n",
            l.literal(false, &slot("s"), "v.to_vec()")
        ),
        format!(
            "{ind}let {m}tst = {};\n",
            l.literal(true, &slot("ts"), "tv.to_vec()")
        ),
    )
}

/// The adapter of a struct taken by `&mut` at scalar slot `k`: its final float contents are the
/// outputs at `c[at..]`, or, with a `Vec` field, those before `c[at..]`, where its `n` final
/// `Vec` elements go.
pub(super) fn inout_adapter(l: &Layout, k: usize, at: usize) -> inout::InOutAdapter {
    let ind = "                ";
    let places = l.places();
    let fixed = places.len();
    let first = if l.vec { at.saturating_sub(fixed) } else { at };
    let (init, init_tangent) = init(l, k);
    let seed = move |j: usize| format!("c[{}]", first + j);
    let mut add_adjoint = String::new();
    let mut extend = String::new();
    let mut extend_t = String::new();
    for (j, p) in places.iter().enumerate() {
        add_adjoint.push_str(&format!("{ind}gs[{}] += bst.{p};\n", k + j));
        extend.push_str(&format!("{ind}y.push(st.{p});\n"));
        extend_t.push_str(&format!("{ind}t.push(tst.{p});\n"));
    }
    if l.vec {
        add_adjoint.push_str(&format!(
            "{ind}for (g, b) in gv.iter_mut().zip(&bst.w) {{\n{ind}    *g += b;\n{ind}}}\n"
        ));
        extend.push_str(&format!("{ind}y.extend_from_slice(&st.w);\n"));
        extend_t.push_str(&format!("{ind}t.extend_from_slice(&tst.w);\n"));
    }
    let vec_seed = format!("c[{at}..].to_vec()");
    inout::InOutAdapter {
        arg: if l.kind.method() {
            String::new()
        } else {
            "&mut st".into()
        },
        tangent: "&mut tst".into(),
        adjoint: "&mut bst".into(),
        init,
        init_tangent,
        init_adjoint: format!(
            "{ind}let mut bst = {};\n",
            l.literal(true, &seed, &vec_seed)
        ),
        add_adjoint,
        extend,
        extend_t,
        slots: fixed,
        fixed,
        slice: l.vec,
    }
}

impl FnGen<'_> {
    /// Sometimes adds a struct parameter to a program's (shuffled) parameters: a method's
    /// receiver first, else anywhere.
    pub(super) fn struct_param(&mut self, k: usize, params: &mut Vec<Param>) {
        let mut kinds = Vec::new();
        for (c, kind) in [
            (Construct::StructRef, StructKind::Ref),
            (Construct::StructValue, StructKind::Value),
            (Construct::StructMut, StructKind::Mut),
            (Construct::StructMethod, StructKind::SelfRef),
            (Construct::StructMutMethod, StructKind::SelfMut),
        ] {
            // A method is not combined with `wrt(...)` (nor with a workspace, which needs it).
            if self.on(c) && !(kind.method() && self.workspace) {
                kinds.push((c, kind));
            }
        }
        if kinds.is_empty() || !self.chance(0.35) {
            return;
        }
        let nested_param = params.iter().any(|p| matches!(p, Param::Nested(..)));
        if nested_param && !self.on(Construct::StructNestedParam) {
            return;
        }
        if nested_param {
            self.count(Construct::StructNestedParam);
        }
        let (c, kind) = self.pick(&kinds);
        self.count(c);
        // The `Vec` field of a `&mut` struct gives the slice's outputs: not next to `io`.
        let vec_ok = !(kind.mutable() && self.inout == Some("io"));
        let vec = vec_ok && self.on(Construct::StructVecField) && self.chance(0.5);
        let arr = self.on(Construct::StructArrayField) && self.chance(0.4);
        let nested = self.on(Construct::StructNestedField) && self.chance(0.35);
        let count = (self.on(Construct::StructIntBound) && self.chance(0.6))
            .then(|| self.rng.gen_range(2..=N_MIN));
        let exp =
            (self.on(Construct::StructPowiField) && self.chance(0.4)).then(|| self.pick(&[2, 3]));
        let floats = self.rng.gen_range(1..=FLOAT_FIELDS.len());
        // Not next to a nested-array argument (a struct output there is reported).
        let out = !nested_param
            && self.on(Construct::StructOutput)
            && self.on(Construct::TupleOut)
            && self.chance(0.6);
        let out_branch = if out && self.on(Construct::StructOutBranch) && self.chance(0.5) {
            self.rng.gen_range(1..=2)
        } else {
            0
        };
        let out_whole = (out && self.on(Construct::StructWholeOut) && self.chance(0.4))
            .then(|| self.rng.gen_range(0..3u8));
        let out_branch = if out_whole.is_some() { 0 } else { out_branch };
        // Not with a struct output (kept apart from `struct_out.rs`'s forms).
        let rows = !out && self.on(Construct::StructRowsField) && self.chance(0.35);
        let whole = (!kind.mutable() && self.on(Construct::StructWhole) && self.chance(0.5))
            .then(|| self.rng.gen_range(0..3u8));
        let counter = kind.mutable() && self.on(Construct::StructCounter) && self.chance(0.5);
        // Not with a struct output, whose integer field `n` is read from `m` before the body (a
        // lent struct's `m` could change in a call: reported).
        let lend = (kind.mutable() && !out && self.on(Construct::StructLend) && self.chance(0.6))
            .then(|| self.rng.gen_range(0..3u8));
        let lend_fields =
            lend.is_some() && self.on(Construct::StructLendFields) && self.chance(0.7);
        let calls = (self.on(Construct::StructCallLocal) && self.chance(0.5))
            .then(|| self.rng.gen_range(0..=3usize));
        let l = Layout {
            out_whole,
            calls,
            lend,
            lend_fields,
            out,
            out_branch,
            whole,
            counter,
            ty: format!("S{k:03}"),
            kind,
            floats,
            vec,
            arr,
            count,
            exp,
            nested,
            rows,
        };
        for (on, c) in [
            (vec, Construct::StructVecField),
            (arr, Construct::StructArrayField),
            (nested, Construct::StructNestedField),
            (rows, Construct::StructRowsField),
        ] {
            if on {
                self.count(c);
            }
        }
        let at = if kind.method() {
            0
        } else {
            self.rng.gen_range(0..=params.len())
        };
        params.insert(at, Param::Struct(l));
    }

    /// Declares the struct's fields as variables, and reads one float of it (the struct is an
    /// active argument only if the body reads a float of it).
    pub(super) fn struct_input(&mut self, params: &[Param]) {
        let Some(l) = params.iter().find_map(layout).cloned() else {
            return;
        };
        let root = l.kind.root();
        let mutable = l.kind.mutable();
        if let Some(call) = l.lend_call("a") {
            // Lent whole: stepped by a helper, read by another, its fields never named here.
            self.count(Construct::StructLend);
            self.line(call);
            let t = self.fresh("t");
            let lt = l.ty.to_lowercase();
            self.line(format!("let {t} = {lt}_peek(&*{root});"));
            self.declare(t, Ty::Float, false, 1.5, 0.0);
            if !l.lend_fields {
                if l.counter {
                    self.count(Construct::StructCounter);
                    self.line(format!("{root}.c += 1;"));
                }
                self.strukt = Some(l);
                return;
            }
            // Its fields used as well: declared below like any `&mut` struct's.
            self.count(Construct::StructLendFields);
        }
        let mut floats: Vec<String> = FLOAT_FIELDS[..l.floats]
            .iter()
            .map(|f| format!("{root}.{f}"))
            .collect();
        if l.nested {
            floats.push(format!("{root}.sub.x"));
            floats.push(format!("{root}.sub.y"));
        }
        for f in &floats {
            if mutable {
                let base: f64 = self.pick(&[1.0, 2.0, 4.0]);
                let room: f64 = self.pick(&[2.0, 8.0]);
                self.declare(f.clone(), Ty::Float, true, base, room);
            } else {
                self.push_input(f, 1.0);
            }
        }
        for (on, name, len) in [(l.vec, "w", None), (l.arr, "q", Some(ARR_LEN))] {
            if !on {
                continue;
            }
            let (base, room) = if mutable {
                (self.pick(&[1.0, 2.0, 4.0]), self.pick(&[2.0, 8.0, 16.0]))
            } else {
                (1.0, 0.0)
            };
            self.declare(format!("{root}.{name}"), Ty::Vector, mutable, base, room);
            self.vars.last_mut().expect("just declared").arr_len = len;
        }
        // Not when `w` is written: `st.w[st.w.len() - 1] += x` borrows `st.w` twice (E0502).
        if l.vec && !mutable && self.on(Construct::StructLen) {
            self.lens.push(if l.kind.method() {
                "self.w.len()"
            } else {
                "st.w.len()"
            });
        }
        if mutable && self.on(Construct::StructUnitOut) {
            self.unit_place = Some(format!("{root}.{}", FLOAT_FIELDS[0]));
        }
        // Each sequence field is indexed once: the macro reads a field only lent to calls
        // (`h(&st.w)`, `hm(&mut st.w)`) as a float (see the report of seed 30001).
        let mut reads = vec![self.pick(&floats)];
        if l.vec {
            reads.push(format!("{root}.w[0]"));
        }
        if l.arr {
            reads.push(format!("{root}.q[2]"));
        }
        reads.shuffle(&mut self.rng);
        let t = self.fresh("t");
        let sum = reads.join(" + ");
        self.line(format!("let {t} = {sum};"));
        // Bound of any float of the struct on entry, times the terms.
        self.declare(t.clone(), Ty::Float, false, reads.len() as f64, 0.0);
        if l.counter {
            self.count(Construct::StructCounter);
            self.line(format!("{root}.c += 1;"));
        }
        if l.rows {
            // The rotation-like field, by element or by rows: its entries lie in [-1, 1].
            let r = self.fresh("t");
            if self.chance(0.5) {
                let (i, j) = (self.rng.gen_range(0..2), self.rng.gen_range(0..2));
                self.line(format!(
                    "let {r} = {root}.r[{i}][{j}] * {root}.r[{}][{}] + {root}.r[1][{j}];",
                    1 - i,
                    1 - j
                ));
            } else {
                let row = self.fresh("row");
                self.line(format!("let mut {r} = 0.0;"));
                self.line(format!(
                    "for {row} in {root}.r.iter() {{ {r} += {row}[0] * {row}[1]; }}"
                ));
            }
            self.declare(r, Ty::Float, false, 2.0, 0.0);
        }
        if let Some(call) = l.whole_call(&t) {
            self.count(Construct::StructWhole);
            let h = self.fresh("sw");
            self.line(format!("let {h} = {call};"));
            self.declare(h, Ty::Float, false, 2.0, 0.0);
        }
        self.struct_local(&l);
        self.struct_call_local(&l);
        self.strukt = Some(l);
    }

    /// The struct `<ty>P` a helper gives, held whole: seeded from two expressions, stepped
    /// `calls` times in a loop by another helper, its fields read (`pc6.a`, `pc6.b`).
    fn struct_call_local(&mut self, l: &Layout) {
        let Some(k) = l.calls else {
            return;
        };
        self.count(Construct::StructCallLocal);
        let (t, lt) = (&l.ty, l.ty.to_lowercase());
        let (e1, e2) = (self.expr(2), self.expr(2));
        let x = self.expr(1);
        let seed = self.fresh("pc");
        let ann = |me: &mut Self| {
            if me.chance(0.5) {
                format!(": {t}P")
            } else {
                String::new()
            }
        };
        let a0 = ann(self);
        self.line(format!("let {seed}{a0} = {lt}_pseed({}, {});", e1.s, e2.s));
        let b0 = 0.5 * e2.b;
        self.push_input(&format!("{seed}.a"), 1.0);
        self.push_input(&format!("{seed}.b"), b0);
        let xs = self.fresh("px");
        self.line(format!("let {xs} = {};", x.s));
        let cur = self.fresh("pc");
        let a1 = ann(self);
        self.line(format!("let mut {cur}{a1} = {lt}_pstep(&{seed}, {xs});"));
        if k > 0 {
            self.line(format!("for _ in 0..{k} {{"));
            self.line(format!("    {cur} = {lt}_pstep(&{cur}, {xs});"));
            self.line("}");
        }
        let steps = (k + 1) as f64;
        let bb = b0 + 0.25 * steps;
        let ba = 1.0 + 0.25 * steps * bb;
        self.push_input(&format!("{cur}.a"), ba);
        self.push_input(&format!("{cur}.b"), bb);
        // The struct a helper gives back whole (a copy stepped twice in a loop).
        if self.on(Construct::StructWholeOut) && self.chance(0.5) {
            self.count(Construct::StructWholeOut);
            let tr = self.fresh("pc");
            self.line(format!("let {tr} = {lt}_ptraj(&{cur}, {xs});"));
            let bb2 = bb + 0.5;
            let ba2 = ba + 0.25 * (bb + 0.25) + 0.25 * bb2;
            self.push_input(&format!("{tr}.a"), ba2);
            self.push_input(&format!("{tr}.b"), bb2);
        }
    }

    /// Sometimes a struct local of the program's type, its first float fields given and the
    /// others the argument's (`let lc3 = S017 { k: e, ..*st };`, `..st` by value), and the
    /// argument taken apart by a pattern (`let S017 { g: pk4, .. } = *st;`): the local's fields
    /// (`lc3.k`, `lc3.q`) and the pattern's names are read-only variables. Only for a struct
    /// read, not written; a `&` one with a `Vec` or nested-struct field (not `Copy`) is updated
    /// from `..st.clone()` (also sometimes one without), one by value only without those.
    fn struct_local(&mut self, l: &Layout) {
        // A copy (`let cp5 = st.clone();`, `(*st).clone()`), its float fields read-only
        // variables (`cp5.k`, `cp5.sub.x`).
        if !l.kind.mutable() && self.on(Construct::StructCopy) && self.chance(0.4) {
            self.count(Construct::StructCopy);
            let cp = self.fresh("cp");
            let root = l.kind.root();
            let copy = if l.kind == StructKind::Value || self.chance(0.5) {
                format!("{root}.clone()")
            } else {
                format!("(*{root}).clone()")
            };
            self.line(format!("let {cp} = {copy};"));
            for f in &FLOAT_FIELDS[..l.floats] {
                self.push_input(&format!("{cp}.{f}"), 1.0);
            }
            if l.nested {
                self.push_input(&format!("{cp}.sub.x"), 1.0);
            }
        }
        // A `let mut` copy whose float fields are written, then read (`cw5.k`, `cw5.g` of the
        // argument).
        if !l.kind.mutable() && self.on(Construct::StructCopyWrite) && self.chance(0.4) {
            self.count(Construct::StructCopyWrite);
            let cw = self.fresh("cw");
            let root = l.kind.root();
            let copy = if l.kind == StructKind::Ref && self.chance(0.5) {
                format!("(*{root}).clone()")
            } else {
                format!("{root}.clone()")
            };
            self.line(format!("let mut {cw} = {copy};"));
            let written = self.rng.gen_range(1..=l.floats);
            let mut reads = Vec::new();
            for f in &FLOAT_FIELDS[..written] {
                let e = self.expr(2);
                let b = if self.chance(0.5) {
                    self.line(format!("{cw}.{f} = {};", e.s));
                    e.b
                } else {
                    self.line(format!("{cw}.{f} += 0.5 * ({});", e.s));
                    1.0 + 0.5 * e.b
                };
                let b = if self.chance(0.4) {
                    self.line("for _ in 0..2 {");
                    self.line(format!(
                        "    {cw}.{f} = 0.5 * {cw}.{f} + 0.25 * {cw}.{f}.sin();"
                    ));
                    self.line("}");
                    b
                } else {
                    b
                };
                reads.push((format!("{cw}.{f}"), b));
            }
            for f in &FLOAT_FIELDS[written..l.floats] {
                reads.push((format!("{cw}.{f}"), 1.0));
            }
            if l.nested {
                reads.push((format!("{cw}.sub.y"), 1.0));
            }
            for (name, b) in reads {
                self.push_input(&name, b);
            }
            self.copy_elems(l, &cw);
        }
        // By value, `..st` would move a `Vec` or nested-struct field out of `st` (read later).
        if l.kind.mutable() || (l.kind == StructKind::Value && (l.vec || l.nested)) {
            return;
        }
        let root = l.kind.root();
        let base = if l.kind == StructKind::Value {
            root.to_string()
        } else {
            format!("*{root}")
        };
        // A struct update from a `&` argument: `..*st` moves its fields, so one with a `Vec` or
        // a nested struct (not `Copy`) takes `..st.clone()`, which any struct may.
        let by_ref = matches!(l.kind, StructKind::Ref | StructKind::SelfRef);
        let update = if by_ref && (l.vec || l.nested || self.chance(0.3)) {
            format!("{root}.clone()")
        } else {
            base.clone()
        };
        if self.on(Construct::StructLocal) && self.chance(0.5) {
            self.count(Construct::StructLocal);
            let lc = self.fresh("lc");
            let given = self.rng.gen_range(1..=l.floats);
            let mut fields = Vec::new();
            let mut reads = Vec::new();
            for f in &FLOAT_FIELDS[..given] {
                let e = self.expr(2);
                fields.push(format!("{f}: {}", e.s));
                reads.push((format!("{lc}.{f}"), e.b));
            }
            for f in &FLOAT_FIELDS[given..l.floats] {
                reads.push((format!("{lc}.{f}"), 1.0));
            }
            self.line(format!(
                "let {lc} = {} {{ {}, ..{update} }};",
                l.ty,
                fields.join(", ")
            ));
            for (name, b) in reads {
                self.push_input(&name, b);
            }
            if l.arr {
                self.declare(format!("{lc}.q"), Ty::Vector, false, 1.0, 0.0);
                self.vars.last_mut().expect("just declared").arr_len = Some(ARR_LEN);
            }
        }
        if self.on(Construct::StructPattern) && self.chance(0.4) {
            self.count(Construct::StructPattern);
            let f = self.pick(&FLOAT_FIELDS[..l.floats]);
            let pk = self.fresh("pk");
            self.line(format!("let {} {{ {f}: {pk}, .. }} = {base};", l.ty));
            self.push_input(&pk, 1.0);
        }
    }

    /// Sometimes elements of the copy's `Vec` and array fields written (`cw5.w[0] += ..`, a loop
    /// over `cw5.w.len()`, `cw5.q[1] *= 0.5`), each written field then a mutable vector variable
    /// (`cw5.w`, `cw5.q`) the body's statements read and write element by element, in loops and
    /// branches too, and lend (`hm(&mut cw5.w)`).
    fn copy_elems(&mut self, l: &Layout, cw: &str) {
        if !(l.vec || l.arr) || !self.on(Construct::StructCopyElems) || !self.chance(0.6) {
            return;
        }
        self.count(Construct::StructCopyElems);
        let both = l.vec && l.arr && self.chance(0.5);
        let first_w = l.vec && (!l.arr || self.chance(0.5));
        for (on, name, len) in [
            (l.vec && (both || first_w), "w", None),
            (l.arr && (both || !first_w), "q", Some(ARR_LEN)),
        ] {
            if !on {
                continue;
            }
            let e = self.expr(2);
            let base = match self.rng.gen_range(0..3) {
                0 => {
                    let k = self.rng.gen_range(0..len.unwrap_or(1));
                    self.line(format!("{cw}.{name}[{k}] += 0.5 * ({});", e.s));
                    1.0 + 0.5 * e.b
                }
                1 => {
                    let i = self.fresh("ci");
                    self.line(format!("for {i} in 0..{cw}.{name}.len() {{"));
                    self.line(format!(
                        "    {cw}.{name}[{i}] = 0.5 * {cw}.{name}[{i}] + 0.25 * ({});",
                        e.s
                    ));
                    self.line("}");
                    0.5 + 0.25 * e.b
                }
                _ => {
                    self.line(format!("{cw}.{name}[0] = {};", e.s));
                    e.b.max(1.0)
                }
            };
            let room: f64 = self.pick(&[2.0, 8.0]);
            self.declare(format!("{cw}.{name}"), Ty::Vector, true, base, room);
            self.vars.last_mut().expect("just declared").arr_len = len;
        }
    }

    /// Ranges bounded by the struct's integer field.
    pub(super) fn struct_ranges(&self, forms: &mut Vec<(String, usize, usize, Option<Construct>)>) {
        if let Some(l) = &self.strukt {
            if let Some(m) = l.count {
                let r = format!("0..{}.m", l.kind.root());
                for _ in 0..3 {
                    forms.push((r.clone(), m, 0, Some(Construct::StructIntBound)));
                }
            }
        }
    }

    /// Expression nodes reading the struct's integer exponent.
    pub(super) fn struct_ops(&self, ops: &mut Vec<(Op, f64)>) {
        if self.strukt.as_ref().is_some_and(|l| l.exp.is_some()) && self.on(Construct::Powi) {
            ops.push((Op::Idiom(Construct::StructPowiField), 0.6));
        }
    }

    /// `a.powi(st.e)` with the struct's exponent.
    pub(super) fn struct_powi(&mut self, d: u32) -> Ex {
        let l = self.strukt.as_ref().expect("a struct with an exponent");
        let (root, e) = (l.kind.root(), l.exp.expect("an exponent"));
        self.count(Construct::StructPowiField);
        self.count(Construct::Powi);
        let a = self.arg(d, EXPR_CAP.powf(1.0 / e as f64));
        let b = a.b.powi(e);
        Ex::atom(self.meth(&a, "powi", &[format!("{root}.e")]), b)
    }

    /// Whether `name` (a variable or a place) is a field of the struct.
    pub(super) fn is_field(name: &str) -> bool {
        name.starts_with("st.")
            || name.starts_with("self.")
            || ((name.starts_with("lc") || name.starts_with("cp") || name.starts_with("cw"))
                && name.contains('.'))
            || (name.starts_with("pc") && name.contains('.'))
    }
}
