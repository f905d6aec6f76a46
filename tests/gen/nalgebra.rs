//! nalgebra values (README, "nalgebra values"): programs `na000`, `na001`, ... whose arguments are
//! small nalgebra matrices and vectors and one float, and whose bodies chain nalgebra operations.
//!
//! ```text
//! #[differentiate(wrt(a, s))]
//! fn na007(a: &DMatrix<f64>, s: f64, b: Vector3<f64>) -> f64 {
//!     let mut x0 = (a * &b).map(|e| (0.5 * e).tanh());
//!     for _ in 0..3 {
//!         x0 = (a * &x0.transpose() ...)
//!     }
//!     ...
//! }
//! ```
//!
//! Arguments are `DMatrix<f64>` / `DVector<f64>` of dimensions drawn from 1 to 4 when the program
//! is generated, or `Matrix2`, `Matrix3`, `Vector2`, `Vector3`, `SMatrix<f64, 2, 3>`..., by `&` or
//! by value; some are left out of `wrt(...)` (their data then comes from the test's slice, whose
//! tangent the test keeps at zero, so finite differences see them as constants). Every value the
//! generator writes has a static nalgebra type it knows (each dimension a number and whether the
//! type fixes it, as nalgebra's `DimEq` rules give it: `DMatrix * Vector3` is a `DVector`), so
//! products, sums, `+=` and reassignments always type-check and agree in dimensions. Values stay
//! bounded as in `mod.rs`: each expression carries a bound of its elements, products and sums are
//! scaled back under [`CAP`], mutable locals have a `base` and a `room` for `+=`, closures of
//! `map` are smooth (`tanh`, `sin`, `exp` of scaled arguments...), divisions are by numbers at
//! least 1 and `component_div` by values at least 0.5, and `norm` is taken of values offset away
//! from zero.
//!
//! The output is a float (the value's terms: `sum`, `dot`, `norm_squared`, an element...), a
//! `DVector`, a `DMatrix` (returned once: no early `return`) or a `Vector2` / `Vector3`. The adapters build the arguments from the test's flat
//! scalars (column-major) and flatten the outputs, so `tests/random_programs.rs` checks them like
//! any other program: value of `_jvp` and `_vjp` against the function itself (which runs on
//! nalgebra: products round differently, hence the relative 1e-12), `_jvp` against central
//! differences, `_vjp` against `_jvp` by the dot-product test, accumulation into the adjoints.
//! The `vjp` adapter of a float output also checks `_grad` against `_vjp` with seed 1 (a panic,
//! reported as a failure of the program).
//!
//! `AD_RANDOM_NALGEBRA` sets how many such programs there are ([`DEFAULT_NALGEBRA`]); with
//! `AD_RANDOM_COUNT=0` a run has only them (and the helpers). Each program draws from its own
//! stream, so `AD_RANDOM_ONLY=na017` reproduces one.

use super::*;

/// Environment variable: the number of nalgebra programs.
pub const NA_VAR: &str = "AD_RANDOM_NALGEBRA";
/// Number of nalgebra programs when `AD_RANDOM_NALGEBRA` is not set.
pub const DEFAULT_NALGEBRA: usize = 40;
/// Stream of program `na{k}`: `NA_STREAM + k`.
const NA_STREAM: u64 = 8_000_000;
/// Bound the elements of every nalgebra expression and every float expression are brought under.
const CAP: f64 = 4.0;
/// Largest dimension of a dynamic argument or of the inner dimension of a product.
const DYN_MAX: usize = 4;
/// Largest fixed inner dimension of a product.
const FIX_MAX: usize = 3;
/// Nesting of nalgebra and float expressions past which sub-expressions are leaves.
const MAX_LEVEL: usize = 3;
/// Names of the nalgebra arguments.
const ARG_NAMES: &[&str] = &["a", "b", "w"];
/// The `use` line the generated file needs before the programs.
pub(super) const PRELUDE: &str =
    "use nalgebra::{DMatrix, DVector, Matrix2, Matrix3, RowDVector, SMatrix, Vector2, Vector3};\n";

/// Reads `AD_RANDOM_NALGEBRA` (a count).
pub(super) fn read_env(
    cfg: &mut Config,
    var: &impl Fn(&str) -> Option<String>,
) -> Result<(), String> {
    if let Some(s) = var(NA_VAR) {
        cfg.nalgebra = s
            .trim()
            .parse()
            .map_err(|_| format!("{NA_VAR}: not a count: {s:?}"))?;
    }
    Ok(())
}

/// A generated nalgebra program: its source and the `Case` that drives it.
pub(super) struct NaOut {
    pub name: String,
    pub source: String,
    /// The `Case { .. },` entry of `cases()`.
    pub case: String,
    pub counts: Vec<usize>,
}

impl NaOut {
    pub(super) fn constructs(&self) -> Vec<Construct> {
        Construct::ALL
            .iter()
            .copied()
            .filter(|&c| self.counts[c as usize] > 0)
            .collect()
    }
}

/// The nalgebra programs `cfg` asks for (those `only` names, if set).
pub(super) fn programs(cfg: &Config) -> Vec<NaOut> {
    if !cfg.enabled(Construct::NaDynamic) && !cfg.enabled(Construct::NaFixed) {
        return Vec::new();
    }
    (0..cfg.nalgebra)
        .filter_map(|k| {
            let name = format!("na{k:03}");
            if let Some(only) = &cfg.only {
                if !only.contains(&name) {
                    return None;
                }
            }
            Some(NaGen::new(cfg, k).program(name, k))
        })
        .collect()
}

/// The largest listed factor `c` with `c * b <= cap` (1 if `b` is under `cap` already).
fn fit(b: f64, cap: f64) -> f64 {
    if b <= cap {
        return 1.0;
    }
    SCALES
        .iter()
        .copied()
        .find(|c| c * b <= cap)
        .unwrap_or(SCALES[SCALES.len() - 1])
}

/// `c * e` printed as an operand (`e` alone for `c == 1`).
fn times_e(c: f64) -> String {
    if c == 1.0 {
        "e".to_string()
    } else {
        format!("({} * e)", lit(c))
    }
}

/// `c * x` printed as an operand (`x` alone for `c == 1`).
fn times(c: f64, x: &SX) -> String {
    if c == 1.0 {
        x.at(ATOM)
    } else {
        format!("({} * {})", lit(c), x.at(PROD))
    }
}

/// `x` rounded up to a multiple of 0.5 (offsets printed short).
fn half_up(x: f64) -> f64 {
    (x * 2.0).ceil() / 2.0
}

// ---- static shapes ----------------------------------------------------------------------------

/// One dimension of a nalgebra type: its size and whether the type fixes it (`U3`) or not (`Dyn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dim {
    n: usize,
    fixed: bool,
}

fn dyn_(n: usize) -> Dim {
    Dim { n, fixed: false }
}

fn fix(n: usize) -> Dim {
    Dim { n, fixed: true }
}

/// The static type of a nalgebra value (rows, columns), with the sizes it has at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sh {
    r: Dim,
    c: Dim,
}

impl Sh {
    fn new(r: Dim, c: Dim) -> Sh {
        Sh { r, c }
    }

    fn t(self) -> Sh {
        Sh::new(self.c, self.r)
    }

    fn len(self) -> usize {
        self.r.n * self.c.n
    }

    /// Both dimensions fixed (`Matrix3`, `Vector2`, `SMatrix<f64, 2, 3>`).
    fn fully_fixed(self) -> bool {
        self.r.fixed && self.c.fixed
    }

    fn has_dyn(self) -> bool {
        !self.r.fixed || !self.c.fixed
    }

    /// Has a name and constructors: `DMatrix`, `DVector`, `RowDVector` or a fixed size (a
    /// `Matrix3xX` from `Matrix3 * DMatrix` has neither here).
    fn canonical(self) -> bool {
        match (self.r.fixed, self.c.fixed) {
            (true, true) | (false, false) => true,
            (false, true) => self.c.n == 1,
            (true, false) => self.r.n == 1,
        }
    }

    /// A column vector (`v[i]` reads element `i`).
    fn column(self) -> bool {
        self.c.n == 1
    }

    /// The path of its constructors: `DMatrix`, `Vector3`, `SMatrix::<f64, 2, 3>`.
    fn path(self) -> String {
        match (self.r.fixed, self.c.fixed) {
            (false, false) => "DMatrix".into(),
            (false, true) => "DVector".into(),
            (true, false) => "RowDVector".into(),
            (true, true) => match (self.r.n, self.c.n) {
                (2, 2) => "Matrix2".into(),
                (3, 3) => "Matrix3".into(),
                (2, 1) => "Vector2".into(),
                (3, 1) => "Vector3".into(),
                (r, c) => format!("SMatrix::<f64, {r}, {c}>"),
            },
        }
    }

    /// The path with the element type: `DMatrix::<f64>`, `SMatrix::<f64, 2, 3>`.
    fn typed_path(self) -> String {
        let p = self.path();
        if p.starts_with("SMatrix") {
            p
        } else {
            format!("{p}::<f64>")
        }
    }

    /// The type: `DMatrix<f64>`, `Vector3<f64>`, `SMatrix<f64, 2, 3>`.
    fn ty(self) -> String {
        self.path().replace("::<", "<")
            + if self.path().contains('<') {
                ""
            } else {
                "<f64>"
            }
    }

    /// The dimensions a constructor takes first: `2, 3` for `DMatrix`, `2` for vectors, none for
    /// fixed sizes.
    fn dyn_args(self) -> Vec<usize> {
        match (self.r.fixed, self.c.fixed) {
            (false, false) => vec![self.r.n, self.c.n],
            (false, true) => vec![self.r.n],
            (true, false) => vec![self.c.n],
            (true, true) => Vec::new(),
        }
    }

    /// `dyn_args` printed before the other arguments (`"2, 3, "`).
    fn dyn_prefix(self) -> String {
        self.dyn_args().iter().map(|d| format!("{d}, ")).collect()
    }
}

// ---- expressions and variables --------------------------------------------------------------

/// How a nalgebra expression may be used as an operand.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// A variable (index into `NaGen::nvars`): an operand is `&x` (or `x` for a `&` argument).
    Var(usize),
    /// `m.column(j)` / `m.row(i)`: a view, used by value and never as a whole value.
    View,
    /// A new owned value.
    Owned,
}

/// A printed nalgebra expression: precedence, element bound, static shape.
#[derive(Clone, Debug)]
struct NX {
    s: String,
    p: u8,
    b: f64,
    sh: Sh,
    form: Form,
    /// Made last by `map` or `from_fn` (which the macro builds in place, see `na_mut_built`).
    built: bool,
}

/// A printed float expression: precedence, bound, whether it is made of literals only.
#[derive(Clone, Debug)]
struct SX {
    s: String,
    p: u8,
    b: f64,
    konst: bool,
}

impl SX {
    fn at(&self, min: u8) -> String {
        if self.p >= min {
            self.s.clone()
        } else {
            format!("({})", self.s)
        }
    }

    fn lit(x: f64) -> SX {
        SX {
            s: lit(x),
            p: ATOM,
            b: x.abs(),
            konst: true,
        }
    }
}

/// A nalgebra variable in scope.
struct NVar {
    name: String,
    sh: Sh,
    /// A `&` argument: its name is already a reference.
    by_ref: bool,
    mutable: bool,
    /// Bound of its elements at any time (`base + room` for a mutable one).
    bound: f64,
    /// Bound of anything assigned to it or to one of its elements with `=`.
    base: f64,
    /// What `+=` / `-=` may still add to an element, over all executions.
    room: f64,
    /// Written (or declared) since it was last read: the output reads it.
    dirty: bool,
}

/// A float variable in scope (the argument `s`, `let` locals, accumulators).
struct SVar {
    name: String,
    mutable: bool,
    bound: f64,
    base: f64,
    room: f64,
    dirty: bool,
}

/// A nalgebra argument.
#[derive(Clone, Debug)]
struct Arg {
    name: String,
    sh: Sh,
    by_ref: bool,
    active: bool,
}

/// A parameter: a nalgebra argument or the float `s`.
#[derive(Clone, Debug)]
enum P {
    Na(Arg),
    Scalar,
}

/// The output type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    F64,
    /// A `DVector`, a `DMatrix` or a fixed-size column vector of this shape.
    Vector(Sh),
}

/// Statement kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum NSt {
    Let,
    LetMut,
    ScalarLet,
    Acc,
    Assign,
    Compound,
    ElemWrite,
    AccAdd,
    Loop,
    Branch,
}

/// Nalgebra expression kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum NOp {
    Var,
    Transpose,
    View,
    Ctor,
    Add,
    MatMul,
    Scale,
    Neg,
    AddScalar,
    Map,
    Component,
    TransposeExpr,
}

/// Float expression kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SOp {
    Scalar,
    Lit,
    Elem,
    Reduce,
    IndexCast,
    Dims,
    Add,
    Sub,
    Mul,
    Smooth,
    Div,
}

/// Generates one program.
struct NaGen<'a> {
    cfg: &'a Config,
    rng: ChaCha8Rng,
    lines: Vec<String>,
    indent: usize,
    nvars: Vec<NVar>,
    svars: Vec<SVar>,
    /// Index variables in scope and the bound they stay below.
    idx: Vec<(String, usize)>,
    /// Executions of the current statement per call.
    k_mult: f64,
    counts: Vec<usize>,
    next_id: usize,
    /// Depth of loops and branches.
    nest: usize,
    /// Writing a closure's body: no nalgebra sub-expressions (only reads of variables).
    closure: bool,
    /// The output type.
    out: Out,
    /// A variable an expression must not name (the left side of an overloaded `+=`, which
    /// holds it mutably borrowed while the right side lives).
    exclude: Option<usize>,
    /// Nesting of expressions being generated (past [`MAX_LEVEL`], only leaves).
    level: usize,
}

impl<'a> NaGen<'a> {
    fn new(cfg: &'a Config, k: usize) -> NaGen<'a> {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        rng.set_stream(NA_STREAM + k as u64);
        NaGen {
            cfg,
            rng,
            lines: Vec::new(),
            indent: 1,
            nvars: Vec::new(),
            svars: Vec::new(),
            idx: Vec::new(),
            k_mult: 1.0,
            counts: vec![0; Construct::ALL.len()],
            next_id: 0,
            nest: 0,
            closure: false,
            out: Out::F64,
            exclude: None,
            level: 0,
        }
    }

    // ---- utilities ------------------------------------------------------------------------

    fn on(&self, c: Construct) -> bool {
        self.cfg.enabled(c)
    }

    fn count(&mut self, c: Construct) {
        self.counts[c as usize] += 1;
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs.choose(&mut self.rng)
            .expect("pick from a non-empty list")
            .clone()
    }

    fn weighted<T: Copy>(&mut self, xs: &[(T, f64)]) -> T {
        let total: f64 = xs.iter().map(|x| x.1).sum();
        let mut r = self.rng.gen::<f64>() * total;
        for &(x, w) in xs {
            if r < w {
                return x;
            }
            r -= w;
        }
        xs.last().expect("pick from a non-empty list").0
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id - 1)
    }

    fn line(&mut self, s: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "    ".repeat(self.indent), s.as_ref()));
    }

    /// Whether a value of this shape may appear (fully fixed needs `na_fixed`, anything dynamic
    /// `na_dynamic`), and has constructors.
    fn shape_ok(&self, sh: Sh) -> bool {
        sh.canonical()
            && (!sh.fully_fixed() || self.on(Construct::NaFixed))
            && (!sh.has_dyn() || self.on(Construct::NaDynamic))
    }

    /// Counts the kind of values a shape is.
    fn count_shape(&mut self, sh: Sh) {
        if sh.fully_fixed() {
            self.count(Construct::NaFixed);
        }
        if sh.has_dyn() {
            self.count(Construct::NaDynamic);
        }
    }

    /// A random shape with constructors: a `DMatrix` or `DVector` of sizes 1 to 4, or a fixed one.
    fn rand_shape(&mut self) -> Sh {
        let fixed = match (self.on(Construct::NaFixed), self.on(Construct::NaDynamic)) {
            (true, true) => self.chance(0.45),
            (f, _) => f,
        };
        if fixed {
            let (r, c) = self.pick(&[(2, 2), (3, 3), (2, 1), (3, 1), (2, 3), (3, 2), (1, 3)]);
            Sh::new(fix(r), fix(c))
        } else if self.chance(0.45) {
            Sh::new(dyn_(self.rng.gen_range(1..=DYN_MAX)), fix(1))
        } else {
            let r = self.rng.gen_range(1..=DYN_MAX);
            let c = self.rng.gen_range(1..=DYN_MAX);
            Sh::new(dyn_(r), dyn_(c))
        }
    }

    /// A shape for a new local: one some variable has (any, even without constructors), or a
    /// new one.
    fn target_shape(&mut self) -> Sh {
        if !self.nvars.is_empty() && self.chance(0.6) {
            let i = self.rng.gen_range(0..self.nvars.len());
            return self.nvars[i].sh;
        }
        self.rand_shape()
    }

    /// A shape whose values may be added to (or multiplied elementwise with) values of `sh`
    /// giving `sh` again: the same, or with a fixed dimension taken as dynamic.
    fn compat(&mut self, sh: Sh) -> Sh {
        let mut o = sh;
        if sh.r.fixed && self.chance(0.15) {
            o.r.fixed = false;
        } else if sh.c.fixed && self.chance(0.15) {
            o.c.fixed = false;
        }
        if o != sh && self.shape_ok(o) {
            o
        } else {
            sh
        }
    }

    /// A shape for the other operand of `dot` (dimensions equal, fixed or not).
    fn dot_shape(&mut self, sh: Sh) -> Sh {
        let mut o = sh;
        if self.chance(0.2) {
            o.r.fixed = !o.r.fixed;
        }
        if self.chance(0.2) {
            o.c.fixed = !o.c.fixed;
        }
        if self.shape_ok(o) {
            o
        } else if self.shape_ok(sh) {
            sh
        } else {
            self.canonical_like(sh)
        }
    }

    /// A shape with constructors and the sizes of `sh`.
    fn canonical_like(&self, sh: Sh) -> Sh {
        let all = [
            Sh::new(dyn_(sh.r.n), dyn_(sh.c.n)),
            Sh::new(fix(sh.r.n), fix(sh.c.n)),
            Sh::new(dyn_(sh.r.n), fix(sh.c.n)),
            Sh::new(fix(sh.r.n), dyn_(sh.c.n)),
        ];
        all.into_iter()
            .find(|&s| self.shape_ok(s))
            .expect("some kind of nalgebra value is enabled")
    }

    /// Marks variable `i` read.
    fn read_n(&mut self, i: usize) {
        self.nvars[i].dirty = false;
    }

    fn read_s(&mut self, i: usize) {
        self.svars[i].dirty = false;
    }

    // ---- printing operands ----------------------------------------------------------------

    /// `x` as the operand of an operator: `&x`, `x` (a `&` argument), a view by value, or the
    /// expression (parenthesized below `min`).
    fn opnd(&self, x: &NX, min: u8) -> String {
        match x.form {
            Form::Var(i) if self.nvars[i].by_ref => x.s.clone(),
            Form::Var(_) => format!("&{}", x.s),
            Form::View => x.s.clone(),
            Form::Owned => {
                if x.p >= min {
                    x.s.clone()
                } else {
                    format!("({})", x.s)
                }
            }
        }
    }

    /// `x` as the receiver of a method.
    fn recv(&self, x: &NX) -> String {
        match x.form {
            Form::Var(_) | Form::View => x.s.clone(),
            Form::Owned => {
                if x.p >= ATOM {
                    x.s.clone()
                } else {
                    format!("({})", x.s)
                }
            }
        }
    }

    /// `x` as a method's `&` argument.
    fn by_ref(&self, x: &NX) -> String {
        match x.form {
            Form::Var(i) if self.nvars[i].by_ref => x.s.clone(),
            _ => format!("&{}", self.recv(x)),
        }
    }

    fn owned(s: String, p: u8, b: f64, sh: Sh) -> NX {
        NX {
            s,
            p,
            b,
            sh,
            form: Form::Owned,
            built: false,
        }
    }

    /// An owned value made last by `map` or `from_fn`.
    fn built(s: String, b: f64, sh: Sh) -> NX {
        NX {
            built: true,
            ..Self::owned(s, ATOM, b, sh)
        }
    }

    // ---- nalgebra expressions -------------------------------------------------------------

    /// Variables of exactly shape `sh` that an expression may name.
    fn vars_of(&self, sh: Sh) -> Vec<usize> {
        (0..self.nvars.len())
            .filter(|&i| self.nvars[i].sh == sh && self.exclude != Some(i))
            .filter(|&i| {
                // Not shadowed by a later variable of the same name.
                !self.nvars[i + 1..]
                    .iter()
                    .any(|w| w.name == self.nvars[i].name)
            })
            .collect()
    }

    /// Variables a view of shape `sh` may come from: `(var, column or row)`.
    fn view_sources(&self, sh: Sh) -> Vec<(usize, bool)> {
        let mut out = Vec::new();
        for i in 0..self.nvars.len() {
            if self.exclude == Some(i)
                || self.nvars[i + 1..]
                    .iter()
                    .any(|w| w.name == self.nvars[i].name)
            {
                continue;
            }
            let v = self.nvars[i].sh;
            if sh.c == fix(1) && v.r == sh.r {
                out.push((i, true));
            }
            if sh.r == fix(1) && v.c == sh.c {
                out.push((i, false));
            }
        }
        out
    }

    /// An index below `n`: a constant or an index variable that stays below `n`.
    fn index_below(&mut self, n: usize) -> String {
        let vars: Vec<String> = self
            .idx
            .iter()
            .filter(|(_, lim)| *lim <= n)
            .map(|(name, _)| name.clone())
            .collect();
        if !vars.is_empty() && self.chance(0.7) {
            return self.pick(&vars);
        }
        self.rng.gen_range(0..n).to_string()
    }

    /// A nalgebra expression of exactly static shape `sh`, of depth at most `depth`; a view only
    /// if `view`.
    fn nexpr(&mut self, sh: Sh, depth: usize, view: bool) -> NX {
        self.level += 1;
        let depth = if self.level > MAX_LEVEL { 0 } else { depth };
        let x = self.nexpr_at(sh, depth, view);
        self.level -= 1;
        x
    }

    fn nexpr_at(&mut self, sh: Sh, depth: usize, view: bool) -> NX {
        self.count_shape(sh);
        let mut opts: Vec<(NOp, f64)> = Vec::new();
        if !self.vars_of(sh).is_empty() {
            opts.push((NOp::Var, 3.0));
        }
        if self.on(Construct::NaTranspose) && !self.vars_of(sh.t()).is_empty() {
            opts.push((NOp::Transpose, 0.7));
        }
        if view && self.on(Construct::NaColumnRow) && !self.view_sources(sh).is_empty() {
            opts.push((NOp::View, 0.8));
        }
        if sh.canonical() {
            opts.push((NOp::Ctor, if depth == 0 { 1.5 } else { 0.6 }));
        }
        if depth > 0 {
            opts.push((NOp::Add, 1.5));
            if self.on(Construct::NaMatMul) && !self.product_splits(sh).is_empty() {
                opts.push((NOp::MatMul, 2.0));
            }
            if self.on(Construct::NaScale) {
                opts.push((NOp::Scale, 0.8));
            }
            if self.on(Construct::NaNeg) {
                opts.push((NOp::Neg, 0.3));
            }
            if self.on(Construct::NaAddScalar) {
                opts.push((NOp::AddScalar, 0.5));
            }
            if self.on(Construct::NaMap) {
                opts.push((NOp::Map, 1.0));
            }
            if self.on(Construct::NaComponent) {
                opts.push((NOp::Component, 0.6));
            }
            if self.on(Construct::NaTranspose) {
                opts.push((NOp::TransposeExpr, 0.3));
            }
        }
        if opts.is_empty() {
            // A shape without constructors that no variable has: only a product gives it (such
            // shapes come from products, so `na_mat_mul` is on).
            assert!(
                !self.product_splits(sh).is_empty(),
                "nalgebra generator: no expression of shape {sh:?}"
            );
            opts.push((NOp::MatMul, 1.0));
        }
        let op = self.weighted(&opts);
        let x = match op {
            NOp::Var => {
                let vs = self.vars_of(sh);
                let i = self.pick(&vs);
                self.read_n(i);
                NX {
                    s: self.nvars[i].name.clone(),
                    p: ATOM,
                    b: self.nvars[i].bound,
                    sh,
                    form: Form::Var(i),
                    built: false,
                }
            }
            NOp::Transpose => {
                self.count(Construct::NaTranspose);
                let vs = self.vars_of(sh.t());
                let i = self.pick(&vs);
                self.read_n(i);
                let s = format!("{}.transpose()", self.nvars[i].name);
                Self::owned(s, ATOM, self.nvars[i].bound, sh)
            }
            NOp::View => {
                self.count(Construct::NaColumnRow);
                let srcs = self.view_sources(sh);
                let (i, col) = self.pick(&srcs);
                self.read_n(i);
                let v = self.nvars[i].sh;
                let (method, k) = if col {
                    ("column", self.index_below(v.c.n))
                } else {
                    ("row", self.index_below(v.r.n))
                };
                NX {
                    s: format!("{}.{method}({k})", self.nvars[i].name),
                    p: ATOM,
                    b: self.nvars[i].bound,
                    sh,
                    form: Form::View,
                    built: false,
                }
            }
            NOp::Ctor => self.ctor(sh),
            NOp::Add => {
                let l = self.nexpr(sh, depth - 1, true);
                let rs = self.compat(sh);
                let r = self.nexpr(rs, depth - 1, true);
                let minus = self.chance(0.4);
                let s = format!(
                    "{} {} {}",
                    self.opnd(&l, SUM),
                    if minus { "-" } else { "+" },
                    self.opnd(&r, PROD)
                );
                Self::owned(s, SUM, l.b + r.b, sh)
            }
            NOp::MatMul => self.matmul(sh, depth.saturating_sub(1)),
            NOp::Scale => {
                let l = self.nexpr(sh, depth - 1, true);
                self.scaled(l)
            }
            NOp::Neg => {
                self.count(Construct::NaNeg);
                let l = self.nexpr(sh, depth - 1, true);
                let s = format!("-{}", self.opnd(&l, UNARY));
                Self::owned(s, UNARY, l.b, sh)
            }
            NOp::AddScalar => {
                self.count(Construct::NaAddScalar);
                let l = self.nexpr(sh, depth - 1, true);
                let t = self.small_sexpr();
                let s = format!("{}.add_scalar({})", self.recv(&l), t.s);
                Self::owned(s, ATOM, l.b + t.b, sh)
            }
            NOp::Map => {
                let l = self.nexpr(sh, depth - 1, true);
                self.map(l)
            }
            NOp::Component => {
                self.count(Construct::NaComponent);
                let l = self.nexpr(sh, depth - 1, true);
                let rs = self.compat(sh);
                let r = self.nexpr(rs, depth - 1, true);
                let can_div = self.on(Construct::NaAddScalar) || self.on(Construct::NaMap);
                if !can_div || self.chance(0.5) {
                    let s = format!("{}.component_mul({})", self.recv(&l), self.by_ref(&r));
                    Self::owned(s, ATOM, l.b * r.b, sh)
                } else {
                    // Divided by elements at least 0.5.
                    let d = self.away_from_zero(r);
                    let s = format!("{}.component_div(&{})", self.recv(&l), d.s);
                    Self::owned(s, ATOM, l.b / 0.5, sh)
                }
            }
            NOp::TransposeExpr => {
                self.count(Construct::NaTranspose);
                let l = self.nexpr(sh.t(), depth - 1, true);
                let s = format!("{}.transpose()", self.recv(&l));
                Self::owned(s, ATOM, l.b, sh)
            }
        };
        self.squash(x)
    }

    /// `x` brought under [`CAP`]: scaled by a literal, or through `tanh`.
    fn squash(&mut self, x: NX) -> NX {
        self.squash_to(x, CAP)
    }

    fn squash_to(&mut self, x: NX, cap: f64) -> NX {
        if x.b <= cap {
            return x;
        }
        if self.on(Construct::NaMap) && self.chance(0.3) {
            self.count(Construct::NaMap);
            let c = fit(x.b, ARG_CAP);
            let body = if cap >= 1.0 {
                format!("{}.tanh()", times_e(c))
            } else {
                format!("{} * {}.tanh()", lit(cap), times_e(c))
            };
            let s = format!("{}.map(|e| {body})", self.recv(&x));
            return Self::built(s, cap.min(1.0), x.sh);
        }
        let c = fit(x.b, cap);
        let s = format!("{} * {}", self.opnd(&x, PROD), lit(c));
        Self::owned(s, PROD, x.b * c, x.sh)
    }

    /// `x` or a copy of it as a whole value (a variable is cloned, `x.clone()`).
    fn whole(&mut self, sh: Sh, depth: usize) -> NX {
        let x = self.nexpr(sh, depth, false);
        self.owned_form(x)
    }

    fn owned_form(&mut self, x: NX) -> NX {
        match x.form {
            Form::Owned => x,
            Form::Var(_) if self.on(Construct::NaClone) => {
                self.count(Construct::NaClone);
                let s = format!("{}.clone()", x.s);
                Self::owned(s, ATOM, x.b, x.sh)
            }
            Form::Var(_) => {
                let s = format!("{} * 1.0", self.opnd(&x, PROD));
                Self::owned(s, PROD, x.b, x.sh)
            }
            Form::View => {
                let s = format!("{} * 1.0", x.s);
                Self::owned(s, PROD, x.b, x.sh)
            }
        }
    }

    /// Inner dimensions `(k1, k2)` of a product giving `sh` whose factors `(sh.r, k1)` and
    /// `(k2, sh.c)` have constructors and may appear (for each size, the choices of fixed).
    fn product_splits(&self, sh: Sh) -> Vec<(Dim, Dim)> {
        let mut out = Vec::new();
        for n in 1..=DYN_MAX {
            for f1 in [false, true] {
                for f2 in [false, true] {
                    if (f1 || f2) && n > FIX_MAX {
                        continue;
                    }
                    let k1 = Dim { n, fixed: f1 };
                    let k2 = Dim { n, fixed: f2 };
                    if self.shape_ok(Sh::new(sh.r, k1)) && self.shape_ok(Sh::new(k2, sh.c)) {
                        out.push((k1, k2));
                    }
                }
            }
        }
        out
    }

    /// `l * r` of shape `sh`.
    fn matmul(&mut self, sh: Sh, depth: usize) -> NX {
        self.count(Construct::NaMatMul);
        let splits = self.product_splits(sh);
        // Mostly the inner dimension fixed as the outer ones are (`DMatrix * DMatrix`,
        // `Matrix3 * Vector3`), sometimes mixed (`DMatrix * Vector3`).
        let same: Vec<(Dim, Dim)> = splits
            .iter()
            .copied()
            .filter(|(k1, k2)| k1.fixed == sh.r.fixed && k2.fixed == sh.c.fixed)
            .collect();
        let (k1, k2) = if !same.is_empty() && self.chance(0.7) {
            self.pick(&same)
        } else {
            self.pick(&splits)
        };
        let l = self.nexpr(Sh::new(sh.r, k1), depth, true);
        let r = self.nexpr(Sh::new(k2, sh.c), depth, true);
        let s = format!("{} * {}", self.opnd(&l, PROD), self.opnd(&r, UNARY));
        Self::owned(s, PROD, k1.n as f64 * l.b * r.b, sh)
    }

    /// `x` multiplied or divided by a float: `x * t`, `t * x`, `x.scale(t)`, `x / d`.
    fn scaled(&mut self, x: NX) -> NX {
        self.count(Construct::NaScale);
        let t = self.small_sexpr();
        let sh = x.sh;
        match self.rng.gen_range(0..4) {
            0 => {
                let s = format!("{} * {}", self.opnd(&x, PROD), t.at(UNARY));
                Self::owned(s, PROD, x.b * t.b, sh)
            }
            1 if !t.konst => {
                let s = format!("{} * {}", t.at(PROD), self.opnd(&x, UNARY));
                Self::owned(s, PROD, x.b * t.b, sh)
            }
            2 => {
                let s = format!("{}.scale({})", self.recv(&x), t.s);
                Self::owned(s, ATOM, x.b * t.b, sh)
            }
            _ => {
                let d = self.divisor();
                let s = format!("{} / {}", self.opnd(&x, PROD), d.at(UNARY));
                Self::owned(s, PROD, x.b, sh)
            }
        }
    }

    /// `x.map(|e| ..)` with a smooth closure, sometimes capturing a float variable.
    fn map(&mut self, x: NX) -> NX {
        self.count(Construct::NaMap);
        let b = x.b;
        let captured: Vec<usize> = (0..self.svars.len())
            .filter(|&i| self.svars[i].bound <= CAP)
            .collect();
        let (body, nb) = match self.rng.gen_range(0..8) {
            0 => (format!("{}.tanh()", times_e(fit(b, ARG_CAP))), 1.0),
            1 => (format!("{}.sin()", times_e(fit(b, ARG_CAP))), 1.0),
            2 => {
                let c = fit(b * b, CAP);
                (format!("e * e * {}", lit(c)), b * b * c)
            }
            3 if !captured.is_empty() => {
                let i = self.pick(&captured);
                self.read_s(i);
                let t = self.svars[i].name.clone();
                (format!("({} + {t}).tanh()", times_e(fit(b, ARG_CAP))), 1.0)
            }
            4 if !captured.is_empty() => {
                let i = self.pick(&captured);
                self.read_s(i);
                let t = self.svars[i].name.clone();
                (format!("e * {t}"), b * self.svars[i].bound)
            }
            5 => (format!("e / (2.0 + {}.sin())", times_e(fit(b, ARG_CAP))), b),
            6 => {
                let c = fit(b, 1.5);
                (format!("{}.exp()", times_e(c)), (c * b).exp())
            }
            _ => ("(1.0 + e * e).sqrt()".to_string(), (1.0 + b * b).sqrt()),
        };
        let s = format!("{}.map(|e| {body})", self.recv(&x));
        Self::built(s, nb, x.sh)
    }

    /// `x` offset so that every element is at least 0.5: `x.add_scalar(c)` or a `map` into
    /// [1, 3]. Printed as a receiver.
    fn away_from_zero(&mut self, x: NX) -> NX {
        if !self.on(Construct::NaMap) || (self.on(Construct::NaAddScalar) && self.chance(0.6)) {
            if self.on(Construct::NaAddScalar) {
                self.count(Construct::NaAddScalar);
            }
            let off = half_up(x.b + 0.5);
            let s = format!("{}.add_scalar({})", self.recv(&x), lit(off));
            return Self::owned(s, ATOM, x.b + off, x.sh);
        }
        self.count(Construct::NaMap);
        let c = fit(x.b, ARG_CAP);
        let s = format!("{}.map(|e| 2.0 + {}.sin())", self.recv(&x), times_e(c));
        Self::built(s, 3.0, x.sh)
    }

    /// A constructor of shape `sh` (which has constructors).
    fn ctor(&mut self, sh: Sh) -> NX {
        let mut opts = vec![(0u8, 1.0)];
        if self.on(Construct::NaFromFn) {
            opts.push((1, 3.0));
        }
        if self.on(Construct::NaCtor) && sh.len() <= 9 {
            opts.push((2, 1.5));
        }
        if self.on(Construct::NaCtor) && self.on(Construct::NaConstValue) && sh.len() > 9 {
            opts.push((3, 0.3));
        }
        let pre = sh.dyn_prefix();
        // `DVector` and `RowDVector` built from data take their length from it.
        let data_pre = if sh.r.fixed != sh.c.fixed {
            String::new()
        } else {
            pre.clone()
        };
        match self.weighted(&opts) {
            1 => self.fn_ctor(sh),
            2 => {
                self.count(Construct::NaCtor);
                let long = sh.len() > 4;
                let items: Vec<SX> = (0..sh.len()).map(|_| self.elem_sexpr(long)).collect();
                let items = self.not_const(&items);
                let path = self.ctor_path(sh, items.iter().all(|x| x.konst));
                let b = items.iter().fold(0.0, |m: f64, x| m.max(x.b));
                let list: Vec<String> = items.iter().map(|x| x.s.clone()).collect();
                let list = list.join(", ");
                let fixed = sh.fully_fixed();
                let s = match self.rng.gen_range(0..4) {
                    0 if fixed => format!("{path}::new({list})"),
                    1 if !fixed => format!("{path}::from_vec({data_pre}vec![{list}])"),
                    2 => format!("{path}::from_column_slice({data_pre}&[{list}])"),
                    _ => format!("{path}::from_row_slice({data_pre}&[{list}])"),
                };
                Self::owned(s, ATOM, b, sh)
            }
            3 => {
                self.count(Construct::NaCtor);
                self.count(Construct::NaConstValue);
                let s = format!("{}::zeros({})", sh.typed_path(), pre.trim_end_matches(", "));
                Self::owned(s, ATOM, 0.0, sh)
            }
            _ => {
                let t = self.small_sexpr();
                let t = self.not_const(&[t]).remove(0);
                let path = self.ctor_path(sh, t.konst);
                let s = format!("{path}::from_element({pre}{})", t.s);
                Self::owned(s, ATOM, t.b, sh)
            }
        }
    }

    /// The elements of a constructor, one of them made `s` if all are literals and constant
    /// values are off (`na_const_value`).
    fn not_const(&mut self, items: &[SX]) -> Vec<SX> {
        let mut items = items.to_vec();
        if items.iter().all(|x| x.konst) && !self.on(Construct::NaConstValue) {
            let k = self.rng.gen_range(0..items.len());
            let vs = self.scalars();
            let i = self.pick(&vs);
            self.read_s(i);
            let b = self.svars[i].bound;
            let name = self.svars[i].name.clone();
            items[k] = self.cap_sexpr(
                SX {
                    s: name,
                    p: ATOM,
                    b,
                    konst: false,
                },
                CAP,
            );
        }
        items
    }

    /// The path of a constructor: with the element type if the elements are literals only (a
    /// constant value, counted as `na_const_value`), which nalgebra cannot infer otherwise.
    fn ctor_path(&mut self, sh: Sh, konst: bool) -> String {
        if konst {
            self.count(Construct::NaConstValue);
            sh.typed_path()
        } else {
            sh.path()
        }
    }

    /// `from_fn(|i, j| ..)`: elements of other values at `(i, j)` or `(j, i)`, the indices as
    /// floats, the float variables.
    fn fn_ctor(&mut self, sh: Sh) -> NX {
        self.count(Construct::NaFromFn);
        let saved = std::mem::take(&mut self.idx);
        self.idx = vec![("i".to_string(), sh.r.n), ("j".to_string(), sh.c.n)];
        let was = std::mem::replace(&mut self.closure, true);
        let body = self.sexpr(2);
        self.closure = was;
        self.idx = saved;
        let body = self.cap_sexpr(body, CAP);
        let body = self.not_const(&[body]).remove(0);
        let s = format!(
            "{}::from_fn({}|i, j| {})",
            self.ctor_path(sh, body.konst),
            sh.dyn_prefix(),
            body.s
        );
        Self::built(s, body.b, sh)
    }

    // ---- float expressions ----------------------------------------------------------------

    /// A float expression of small bound (the factor of a scaling, a constructor's fill).
    fn small_sexpr(&mut self) -> SX {
        let x = if self.chance(0.4) {
            SX::lit(self.pick(LITS))
        } else {
            self.sexpr(1)
        };
        self.cap_sexpr(x, 2.0)
    }

    /// An element of a constructor's list (a leaf in a long list).
    fn elem_sexpr(&mut self, leaf: bool) -> SX {
        if self.chance(0.3) {
            return SX::lit(self.pick(LITS));
        }
        let x = self.sexpr(usize::from(!leaf));
        self.cap_sexpr(x, CAP)
    }

    /// `x` scaled under `cap`.
    fn cap_sexpr(&mut self, x: SX, cap: f64) -> SX {
        if x.b <= cap {
            return x;
        }
        let c = fit(x.b, cap);
        SX {
            s: format!("{} * {}", lit(c), x.at(PROD)),
            p: PROD,
            b: x.b * c,
            konst: x.konst,
        }
    }

    /// A float of magnitude at most 1 (the factor of `h *= t`).
    fn unit_sexpr(&mut self) -> SX {
        if self.chance(0.4) {
            return SX::lit(self.pick(&[0.5, 0.75, 0.9, -0.5, -0.8]));
        }
        let x = self.sexpr(1);
        if x.konst {
            return SX::lit(0.5);
        }
        let c = fit(x.b, ARG_CAP);
        SX {
            s: format!("{}.tanh()", times(c, &x)),
            p: ATOM,
            b: 1.0,
            konst: false,
        }
    }

    /// A float at least 1: `(2.0 + (c * t).sin())` or a literal.
    fn divisor(&mut self) -> SX {
        if self.chance(0.3) {
            return SX::lit(self.pick(&[1.5, 2.0, 1.25, 4.0]));
        }
        let x = self.sexpr(1);
        if x.konst {
            return SX::lit(2.0);
        }
        let c = fit(x.b, ARG_CAP);
        SX {
            s: format!("(2.0 + {}.sin())", times(c, &x)),
            p: ATOM,
            b: 3.0,
            konst: false,
        }
    }

    /// Float variables an expression may read (the newest of each name).
    fn scalars(&self) -> Vec<usize> {
        (0..self.svars.len())
            .filter(|&i| {
                !self.svars[i + 1..]
                    .iter()
                    .any(|w| w.name == self.svars[i].name)
            })
            .collect()
    }

    /// Nalgebra variables an expression may read.
    fn readable(&self) -> Vec<usize> {
        (0..self.nvars.len())
            .filter(|&i| {
                self.exclude != Some(i)
                    && !self.nvars[i + 1..]
                        .iter()
                        .any(|w| w.name == self.nvars[i].name)
            })
            .collect()
    }

    /// A float expression of depth at most `depth`.
    fn sexpr(&mut self, depth: usize) -> SX {
        self.level += 1;
        let depth = if self.level > MAX_LEVEL { 0 } else { depth };
        let x = self.sexpr_at(depth);
        self.level -= 1;
        x
    }

    fn sexpr_at(&mut self, depth: usize) -> SX {
        let mut opts: Vec<(SOp, f64)> = vec![(SOp::Scalar, 2.0), (SOp::Lit, 0.5)];
        let readable = !self.readable().is_empty();
        if readable && self.on(Construct::NaElemRead) {
            opts.push((SOp::Elem, if self.closure { 4.0 } else { 2.0 }));
        }
        if readable && (!self.closure || self.chance(0.3)) {
            opts.push((SOp::Reduce, if self.closure { 0.3 } else { 2.0 }));
        }
        if !self.idx.is_empty() {
            opts.push((SOp::IndexCast, 0.5));
        }
        if readable && self.on(Construct::NaDims) {
            opts.push((SOp::Dims, 0.2));
        }
        if depth > 0 {
            opts.extend([
                (SOp::Add, 1.0),
                (SOp::Sub, 0.6),
                (SOp::Mul, 1.0),
                (SOp::Smooth, 0.8),
                (SOp::Div, 0.3),
            ]);
        }
        let x = match self.weighted(&opts) {
            SOp::Scalar => {
                let vs = self.scalars();
                let i = self.pick(&vs);
                self.read_s(i);
                SX {
                    s: self.svars[i].name.clone(),
                    p: ATOM,
                    b: self.svars[i].bound,
                    konst: false,
                }
            }
            SOp::Lit => SX::lit(self.pick(LITS)),
            SOp::Elem => self.elem_read(),
            SOp::Reduce => self.reduce_any(),
            SOp::IndexCast => {
                let (name, lim) = self.pick(&self.idx.clone());
                SX {
                    s: format!("({name} as f64 * 0.25)"),
                    p: ATOM,
                    b: (lim as f64 - 1.0) * 0.25,
                    konst: false,
                }
            }
            SOp::Dims => {
                self.count(Construct::NaDims);
                let vs = self.readable();
                let i = self.pick(&vs);
                let sh = self.nvars[i].sh;
                let (m, n) = match self.rng.gen_range(0..3) {
                    0 => ("nrows", sh.r.n),
                    1 => ("ncols", sh.c.n),
                    _ => ("len", sh.len()),
                };
                SX {
                    s: format!("({}.{m}() as f64 * 0.25)", self.nvars[i].name),
                    p: ATOM,
                    b: n as f64 * 0.25,
                    konst: false,
                }
            }
            SOp::Add | SOp::Sub => {
                let a = self.sexpr(depth - 1);
                let b = self.sexpr(depth - 1);
                let op = if self.weighted(&[(0, 1.0), (1, 0.6)]) == 0 {
                    "+"
                } else {
                    "-"
                };
                SX {
                    s: format!("{} {op} {}", a.at(SUM), b.at(PROD)),
                    p: SUM,
                    b: a.b + b.b,
                    konst: a.konst && b.konst,
                }
            }
            SOp::Mul => {
                let a = self.sexpr(depth - 1);
                let b = self.sexpr(depth - 1);
                SX {
                    s: format!("{} * {}", a.at(PROD), b.at(UNARY)),
                    p: PROD,
                    b: a.b * b.b,
                    konst: a.konst && b.konst,
                }
            }
            SOp::Smooth => {
                let a = self.sexpr(depth - 1);
                if a.konst {
                    a
                } else {
                    let f = self.pick(&["tanh", "sin", "cos"]);
                    let c = fit(a.b, ARG_CAP);
                    SX {
                        s: format!("{}.{f}()", times(c, &a)),
                        p: ATOM,
                        b: 1.0,
                        konst: false,
                    }
                }
            }
            SOp::Div => {
                let a = self.sexpr(depth - 1);
                let d = self.divisor();
                SX {
                    s: format!("{} / {}", a.at(PROD), d.at(UNARY)),
                    p: PROD,
                    b: a.b,
                    konst: a.konst && d.konst,
                }
            }
        };
        self.cap_sexpr(x, CAP)
    }

    /// An element of a nalgebra variable: `m[(i, j)]`, `v[i]`.
    fn elem_read(&mut self) -> SX {
        self.count(Construct::NaElemRead);
        let vs = self.readable();
        let i = self.pick(&vs);
        self.read_n(i);
        let sh = self.nvars[i].sh;
        let name = self.nvars[i].name.clone();
        let s = if sh.column() && self.chance(0.6) {
            format!("{name}[{}]", self.index_below(sh.r.n))
        } else {
            let r = self.index_below(sh.r.n);
            let c = self.index_below(sh.c.n);
            format!("{name}[({r}, {c})]")
        };
        SX {
            s,
            p: ATOM,
            b: self.nvars[i].bound,
            konst: false,
        }
    }

    /// A reduction of a variable or (outside closures) of a small expression.
    fn reduce_any(&mut self) -> SX {
        let x = if !self.closure && self.level < MAX_LEVEL && self.chance(0.35) {
            let sh = self.target_shape();
            self.nexpr(sh, 1, true)
        } else {
            let vs = self.readable();
            let i = self.pick(&vs);
            self.read_n(i);
            NX {
                s: self.nvars[i].name.clone(),
                p: ATOM,
                b: self.nvars[i].bound,
                sh: self.nvars[i].sh,
                form: Form::Var(i),
                built: false,
            }
        };
        self.reduce(x)
    }

    /// A float from a nalgebra value: `sum`, `mean`, `norm_squared`, `dot`, `norm` of the
    /// value offset from zero, or an element.
    fn reduce(&mut self, x: NX) -> SX {
        let n = x.sh.len() as f64;
        let mut opts = vec![(0u8, 1.0)];
        if self.on(Construct::NaReduce) {
            opts.extend([(1, 0.6), (2, 0.8)]);
        }
        if self.on(Construct::NaDot) && !self.closure {
            opts.push((3, 1.0));
        }
        if self.on(Construct::NaNorm)
            && !self.closure
            && (self.on(Construct::NaAddScalar) || self.on(Construct::NaMap))
        {
            opts.push((4, 0.8));
        }
        if self.on(Construct::NaElemRead) && matches!(x.form, Form::Var(_)) {
            opts.push((5, 0.5));
        }
        // (The macro iterates over variables only: `(a * b).iter()` is a compile error
        // asking for a sequence variable.)
        if self.on(Construct::NaIter) && !self.closure && matches!(x.form, Form::Var(_)) {
            opts.push((6, 0.8));
        }
        // `determinant` needs a square type: fixed sizes alike, or a `DMatrix` square when run.
        let square_type = x.sh.r.n == x.sh.c.n && x.sh.r.fixed == x.sh.c.fixed;
        if self.on(Construct::NaDet) && !self.closure && square_type {
            opts.push((7, 0.6));
        }
        match self.weighted(&opts) {
            1 => {
                self.count(Construct::NaReduce);
                SX {
                    s: format!("{}.mean()", self.recv(&x)),
                    p: ATOM,
                    b: x.b,
                    konst: false,
                }
            }
            2 => {
                self.count(Construct::NaReduce);
                SX {
                    s: format!("{}.norm_squared()", self.recv(&x)),
                    p: ATOM,
                    b: n * x.b * x.b,
                    konst: false,
                }
            }
            3 => {
                self.count(Construct::NaDot);
                let ys = self.dot_shape(x.sh);
                let y = self.nexpr(ys, 1, true);
                SX {
                    s: format!("{}.dot({})", self.recv(&x), self.by_ref(&y)),
                    p: ATOM,
                    b: n * x.b * y.b,
                    konst: false,
                }
            }
            4 => {
                self.count(Construct::NaNorm);
                let y = self.away_from_zero(x);
                SX {
                    s: format!("{}.norm()", y.s),
                    p: ATOM,
                    b: n.sqrt() * y.b,
                    konst: false,
                }
            }
            5 => {
                self.count(Construct::NaElemRead);
                let sh = x.sh;
                let r = self.index_below(sh.r.n);
                let c = self.index_below(sh.c.n);
                SX {
                    s: format!("{}[({r}, {c})]", x.s),
                    p: ATOM,
                    b: x.b,
                    konst: false,
                }
            }
            6 => {
                // Iteration is column-major, as the storage.
                self.count(Construct::NaIter);
                let it = format!("{}.iter()", self.recv(&x));
                match self.rng.gen_range(0..3) {
                    0 => SX {
                        s: format!("{it}.sum::<f64>()"),
                        p: ATOM,
                        b: n * x.b,
                        konst: false,
                    },
                    1 => {
                        let c = fit(x.b, ARG_CAP);
                        SX {
                            s: format!("{it}.map(|&e| {}.tanh()).sum::<f64>()", times_e(c)),
                            p: ATOM,
                            b: n,
                            konst: false,
                        }
                    }
                    _ => {
                        // Zipped with a variable of as many elements.
                        let len = x.sh.len();
                        let ys: Vec<usize> = self
                            .readable()
                            .into_iter()
                            .filter(|&i| self.nvars[i].sh.len() == len)
                            .collect();
                        let j = self.pick(&ys);
                        self.read_n(j);
                        SX {
                            s: format!(
                                "{it}.zip({}.iter()).map(|(p, q)| p * q).sum::<f64>()",
                                self.nvars[j].name
                            ),
                            p: ATOM,
                            b: n * x.b * self.nvars[j].bound,
                            konst: false,
                        }
                    }
                }
            }
            7 => {
                // Hadamard's bound: |det| <= (sqrt(n) max |a_ij|)^n.
                self.count(Construct::NaDet);
                let k = x.sh.r.n as i32;
                SX {
                    s: format!("{}.determinant()", self.recv(&x)),
                    p: ATOM,
                    b: ((k as f64).sqrt() * x.b).powi(k).max(1.0),
                    konst: false,
                }
            }
            _ => SX {
                s: format!("{}.sum()", self.recv(&x)),
                p: ATOM,
                b: n * x.b,
                konst: false,
            },
        }
    }

    // ---- statements -----------------------------------------------------------------------

    fn mutable_n(&self) -> Vec<usize> {
        self.readable()
            .into_iter()
            .filter(|&i| self.nvars[i].mutable)
            .collect()
    }

    fn mutable_s(&self) -> Vec<usize> {
        self.scalars()
            .into_iter()
            .filter(|&i| self.svars[i].mutable)
            .collect()
    }

    /// One statement at the top level or in a block; gives the budget it used.
    fn stmt(&mut self, in_block: bool) -> i32 {
        let mut opts: Vec<(NSt, f64)> = Vec::new();
        if !in_block {
            opts.extend([
                (NSt::Let, 3.0),
                (NSt::LetMut, 1.5),
                (NSt::ScalarLet, 1.0),
                (NSt::Acc, 0.5),
            ]);
        }
        let w = if in_block { 0.3 } else { 1.0 };
        if self.on(Construct::NaLoop) && self.nest < 2 {
            opts.push((NSt::Loop, 1.5 * w));
        }
        if self.on(Construct::NaBranch) && self.nest < 2 {
            opts.push((NSt::Branch, w));
        }
        if !self.mutable_n().is_empty() {
            opts.push((NSt::Assign, if in_block { 2.0 } else { 1.0 }));
            if self.on(Construct::NaCompound) {
                opts.push((NSt::Compound, 1.5));
            }
            if self.on(Construct::NaElemWrite) {
                opts.push((NSt::ElemWrite, 1.0));
            }
        }
        if !self.mutable_s().is_empty() {
            opts.push((NSt::AccAdd, 0.8));
        }
        if opts.is_empty() {
            // A block with nothing to write: declare nothing, read something into nothing.
            self.ensure_mutable();
            return self.stmt(true);
        }
        match self.weighted(&opts) {
            NSt::Let => {
                let sh = self.target_shape();
                let depth = self.rng.gen_range(1..=2);
                let x = self.whole(sh, depth);
                // Sometimes the name of a visible nalgebra variable (an argument too).
                let names: Vec<String> = self
                    .readable()
                    .iter()
                    .map(|&i| self.nvars[i].name.clone())
                    .collect();
                let name = if self.on(Construct::NaShadow) && self.chance(0.15) {
                    self.count(Construct::NaShadow);
                    self.pick(&names)
                } else {
                    self.fresh("x")
                };
                let ty = self.let_type(sh);
                self.line(format!("let {name}{ty} = {};", x.s));
                self.declare_n(name, sh, false, x.b, 0.0);
                1
            }
            NSt::LetMut => {
                self.let_mut();
                1
            }
            NSt::ScalarLet => {
                let x = self.sexpr(2);
                let name = self.fresh("t");
                let ty = if x.konst { ": f64" } else { "" };
                self.line(format!("let {name}{ty} = {};", x.s));
                self.declare_s(name, false, x.b, 0.0);
                1
            }
            NSt::Acc => {
                let x = if self.chance(0.5) {
                    SX::lit(0.0)
                } else {
                    self.sexpr(1)
                };
                let name = self.fresh("acc");
                let ty = if x.konst { ": f64" } else { "" };
                self.line(format!("let mut {name}{ty} = {};", x.s));
                let room = self.pick(&[4.0, 8.0]);
                self.declare_s(name, true, x.b.max(1.0), room);
                1
            }
            NSt::Assign => {
                let vs = self.mutable_n();
                let i = self.pick(&vs);
                self.assign(i);
                1
            }
            NSt::Compound => {
                let vs = self.mutable_n();
                let i = self.pick(&vs);
                self.compound(i);
                1
            }
            NSt::ElemWrite => {
                let vs = self.mutable_n();
                let i = self.pick(&vs);
                self.elem_write(i);
                1
            }
            NSt::AccAdd => {
                let vs = self.mutable_s();
                let i = self.pick(&vs);
                self.acc_add(i);
                1
            }
            NSt::Loop => self.for_loop(),
            NSt::Branch => self.branch(),
        }
    }

    fn declare_n(&mut self, name: String, sh: Sh, mutable: bool, base: f64, room: f64) {
        self.nvars.push(NVar {
            name,
            sh,
            by_ref: false,
            mutable,
            bound: base + room,
            base,
            room,
            dirty: true,
        });
    }

    fn declare_s(&mut self, name: String, mutable: bool, base: f64, room: f64) {
        self.svars.push(SVar {
            name,
            mutable,
            bound: base + room,
            base,
            room,
            dirty: true,
        });
    }

    /// `let mut h = ..;` (a value, or zeros to be written element by element).
    fn let_mut(&mut self) {
        let sh = self.target_shape();
        let name = self.fresh("h");
        let zeros = self.on(Construct::NaCtor) && self.on(Construct::NaConstValue);
        let (s, b) = if sh.canonical() && zeros && self.chance(0.2) {
            self.count(Construct::NaCtor);
            self.count(Construct::NaConstValue);
            self.count_shape(sh);
            let pre = sh.dyn_prefix();
            let s = format!("{}::zeros({})", sh.typed_path(), pre.trim_end_matches(", "));
            (s, 0.0)
        } else {
            let depth = self.rng.gen_range(1..=2);
            let x = self.whole(sh, depth);
            if !x.built {
                (x.s, x.b)
            } else if self.on(Construct::NaMutBuilt) {
                self.count(Construct::NaMutBuilt);
                (x.s, x.b)
            } else {
                // (Made by an operation the macro does not build in place.)
                (format!("{} * 1.0", self.opnd(&x, PROD)), x.b)
            }
        };
        let ty = self.let_type(sh);
        self.line(format!("let mut {name}{ty} = {s};"));
        let room = self.pick(&[1.0, 2.0, 4.0]);
        self.declare_n(name, sh, true, half_up(b.max(1.0)), room);
    }

    /// The type of a `let` of shape `sh`, sometimes written (`: DMatrix<f64>`).
    fn let_type(&mut self, sh: Sh) -> String {
        if self.on(Construct::NaTypedLet) && sh.canonical() && self.chance(0.2) {
            self.count(Construct::NaTypedLet);
            format!(": {}", sh.ty())
        } else {
            String::new()
        }
    }

    /// Declares a mutable nalgebra local if there is none.
    fn ensure_mutable(&mut self) {
        if self.mutable_n().is_empty() {
            self.let_mut();
        }
    }

    /// `h = ..;` with a value of `h`'s shape under its base; reads `h` itself most of the time
    /// (`h = (a * &h).map(..)`).
    fn assign(&mut self, i: usize) {
        let sh = self.nvars[i].sh;
        let base = self.nvars[i].base;
        let x = if self.chance(0.7) {
            self.update_of(i)
        } else {
            self.whole(sh, 2)
        };
        let x = self.squash_to(x, base);
        let x = self.owned_form(x);
        let name = self.nvars[i].name.clone();
        self.line(format!("{name} = {};", x.s));
        self.nvars[i].dirty = true;
    }

    /// A new value of `h`'s shape computed from `h`: one or two of `q * h`, `h * q`, `h + r`,
    /// `map`, a scaling, `component_mul`, `add_scalar`.
    fn update_of(&mut self, i: usize) -> NX {
        self.read_n(i);
        let sh = self.nvars[i].sh;
        let mut x = NX {
            s: self.nvars[i].name.clone(),
            p: ATOM,
            b: self.nvars[i].bound,
            sh,
            form: Form::Var(i),
            built: false,
        };
        for _ in 0..self.rng.gen_range(1..=2) {
            let mut opts = vec![(0u8, 1.5)];
            if self.on(Construct::NaMatMul) {
                // `q * h`: q of shape (h's rows, k) with k the size of h's rows; `h * q` alike.
                opts.push((1, 1.5));
                opts.push((2, 1.0));
            }
            if self.on(Construct::NaMap) {
                opts.push((3, 1.5));
            }
            if self.on(Construct::NaScale) {
                opts.push((4, 0.7));
            }
            if self.on(Construct::NaComponent) {
                opts.push((5, 0.5));
            }
            if self.on(Construct::NaAddScalar) {
                opts.push((6, 0.4));
            }
            x = match self.weighted(&opts) {
                1 | 2 => {
                    self.count(Construct::NaMatMul);
                    let left = self.weighted(&[(true, 1.0), (false, 1.0)]);
                    // The factor's other dimension is h's (so the product keeps h's type), its
                    // inner one has h's size, fixed or not.
                    let (outer, inner) = if left { (sh.r, sh.r) } else { (sh.c, sh.c) };
                    let mut k = inner;
                    if self.chance(0.25) {
                        k.fixed = !k.fixed;
                    }
                    let qs = if left {
                        Sh::new(outer, k)
                    } else {
                        Sh::new(k, outer)
                    };
                    let qs = if self.shape_ok(qs) {
                        qs
                    } else if left {
                        Sh::new(outer, inner)
                    } else {
                        Sh::new(inner, outer)
                    };
                    if !self.shape_ok(qs) && self.vars_of(qs).is_empty() {
                        // (h of a type without constructors: leave the product out.)
                        x
                    } else {
                        let q = self.nexpr(qs, 1, true);
                        let s = if left {
                            format!("{} * {}", self.opnd(&q, PROD), self.opnd(&x, UNARY))
                        } else {
                            format!("{} * {}", self.opnd(&x, PROD), self.opnd(&q, UNARY))
                        };
                        Self::owned(s, PROD, inner.n as f64 * q.b * x.b, sh)
                    }
                }
                3 => self.map(x),
                4 => self.scaled(x),
                5 => {
                    self.count(Construct::NaComponent);
                    let rs = self.compat(sh);
                    let r = self.nexpr(rs, 1, true);
                    let s = format!("{}.component_mul({})", self.recv(&x), self.by_ref(&r));
                    Self::owned(s, ATOM, x.b * r.b, sh)
                }
                6 => {
                    self.count(Construct::NaAddScalar);
                    let t = self.small_sexpr();
                    let s = format!("{}.add_scalar({})", self.recv(&x), t.s);
                    Self::owned(s, ATOM, x.b + t.b, sh)
                }
                _ => {
                    let rs = self.compat(sh);
                    let r = self.nexpr(rs, 1, true);
                    let s = format!("{} + {}", self.opnd(&x, SUM), self.opnd(&r, PROD));
                    Self::owned(s, SUM, x.b + r.b, sh)
                }
            };
            x = self.squash(x);
        }
        x
    }

    /// `h += r;`, `h -= r;`, `h *= t;`, `h /= d;`, `h *= q;` (q square).
    fn compound(&mut self, i: usize) {
        self.count(Construct::NaCompound);
        let sh = self.nvars[i].sh;
        let name = self.nvars[i].name.clone();
        let room = self.nvars[i].room;
        let mut opts = vec![(0u8, 1.0), (1, 0.6), (2, 0.6)];
        if room > 0.0 {
            opts.push((3, 2.0));
        }
        let q_shape = Sh::new(sh.c, sh.c);
        let mut q_shape_k = q_shape;
        q_shape_k.r.fixed = !q_shape_k.r.fixed;
        let q_ok = self.shape_ok(q_shape) || self.shape_ok(q_shape_k);
        if self.on(Construct::NaMatMul) && q_ok && sh.c.n > 1 {
            opts.push((4, 1.0));
        }
        // The right side may not name `h` (it is borrowed mutably by the operator).
        self.exclude = Some(i);
        match self.weighted(&opts) {
            0 => {
                let t = self.unit_sexpr();
                self.line(format!("{name} *= {};", t.s));
            }
            1 => {
                let d = self.divisor();
                self.line(format!("{name} /= {};", d.s));
            }
            3 => {
                let rs = self.compat(sh);
                let r = self.nexpr(rs, 1, true);
                let charge = r.b * self.k_mult;
                let (rhs, used) = if charge <= room {
                    (self.opnd(&r, SUM), charge)
                } else {
                    let c = fit(charge, room);
                    (format!("{} * {}", self.opnd(&r, PROD), lit(c)), charge * c)
                };
                if used <= room {
                    let op = if self.chance(0.6) { "+=" } else { "-=" };
                    self.line(format!("{name} {op} {rhs};"));
                    self.nvars[i].room -= used;
                } else {
                    self.line(format!("{name} *= 0.5;"));
                }
            }
            4 => {
                self.count(Construct::NaMatMul);
                let qs =
                    if self.shape_ok(q_shape) && (self.chance(0.7) || !self.shape_ok(q_shape_k)) {
                        q_shape
                    } else {
                        q_shape_k
                    };
                let q = self.nexpr(qs, 1, true);
                // Each element of h q is a sum of n products: q scaled so that n |q| <= 1.
                let n = sh.c.n as f64;
                let c = fit(n * q.b, 1.0);
                let rhs = if c == 1.0 {
                    self.opnd(&q, SUM)
                } else {
                    format!("{} * {}", self.opnd(&q, PROD), lit(c))
                };
                self.line(format!("{name} *= {rhs};"));
            }
            _ => {
                let t = self.unit_sexpr();
                self.line(format!("{name} *= {};", t.s));
            }
        }
        self.exclude = None;
        self.nvars[i].dirty = true;
    }

    /// `h[(i, j)] = e;`, `h[(i, j)] += e;`, `v[i] = e;`.
    fn elem_write(&mut self, i: usize) {
        self.count(Construct::NaElemWrite);
        let sh = self.nvars[i].sh;
        let name = self.nvars[i].name.clone();
        let place = if sh.column() && self.chance(0.5) {
            format!("{name}[{}]", self.index_below(sh.r.n))
        } else {
            let r = self.index_below(sh.r.n);
            let c = self.index_below(sh.c.n);
            format!("{name}[({r}, {c})]")
        };
        let x = self.sexpr(2);
        let room = self.nvars[i].room;
        let charge = x.b * self.k_mult;
        if self.chance(0.4) && room > 0.0 {
            let c = fit(charge, room);
            if charge * c <= room {
                let x = if c == 1.0 {
                    x
                } else {
                    SX {
                        s: format!("{} * {}", lit(c), x.at(PROD)),
                        p: PROD,
                        b: x.b * c,
                        konst: x.konst,
                    }
                };
                self.line(format!("{place} += {};", x.s));
                self.nvars[i].room -= charge * c;
                self.nvars[i].dirty = true;
                return;
            }
        }
        let base = self.nvars[i].base;
        let x = self.cap_sexpr(x, base);
        self.line(format!("{place} = {};", x.s));
        self.nvars[i].dirty = true;
    }

    /// `acc += e;` within the accumulator's room.
    fn acc_add(&mut self, i: usize) {
        let name = self.svars[i].name.clone();
        let x = self.sexpr(2);
        let room = self.svars[i].room;
        let charge = x.b * self.k_mult;
        let c = fit(charge, room);
        if charge * c <= room {
            let rhs = if c == 1.0 {
                x.s
            } else {
                format!("{} * {}", lit(c), x.at(PROD))
            };
            let op = if self.chance(0.7) { "+=" } else { "-=" };
            self.line(format!("{name} {op} {rhs};"));
            self.svars[i].room -= charge * c;
        } else {
            let x = self.cap_sexpr(x, self.svars[i].base);
            self.line(format!("{name} = {};", x.s));
        }
        self.svars[i].dirty = true;
    }

    /// A block of 1 to 3 writes to the variables outside it.
    fn block(&mut self) {
        let (n_mark, s_mark) = (self.nvars.len(), self.svars.len());
        self.indent += 1;
        self.nest += 1;
        for _ in 0..self.rng.gen_range(1..=3) {
            self.stmt(true);
        }
        self.nest -= 1;
        self.indent -= 1;
        self.nvars.truncate(n_mark);
        self.svars.truncate(s_mark);
    }

    /// `for _ in 0..k { .. }`, `for li in 0..k { .. }` or `for li in 0..x.nrows() { .. }`;
    /// the body reassigns a nalgebra local (same dimensions) and writes others.
    fn for_loop(&mut self) -> i32 {
        self.count(Construct::NaLoop);
        self.ensure_mutable();
        let form = self.rng.gen_range(0..3);
        let (head, trips, index) = match form {
            0 => {
                let k = self.rng.gen_range(2..=4);
                (format!("for _ in 0..{k} {{"), k, None)
            }
            2 if self.on(Construct::NaDims) => {
                self.count(Construct::NaDims);
                let vs = self.readable();
                let v = self.pick(&vs);
                let sh = self.nvars[v].sh;
                let (m, n) = match self.rng.gen_range(0..3) {
                    0 => ("nrows", sh.r.n),
                    1 => ("ncols", sh.c.n),
                    _ => ("len", sh.len()),
                };
                let li = self.fresh("li");
                let head = format!("for {li} in 0..{}.{m}() {{", self.nvars[v].name);
                (head, n, Some((li, n)))
            }
            _ => {
                let k = self.rng.gen_range(2..=4);
                let li = self.fresh("li");
                (format!("for {li} in 0..{k} {{"), k, Some((li, k)))
            }
        };
        self.line(head);
        let saved = self.k_mult;
        self.k_mult *= trips as f64;
        let indexed = index.is_some();
        if let Some(ix) = index {
            self.idx.push(ix);
        }
        // The reassignment first, then a few more writes.
        self.indent += 1;
        let vs = self.mutable_n();
        let h = self.pick(&vs);
        self.assign(h);
        self.indent -= 1;
        if self.chance(0.6) {
            self.block();
        }
        if indexed {
            self.idx.pop();
        }
        self.k_mult = saved;
        self.line("}");
        3
    }

    /// `if cond { .. } else { .. }` on the float argument or a computed float.
    fn branch(&mut self) -> i32 {
        self.count(Construct::NaBranch);
        self.ensure_mutable();
        let t = self.pick(&[-0.5, -0.25, 0.0, 0.25, 0.5]);
        let cond = match self.rng.gen_range(0..3) {
            0 => format!("s > {}", lit(t)),
            1 => {
                let x = self.sexpr(1);
                format!("{} > {}", x.at(SUM), lit(t))
            }
            _ => {
                let x = self.sexpr(1);
                let y = self.sexpr(1);
                format!("{} < {}", x.at(SUM), y.at(SUM))
            }
        };
        self.line(format!("if {cond} {{"));
        self.block();
        // A `DMatrix` output returns one value (the macro rebuilds it with the dimensions of
        // the values returned, which must be written alike).
        let one_return = matches!(self.out, Out::Vector(sh) if !sh.r.fixed && !sh.c.fixed);
        if self.on(Construct::NaEarlyReturn) && !one_return && self.chance(0.25) {
            self.count(Construct::NaEarlyReturn);
            self.indent += 1;
            let value = self.value(self.out);
            self.line(format!("return {value};"));
            self.indent -= 1;
        }
        if self.chance(0.6) {
            self.line("} else {");
            self.block();
        }
        self.line("}");
        3
    }

    // ---- the function ---------------------------------------------------------------------

    /// Arguments: one to three nalgebra values and `s`, in any order.
    fn params(&mut self) -> Vec<P> {
        let n = self.rng.gen_range(1..=3);
        let mut params = Vec::new();
        for name in &ARG_NAMES[..n] {
            let fixed = match (self.on(Construct::NaFixed), self.on(Construct::NaDynamic)) {
                (true, true) => self.chance(0.45),
                (f, _) => f,
            };
            let sh = if fixed {
                self.pick(&[
                    Sh::new(fix(2), fix(2)),
                    Sh::new(fix(3), fix(3)),
                    Sh::new(fix(2), fix(1)),
                    Sh::new(fix(3), fix(1)),
                    Sh::new(fix(2), fix(2)),
                    Sh::new(fix(3), fix(1)),
                    Sh::new(fix(2), fix(3)),
                ])
            } else if self.chance(0.4) {
                Sh::new(dyn_(self.rng.gen_range(1..=DYN_MAX)), fix(1))
            } else {
                let r = self.rng.gen_range(1..=DYN_MAX);
                Sh::new(dyn_(r), dyn_(self.rng.gen_range(1..=DYN_MAX)))
            };
            self.count_shape(sh);
            let by_ref = !self.on(Construct::NaByValue) || self.chance(0.7);
            if !by_ref {
                self.count(Construct::NaByValue);
            }
            let active = !self.on(Construct::NaWrt) || self.chance(0.75);
            if !active {
                self.count(Construct::NaWrt);
            }
            params.push(P::Na(Arg {
                name: name.to_string(),
                sh,
                by_ref,
                active,
            }));
        }
        let at = self.rng.gen_range(0..=params.len());
        params.insert(at, P::Scalar);
        for p in &params {
            match p {
                P::Na(a) => self.nvars.push(NVar {
                    name: a.name.clone(),
                    sh: a.sh,
                    by_ref: a.by_ref,
                    mutable: false,
                    bound: 1.0,
                    base: 1.0,
                    room: 0.0,
                    dirty: true,
                }),
                P::Scalar => self.declare_s("s".into(), false, 1.0, 0.0),
            }
        }
        params
    }

    fn out_kind(&mut self) -> Out {
        let r: f64 = self.rng.gen();
        if r < 0.2 && self.on(Construct::NaVecOut) && self.on(Construct::NaDynamic) {
            self.count(Construct::NaVecOut);
            self.count(Construct::NaDynamic);
            Out::Vector(Sh::new(dyn_(self.rng.gen_range(1..=DYN_MAX)), fix(1)))
        } else if r < 0.3 && self.on(Construct::NaMatOut) && self.on(Construct::NaDynamic) {
            self.count(Construct::NaMatOut);
            self.count(Construct::NaDynamic);
            let (r, c) = (
                self.rng.gen_range(1..=DYN_MAX),
                self.rng.gen_range(1..=DYN_MAX),
            );
            Out::Vector(Sh::new(dyn_(r), dyn_(c)))
        } else if r < 0.45 && self.on(Construct::NaFixedOut) && self.on(Construct::NaFixed) {
            self.count(Construct::NaFixedOut);
            self.count(Construct::NaFixed);
            let n = self.rng.gen_range(2..=3);
            Out::Vector(Sh::new(fix(n), fix(1)))
        } else {
            Out::F64
        }
    }

    /// A value of the output type (an early `return`'s).
    fn value(&mut self, out: Out) -> String {
        match out {
            Out::F64 => self.sexpr(2).s,
            Out::Vector(sh) => self.whole(sh, 1).s,
        }
    }

    /// The value: the terms of every variable written since last read, and of the arguments
    /// never read (so derivatives reach them), then the output.
    fn tail(&mut self, out: Out) -> String {
        let mut terms: Vec<SX> = Vec::new();
        for i in self.readable() {
            if self.nvars[i].dirty {
                self.read_n(i);
                let x = NX {
                    s: self.nvars[i].name.clone(),
                    p: ATOM,
                    b: self.nvars[i].bound,
                    sh: self.nvars[i].sh,
                    form: Form::Var(i),
                    built: false,
                };
                terms.push(self.reduce(x));
            }
        }
        for i in self.scalars() {
            if self.svars[i].dirty {
                self.read_s(i);
                terms.push(SX {
                    s: self.svars[i].name.clone(),
                    p: ATOM,
                    b: self.svars[i].bound,
                    konst: false,
                });
            }
        }
        let sum = |terms: &[SX]| -> String {
            let parts: Vec<String> = terms.iter().map(|t| t.at(PROD)).collect();
            parts.join(" + ")
        };
        match out {
            Out::F64 => {
                if terms.is_empty() || self.chance(0.3) {
                    terms.push(self.sexpr(2));
                }
                sum(&terms)
            }
            Out::Vector(sh) => {
                if self.on(Construct::NaReturnVar) && self.chance(0.4) {
                    self.count(Construct::NaReturnVar);
                    return self.return_var(sh, &terms);
                }
                let x = self.whole(sh, 2);
                if terms.is_empty() {
                    x.s
                } else if self.on(Construct::NaAddScalar) {
                    self.count(Construct::NaAddScalar);
                    format!("{}.add_scalar({})", self.recv(&x), sum(&terms))
                } else {
                    let total: f64 = terms.iter().map(|t| t.b).sum();
                    let c = fit(total, ARG_CAP);
                    format!(
                        "{} + {}::from_element({}({} * ({})).tanh())",
                        self.opnd(&x, SUM),
                        sh.path(),
                        sh.dyn_prefix(),
                        lit(c),
                        sum(&terms)
                    )
                }
            }
        }
    }

    /// The output returned as a variable: a mutable local of the output's type given the terms
    /// by `+=` (then returned as it is), or a new `let` of the value.
    fn return_var(&mut self, sh: Sh, terms: &[SX]) -> String {
        let total: String = terms
            .iter()
            .map(|t| t.at(PROD))
            .collect::<Vec<String>>()
            .join(" + ");
        let muts: Vec<usize> = self
            .vars_of(sh)
            .into_iter()
            .filter(|&i| self.nvars[i].mutable)
            .collect();
        if !muts.is_empty() && (terms.is_empty() || self.on(Construct::NaCompound)) {
            let i = self.pick(&muts);
            let name = self.nvars[i].name.clone();
            if !terms.is_empty() {
                self.count(Construct::NaCompound);
                self.line(format!(
                    "{name} += {}::from_element({}{total});",
                    sh.path(),
                    sh.dyn_prefix()
                ));
            }
            return name;
        }
        let x = self.whole(sh, 2);
        let value = if terms.is_empty() {
            x.s
        } else {
            format!(
                "{} + {}::from_element({}{total})",
                self.opnd(&x, SUM),
                sh.path(),
                sh.dyn_prefix()
            )
        };
        let name = self.fresh("y");
        self.line(format!("let {name} = {value};"));
        name
    }

    fn program(mut self, name: String, k: usize) -> NaOut {
        let params = self.params();
        let out = self.out_kind();
        self.out = out;
        let mut budget: i32 = self.rng.gen_range(3..=10);
        while budget > 0 {
            budget -= self.stmt(false);
        }
        let value = self.tail(out);
        let mut source = String::new();
        let primal_only = self.cfg.primal_only;
        if !primal_only {
            let all_active = params.iter().all(|p| match p {
                P::Na(a) => a.active,
                P::Scalar => true,
            });
            if all_active {
                source.push_str("#[differentiate]\n");
            } else {
                let wrt: Vec<String> = params
                    .iter()
                    .filter_map(|p| match p {
                        P::Na(a) if a.active => Some(a.name.clone()),
                        P::Na(_) => None,
                        P::Scalar => Some("s".to_string()),
                    })
                    .collect();
                source.push_str(&format!("#[differentiate(wrt({}))]\n", wrt.join(", ")));
            }
        }
        let sig: Vec<String> = params
            .iter()
            .map(|p| match p {
                P::Na(a) if a.by_ref => format!("{}: &{}", a.name, a.sh.ty()),
                P::Na(a) => format!("{}: {}", a.name, a.sh.ty()),
                P::Scalar => "s: f64".to_string(),
            })
            .collect();
        let ret = match out {
            Out::F64 => "f64".to_string(),
            Out::Vector(sh) => sh.ty(),
        };
        source.push_str(&format!("fn {name}({}) -> {ret} {{\n", sig.join(", ")));
        for l in &self.lines {
            source.push_str(l);
            source.push('\n');
        }
        source.push_str(&format!("    {value}\n}}\n"));
        let case = case(self.cfg, &name, k, &source, &params, out, &self.counts);
        NaOut {
            name,
            source,
            case,
            counts: self.counts,
        }
    }
}

// ---- the adapters -----------------------------------------------------------------------------

/// Where an argument's data comes from: `k` scalar slots of `s` (or `ts`, `gs`) from `at`, or the
/// slice from offset `at` (an argument outside `wrt`).
fn build(a: &Arg, src: &str, at: usize) -> String {
    let sh = a.sh;
    let (r, len) = (sh.r.n, sh.len());
    if !a.active {
        let pre = sh.dyn_prefix();
        return format!(
            "{}::from_fn({pre}|i, j| v[({at} + i + j * {r}) % v.len()])",
            sh.path()
        );
    }
    let slots = format!("&{src}[{at}..{}]", at + len);
    match (sh.r.fixed, sh.c.fixed) {
        (false, false) => format!("DMatrix::from_column_slice({}, {}, {slots})", r, sh.c.n),
        _ => format!("{}::from_column_slice({slots})", sh.path()),
    }
}

fn zeros(sh: Sh) -> String {
    let pre = sh.dyn_prefix();
    format!("{}::zeros({})", sh.typed_path(), pre.trim_end_matches(", "))
}

/// The `Case` of program `name`.
fn case(
    cfg: &Config,
    name: &str,
    k: usize,
    source: &str,
    params: &[P],
    out: Out,
    counts: &[usize],
) -> String {
    let ind = " ".repeat(16);
    // Slots: an active nalgebra argument's elements (column-major), then `s`, in parameter
    // order; an argument outside `wrt` reads the slice from its own offset.
    let mut slot = 0;
    let mut off = 0;
    let mut at = Vec::new();
    for p in params {
        match p {
            P::Na(a) if a.active => {
                at.push(slot);
                slot += a.sh.len();
            }
            P::Na(a) => {
                at.push(off);
                off += a.sh.len();
            }
            P::Scalar => {
                at.push(slot);
                slot += 1;
            }
        }
    }
    let scalars = slot;
    let inactive = params.iter().any(|p| matches!(p, P::Na(a) if !a.active));
    let primal_args: String = params
        .iter()
        .zip(&at)
        .map(|(p, &k)| match p {
            P::Na(a) if a.by_ref => format!("&{}", build(a, "s", k)),
            P::Na(a) => build(a, "s", k),
            P::Scalar => format!("s[{k}]"),
        })
        .collect::<Vec<String>>()
        .join(", ");
    let tangents: Vec<String> = params
        .iter()
        .zip(&at)
        .filter_map(|(p, &k)| match p {
            P::Na(a) if !a.active => None,
            P::Na(a) if a.by_ref => Some(format!("&{}", build(a, "ts", k))),
            P::Na(a) => Some(build(a, "ts", k)),
            P::Scalar => Some(format!("ts[{k}]")),
        })
        .collect();
    // The active arguments: (buffer name, loaded from `gs`, zeros, stored back, grad field).
    struct Adj {
        buf: String,
        load: String,
        zero: String,
        store: String,
        field: String,
        scalar: bool,
    }
    let adjs: Vec<Adj> = params
        .iter()
        .zip(&at)
        .filter_map(|(p, &k)| match p {
            P::Na(a) if !a.active => None,
            P::Na(a) => Some(Adj {
                buf: format!("g_{}", a.name),
                load: build(a, "gs", k),
                zero: zeros(a.sh),
                store: format!(
                    "gs[{k}..{}].copy_from_slice(g_{}.as_slice());",
                    k + a.sh.len(),
                    a.name
                ),
                field: a.name.clone(),
                scalar: false,
            }),
            P::Scalar => Some(Adj {
                buf: "g_s".to_string(),
                load: format!("gs[{k}]"),
                zero: "0.0".to_string(),
                store: format!("gs[{k}] = g_s;"),
                field: "s".to_string(),
                scalar: true,
            }),
        })
        .collect();
    let flat = |y: &str| match out {
        Out::F64 => format!("vec![{y}]"),
        Out::Vector(_) => format!("{y}.as_slice().to_vec()"),
    };
    let (outputs, seed) = match out {
        Out::F64 => (1, "c[0]".to_string()),
        Out::Vector(sh) if !sh.r.fixed && !sh.c.fixed => (
            sh.len(),
            format!("DMatrix::from_column_slice({}, {}, c)", sh.r.n, sh.c.n),
        ),
        Out::Vector(sh) => (sh.len(), format!("{}::from_column_slice(c)", sh.path())),
    };
    let constructs: Vec<String> = Construct::ALL
        .iter()
        .filter(|&&c| counts[c as usize] > 0)
        .map(|c| format!("{:?}", c.name()))
        .collect();
    let mut s = String::new();
    s.push_str("        Case {\n");
    s.push_str(&format!("            name: {name:?},\n"));
    s.push_str(&format!("            index: {},\n", NA_STREAM + k as u64));
    s.push_str(&format!("            source: r#\"{source}\"#,\n"));
    s.push_str("            helpers: &[],\n");
    s.push_str(&format!(
        "            constructs: &[{}],\n",
        constructs.join(", ")
    ));
    s.push_str(&format!("            scalars: {scalars},\n"));
    s.push_str(&format!("            slice: {inactive},\n"));
    s.push_str("            slice_active: false,\n");
    s.push_str(&format!("            outputs: {outputs},\n"));
    s.push_str("            inout_slice: false,\n");
    s.push_str(&format!(
        "            primal: |s, v, n| {{\n{ind}let y = {name}({primal_args});\n{ind}{}\n            }},\n",
        flat("y")
    ));
    if cfg.primal_only {
        s.push_str("            jvp: None,\n            vjp: None,\n");
    } else {
        let with_t: Vec<String> = std::iter::once(primal_args.clone())
            .chain(tangents)
            .collect();
        s.push_str(&format!(
            "            jvp: Some(|s, v, n, ts, tv| {{\n{ind}let (y, t) = {name}_jvp({});\n{ind}({}, {})\n            }}),\n",
            with_t.join(", "),
            flat("y"),
            flat("t")
        ));
        let mut body = String::new();
        for a in &adjs {
            body.push_str(&format!("{ind}let mut {} = {};\n", a.buf, a.load));
        }
        let bufs: Vec<String> = adjs.iter().map(|a| format!("&mut {}", a.buf)).collect();
        body.push_str(&format!(
            "{ind}let y = {name}_vjp({primal_args}, {}, {seed});\n",
            bufs.join(", ")
        ));
        for a in &adjs {
            body.push_str(&format!("{ind}{}\n", a.store));
        }
        if out == Out::F64 {
            // `_grad` is `_vjp` with seed 1 into zeros.
            for a in &adjs {
                body.push_str(&format!("{ind}let mut z_{} = {};\n", a.field, a.zero));
            }
            let zs: Vec<String> = adjs.iter().map(|a| format!("&mut z_{}", a.field)).collect();
            body.push_str(&format!(
                "{ind}let y1 = {name}_vjp({primal_args}, {}, 1.0);\n",
                zs.join(", ")
            ));
            body.push_str(&format!("{ind}let (y2, g) = {name}_grad({primal_args});\n"));
            let mut differ = vec!["y1 != y2".to_string()];
            let mut shown_g = Vec::new();
            let mut shown_z = Vec::new();
            for a in &adjs {
                differ.push(format!("g.{} != z_{}", a.field, a.field));
                if a.scalar {
                    shown_g.push(format!("g.{}", a.field));
                    shown_z.push(format!("z_{}", a.field));
                } else {
                    shown_g.push(format!("g.{}.as_slice()", a.field));
                    shown_z.push(format!("z_{}.as_slice()", a.field));
                }
            }
            body.push_str(&format!(
                "{ind}if {} {{\n{ind}    panic!(\"{name}_grad differs from {name}_vjp with seed 1: value {{y2:?}} / {{y1:?}}, gradient {{:?}} / {{:?}}\", ({},), ({},));\n{ind}}}\n",
                differ.join(" || "),
                shown_g.join(", "),
                shown_z.join(", ")
            ));
        }
        body.push_str(&format!("{ind}{}\n", flat("y")));
        s.push_str(&format!(
            "            vjp: Some(|s, v, n, gs, gv, c| {{\n{body}            }}),\n"
        ));
    }
    s.push_str("            second: None,\n            split: None,\n");
    s.push_str("        },\n");
    s
}
