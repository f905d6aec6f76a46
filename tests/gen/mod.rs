//! Random-program generator for the differential test of `#[differentiate]`: takes a seed and the
//! set of enabled constructs, gives the Rust source of random helper and test functions together
//! with the adapters through which `tests/random_programs.rs` drives them.
//!
//! Compiled twice: by the root package's `build.rs`, which writes `$OUT_DIR/random_programs.rs`,
//! and by `tests/random_programs.rs`, whose own tests check the generator (determinism, coverage,
//! switches).
//!
//! Every construct the generator can emit is a [`Construct`]; each can be switched off by name
//! (`AD_RANDOM_DISABLE=while,loop`), and the generator counts how often it emitted each one.
//! This file holds the core language (statements, expressions, loops, helpers (some declared
//! `wrt(...)` without some of their scalars, which their callers pass constants), the emitted
//! file); `idioms.rs` holds patterns written the way users write them (closures, path calls with
//! literals, locals and `Vec`s inside loops, generic helpers, `Vec` outputs, array parameters,
//! `wrt` subsets, exact zeros under `sqrt`); `second.rs` adds `hvp` to the functions that can
//! have it and writes the adapters of their second order; `split.rs` adds `split` likewise and
//! writes the adapters of `<f>_vjp_split`; `checkpoint.rs` writes `#[checkpoint]` loops and
//! checks each against its twin without the attribute; `ragged.rs` adds a ragged parameter
//! `rp: &[Vec<f64>]` with reads and summaries of its rows; `nalgebra.rs` writes programs of their own
//! (`na000`, ...) over nalgebra matrices and vectors.
//!
//! Values stay bounded by construction, never by luck. Inputs lie in [-1, 1] and every expression
//! carries an upper bound of its magnitude. A mutable variable has a `base` (a bound on anything
//! assigned to it) and a `room` that `+=`/`-=` use up, each site charged with its largest number
//! of executions; `*=` multiplies by at most 1 and `/=` divides by at least 1, so the variable
//! never exceeds `base + room`. Arguments of periodic and saturating functions are scaled down so
//! that central differences stay accurate; `sqrt`, `ln`, division, negative powers and `hypot`
//! only see expressions bounded away from zero (except where `idioms.rs` puts `sqrt` on values
//! that are identically zero, on purpose).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

mod buffers;
mod checkpoint;
mod fusion;
mod idioms;
mod idioms2;
mod inout;
mod nalgebra;
mod neighbours;
mod nested;
mod nested_rows;
mod ragged;
pub mod second;
pub mod split;
mod stencil;
mod struct_lend;
mod struct_out;
mod structs;
mod tally;

/// Smallest slice length (and value of `n`) the test passes; constant indices stay below it.
pub const N_MIN: usize = 4;
/// Largest slice length (and value of `n`) the test passes; loop trip counts derive from it.
pub const N_MAX: usize = 6;
/// Seed used when `AD_RANDOM_SEED` is not set.
pub const DEFAULT_SEED: u64 = 0x0AD0_2024_0003;
/// Number of test programs when `AD_RANDOM_COUNT` is not set.
pub const DEFAULT_PROGRAMS: usize = 220;
/// Number of helper functions the programs may call.
pub const DEFAULT_HELPERS: usize = 10;
/// Number of generic helper functions `hg0`, `hg1`, ... (emitted when `generic_sum` is on).
pub const GENERIC_HELPERS: usize = 4;
/// Number of helpers `ha0`, ... returning `[f64; 2]` (emitted when `array_call_pattern` is on).
pub const ARRAY_HELPERS: usize = 3;
/// Number of generic helpers `hc0`, ... computing in `f64` (emitted when `generic_convert` is on).
pub const CONVERT_HELPERS: usize = 3;
/// Environment variables read by [`Config::from_env`] (build.rs reruns when one changes).
pub const ENV_VARS: &[&str] = &[
    "AD_RANDOM_SEED",
    "AD_RANDOM_COUNT",
    "AD_RANDOM_ONLY",
    "AD_RANDOM_DISABLE",
    "AD_RANDOM_ENABLE",
    "AD_RANDOM_PRIMAL_ONLY",
    second::HVP_VAR,
    split::SPLIT_VAR,
    nalgebra::NA_VAR,
];

/// Bound every sub-expression is scaled down to.
const EXPR_CAP: f64 = 16.0;
/// Bound of the argument of `sin`, `cos`, `tanh`, `atan` (keeps frequencies low for FD).
const ARG_CAP: f64 = 3.0;
/// Bound of the argument of `exp`.
const EXP_CAP: f64 = 2.0;
/// Bound of a value returned by a function (scaled down past it).
const RET_CAP: f64 = 64.0;
/// Bound a program guarantees for the scalar arguments it passes to a helper.
const HELPER_ARG_BOUND: f64 = 2.0;
/// Bound a program guarantees for the elements of a slice it passes to a helper.
const HELPER_SLICE_BOUND: f64 = 48.0;
/// Literals that appear in expressions.
const LITS: &[f64] = &[0.5, 0.25, 0.75, 1.5, 2.0, 0.3, 1.25, 0.1, 3.0, 0.6];
/// Factors by which an expression is scaled to bring it under a bound, largest first.
const SCALES: &[f64] = &[0.5, 0.25, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];
/// Operator precedence of printed expressions: a sum, a product, a prefix minus, an atom.
const SUM: u8 = 0;
const PROD: u8 = 1;
const UNARY: u8 = 2;
const ATOM: u8 = 3;

macro_rules! constructs {
    ($($variant:ident => $name:literal,)*) => {
        /// A language construct the generator can emit; each can be switched off by its name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum Construct {
            $($variant,)*
        }

        impl Construct {
            /// Every construct, in declaration order.
            pub const ALL: &'static [Construct] = &[$(Construct::$variant,)*];

            /// The name used in `AD_RANDOM_DISABLE` and in reports.
            pub fn name(self) -> &'static str {
                match self {
                    $(Construct::$variant => $name,)*
                }
            }
        }
    };
}

constructs! {
    SliceParam => "slice_param",
    MixedParamOrder => "mixed_param_order",
    TypedLet => "typed_let",
    Shadowing => "shadowing",
    LetMut => "let_mut",
    Assign => "assign",
    AddAssign => "add_assign",
    SubAssign => "sub_assign",
    MulAssign => "mul_assign",
    DivAssign => "div_assign",
    Neg => "neg",
    Div => "div",
    Sin => "sin",
    Cos => "cos",
    Tanh => "tanh",
    Exp => "exp",
    Sqrt => "sqrt",
    Ln => "ln",
    Powi => "powi",
    Atan => "atan",
    Hypot => "hypot",
    Tan => "tan",
    Asin => "asin",
    Acos => "acos",
    Sinh => "sinh",
    Cosh => "cosh",
    Atan2 => "atan2",
    Powf => "powf",
    MulAdd => "mul_add",
    Recip => "recip",
    Cbrt => "cbrt",
    ExpM1 => "exp_m1",
    Ln1p => "ln_1p",
    Log2 => "log2",
    Log10 => "log10",
    Exp2 => "exp2",
    SinCos => "sin_cos",
    SinCosField => "sin_cos_field",
    Ufcs => "ufcs",
    Cast => "cast",
    IfStmt => "if_stmt",
    IfExpr => "if_expr",
    ElseIf => "else_if",
    ActiveCond => "active_cond",
    MatchStmt => "match_stmt",
    MatchExpr => "match_expr",
    ForRange => "for_range",
    ForNested => "for_nested",
    ForRev => "for_rev",
    ForStepBy => "for_step_by",
    ForIter => "for_iter",
    ForEnumerate => "for_enumerate",
    While => "while",
    Loop => "loop",
    Break => "break",
    Continue => "continue",
    EarlyReturn => "early_return",
    LocalVec => "local_vec",
    VecCompound => "vec_compound",
    HelperCall => "helper_call",
    HelperSliceArg => "helper_slice_arg",
    HelperVecArg => "helper_vec_arg",
    VecReborrowArg => "vec_reborrow_arg",
    HelperTwoSlices => "helper_two_slices",
    SubsliceArg => "subslice_arg",
    VecSubsliceArg => "vec_subslice_arg",
    SliceLen => "slice_len",
    TwoVarIndex => "two_var_index",
    PowiVar => "powi_var",
    DeferredInit => "deferred_init",
    BlockExpr => "block_expr",
    TupleLet => "tuple_let",
    LocalArray => "local_array",
    HelperInHelper => "helper_in_helper",
    TupleOut => "tuple_out",
    ArrayOut => "array_out",
    // Reduction loops of issue 12 (emitted by `fusion.rs`).
    ReductionLoop => "reduction_loop",
    ScratchSeq => "scratch_seq",
    LoopCounter => "loop_counter",
    // Idioms of issue 7 (emitted by `idioms.rs`).
    ClosureShadowedCapture => "closure_shadowed_capture",
    ClosureParamShadows => "closure_param_shadows",
    ClosureLiteralArg => "closure_literal_arg",
    PathLitFirst => "path_lit_first",
    PathLitMinMax => "path_lit_min_max",
    SelectedCall => "selected_call",
    LoopTypedLet => "loop_typed_let",
    LoopTupleLet => "loop_tuple_let",
    LoopToVec => "loop_to_vec",
    LoopCollect => "loop_collect",
    GenericSum => "generic_sum",
    VecOut => "vec_out",
    VecOutConstReturn => "vec_out_const_return",
    BodyConstArg => "body_const_arg",
    ChunksWindows => "chunks_windows",
    ArrayParam => "array_param",
    ArrayParamToVec => "array_param_to_vec",
    WrtSliceCall => "wrt_slice_call",
    WrtHelperCall => "wrt_helper_call",
    ZeroSqrt => "zero_sqrt",
    ZeroNorm => "zero_norm",
    // Idioms of issue 15 (emitted by `idioms2.rs`).
    ArrayMap => "array_map",
    ArrayCallPattern => "array_call_pattern",
    SliceRestPattern => "slice_rest_pattern",
    GenericConvert => "generic_convert",
    IndexFromActive => "index_from_active",
    ConvertIdentity => "convert_identity",
    // In-out arguments of issue 9 (emitted by `inout.rs`).
    InOutSlice => "inout_slice",
    InOutArray => "inout_array",
    UnitOut => "unit_out",
    InOutBareArg => "inout_bare_arg",
    Workspace => "workspace",
    InOutScalar => "inout_scalar",
    InOutCall => "inout_call",
    SliceMethods => "slice_methods",
    IterMut => "iter_mut",
    SplitBorrow => "split_borrow",
    GuardedNeighbour => "guarded_neighbour",
    DoubleBuffer => "double_buffer",
    NeighbourStencil => "neighbour_stencil",
    InOutSubSlice => "inout_subslice",
    TupleArrayOut => "tuple_array_out",
    InOutFloatArg => "inout_float_arg",
    SplitPartCall => "split_part_call",
    // Nested arrays of issue 10 (emitted by `nested.rs`).
    NestedLocal => "nested_local",
    NestedLiteral => "nested_literal",
    NestedVec => "nested_vec",
    NestedElemWrite => "nested_elem_write",
    NestedIndexLoop => "nested_index_loop",
    NestedRowCopy => "nested_row_copy",
    NestedRowAssign => "nested_row_assign",
    NestedRowIter => "nested_row_iter",
    NestedRowMap => "nested_row_map",
    NestedIterMut => "nested_iter_mut",
    NestedParam => "nested_param",
    NestedRowCall => "nested_row_call",
    NestedRowLendMut => "nested_row_lend_mut",
    NestedRowAssignSelf => "nested_row_assign_self",
    // Ragged parameters of issue 10 (emitted by `ragged.rs`).
    RaggedParam => "ragged_param",
    RaggedRead => "ragged_read",
    RaggedRows => "ragged_rows",
    // An integer buffer taken by `&mut` (emitted by `tally.rs`).
    TallyParam => "tally_param",
    TallyRead => "tally_read",
    TallyMethod => "tally_method",
    // Struct arguments (emitted by `structs.rs`).
    StructRef => "struct_ref",
    StructValue => "struct_value",
    StructMut => "struct_mut",
    StructMethod => "struct_method",
    StructMutMethod => "struct_mut_method",
    StructVecField => "struct_vec_field",
    StructArrayField => "struct_array_field",
    StructNestedField => "struct_nested_field",
    StructRowsField => "struct_rows_field",
    StructIntBound => "struct_int_bound",
    StructPowiField => "struct_powi_field",
    StructLen => "struct_len",
    StructUnitOut => "struct_unit_out",
    StructFieldArg => "struct_field_arg",
    StructFieldLend => "struct_field_lend",
    StructNestedParam => "struct_nested_param",
    StructLocal => "struct_local",
    StructPattern => "struct_pattern",
    StructOutput => "struct_output",
    StructWhole => "struct_whole",
    StructOutBranch => "struct_out_branch",
    StructCounter => "struct_counter",
    StructCallLocal => "struct_call_local",
    StructLend => "struct_lend",
    StructLendFields => "struct_lend_fields",
    StructCopy => "struct_copy",
    StructWholeOut => "struct_whole_out",
    StructCopyWrite => "struct_copy_write",
    StructCopyElems => "struct_copy_elems",
    // `#[checkpoint]` loops (emitted by `checkpoint.rs`).
    CheckpointLoop => "checkpoint_loop",
    CheckpointSnapshots => "checkpoint_snapshots",
    CheckpointInclusive => "checkpoint_inclusive",
    CheckpointZeroTrip => "checkpoint_zero_trip",
    CheckpointInOut => "checkpoint_inout",
    CheckpointArray => "checkpoint_array",
    CheckpointFloat => "checkpoint_float",
    CheckpointIndexArg => "checkpoint_index_arg",
    // nalgebra values (emitted by `nalgebra.rs`).
    NaDynamic => "na_dynamic",
    NaFixed => "na_fixed",
    NaByValue => "na_by_value",
    NaWrt => "na_wrt",
    NaMatMul => "na_mat_mul",
    NaScale => "na_scale",
    NaNeg => "na_neg",
    NaAddScalar => "na_add_scalar",
    NaTranspose => "na_transpose",
    NaComponent => "na_component",
    NaMap => "na_map",
    NaFromFn => "na_from_fn",
    NaCtor => "na_ctor",
    NaColumnRow => "na_column_row",
    NaClone => "na_clone",
    NaElemRead => "na_elem_read",
    NaElemWrite => "na_elem_write",
    NaCompound => "na_compound",
    NaReduce => "na_reduce",
    NaDot => "na_dot",
    NaNorm => "na_norm",
    NaDims => "na_dims",
    NaLoop => "na_loop",
    NaBranch => "na_branch",
    NaVecOut => "na_vec_out",
    NaFixedOut => "na_fixed_out",
    NaMatOut => "na_mat_out",
    NaDet => "na_det",
    NaShadow => "na_shadow",
    NaTypedLet => "na_typed_let",
    NaEarlyReturn => "na_early_return",
    NaReturnVar => "na_return_var",
    NaIter => "na_iter",
    NaMutBuilt => "na_mut_built",
    NaConstValue => "na_const_value",
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Config {
    /// Seed of every random choice (each function draws from its own stream of it).
    pub seed: u64,
    /// Number of test programs `p000`, `p001`, ...
    pub programs: usize,
    /// Number of helper functions `h0`, `h1`, ... (always all emitted).
    pub helpers: usize,
    /// Emit only these programs (by name), if set; the others are still drawn, so names and
    /// sources do not change.
    pub only: Option<Vec<String>>,
    /// Emit the functions without `#[differentiate]` and without derivative adapters.
    pub primal_only: bool,
    /// Constructs never to emit.
    pub disabled: Vec<Construct>,
    /// Share of the programs given `hvp` (second order, `second.rs`), from 0 to 1.
    pub hvp: f64,
    /// Share of the programs given `split` (split mode, `split.rs`), from 0 to 1.
    pub split: f64,
    /// Number of nalgebra programs `na000`, `na001`, ... (`nalgebra.rs`).
    pub nalgebra: usize,
}

/// Constructs switched off unless re-enabled: for a construct the macro does not support yet
/// (`AD_RANDOM_DISABLE` adds to this list; `AD_RANDOM_ENABLE` removes from it). The earlier
/// ones (`nested_row_lend_mut`, E0308 in generated code; `nested_row_assign_self`, a row
/// assigned from its own elements written item by item) were fixed in the macro.
///
/// `struct_nested_param`, a struct argument next to a nested-array argument, is supported now
/// (the inner companions of `full_nested` bind the field arguments in the struct prologue).
///
/// `na_mut_built` (a mutable nalgebra local built by `map` or `from_fn`, then assigned: rejected
/// as "assigning a nalgebra argument") and `na_const_value` (a nalgebra value of literal elements
/// only, `DMatrix::<f64>::zeros(2, 2)`: the element type the path gives was dropped, E0689 in
/// generated code), both found by this family, were fixed in the macro.
pub const DEFAULT_DISABLED: &[Construct] = &[];

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: DEFAULT_SEED,
            programs: DEFAULT_PROGRAMS,
            helpers: DEFAULT_HELPERS,
            only: None,
            primal_only: false,
            disabled: DEFAULT_DISABLED.to_vec(),
            hvp: second::DEFAULT_HVP,
            split: split::DEFAULT_SPLIT,
            nalgebra: nalgebra::DEFAULT_NALGEBRA,
        }
    }
}

impl Config {
    /// Reads `AD_RANDOM_SEED` (decimal or `0x` hex), `AD_RANDOM_COUNT`, `AD_RANDOM_ONLY`
    /// (comma-separated program names), `AD_RANDOM_DISABLE` (comma-separated construct names),
    /// `AD_RANDOM_ENABLE` (construct names to take off [`DEFAULT_DISABLED`]) and
    /// `AD_RANDOM_PRIMAL_ONLY` (`1` to emit primal functions only), `AD_RANDOM_HVP` (share of
    /// programs given `hvp`, `second.rs`), `AD_RANDOM_SPLIT` (share given `split`,
    /// `split.rs`) and `AD_RANDOM_NALGEBRA` (number of nalgebra programs, `nalgebra.rs`) through
    /// `var`.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let mut cfg = Config::default();
        if let Some(s) = var("AD_RANDOM_SEED") {
            cfg.seed = parse_u64(&s).ok_or_else(|| format!("AD_RANDOM_SEED: not a u64: {s:?}"))?;
        }
        if let Some(s) = var("AD_RANDOM_COUNT") {
            cfg.programs = s
                .trim()
                .parse()
                .map_err(|_| format!("AD_RANDOM_COUNT: not a count: {s:?}"))?;
        }
        if let Some(s) = var("AD_RANDOM_ONLY") {
            let names: Vec<String> = split_list(&s).map(str::to_string).collect();
            if !names.is_empty() {
                cfg.only = Some(names);
            }
        }
        if let Some(s) = var("AD_RANDOM_DISABLE") {
            for c in parse_constructs("AD_RANDOM_DISABLE", &s)? {
                if !cfg.disabled.contains(&c) {
                    cfg.disabled.push(c);
                }
            }
        }
        if let Some(s) = var("AD_RANDOM_ENABLE") {
            let enable = parse_constructs("AD_RANDOM_ENABLE", &s)?;
            cfg.disabled.retain(|c| !enable.contains(c));
        }
        if let Some(s) = var("AD_RANDOM_PRIMAL_ONLY") {
            cfg.primal_only = !matches!(s.trim(), "" | "0" | "false");
        }
        second::read_env(&mut cfg, &var)?;
        split::read_env(&mut cfg, &var)?;
        nalgebra::read_env(&mut cfg, &var)?;
        Ok(cfg)
    }

    /// Whether `c` may be emitted.
    pub fn enabled(&self, c: Construct) -> bool {
        !self.disabled.contains(&c)
    }
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

fn parse_constructs(var: &str, s: &str) -> Result<Vec<Construct>, String> {
    split_list(s)
        .map(|name| {
            Construct::ALL
                .iter()
                .copied()
                .find(|c| c.name() == name)
                .ok_or_else(|| {
                    let all: Vec<&str> = Construct::ALL.iter().map(|c| c.name()).collect();
                    format!(
                        "{var}: unknown construct {name:?}; known: {}",
                        all.join(",")
                    )
                })
        })
        .collect()
}

fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty())
}

/// The generated file and what went into it.
pub struct Generated {
    /// Contents of `random_programs.rs`.
    pub source: String,
    /// Every emitted function (helpers first).
    pub functions: Vec<FnInfo>,
    /// How many functions use each construct, over the emitted functions.
    pub counts: Vec<(Construct, usize)>,
}

/// One emitted function.
pub struct FnInfo {
    pub name: String,
    pub source: String,
    pub constructs: Vec<Construct>,
}

/// Generates the helpers and programs `cfg` asks for and the file that holds them.
pub fn generate(cfg: &Config) -> Generated {
    let mut helpers: Vec<FnOut> = Vec::new();
    for k in 0..cfg.helpers {
        let f = FnGen::new(cfg, 1_000_000 + k as u64, &helpers, true).helper(k);
        helpers.push(f);
    }
    if cfg.enabled(Construct::GenericSum) {
        for k in 0..GENERIC_HELPERS {
            let f = FnGen::new(cfg, 2_000_000 + k as u64, &helpers, true).generic_helper(k);
            helpers.push(f);
        }
    }
    if cfg.enabled(Construct::ArrayCallPattern) && cfg.enabled(Construct::HelperCall) {
        for k in 0..ARRAY_HELPERS {
            let f = FnGen::new(cfg, 3_000_000 + k as u64, &helpers, true).array_helper(k);
            helpers.push(f);
        }
    }
    if cfg.enabled(Construct::GenericConvert) {
        for k in 0..CONVERT_HELPERS {
            let f = FnGen::new(cfg, 4_000_000 + k as u64, &helpers, true).convert_helper(k);
            helpers.push(f);
        }
    }
    if cfg.enabled(Construct::InOutCall)
        && cfg.enabled(Construct::HelperCall)
        && cfg.enabled(Construct::HelperSliceArg)
        && cfg.enabled(Construct::InOutSlice)
    {
        for k in 0..inout::INOUT_HELPERS {
            let f = FnGen::new(cfg, 5_000_000 + k as u64, &helpers, true).inout_helper(k);
            helpers.push(f);
        }
    }
    if cfg.enabled(Construct::NestedRowCall) && cfg.enabled(Construct::HelperCall) {
        for k in 0..nested_rows::ROW_HELPERS {
            let f = FnGen::new(cfg, 6_000_000 + k as u64, &helpers, true).row_helper(k);
            helpers.push(f);
        }
    }
    checkpoint::step_helpers(cfg, &mut helpers);
    let mut programs = Vec::new();
    for k in 0..cfg.programs {
        let f = FnGen::new(cfg, k as u64, &helpers, false).program(k);
        let keep = match &cfg.only {
            Some(names) => names.contains(&f.name),
            None => true,
        };
        if keep {
            programs.push(f);
        }
    }
    split::mark(cfg, &mut helpers, &mut programs);
    second::mark(cfg, &mut helpers, &mut programs);
    let na = nalgebra::programs(cfg);
    let all: Vec<&FnOut> = helpers.iter().chain(programs.iter()).collect();
    let counts: Vec<(Construct, usize)> = Construct::ALL
        .iter()
        .map(|&c| {
            let core = all.iter().filter(|f| f.counts[c as usize] > 0).count();
            let na = na.iter().filter(|f| f.counts[c as usize] > 0).count();
            (c, core + na)
        })
        .collect();
    let source = emit_file(cfg, &helpers, &all, &na, &counts);
    let functions = all
        .iter()
        .map(|f| FnInfo {
            name: f.name.clone(),
            source: f.source.clone(),
            constructs: f.constructs(),
        })
        .chain(na.iter().map(|f| FnInfo {
            name: f.name.clone(),
            source: f.source.clone(),
            constructs: f.constructs(),
        }))
        .collect();
    Generated {
        source,
        functions,
        counts,
    }
}

/// A parameter of a generated function.
#[derive(Clone, Debug)]
enum Param {
    Scalar(String),
    Slice(String),
    Len(String),
    /// `[f64; 3]` by value.
    Array(String),
    /// `&mut [f64]` of the common length, in-out (its initial contents are the slice's values).
    InOut(String),
    /// `&mut [f64; 3]`, in-out (three scalar slots).
    InOutArray(String),
    /// `&mut [f64; 3]` left out of `wrt(...)`: a workspace (the test passes constants).
    Workspace(String),
    /// `&mut f64`, in-out (one scalar slot; read and written as `(*is)`).
    InOutScalar(String),
    /// `&[[f64; C]]` of `R` rows, or `&[[f64; C]; R]` when the flag is set: (name, R, C, fixed);
    /// `R * C` scalar slots.
    Nested(String, usize, usize, bool),
    /// `&[f64; C]` (a row helper's row): C scalar slots.
    Row(String, usize),
    /// `&mut [f64; C]`, in-out (a row helper's row): C scalar slots.
    InOutRow(String, usize),
    /// `&[Vec<f64>]` with rows of the given lengths (`ragged.rs`): their sum of scalar slots.
    Ragged(String, Vec<usize>),
    /// A struct of the program's own type, or the receiver of a method (`structs.rs`).
    Struct(structs::Layout),
    /// `&mut Vec<usize>`, not differentiated, changed by its methods (`tally.rs`).
    Tally(String),
}

/// Output type of a generated function.
#[derive(Clone, Copy, Debug, PartialEq)]
enum OutKind {
    F64,
    Tuple,
    Array,
    /// `([f64; 2], f64)`.
    TupleArray,
    /// `Vec<f64>` of length [`VEC_OUT_LEN`].
    Vec,
    /// `()`: the results are the final contents of the in-out argument (the value the other
    /// kinds return is written into its first element).
    Unit,
}

/// Length of a `Vec<f64>` output.
const VEC_OUT_LEN: usize = 3;

impl OutKind {
    fn rust(self) -> &'static str {
        match self {
            OutKind::F64 => "f64",
            OutKind::Tuple => "(f64, f64)",
            OutKind::Array => "[f64; 2]",
            OutKind::TupleArray => "([f64; 2], f64)",
            OutKind::Vec => "Vec<f64>",
            OutKind::Unit => "()",
        }
    }

    fn arity(self) -> usize {
        match self {
            OutKind::F64 | OutKind::Unit => 1,
            OutKind::Tuple | OutKind::Array => 2,
            OutKind::TupleArray => 3,
            OutKind::Vec => VEC_OUT_LEN,
        }
    }
}

/// A generated function.
struct FnOut {
    name: String,
    index: u64,
    params: Vec<Param>,
    out: OutKind,
    source: String,
    calls: BTreeSet<usize>,
    counts: Vec<usize>,
    /// Bound of any value the function returns (for helpers: given arguments within bounds).
    ret_bound: f64,
    /// Generic over `T: Float` (called with `f64`).
    generic: bool,
    /// Declared `#[differentiate(wrt(...))]` with every parameter but the slice.
    wrt_no_slice: bool,
    /// Scalar parameters left out of the function's `wrt(...)` (a helper `h*`): its callers pass
    /// constants there.
    fixed: Vec<String>,
}

impl FnOut {
    fn constructs(&self) -> Vec<Construct> {
        Construct::ALL
            .iter()
            .copied()
            .filter(|&c| self.counts[c as usize] > 0)
            .collect()
    }

    fn has_slice(&self) -> bool {
        self.params.iter().any(|p| matches!(p, Param::Slice(_)))
    }

    /// Writes through a `&mut` argument (called only by `s_inout_call`).
    fn takes_inout(&self) -> bool {
        self.params.iter().any(|p| matches!(p, Param::InOut(_))) && !self.is_step()
    }

    /// Takes a row `&[f64; C]` or `&mut [f64; C]` (called only by `s_nested_row_call`).
    fn takes_row(&self) -> bool {
        self.params
            .iter()
            .any(|p| matches!(p, Param::Row(..) | Param::InOutRow(..)))
    }

    fn takes_inout_float(&self) -> bool {
        self.params
            .iter()
            .any(|p| matches!(p, Param::InOutScalar(_)))
    }
}

/// A printed expression with its precedence, a bound of its magnitude and whether it is made of
/// literals only (then it has no type of its own, and calling a method on it does not compile).
#[derive(Clone, Debug)]
struct Ex {
    s: String,
    p: u8,
    b: f64,
    konst: bool,
    /// For `c * e` made by scaling: `e` printed as an operand, and its bound (so that scaling
    /// again replaces `c` instead of nesting factors).
    scaled: Option<(String, f64)>,
}

impl Ex {
    fn atom(s: String, b: f64) -> Ex {
        Ex {
            s,
            p: ATOM,
            b,
            konst: false,
            scaled: None,
        }
    }

    fn new(s: String, p: u8, b: f64, konst: bool) -> Ex {
        Ex {
            s,
            p,
            b,
            konst,
            scaled: None,
        }
    }

    /// The expression as an operand that needs precedence at least `min`.
    fn at(&self, min: u8) -> String {
        if self.p >= min {
            self.s.clone()
        } else {
            format!("({})", self.s)
        }
    }
}

fn lit(x: f64) -> String {
    format!("{x:?}")
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    /// Bound of its magnitude at any time.
    bound: f64,
    /// Bound of anything assigned to it with `=`.
    base: f64,
    /// What `+=` / `-=` may still add, summed over all executions.
    room: f64,
    /// Executions of its declaration per execution of the function body (product of trip counts).
    decl_k: f64,
    /// Written since last read: the return value picks it up so that no update is dead.
    dirty: bool,
    /// Holds the constant 0 (so `*=` and `/=` would leave it 0).
    zero: bool,
    /// For a local fixed-size array (a `Vector` whose length is not the common one): its length.
    arr_len: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Float,
    Vector,
    /// An integer known to be a valid index (below `N_MIN` or below the common length), and at
    /// least `lo`.
    Index {
        lo: usize,
    },
    /// A nested array `[[f64; cols]; rows]` (`rows` `None`: a `Vec<[f64; cols]>` of the common
    /// length); `bound`, `base` and `room` are those of its elements.
    Nested {
        rows: Option<usize>,
        cols: usize,
    },
}

/// The kind of an enclosing loop.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LoopKind {
    /// `for`, or `loop` with the counter increment at the top: `continue` is safe.
    ContinueOk,
    /// `while`, or `loop` with the increment at the bottom: `continue` would skip it.
    NoContinue,
}

/// What closes a block besides its statements.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tail {
    None,
    Return,
    Break,
    Continue,
    /// Assign the innermost pending deferred-initialized variable.
    Init,
}

/// Statement kinds the picker chooses from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    /// A summary of the ragged parameter's rows (`ragged.rs`).
    Ragged,
    Tally,
    Let,
    LetMut,
    Assign,
    Compound,
    VecDecl,
    VecWrite,
    If,
    Return,
    Match,
    For,
    ForIter,
    While,
    Loop,
    LetIf,
    LetMatch,
    Break,
    Continue,
    LetCall,
    SinCos,
    ArrayDecl,
    Deferred,
    BlockExpr,
    TupleLet,
    /// A statement-level pattern of `idioms.rs`.
    Idiom(Construct),
    /// A `#[checkpoint]` loop (`checkpoint.rs`).
    Checkpoint,
    /// The struct lent whole again, its fields also used (`structs.rs`).
    Lend,
}

/// Expression node kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    Unary(Construct),
    Exp,
    Sqrt,
    Ln,
    Powi,
    Hypot,
    Extra(Construct),
    Call,
    /// An expression-level pattern of `idioms.rs`.
    Idiom(Construct),
}

/// Less common smooth methods, each drawn less often than the classic ones.
const EXTRA_METHODS: &[Construct] = &[
    Construct::Tan,
    Construct::Asin,
    Construct::Acos,
    Construct::Sinh,
    Construct::Cosh,
    Construct::Atan2,
    Construct::Powf,
    Construct::MulAdd,
    Construct::Recip,
    Construct::Cbrt,
    Construct::ExpM1,
    Construct::Ln1p,
    Construct::Log2,
    Construct::Log10,
    Construct::Exp2,
    Construct::SinCosField,
];

/// Generates one function.
struct FnGen<'a> {
    cfg: &'a Config,
    rng: ChaCha8Rng,
    helpers: &'a [FnOut],
    is_helper: bool,
    lines: Vec<String>,
    indent: usize,
    vars: Vec<Var>,
    scope_marks: Vec<usize>,
    frozen: Vec<String>,
    write_target: Option<String>,
    loops: Vec<LoopKind>,
    k_mult: f64,
    budget: i32,
    nest: usize,
    next_id: usize,
    counts: Vec<usize>,
    calls: BTreeSet<usize>,
    /// Slice parameters (all of the common length).
    slices: Vec<&'static str>,
    slice_bound: f64,
    /// Expressions for the common length: the canonical one first, then aliases (`v.len()`).
    lens: Vec<&'static str>,
    out: OutKind,
    ret_bound: f64,
    vec_count: usize,
    arr_count: usize,
    /// Deferred-initialized variables being assigned, with the bound of what they got so far.
    inits: Vec<(String, f64)>,
    /// The `[f64; 3]` parameter, if any.
    array_param: Option<&'static str>,
    /// Names of the arrays declared so far (the `[f64; 3]` parameter, local arrays): what
    /// `map` and slice patterns without `else` may take (a `Vec` has neither).
    arrays: Vec<String>,
    /// The body's values are not the function's output type (`hc*` convert them at the end):
    /// no early `return`.
    no_early_return: bool,
    /// The function is differentiated with respect to everything but its slice.
    wrt_no_slice: bool,
    /// Scalar parameters left out of `wrt(...)` (helpers only, `FnOut::fixed`).
    fixed: Vec<String>,
    /// The in-out (`&mut`) parameter, if any.
    inout: Option<&'static str>,
    /// Takes the workspace `wk: &mut [f64; 3]`.
    workspace: bool,
    /// Takes the in-out float `is: &mut f64`.
    inout_scalar: bool,
    /// An in-out helper: ends by squashing its `io` into [-1, 1].
    squash_inout: bool,
    /// Index variables known to stay below a bound (var position, bound): loop indices over
    /// the rows or columns of a nested array.
    small_idx: Vec<(usize, usize)>,
    /// Names of variables that are references to arrays (`&name` would be a double reference).
    row_refs: Vec<String>,
    /// Rows (references) of mutable nested arrays: not lent as `&[f64; C]` (see
    /// [`DEFAULT_DISABLED`]).
    rows_of_mut: Vec<String>,
    /// Nested arrays declared so far.
    nested_count: usize,
    /// The struct parameter's layout, if any.
    strukt: Option<structs::Layout>,
    /// Where a `()` output writes the value without an in-out parameter (a float field of a
    /// struct taken by `&mut`).
    unit_place: Option<String>,
    /// The row lengths of the ragged parameter `rp`, if any (`ragged.rs`).
    ragged: Option<Vec<usize>>,
    /// Whether the program takes `tally: &mut Vec<usize>` (`tally.rs`).
    tally: bool,
}

impl<'a> FnGen<'a> {
    fn new(cfg: &'a Config, stream: u64, helpers: &'a [FnOut], is_helper: bool) -> FnGen<'a> {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        rng.set_stream(stream);
        FnGen {
            cfg,
            rng,
            helpers,
            is_helper,
            lines: Vec::new(),
            indent: 1,
            vars: Vec::new(),
            scope_marks: Vec::new(),
            frozen: Vec::new(),
            write_target: None,
            loops: Vec::new(),
            k_mult: 1.0,
            budget: 0,
            nest: 0,
            next_id: 0,
            counts: vec![0; Construct::ALL.len()],
            calls: BTreeSet::new(),
            slices: Vec::new(),
            slice_bound: 1.0,
            lens: Vec::new(),
            out: OutKind::F64,
            ret_bound: 0.0,
            vec_count: 0,
            arr_count: 0,
            inits: Vec::new(),
            array_param: None,
            arrays: Vec::new(),
            no_early_return: false,
            wrt_no_slice: false,
            fixed: Vec::new(),
            inout: None,
            workspace: false,
            inout_scalar: false,
            squash_inout: false,
            small_idx: Vec::new(),
            row_refs: Vec::new(),
            rows_of_mut: Vec::new(),
            nested_count: 0,
            strukt: None,
            unit_place: None,
            ragged: None,
            tally: false,
        }
    }

    // ---- functions -------------------------------------------------------------------------

    fn helper(mut self, k: usize) -> FnOut {
        let names = ["p", "q", "r"];
        let scalars = self.rng.gen_range(1..=3);
        let mut params: Vec<Param> = names[..scalars]
            .iter()
            .map(|n| Param::Scalar(n.to_string()))
            .collect();
        let slice_wanted = k % 3 == 1 || self.rng.gen_bool(0.15);
        if self.on(Construct::HelperSliceArg) && slice_wanted {
            params.push(Param::Slice("u".into()));
            self.count(Construct::HelperSliceArg);
            self.slices.push("u");
            self.lens.push("u.len()");
            self.slice_bound = HELPER_SLICE_BOUND;
            if self.on(Construct::HelperTwoSlices) && (k % 6 == 4 || self.rng.gen_bool(0.2)) {
                params.push(Param::Slice("z".into()));
                self.count(Construct::HelperTwoSlices);
                self.slices.push("z");
                self.lens.push("z.len()");
            }
        }
        self.shuffle_params(&mut params);
        for n in &names[..scalars] {
            self.push_input(n, HELPER_ARG_BOUND);
        }
        // `wrt(...)` without some of the scalars (at least one stays): callers pass constants
        // there, and the macro gives the call the helper's own convention.
        if self.on(Construct::WrtHelperCall) && scalars >= 2 && (k % 4 == 2 || self.chance(0.2)) {
            let out = self.rng.gen_range(1..scalars);
            let mut ns: Vec<&str> = names[..scalars].to_vec();
            ns.shuffle(&mut self.rng);
            self.fixed = ns[..out].iter().map(|n| n.to_string()).collect();
        }
        self.budget = self.rng.gen_range(1..=5);
        self.finish(format!("h{k}"), k as u64, params, OutKind::F64)
    }

    fn program(mut self, k: usize) -> FnOut {
        let names = ["a", "b", "c"];
        let scalars = self.rng.gen_range(1..=3);
        let mut params: Vec<Param> = names[..scalars]
            .iter()
            .map(|n| Param::Scalar(n.to_string()))
            .collect();
        if self.on(Construct::SliceParam) {
            params.push(Param::Slice("v".into()));
            self.count(Construct::SliceParam);
            self.slices.push("v");
        }
        params.push(Param::Len("n".into()));
        self.lens.push("n");
        if !self.slices.is_empty() {
            self.lens.push("v.len()");
        }
        if self.on(Construct::ArrayParam) && self.chance(0.25) {
            params.push(Param::Array("q".into()));
        }
        self.nested_param(&mut params);
        self.inout_param(&mut params);
        self.shuffle_params(&mut params);
        self.struct_param(k, &mut params);
        self.ragged_param(&mut params);
        self.tally_param(k as u64, &mut params);
        for n in &names[..scalars] {
            self.push_input(n, 1.0);
        }
        if params.iter().any(|p| matches!(p, Param::Array(_))) {
            self.array_input("q");
        }
        self.inout_input(&params);
        self.nested_input(&params);
        self.struct_input(&params);
        let r: f64 = self.rng.gen();
        // A program giving a struct (`structs.rs`) gives a pair of floats in it.
        let struct_out = self.strukt.as_ref().is_some_and(|l| l.out);
        let out = if struct_out || (r < 0.15 && self.on(Construct::TupleOut)) {
            self.count(Construct::TupleOut);
            OutKind::Tuple
        } else if r < 0.30 && self.on(Construct::ArrayOut) {
            self.count(Construct::ArrayOut);
            OutKind::Array
        } else if r < 0.42 && self.on(Construct::VecOut) {
            self.count(Construct::VecOut);
            OutKind::Vec
        } else if r < 0.50 && self.on(Construct::TupleArrayOut) {
            self.count(Construct::TupleArrayOut);
            OutKind::TupleArray
        } else {
            OutKind::F64
        };
        let out = self.maybe_unit(out);
        let method = self.strukt.as_ref().is_some_and(|l| l.kind.method());
        self.wrt_no_slice = self.wants_wrt_no_slice() && !method;
        self.budget = self.rng.gen_range(5..=25);
        let mut f = self.finish(format!("p{k:03}"), k as u64, params, out);
        checkpoint::add_twin(&mut f);
        structs::wrap(&mut f);
        f
    }

    fn shuffle_params(&mut self, params: &mut [Param]) {
        if self.on(Construct::MixedParamOrder) && self.rng.gen_bool(0.3) {
            let before: Vec<String> = params.iter().map(param_name).collect();
            params.shuffle(&mut self.rng);
            if params.iter().map(param_name).collect::<Vec<_>>() != before {
                self.count(Construct::MixedParamOrder);
            }
        }
    }

    fn push_input(&mut self, name: &str, bound: f64) {
        self.vars.push(Var {
            name: name.to_string(),
            ty: Ty::Float,
            mutable: false,
            bound,
            base: bound,
            room: 0.0,
            decl_k: 1.0,
            dirty: false,
            zero: false,
            arr_len: None,
        });
    }

    /// Generates the body, then the whole function's source.
    fn finish(mut self, name: String, index: u64, params: Vec<Param>, out: OutKind) -> FnOut {
        self.out = out;
        self.prologue();
        while self.budget > 0 {
            self.stmt();
        }
        // Sometimes a reduction loop last, where what follows it is only the returned value.
        if self.reduction_loop_last() {
            self.count(Construct::ReductionLoop);
            self.s_reduction_loop();
        }
        // An in-out helper's `()` tail writes into `io`: squash after it; else before the value.
        if out != OutKind::Unit {
            self.squash_epilogue();
        }
        self.tail();
        if out == OutKind::Unit {
            self.squash_epilogue();
        }
        let sig: Vec<String> = params
            .iter()
            .map(|p| match p {
                Param::Scalar(n) => format!("{n}: f64"),
                Param::Slice(n) => format!("{n}: &[f64]"),
                Param::Len(n) => format!("{n}: usize"),
                Param::Array(n) => format!("{n}: [f64; 3]"),
                Param::InOut(n) => format!("{n}: &mut [f64]"),
                Param::InOutArray(n) | Param::Workspace(n) => format!("{n}: &mut [f64; 3]"),
                Param::InOutScalar(n) => format!("{n}: &mut f64"),
                Param::Nested(n, r, c, true) => format!("{n}: &[[f64; {c}]; {r}]"),
                Param::Nested(n, _, c, false) => format!("{n}: &[[f64; {c}]]"),
                Param::Row(n, c) => format!("{n}: &[f64; {c}]"),
                Param::InOutRow(n, c) => format!("{n}: &mut [f64; {c}]"),
                Param::Ragged(n, _) => format!("{n}: &[Vec<f64>]"),
                Param::Tally(n) => format!("{n}: &mut Vec<usize>"),
                Param::Struct(l) => structs::sig(l),
            })
            .collect();
        let mut source = String::new();
        if !self.cfg.primal_only {
            let workspace = params.iter().any(|p| matches!(p, Param::Workspace(_)));
            if self.wrt_no_slice || workspace || !self.fixed.is_empty() {
                let wrt: Vec<String> = params
                    .iter()
                    .filter(|p| match p {
                        Param::Scalar(n) => !self.fixed.contains(n),
                        Param::Array(_)
                        | Param::InOut(_)
                        | Param::InOutArray(_)
                        | Param::InOutScalar(_)
                        | Param::Nested(..)
                        | Param::Row(..)
                        | Param::InOutRow(..)
                        | Param::Ragged(..)
                        | Param::Struct(_) => true,
                        Param::Slice(_) => !self.wrt_no_slice,
                        Param::Len(_) | Param::Workspace(_) | Param::Tally(_) => false,
                    })
                    .map(param_name)
                    .collect();
                source.push_str(&format!("#[differentiate(wrt({}))]\n", wrt.join(", ")));
            } else {
                source.push_str("#[differentiate]\n");
            }
        }
        let ret = match out {
            OutKind::Unit => String::new(),
            o => format!(" -> {}", o.rust()),
        };
        source.push_str(&format!("fn {name}({}){ret} {{\n", sig.join(", ")));
        for l in &self.lines {
            source.push_str(l);
            source.push('\n');
        }
        source.push_str("}\n");
        FnOut {
            name,
            index,
            params,
            out,
            source,
            calls: self.calls,
            counts: self.counts,
            ret_bound: self.ret_bound,
            generic: false,
            wrt_no_slice: self.wrt_no_slice,
            fixed: self.fixed,
        }
    }

    // ---- small utilities --------------------------------------------------------------------

    fn has_len(&self) -> bool {
        !self.lens.is_empty()
    }

    /// An expression for the common length: usually the canonical one, sometimes an alias.
    fn len(&mut self) -> Option<&'static str> {
        if self.lens.len() > 1 && self.on(Construct::SliceLen) && self.chance(0.2) {
            self.count(Construct::SliceLen);
            let alts = self.lens[1..].to_vec();
            let l = self.pick(&alts);
            if Self::is_field(l) {
                self.count(Construct::StructLen);
            }
            return Some(l);
        }
        self.lens.first().copied()
    }

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

    fn pick_weighted<T: Clone>(&mut self, xs: &[(T, f64)]) -> T {
        let total: f64 = xs.iter().map(|x| x.1).sum();
        let mut r = self.rng.gen::<f64>() * total;
        for (x, w) in xs {
            if r < *w {
                return x.clone();
            }
            r -= w;
        }
        xs.last().expect("pick from a non-empty list").0.clone()
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id - 1)
    }

    fn line(&mut self, s: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "    ".repeat(self.indent), s.as_ref()));
    }

    /// Indices of the visible (not shadowed) variables satisfying `pred`.
    fn visible(&self, pred: impl Fn(&Var) -> bool) -> Vec<usize> {
        (0..self.vars.len())
            .filter(|&i| {
                pred(&self.vars[i])
                    && !self.vars[i + 1..]
                        .iter()
                        .any(|w| w.name == self.vars[i].name)
            })
            .collect()
    }

    fn floats(&self) -> Vec<usize> {
        self.visible(|v| v.ty == Ty::Float)
    }

    /// Floats whose name a `let` or a closure parameter may shadow (not `(*is)`).
    fn shadowable(&self) -> Vec<usize> {
        self.visible(|v| v.ty == Ty::Float && !v.name.starts_with('(') && !Self::is_field(&v.name))
    }

    fn index_vars(&self) -> Vec<usize> {
        self.visible(|v| matches!(v.ty, Ty::Index { .. }))
    }

    fn writable_vecs(&self) -> Vec<usize> {
        let vecs = self.visible(|v| v.ty == Ty::Vector && v.mutable);
        vecs.into_iter()
            .filter(|&i| !self.frozen.contains(&self.vars[i].name))
            .collect()
    }

    fn push_scope(&mut self) {
        self.scope_marks.push(self.vars.len());
    }

    fn pop_scope(&mut self) {
        let mark = self.scope_marks.pop().expect("balanced scopes");
        self.vars.truncate(mark);
    }

    fn declare(&mut self, name: String, ty: Ty, mutable: bool, base: f64, room: f64) {
        self.vars.push(Var {
            name,
            ty,
            mutable,
            bound: base + room,
            base,
            room,
            decl_k: self.k_mult,
            dirty: ty == Ty::Float,
            zero: false,
            arr_len: None,
        });
    }

    fn declare_index(&mut self, name: &str, lo: usize) {
        self.declare(name.to_string(), Ty::Index { lo }, false, 0.0, 0.0);
    }

    // ---- expressions ------------------------------------------------------------------------

    /// `c * e` with the largest listed factor `c` that brings `e` under `cap`.
    fn scale(&mut self, e: Ex, cap: f64) -> Ex {
        if e.b <= cap {
            return e;
        }
        let (inner, b) = match &e.scaled {
            Some((inner, b)) => (inner.clone(), *b),
            None => (e.at(UNARY), e.b),
        };
        let c = SCALES
            .iter()
            .copied()
            .find(|c| c * b <= cap)
            .unwrap_or(SCALES[SCALES.len() - 1]);
        Ex {
            s: format!("{} * {inner}", lit(c)),
            p: PROD,
            b: c * b,
            konst: e.konst,
            scaled: Some((inner, b)),
        }
    }

    /// Brings `e` under `cap`, by scaling or by a saturating function of a scaled `e`.
    fn squash(&mut self, e: Ex, cap: f64) -> Ex {
        if e.b <= cap {
            return e;
        }
        let mut fs = Vec::new();
        for c in [Construct::Sin, Construct::Tanh, Construct::Cos] {
            if self.on(c) && cap >= 1.0 && !e.konst {
                fs.push(c);
            }
        }
        if fs.is_empty() || self.chance(0.4) {
            return self.scale(e, cap);
        }
        let f = self.pick(&fs);
        let a = self.scale(e, ARG_CAP);
        self.count(f);
        Ex::atom(self.meth(&a, f.name(), &[]), 1.0)
    }

    /// `recv.name(args)`, or sometimes the same call in the `f64::name(recv, args)` form.
    fn meth(&mut self, recv: &Ex, name: &str, args: &[String]) -> String {
        if self.on(Construct::Ufcs) && self.chance(0.1) {
            self.count(Construct::Ufcs);
            let mut all = vec![recv.s.clone()];
            all.extend(args.iter().cloned());
            format!("f64::{name}({})", all.join(", "))
        } else {
            format!("{}.{name}({})", recv.at(ATOM), args.join(", "))
        }
    }

    fn expr(&mut self, depth: u32) -> Ex {
        let e = if depth == 0 || self.chance(0.2) {
            self.leaf()
        } else {
            self.node(depth)
        };
        self.scale(e, EXPR_CAP)
    }

    /// An expression that is not made of literals only.
    fn expr_nc(&mut self, depth: u32) -> Ex {
        let e = self.expr(depth);
        if e.konst {
            self.var_leaf()
        } else {
            e
        }
    }

    /// A non-literal expression scaled under `cap`.
    fn arg(&mut self, depth: u32, cap: f64) -> Ex {
        let e = self.expr_nc(depth);
        self.scale(e, cap)
    }

    fn read_var(&mut self, i: usize) -> Ex {
        self.vars[i].dirty = false;
        let e = Ex::atom(self.vars[i].name.clone(), self.vars[i].bound);
        self.scale(e, EXPR_CAP)
    }

    /// A float variable, recent ones (loop elements, fresh locals) more often.
    fn var_leaf(&mut self) -> Ex {
        let fs = self.floats();
        let i = if fs.len() > 3 && self.chance(0.5) {
            self.pick(&fs[fs.len() - 3..])
        } else {
            self.pick(&fs)
        };
        self.read_var(i)
    }

    fn literal(&mut self) -> Ex {
        let x = self.pick(LITS);
        if self.on(Construct::Neg) && self.chance(0.25) {
            self.count(Construct::Neg);
            Ex::new(format!("-{}", lit(x)), UNARY, x, true)
        } else {
            Ex::new(lit(x), ATOM, x, true)
        }
    }

    fn leaf(&mut self) -> Ex {
        let mut opts = vec![(0, 6.0), (1, 1.2)];
        if !self.slices.is_empty() {
            opts.push((2, 2.5));
        }
        if !self.visible(|v| v.ty == Ty::Vector).is_empty() {
            opts.push((3, 2.5));
        }
        if !self.nested_vars().is_empty() {
            opts.push((5, 2.5));
        }
        if self.ragged.is_some() && self.on(Construct::RaggedRead) {
            opts.push((6, 1.5));
        }
        if self.tally && self.on(Construct::TallyRead) {
            opts.push((7, 1.0));
        }
        if self.on(Construct::Cast) && (self.has_len() || !self.index_vars().is_empty()) {
            opts.push((4, 0.8));
        }
        match self.pick_weighted(&opts) {
            0 => self.var_leaf(),
            1 => self.literal(),
            2 => self.slice_read(),
            3 => self.vec_read(),
            5 => self.nested_read(),
            6 => self.ragged_read(),
            7 => self.tally_read(),
            _ => self.cast(),
        }
    }

    fn slice_read(&mut self) -> Ex {
        let slices = self.slices.clone();
        let s = self.pick(&slices);
        let ix = self.index();
        Ex::atom(format!("{s}[{ix}]"), self.slice_bound)
    }

    fn vec_read(&mut self) -> Ex {
        let vecs = self.visible(|v| v.ty == Ty::Vector);
        let i = self.pick(&vecs);
        let ix = self.index_into(i);
        self.vars[i].dirty = false;
        let e = Ex::atom(format!("{}[{ix}]", self.vars[i].name), self.vars[i].bound);
        self.scale(e, EXPR_CAP)
    }

    fn cast(&mut self) -> Ex {
        self.count(Construct::Cast);
        let idx = self.index_vars();
        if !idx.is_empty() && (!self.has_len() || self.chance(0.75)) {
            let i = self.pick(&idx);
            let name = self.vars[i].name.clone();
            if self.chance(0.3) {
                Ex::atom(format!("(({name} + 1) as f64)"), N_MAX as f64)
            } else {
                Ex::atom(format!("({name} as f64)"), (N_MAX - 1) as f64)
            }
        } else {
            let len = self.len().expect("cast needs a length or an index");
            Ex::atom(format!("({len} as f64)"), N_MAX as f64)
        }
    }

    /// A valid index into the local vector or array `i`.
    fn index_into(&mut self, i: usize) -> String {
        let Some(m) = self.vars[i].arr_len else {
            return self.index();
        };
        let idx = self.index_vars();
        if !idx.is_empty() && self.chance(0.6) {
            let j = self.pick(&idx);
            format!("{} % {m}", self.vars[j].name)
        } else {
            self.rng.gen_range(0..m).to_string()
        }
    }

    /// A valid index into the slice and the local vectors (all of the common length).
    fn index(&mut self) -> String {
        let idx = self.index_vars();
        if !idx.is_empty() && self.chance(0.8) {
            let i = self.pick(&idx);
            let name = self.vars[i].name.clone();
            let Ty::Index { lo } = self.vars[i].ty else {
                unreachable!("index_vars returns indices")
            };
            let mut forms = vec![(name.clone(), 5.0), (format!("{name} / 2"), 0.5)];
            if idx.len() >= 2 && self.has_len() && self.on(Construct::TwoVarIndex) {
                let j = self.pick(&idx);
                if j != i && self.chance(0.3) {
                    self.count(Construct::TwoVarIndex);
                    let len = self.len().expect("checked above");
                    return format!("({name} + {}) % {len}", self.vars[j].name);
                }
            }
            if let Some(len) = self.len() {
                forms.push((format!("{len} - 1 - {name}"), 1.5));
                forms.push((format!("({name} + 1) % {len}"), 1.5));
                forms.push((format!("({name} + 2) % {len}"), 0.5));
            }
            if lo >= 1 {
                forms.push((format!("{name} - 1"), 1.5));
            }
            self.pick_weighted(&forms)
        } else {
            let mut forms: Vec<String> = (0..N_MIN).map(|k| k.to_string()).collect();
            if let Some(len) = self.len() {
                forms.push(format!("{len} - 1"));
                forms.push(format!("{len} / 2"));
            }
            self.pick(&forms)
        }
    }

    fn unary_fns(&self) -> Vec<Construct> {
        [
            Construct::Sin,
            Construct::Cos,
            Construct::Tanh,
            Construct::Atan,
        ]
        .into_iter()
        .filter(|&c| self.on(c))
        .collect()
    }

    fn node(&mut self, depth: u32) -> Ex {
        let mut ops = vec![(Op::Add, 3.0), (Op::Sub, 2.0), (Op::Mul, 3.0)];
        if self.on(Construct::Div) {
            ops.push((Op::Div, 1.2));
        }
        if self.on(Construct::Neg) {
            ops.push((Op::Neg, 0.7));
        }
        for c in self.unary_fns() {
            ops.push((Op::Unary(c), 0.9));
        }
        for (c, op, w) in [
            (Construct::Exp, Op::Exp, 0.8),
            (Construct::Sqrt, Op::Sqrt, 0.7),
            (Construct::Ln, Op::Ln, 0.7),
            (Construct::Powi, Op::Powi, 0.8),
            (Construct::Hypot, Op::Hypot, 0.6),
        ] {
            if self.on(c) {
                ops.push((op, w));
            }
        }
        for c in EXTRA_METHODS {
            if self.on(*c) {
                ops.push((Op::Extra(*c), 0.3));
            }
        }
        if !self.callable().is_empty() {
            ops.push((Op::Call, if self.is_helper { 3.0 } else { 1.0 }));
        }
        self.idiom_ops(&mut ops);
        let d = depth - 1;
        match self.pick_weighted(&ops) {
            Op::Add => {
                let (l, r) = (self.expr(d), self.expr(d));
                self.sum(l, "+", r)
            }
            Op::Sub => {
                let (l, r) = (self.expr(d), self.expr(d));
                self.sum(l, "-", r)
            }
            Op::Mul => {
                let (l, r) = (self.expr(d), self.expr(d));
                self.product(l, r)
            }
            Op::Div => {
                self.count(Construct::Div);
                let l = self.expr(d);
                let (den, lo) = self.pos(d, true, false);
                Ex::new(
                    format!("{} / {}", l.at(PROD), den.at(ATOM)),
                    PROD,
                    l.b / lo,
                    l.konst && den.konst,
                )
            }
            Op::Neg => {
                self.count(Construct::Neg);
                let e = self.expr(d);
                Ex::new(format!("-{}", e.at(ATOM)), UNARY, e.b, e.konst)
            }
            Op::Unary(c) => {
                self.count(c);
                let a = self.arg(d, ARG_CAP);
                let b = if c == Construct::Atan { 1.6 } else { 1.0 };
                Ex::atom(self.meth(&a, c.name(), &[]), b)
            }
            Op::Exp => {
                self.count(Construct::Exp);
                let a = self.arg(d, EXP_CAP);
                Ex::atom(self.meth(&a, "exp", &[]), a.b.exp())
            }
            Op::Sqrt => {
                self.count(Construct::Sqrt);
                let (p, _) = self.pos(d, false, false);
                Ex::atom(self.meth(&p, "sqrt", &[]), p.b.sqrt())
            }
            Op::Ln => {
                self.count(Construct::Ln);
                let (p, lo) = self.pos(d, false, false);
                let b = p.b.ln().abs().max(lo.ln().abs());
                Ex::atom(self.meth(&p, "ln", &[]), b)
            }
            Op::Powi => {
                self.count(Construct::Powi);
                let int_exp = !self.index_vars().is_empty() || self.has_len();
                if self.on(Construct::PowiVar) && int_exp && self.chance(0.25) {
                    self.count(Construct::PowiVar);
                    let idx = self.index_vars();
                    let k = if !idx.is_empty() && (self.chance(0.7) || !self.has_len()) {
                        let i = self.pick(&idx);
                        self.vars[i].name.clone()
                    } else {
                        self.len().expect("checked above").to_string()
                    };
                    let a = self.arg(d, 1.3);
                    let b = a.b.max(1.0).powi(N_MAX as i32);
                    Ex::atom(self.meth(&a, "powi", &[format!("{k} as i32")]), b)
                } else if self.chance(0.7) {
                    let k: i32 = self.pick(&[2, 3]);
                    let a = self.arg(d, EXPR_CAP.powf(1.0 / k as f64));
                    let b = a.b.powi(k);
                    Ex::atom(self.meth(&a, "powi", &[k.to_string()]), b)
                } else {
                    let k: i32 = self.pick(&[-1, -2]);
                    let (p, lo) = self.pos(d, false, false);
                    Ex::atom(self.meth(&p, "powi", &[k.to_string()]), lo.powi(k))
                }
            }
            Op::Hypot => {
                self.count(Construct::Hypot);
                let a = self.arg(d, EXPR_CAP);
                let (p, _) = self.pos(d, true, false);
                Ex::atom(self.meth(&a, "hypot", &[p.s]), a.b + p.b)
            }
            Op::Extra(c) => self.extra_method(c, d),
            Op::Call => self.call(d),
            Op::Idiom(c) => self.expr_idiom(c, d),
        }
    }

    /// One of [`EXTRA_METHODS`], with an argument inside its smooth domain.
    fn extra_method(&mut self, c: Construct, d: u32) -> Ex {
        self.count(c);
        let name = c.name();
        match c {
            Construct::Tan | Construct::Asin | Construct::Acos => {
                let cap = if c == Construct::Tan { 1.0 } else { 0.9 };
                let a = self.arg(d, cap);
                let b = if c == Construct::Acos { 3.2 } else { 1.6 };
                Ex::atom(self.meth(&a, name, &[]), b)
            }
            Construct::Sinh | Construct::Cosh | Construct::ExpM1 | Construct::Exp2 => {
                let a = self.arg(d, EXP_CAP);
                Ex::atom(self.meth(&a, name, &[]), a.b.exp())
            }
            Construct::Atan2 => {
                let a = self.arg(d, EXPR_CAP);
                let (p, _) = self.pos(d, true, false);
                Ex::atom(self.meth(&a, name, &[p.s]), 1.6)
            }
            Construct::Powf => {
                let (p, lo) = self.pos(d, false, false);
                let a = self.arg(d, 1.5);
                let b = p.b.max(1.0 / lo).max(1.0).powf(a.b);
                Ex::atom(self.meth(&p, name, &[a.s]), b)
            }
            Construct::MulAdd => {
                let l = self.expr_nc(d);
                let r = self.expr(d);
                let r = self.scale(r, EXPR_CAP / l.b.max(1.0));
                let z = self.expr(d);
                let b = l.b * r.b + z.b;
                Ex::atom(self.meth(&l, name, &[r.s.clone(), z.s.clone()]), b)
            }
            Construct::Recip => {
                let (p, lo) = self.pos(d, false, false);
                Ex::atom(self.meth(&p, name, &[]), 1.0 / lo)
            }
            Construct::Cbrt => {
                let (p, _) = self.pos(d, false, false);
                Ex::atom(self.meth(&p, name, &[]), p.b.cbrt())
            }
            Construct::Ln1p => {
                let (p, _) = self.pos(d, false, false);
                Ex::atom(self.meth(&p, name, &[]), p.b.ln_1p())
            }
            Construct::Log2 | Construct::Log10 => {
                let (p, lo) = self.pos(d, false, false);
                let b = p.b.ln().abs().max(lo.ln().abs()) / 2.0f64.ln();
                Ex::atom(self.meth(&p, name, &[]), b)
            }
            _ => {
                let a = self.arg(d, ARG_CAP);
                let field = self.pick(&["0", "1"]);
                Ex::atom(format!("{}.sin_cos().{field}", a.at(ATOM)), 1.0)
            }
        }
    }

    fn sum(&mut self, l: Ex, op: &str, r: Ex) -> Ex {
        let op = if l.s == r.s { "+" } else { op };
        Ex::new(
            format!("{} {op} {}", l.at(SUM), r.at(PROD)),
            SUM,
            l.b + r.b,
            l.konst && r.konst,
        )
    }

    fn product(&mut self, l: Ex, r: Ex) -> Ex {
        let r = if l.b * r.b > EXPR_CAP {
            self.scale(r, EXPR_CAP / l.b.max(1.0))
        } else {
            r
        };
        Ex::new(
            format!("{} * {}", l.at(PROD), r.at(UNARY)),
            PROD,
            l.b * r.b,
            l.konst && r.konst,
        )
    }

    /// A binary combination of two expressions.
    fn combine(&mut self, a: Ex, b: Ex) -> Ex {
        match self.rng.gen_range(0..3) {
            0 => self.sum(a, "+", b),
            1 => self.sum(a, "-", b),
            _ => self.product(a, b),
        }
    }

    /// A positive expression, with a lower bound; `lit_ok` allows a bare literal (not for method
    /// receivers), `ge1` asks for a lower bound of at least 1.
    fn pos(&mut self, depth: u32, lit_ok: bool, ge1: bool) -> (Ex, f64) {
        let mut forms = vec![0];
        if self.on(Construct::Powi) {
            forms.push(1);
        }
        let shifted: Vec<Construct> = [Construct::Sin, Construct::Cos, Construct::Tanh]
            .into_iter()
            .filter(|&c| self.on(c))
            .collect();
        if !shifted.is_empty() {
            forms.push(2);
        }
        if self.on(Construct::Exp) && !ge1 {
            forms.push(4);
        }
        if self.on(Construct::Hypot) {
            forms.push(5);
        }
        if lit_ok {
            forms.push(6);
        }
        if self.on(Construct::Sqrt) && depth > 0 && !ge1 {
            forms.push(7);
        }
        let shift = |ge1: bool, xs: &[f64]| -> Vec<f64> {
            xs.iter().copied().filter(|&c| !ge1 || c >= 1.0).collect()
        };
        match self.pick(&forms) {
            0 => {
                let a = self.var_leaf();
                let a = self.scale(a, 4.0);
                let c = self.pick(&shift(ge1, &[0.5, 1.0, 2.0]));
                let e = Ex::new(
                    format!("{} * {} + {}", a.at(PROD), a.at(UNARY), lit(c)),
                    SUM,
                    a.b * a.b + c,
                    false,
                );
                (e, c)
            }
            1 => {
                self.count(Construct::Powi);
                let a = self.arg(depth, 4.0);
                let c = self.pick(&shift(ge1, &[0.5, 1.0, 2.0]));
                let e = Ex::new(
                    format!("{} + {}", self.meth(&a, "powi", &["2".into()]), lit(c)),
                    SUM,
                    a.b * a.b + c,
                    false,
                );
                (e, c)
            }
            2 => {
                let f = self.pick(&shifted);
                self.count(f);
                let a = self.arg(depth, ARG_CAP);
                let c = self.pick(&shift(ge1, &[1.5, 2.0]));
                let e = Ex::new(
                    format!("{} + {}", lit(c), self.meth(&a, f.name(), &[])),
                    SUM,
                    c + 1.0,
                    false,
                );
                (e, c - 1.0)
            }
            4 => {
                self.count(Construct::Exp);
                let a = self.arg(depth, EXP_CAP);
                let e = Ex::atom(self.meth(&a, "exp", &[]), a.b.exp());
                (e, (-a.b).exp())
            }
            5 => {
                self.count(Construct::Hypot);
                let a = self.arg(depth, EXPR_CAP);
                let c = self.pick(&shift(ge1, &[0.5, 1.0, 2.0]));
                let e = Ex::atom(self.meth(&a, "hypot", &[lit(c)]), a.b + c);
                (e, c)
            }
            6 => {
                let c = self.pick(&shift(ge1, &[1.5, 2.0, 3.0, 4.0]));
                (Ex::new(lit(c), ATOM, c, true), c)
            }
            _ => {
                self.count(Construct::Sqrt);
                let (p, lo) = self.pos(depth - 1, false, false);
                let e = Ex::atom(self.meth(&p, "sqrt", &[]), p.b.sqrt());
                (e, lo.sqrt())
            }
        }
    }

    /// Helpers returning a float this function may call now (helpers returning arrays are
    /// called by the statements that destructure them, see `idioms2.rs`).
    fn callable(&self) -> Vec<usize> {
        self.callable_returning(OutKind::F64)
    }

    /// Helpers returning `out` this function may call now.
    pub(super) fn callable_returning(&self, out: OutKind) -> Vec<usize> {
        if !self.on(Construct::HelperCall)
            || (self.is_helper && !self.on(Construct::HelperInHelper))
        {
            return Vec::new();
        }
        let slice_ok = self.on(Construct::HelperSliceArg) && !self.slice_args().is_empty();
        (0..self.helpers.len())
            .filter(|&h| slice_ok || !self.helpers[h].has_slice())
            .filter(|&h| self.helpers[h].out == out && !self.helpers[h].takes_inout())
            .filter(|&h| !self.helpers[h].takes_row() && !self.helpers[h].is_step())
            .collect()
    }

    /// What can be passed for a slice argument: the slice parameter, or a local vector whose
    /// elements stay within the helper's bound (not the one being written).
    fn slice_args(&self) -> Vec<String> {
        let mut out: Vec<String> = self.slices.iter().map(|s| s.to_string()).collect();
        if self.on(Construct::SubsliceArg) {
            for s in &self.slices {
                out.push(format!("&{s}[..]"));
                out.push(format!("&{s}[..{}]", self.lens[0]));
                // Nested: composed into one range by the macro.
                out.push(format!("&{s}[0..][..{}]", self.lens[0]));
            }
        }
        if !self.on(Construct::HelperVecArg) {
            return out;
        }
        for i in self.visible(|v| v.ty == Ty::Vector) {
            let v = &self.vars[i];
            let fits = v.bound <= HELPER_SLICE_BOUND
                && v.arr_len.is_none()
                && (!Self::is_field(&v.name) || self.on(Construct::StructFieldArg));
            if fits && self.write_target.as_deref() != Some(&v.name) {
                out.push(format!("&{}", v.name));
                if self.inout == Some(v.name.as_str()) && self.on(Construct::InOutBareArg) {
                    out.push(v.name.clone());
                }
                if self.on(Construct::VecReborrowArg) {
                    out.push(format!("&*{}", v.name));
                }
                if self.on(Construct::VecSubsliceArg) {
                    out.push(format!("&{}[0..{}]", v.name, self.lens[0]));
                }
            }
        }
        out
    }

    fn call(&mut self, depth: u32) -> Ex {
        self.call_with(depth, None, None)
    }

    /// A helper call; `scalar`, if given, is printed as its first float argument, and `slice`
    /// as its first slice argument (then only helpers taking a slice are chosen).
    fn call_with(&mut self, depth: u32, scalar: Option<&str>, slice: Option<&str>) -> Ex {
        let mut hs = self.callable();
        if slice.is_some() {
            hs.retain(|&h| self.helpers[h].has_slice());
        }
        let h = self.pick(&hs);
        let e = self.call_of(h, depth, scalar, slice);
        self.scale(e, EXPR_CAP)
    }

    /// The call of helper `h` with arguments drawn like [`FnGen::call_with`]'s, unscaled.
    fn call_of(&mut self, h: usize, depth: u32, scalar: Option<&str>, slice: Option<&str>) -> Ex {
        let (mut scalar, mut slice) = (scalar, slice);
        self.count(Construct::HelperCall);
        if self.is_helper {
            self.count(Construct::HelperInHelper);
        }
        if self.helpers[h].generic {
            // `hg*` reduce local `Vec`s; `hc*` compute in `f64` through conversions.
            self.count(if self.helpers[h].name.starts_with("hc") {
                Construct::GenericConvert
            } else {
                Construct::GenericSum
            });
        }
        self.calls.insert(h);
        let helpers = self.helpers;
        let slice_params = helpers[h]
            .params
            .iter()
            .filter(|p| matches!(p, Param::Slice(_)))
            .count();
        if slice_params > 1 {
            self.count(Construct::HelperTwoSlices);
        }
        // A generic helper's `T` is inferred from its arguments: one of them must have a type.
        let mut untyped = helpers[h].generic && !helpers[h].has_slice();
        let mut args = Vec::new();
        for p in &helpers[h].params {
            match p {
                // Left out of the helper's `wrt`: a constant.
                Param::Scalar(n) if helpers[h].fixed.contains(n) => {
                    self.count(Construct::WrtHelperCall);
                    let lits: Vec<f64> = LITS
                        .iter()
                        .copied()
                        .filter(|l| *l <= HELPER_ARG_BOUND)
                        .collect();
                    let l = self.pick(&lits);
                    args.push(format!("{l:?}"));
                }
                Param::Scalar(_) => {
                    if let Some(x) = scalar.take() {
                        args.push(x.to_string());
                        untyped = false;
                        continue;
                    }
                    let e = if untyped {
                        untyped = false;
                        self.expr_nc(depth)
                    } else {
                        self.expr(depth)
                    };
                    let e = self.scale(e, HELPER_ARG_BOUND);
                    args.push(e.s);
                }
                Param::Slice(_) => {
                    self.count(Construct::HelperSliceArg);
                    if let Some(x) = slice.take() {
                        args.push(x.to_string());
                        continue;
                    }
                    let opts = self.slice_args();
                    let local: Vec<String> = opts
                        .iter()
                        .filter(|a| {
                            let name = a.trim_start_matches('&').split('[').next().unwrap_or("");
                            !self.slices.contains(&name)
                        })
                        .cloned()
                        .collect();
                    let a = if !local.is_empty() && self.chance(0.5) {
                        self.pick(&local)
                    } else {
                        self.pick(&opts)
                    };
                    if a.starts_with("&*") {
                        self.count(Construct::VecReborrowArg);
                    }
                    if self.inout == Some(a.as_str()) {
                        self.count(Construct::InOutBareArg);
                    }
                    let vec_name = a
                        .strip_prefix('&')
                        .map(|x| x.trim_start_matches('*'))
                        .map(|x| x.split('[').next().unwrap_or(x));
                    let vec_name = vec_name.filter(|n| !self.slices.contains(n));
                    if a.contains('[') {
                        self.count(if vec_name.is_some() {
                            Construct::VecSubsliceArg
                        } else {
                            Construct::SubsliceArg
                        });
                    }
                    if let Some(name) = vec_name {
                        self.count(Construct::HelperVecArg);
                        if Self::is_field(name) {
                            self.count(Construct::StructFieldArg);
                        }
                        for v in &mut self.vars {
                            if v.name == name {
                                v.dirty = false;
                            }
                        }
                    }
                    args.push(a);
                }
                Param::Len(_) => {
                    let len = self.len().unwrap_or("3");
                    args.push(len.to_string())
                }
                Param::Array(_)
                | Param::InOut(_)
                | Param::InOutArray(_)
                | Param::Workspace(_)
                | Param::InOutScalar(_)
                | Param::Nested(..)
                | Param::Row(..)
                | Param::InOutRow(..)
                | Param::Ragged(..)
                | Param::Tally(_)
                | Param::Struct(_) => {
                    unreachable!("helpers take no arrays or in-out arguments")
                }
            }
        }
        Ex::atom(
            format!("{}({})", helpers[h].name, args.join(", ")),
            helpers[h].ret_bound,
        )
    }

    // ---- conditions -------------------------------------------------------------------------

    fn can_cond(&self) -> bool {
        self.on(Construct::ActiveCond) || self.has_len() || !self.index_vars().is_empty()
    }

    fn can_match(&self) -> bool {
        self.has_len() || !self.index_vars().is_empty()
    }

    fn cond(&mut self) -> String {
        let int_ok = self.has_len() || !self.index_vars().is_empty();
        if self.on(Construct::ActiveCond) && (!int_ok || self.chance(0.7)) {
            self.count(Construct::ActiveCond);
            let d = self.rng.gen_range(0..=2);
            let l = self.expr_nc(d);
            let op = self.pick(&[">", "<", ">=", "<="]);
            let r = if self.chance(0.5) {
                self.literal()
            } else {
                let d = self.rng.gen_range(0..=1);
                self.expr(d)
            };
            let c = format!("{} {op} {}", l.s, r.s);
            if int_ok && self.chance(0.12) {
                let ic = self.int_cond();
                let join = self.pick(&["&&", "||"]);
                format!("{c} {join} {ic}")
            } else {
                c
            }
        } else {
            self.int_cond()
        }
    }

    fn int_cond(&mut self) -> String {
        let idx = self.index_vars();
        if idx.is_empty() || (self.has_len() && self.chance(0.15)) {
            let len = self
                .len()
                .expect("an integer condition needs a length or an index");
            return self.pick(&[format!("{len} > 4"), format!("{len} % 2 == 0")]);
        }
        let i = self.pick(&idx);
        let name = self.vars[i].name.clone();
        let mut forms = vec![
            format!("{name} % 2 == 0"),
            format!("{name} < 2"),
            format!("{name} > 1"),
            format!("{name} % 3 != 1"),
        ];
        if let Some(len) = self.len() {
            forms.push(format!("{name} + 1 < {len}"));
        }
        if idx.len() >= 2 {
            let j = self.pick(&idx);
            if j != i {
                forms.push(format!("{name} == {}", self.vars[j].name));
                forms.push(format!("{name} < {}", self.vars[j].name));
            }
        }
        self.pick(&forms)
    }

    /// A `match` scrutinee and the number of distinct arms it calls for.
    fn scrutinee(&mut self) -> (String, usize) {
        let idx = self.index_vars();
        if idx.is_empty() || (self.has_len() && self.chance(0.15)) {
            let len = self.len().expect("a scrutinee needs a length or an index");
            return (format!("{len} % 3"), 3);
        }
        let i = self.pick(&idx);
        let name = self.vars[i].name.clone();
        if idx.len() >= 2 && self.chance(0.25) {
            let j = self.pick(&idx);
            if j != i {
                return (format!("({name} + {}) % 3", self.vars[j].name), 3);
            }
        }
        if self.chance(0.2) {
            (format!("{name} % 2"), 2)
        } else {
            (format!("{name} % 3"), 3)
        }
    }

    /// Arm patterns for a scrutinee with `m` values.
    fn arm_patterns(&mut self, m: usize) -> Vec<&'static str> {
        if m == 2 {
            vec!["0", "_"]
        } else if self.chance(0.25) {
            vec!["0", "1 | 2", "_"]
        } else {
            vec!["0", "1", "_"]
        }
    }

    // ---- statements -------------------------------------------------------------------------

    fn stmt(&mut self) {
        self.budget -= 1;
        let muts = self.visible(|v| v.ty == Ty::Float && v.mutable);
        let vecs = self.writable_vecs();
        let can_nest = self.nest < 3 && self.budget >= 2;
        let compound_on = [
            Construct::AddAssign,
            Construct::SubAssign,
            Construct::MulAssign,
            Construct::DivAssign,
        ]
        .iter()
        .any(|&c| self.on(c));
        let mut opts = vec![(St::Let, 3.0)];
        if self.on(Construct::LetMut) {
            opts.push((St::LetMut, 1.5));
        }
        if !muts.is_empty() {
            if self.on(Construct::Assign) {
                opts.push((St::Assign, 2.0));
            }
            if compound_on {
                opts.push((St::Compound, 3.0));
            }
        }
        if self.on(Construct::LocalVec)
            && self.has_len()
            && self.vec_count < 2
            && self.loops.is_empty()
        {
            opts.push((St::VecDecl, if self.vec_count == 0 { 2.0 } else { 0.6 }));
        }
        if self.on(Construct::LocalArray) && self.arr_count < 1 && self.loops.is_empty() {
            opts.push((St::ArrayDecl, 0.8));
        }
        if self.on(Construct::DeferredInit) && can_nest && self.can_cond() {
            opts.push((St::Deferred, 0.6));
        }
        if self.on(Construct::BlockExpr) {
            opts.push((St::BlockExpr, 0.5));
        }
        if self.on(Construct::TupleLet) {
            opts.push((St::TupleLet, 0.5));
        }
        if !vecs.is_empty() {
            opts.push((St::VecWrite, 3.0));
        }
        if can_nest && self.can_cond() {
            if self.on(Construct::IfStmt) {
                opts.push((St::If, 2.0));
            }
            if self.on(Construct::EarlyReturn) && !self.no_early_return {
                opts.push((St::Return, 0.5));
            }
        }
        if can_nest && self.on(Construct::MatchStmt) && self.can_match() {
            opts.push((St::Match, 1.0));
        }
        let loop_ok =
            self.loops.is_empty() || (self.loops.len() < 2 && self.on(Construct::ForNested));
        if loop_ok && can_nest {
            if self.on(Construct::ForRange) {
                opts.push((St::For, 2.5));
            }
            let iter_src =
                !self.slices.is_empty() || !self.visible(|v| v.ty == Ty::Vector).is_empty();
            if (self.on(Construct::ForIter) || self.on(Construct::ForEnumerate)) && iter_src {
                opts.push((St::ForIter, 1.2));
            }
            if self.on(Construct::While) {
                opts.push((St::While, 1.0));
            }
            if self.on(Construct::Loop) {
                opts.push((St::Loop, 1.0));
            }
        }
        if self.on(Construct::IfExpr) && self.can_cond() {
            opts.push((St::LetIf, 1.0));
        }
        if self.on(Construct::MatchExpr) && self.can_match() {
            opts.push((St::LetMatch, 0.7));
        }
        if let Some(&kind) = self.loops.last() {
            if self.can_cond() {
                if self.on(Construct::Break) {
                    opts.push((St::Break, 0.5));
                }
                if self.on(Construct::Continue) && kind == LoopKind::ContinueOk {
                    opts.push((St::Continue, 0.5));
                }
            }
        }
        if !self.callable().is_empty() {
            opts.push((St::LetCall, if self.is_helper { 3.0 } else { 0.8 }));
        }
        if self.on(Construct::SinCos) {
            opts.push((St::SinCos, 0.4));
        }
        if self.ragged.is_some() && self.on(Construct::RaggedRows) {
            opts.push((St::Ragged, 0.8));
        }
        if self.tally && self.on(Construct::TallyMethod) {
            opts.push((St::Tally, 0.6));
        }
        if self.reduction_loop_ok() {
            opts.push((St::Idiom(Construct::ReductionLoop), 2.0));
        }
        self.idiom_stmts(&mut opts, loop_ok && can_nest);
        self.checkpoint_stmts(&mut opts);
        if self.lend_ok() {
            opts.push((St::Lend, 1.0));
        }
        match self.pick_weighted(&opts) {
            St::Let => self.s_let(false),
            St::LetMut => self.s_let(true),
            St::Assign => {
                let i = self.pick(&muts);
                self.s_assign(i)
            }
            St::Compound => {
                let i = self.pick(&muts);
                self.s_compound(i)
            }
            St::VecDecl => self.s_vec_decl(),
            St::ArrayDecl => self.s_array_decl(),
            St::Deferred => self.s_deferred(),
            St::BlockExpr => self.s_block_expr(),
            St::TupleLet => self.s_tuple_let(),
            St::VecWrite => {
                let i = self.pick(&vecs);
                self.s_vec_write(i)
            }
            St::If => self.s_if(),
            St::Return => self.s_guarded(Tail::Return),
            St::Match => self.s_match(),
            St::For => self.s_for(),
            St::ForIter => self.s_for_iter(),
            St::While => self.s_while(),
            St::Loop => self.s_loop(),
            St::LetIf => self.s_let_if(),
            St::LetMatch => self.s_let_match(),
            St::Break => self.s_guarded(Tail::Break),
            St::Continue => self.s_guarded(Tail::Continue),
            St::Idiom(c) => self.s_idiom(c),
            St::Checkpoint => self.s_checkpoint(),
            St::Lend => self.s_lend(),
            St::Ragged => self.s_ragged_rows(),
            St::Tally => self.s_tally(),
            St::SinCos => {
                self.count(Construct::SinCos);
                let (s, c) = (self.fresh("t"), self.fresh("t"));
                let d = self.rng.gen_range(0..=2);
                let a = self.arg(d, ARG_CAP);
                let call = self.meth(&a, "sin_cos", &[]);
                self.line(format!("let ({s}, {c}) = {call};"));
                self.declare(s, Ty::Float, false, 1.0, 0.0);
                self.declare(c, Ty::Float, false, 1.0, 0.0);
            }
            St::LetCall => {
                let name = self.fresh("t");
                let d = self.rng.gen_range(0..=2);
                let e = self.call(d);
                self.line(format!("let {name} = {};", e.s));
                self.declare(name, Ty::Float, false, e.b, 0.0);
            }
        }
    }

    /// Runs `k` statements in a new scope one level deeper.
    fn block(&mut self, k: i32, tail: Tail) {
        self.indent += 1;
        self.nest += 1;
        self.push_scope();
        for _ in 0..k {
            self.stmt();
        }
        if matches!(tail, Tail::None | Tail::Init) {
            self.absorb_locals();
        }
        match tail {
            Tail::None => {}
            Tail::Init => {
                let d = self.rng.gen_range(0..=2);
                let e = self.expr_nc(d);
                let (name, b) = self.inits.last_mut().expect("a pending deferred init");
                *b = b.max(e.b);
                let name = name.clone();
                self.line(format!("{name} = {};", e.s));
            }
            Tail::Return => {
                let (v, _) = self.ret_value(false);
                let r = self.ret_stmt(&v);
                self.line(r);
            }
            Tail::Break => self.line("break;"),
            Tail::Continue => self.line("continue;"),
        }
        self.pop_scope();
        self.nest -= 1;
        self.indent -= 1;
    }

    /// Statement count for a nested block.
    fn child_len(&mut self, max: i32) -> i32 {
        let hi = max.min(self.budget / 2).max(1);
        self.rng.gen_range(1..=hi)
    }

    fn s_let(&mut self, mutable: bool) {
        let floats = self.shadowable();
        let shadow = self.on(Construct::Shadowing) && self.chance(0.3);
        let (name, e) = if shadow {
            self.count(Construct::Shadowing);
            let i = self.pick(&floats);
            let name = self.vars[i].name.clone();
            let me = self.read_var(i);
            let d = self.rng.gen_range(0..=2);
            let other = self.expr(d);
            let e = self.combine(me, other);
            let e = self.self_wrap(e);
            (name, e)
        } else if mutable && self.chance(0.35) {
            let name = self.fresh("s");
            self.zero_init(&name);
            return;
        } else {
            let name = self.fresh(if mutable { "s" } else { "t" });
            let d = self.rng.gen_range(1..=3);
            (name, self.expr_nc(d))
        };
        // A constant's type is fixed by the annotation: a method called on the name before
        // anything else fixes it (`t.powi(2)`) would not compile (E0689, seed 20005).
        let ty = if e.konst { ": f64" } else { "" };
        if mutable {
            self.count(Construct::LetMut);
            let base = e.b.max(self.pick(&[1.0, 2.0, 4.0]));
            let room: f64 = self.pick(&[0.0, 2.0, 8.0, 16.0]);
            self.line(format!("let mut {name}{ty} = {};", e.s));
            self.declare(name, Ty::Float, true, base, room);
        } else {
            self.line(format!("let {name}{ty} = {};", e.s));
            self.declare(name, Ty::Float, false, e.b, 0.0);
        }
    }

    /// `let mut s: f64 = 0.0;`, an accumulator with room for sums.
    fn zero_init(&mut self, name: &str) {
        self.count(Construct::LetMut);
        let c: f64 = self.pick(&[0.0, 0.0, 1.0, 0.5]);
        if self.on(Construct::TypedLet) {
            self.count(Construct::TypedLet);
            self.line(format!("let mut {name}: f64 = {};", lit(c)));
        } else {
            let v = self.var_leaf();
            self.line(format!("let mut {name} = {} * {};", v.at(PROD), lit(c)));
        }
        let base: f64 = self.pick(&[1.0, 2.0]);
        let room: f64 = self.pick(&[8.0, 16.0, 40.0]);
        self.declare(name.to_string(), Ty::Float, true, base, room);
        self.vars.last_mut().expect("just declared").zero = c == 0.0;
    }

    /// Sometimes wraps an expression in a smooth function.
    fn self_wrap(&mut self, e: Ex) -> Ex {
        let fs = self.unary_fns();
        if fs.is_empty() || e.konst || !self.chance(0.3) {
            return e;
        }
        let f = self.pick(&fs);
        self.count(f);
        let a = self.scale(e, ARG_CAP);
        let b = if f == Construct::Atan { 1.6 } else { 1.0 };
        Ex::atom(self.meth(&a, f.name(), &[]), b)
    }

    fn s_assign(&mut self, i: usize) {
        self.count(Construct::Assign);
        let name = self.vars[i].name.clone();
        let base = self.vars[i].base;
        if self.on(Construct::IfExpr) && self.can_cond() && self.chance(0.12) {
            self.count(Construct::IfExpr);
            self.if_expr(&format!("{name} = "), base, Some(i));
        } else {
            let e = if self.chance(0.8) {
                let me = self.read_var(i);
                let d = self.rng.gen_range(0..=2);
                let other = self.expr(d);
                let e = self.combine(me, other);
                self.self_wrap(e)
            } else {
                let d = self.rng.gen_range(1..=3);
                self.expr(d)
            };
            let e = self.squash(e, base);
            self.line(format!("{name} = {};", e.s));
        }
        self.vars[i].dirty = true;
        self.vars[i].zero = false;
    }

    /// Executions of the current site per execution of the declaration of variable `i`.
    fn rel_k(&self, i: usize) -> f64 {
        self.k_mult / self.vars[i].decl_k
    }

    /// The right-hand side of `+=`/`-=` on variable `i`, charged to its room; `None` if the
    /// room is used up.
    fn increment(&mut self, i: usize) -> Option<Ex> {
        let d = self.rng.gen_range(0..=2);
        let e = self.expr(d);
        self.charge(i, e)
    }

    /// `e`, scaled if needed, as the right-hand side of `+=`/`-=` on variable `i`, charged to
    /// its room; `None` if the room is used up.
    fn charge(&mut self, i: usize, e: Ex) -> Option<Ex> {
        let rel = self.rel_k(i);
        let room = self.vars[i].room;
        let e = if rel * e.b > room {
            self.scale(e, room / rel)
        } else {
            e
        };
        if rel * e.b > room || room <= 0.0 {
            return None;
        }
        self.vars[i].room -= rel * e.b;
        Some(e)
    }

    /// A factor of magnitude at most 1.
    fn factor(&mut self) -> Ex {
        let d = self.rng.gen_range(0..=2);
        let e = self.expr_nc(d);
        self.squash(e, 1.0)
    }

    fn s_compound(&mut self, i: usize) {
        let name = self.vars[i].name.clone();
        let ops: Vec<Construct> = [
            Construct::AddAssign,
            Construct::SubAssign,
            Construct::MulAssign,
            Construct::DivAssign,
        ]
        .into_iter()
        .filter(|&c| self.on(c))
        .filter(|&c| !self.vars[i].zero || matches!(c, Construct::AddAssign | Construct::SubAssign))
        .collect();
        if ops.is_empty() {
            if self.on(Construct::Assign) {
                return self.s_assign(i);
            }
            return self.s_let(false);
        }
        let mut op = self.pick(&ops);
        let mut inc = None;
        if matches!(op, Construct::AddAssign | Construct::SubAssign) {
            inc = self.increment(i);
            if inc.is_none() {
                let rest: Vec<Construct> = ops
                    .iter()
                    .copied()
                    .filter(|c| matches!(c, Construct::MulAssign | Construct::DivAssign))
                    .collect();
                if rest.is_empty() {
                    if self.on(Construct::Assign) {
                        return self.s_assign(i);
                    }
                    return self.s_let(false);
                }
                op = self.pick(&rest);
            }
        }
        self.count(op);
        match op {
            Construct::AddAssign | Construct::SubAssign => {
                let e = inc.expect("checked above");
                let sym = if op == Construct::AddAssign {
                    "+="
                } else {
                    "-="
                };
                self.line(format!("{name} {sym} {};", e.s));
                self.vars[i].zero = false;
            }
            Construct::MulAssign => {
                let e = self.factor();
                self.line(format!("{name} *= {};", e.s));
            }
            _ => {
                let d = self.rng.gen_range(0..=1);
                let (den, _) = self.pos(d, true, true);
                self.line(format!("{name} /= {};", den.s));
            }
        }
        self.vars[i].dirty = true;
    }

    fn s_vec_decl(&mut self) {
        self.count(Construct::LocalVec);
        self.vec_count += 1;
        let name = self.fresh("w");
        let len = self.len().expect("a local vector needs a length");
        let base0: f64 = self.pick(&[1.0, 2.0, 4.0]);
        let room: f64 = self.pick(&[2.0, 8.0, 16.0, 40.0]);
        let base = if self.chance(0.6) {
            let c: f64 = self.pick(&[0.0, 0.0, 1.0, 0.5]);
            if self.on(Construct::TypedLet) {
                self.count(Construct::TypedLet);
                self.line(format!(
                    "let mut {name}: Vec<f64> = vec![{}; {len}];",
                    lit(c)
                ));
            } else {
                self.line(format!("let mut {name} = vec![{}_f64; {len}];", lit(c)));
            }
            base0
        } else {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr_nc(d);
            self.line(format!("let mut {name} = vec![{}; {len}];", e.s));
            base0.max(e.b)
        };
        self.declare(name, Ty::Vector, true, base, room);
    }

    /// `let mut r = [e, e, e];` (or typed zeros): a local array written and read like a vector.
    fn s_array_decl(&mut self) {
        self.count(Construct::LocalArray);
        self.arr_count += 1;
        let name = self.fresh("r");
        let base0: f64 = self.pick(&[1.0, 2.0, 4.0]);
        let room: f64 = self.pick(&[2.0, 8.0, 16.0]);
        let base = if self.on(Construct::TypedLet) && self.chance(0.4) {
            self.count(Construct::TypedLet);
            self.line(format!("let mut {name}: [f64; 3] = [0.0; 3];"));
            base0
        } else {
            let mut elems = Vec::new();
            let mut b = base0;
            for _ in 0..3 {
                let d = self.rng.gen_range(0..=1);
                let e = self.expr_nc(d);
                b = b.max(e.b);
                elems.push(e.s);
            }
            self.line(format!("let mut {name} = [{}];", elems.join(", ")));
            b
        };
        self.declare(name.clone(), Ty::Vector, true, base, room);
        self.vars.last_mut().expect("just declared").arr_len = Some(3);
        self.arrays.push(name);
    }

    /// `let t; if c { ...; t = e; } else { ...; t = e; }` (or a `match` assigning in every arm).
    fn s_deferred(&mut self) {
        self.count(Construct::DeferredInit);
        let name = self.fresh("t");
        self.line(format!("let {name};"));
        self.inits.push((name.clone(), 0.0));
        if self.on(Construct::MatchStmt) && self.can_match() && self.chance(0.3) {
            self.count(Construct::MatchStmt);
            let (scrut, m) = self.scrutinee();
            self.line(format!("match {scrut} {{"));
            self.indent += 1;
            for pat in self.arm_patterns(m) {
                self.line(format!("{pat} => {{"));
                let k = self.child_len(2) - 1;
                self.block(k, Tail::Init);
                self.line("}");
            }
            self.indent -= 1;
            self.line("}");
        } else {
            let c = self.cond();
            self.line(format!("if {c} {{"));
            let k = self.child_len(2) - 1;
            self.block(k, Tail::Init);
            self.line("} else {");
            let k = self.child_len(2) - 1;
            self.block(k, Tail::Init);
            self.line("}");
        }
        let (_, b) = self.inits.pop().expect("pushed above");
        self.declare(name, Ty::Float, false, b, 0.0);
    }

    /// `let t = { let q = ...; e };`
    fn s_block_expr(&mut self) {
        self.count(Construct::BlockExpr);
        let name = self.fresh("t");
        self.line(format!("let {name} = {{"));
        self.indent += 1;
        self.push_scope();
        let k = self.rng.gen_range(1..=2);
        for _ in 0..k {
            self.s_let(false);
        }
        let d = self.rng.gen_range(1..=2);
        let e = self.expr_nc(d);
        self.line(&e.s);
        self.pop_scope();
        self.indent -= 1;
        self.line("};");
        self.declare(name, Ty::Float, false, e.b, 0.0);
    }

    /// `let (t, mut s) = (e, e);`
    fn s_tuple_let(&mut self) {
        self.count(Construct::TupleLet);
        let mut pats = Vec::new();
        let mut vals = Vec::new();
        let mut decls = Vec::new();
        for _ in 0..2 {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr_nc(d);
            let mutable = self.on(Construct::LetMut) && self.chance(0.3);
            if mutable {
                self.count(Construct::LetMut);
                let name = self.fresh("s");
                let base = e.b.max(1.0);
                let room: f64 = self.pick(&[0.0, 4.0, 16.0]);
                pats.push(format!("mut {name}"));
                decls.push((name, true, base, room));
            } else {
                let name = self.fresh("t");
                pats.push(name.clone());
                decls.push((name, false, e.b, 0.0));
            }
            vals.push(e.s);
        }
        self.line(format!(
            "let ({}) = ({});",
            pats.join(", "),
            vals.join(", ")
        ));
        for (name, mutable, base, room) in decls {
            self.declare(name, Ty::Float, mutable, base, room);
        }
    }

    fn s_vec_write(&mut self, i: usize) {
        let name = self.vars[i].name.clone();
        self.write_target = Some(name.clone());
        let ix = self.index_into(i);
        let mut ops = vec![("=", 3.0)];
        if self.on(Construct::VecCompound) {
            ops.extend([("+=", 3.0), ("-=", 1.0), ("*=", 1.0)]);
        }
        let (op, e) = self.element_write(i, &ops, &mut |g| g.vec_read_of(i));
        if op != "=" {
            self.count(Construct::VecCompound);
        }
        self.line(format!("{name}[{ix}] {op} {};", e.s));
        self.write_target = None;
        self.vars[i].dirty = true;
    }

    /// The operator and value of a write into an element of the vector or nested array `i`:
    /// `=` a fresh value (half the time combined with `read`, the element's old value), squashed
    /// to the array's bound; `+=`/`-=` an increment (`=` when none fits); `*=` a factor.
    pub(super) fn element_write(
        &mut self,
        i: usize,
        ops: &[(&'static str, f64)],
        read: &mut dyn FnMut(&mut Self) -> Ex,
    ) -> (&'static str, Ex) {
        let mut op = self.pick_weighted(ops);
        let mut rhs = None;
        if op == "+=" || op == "-=" {
            rhs = self.increment(i);
            if rhs.is_none() {
                op = "=";
            }
        }
        let e = match op {
            "=" => {
                let e = if self.chance(0.5) {
                    let me = read(self);
                    let d = self.rng.gen_range(0..=2);
                    let other = self.expr(d);
                    let e = self.combine(me, other);
                    self.self_wrap(e)
                } else {
                    let d = self.rng.gen_range(0..=3);
                    self.expr(d)
                };
                let base = self.vars[i].base;
                self.squash(e, base)
            }
            "*=" => self.factor(),
            _ => rhs.expect("checked above"),
        };
        (op, e)
    }

    fn vec_read_of(&mut self, i: usize) -> Ex {
        let ix = self.index_into(i);
        self.vars[i].dirty = false;
        let e = Ex::atom(format!("{}[{ix}]", self.vars[i].name), self.vars[i].bound);
        self.scale(e, EXPR_CAP)
    }

    fn s_if(&mut self) {
        self.count(Construct::IfStmt);
        if self.chance(0.7) {
            self.ensure_target();
        }
        let c = self.cond();
        self.line(format!("if {c} {{"));
        let k = self.child_len(4);
        let tail = if self.on(Construct::EarlyReturn) && !self.no_early_return && self.chance(0.1) {
            self.count(Construct::EarlyReturn);
            Tail::Return
        } else {
            Tail::None
        };
        self.block(k, tail);
        let mut chain = 0;
        while self.on(Construct::ElseIf) && chain < 2 && self.chance(0.3) {
            self.count(Construct::ElseIf);
            chain += 1;
            let c = self.cond();
            self.line(format!("}} else if {c} {{"));
            let k = self.child_len(3);
            self.block(k, Tail::None);
        }
        if self.chance(0.6) {
            self.line("} else {");
            let k = self.child_len(3);
            self.block(k, Tail::None);
        }
        self.line("}");
    }

    /// `if cond { ...; return/break/continue; }`
    fn s_guarded(&mut self, tail: Tail) {
        self.count(match tail {
            Tail::Return => Construct::EarlyReturn,
            Tail::Break => Construct::Break,
            _ => Construct::Continue,
        });
        let c = self.cond();
        self.line(format!("if {c} {{"));
        let k = if self.chance(0.4) { 1 } else { 0 };
        self.block(k, tail);
        self.line("}");
    }

    fn s_match(&mut self) {
        self.count(Construct::MatchStmt);
        if self.chance(0.7) {
            self.ensure_target();
        }
        let (scrut, m) = self.scrutinee();
        self.line(format!("match {scrut} {{"));
        self.indent += 1;
        let pats = self.arm_patterns(m);
        for (a, pat) in pats.iter().enumerate() {
            if a + 1 == pats.len() && self.chance(0.3) {
                self.line(format!("{pat} => {{}}"));
                continue;
            }
            self.line(format!("{pat} => {{"));
            let k = self.child_len(2);
            self.block(k, Tail::None);
            self.line("}");
        }
        self.indent -= 1;
        self.line("}");
    }

    /// Makes sure a loop has something outside it to update.
    fn ensure_target(&mut self) {
        let muts = self.visible(|v| v.ty == Ty::Float && v.mutable);
        if muts.is_empty() && self.writable_vecs().is_empty() && self.on(Construct::LetMut) {
            let name = self.fresh("s");
            self.zero_init(&name);
        }
    }

    /// Enters a loop body: one more level, `trips` more executions per execution of the loop.
    fn enter_loop(&mut self, kind: LoopKind, trips: usize) {
        if !self.loops.is_empty() {
            self.count(Construct::ForNested);
        }
        self.loops.push(kind);
        self.k_mult *= trips as f64;
        self.indent += 1;
        self.nest += 1;
        self.push_scope();
    }

    /// Leaves a loop body entered with [`FnGen::enter_loop`] with the same `trips`.
    fn leave_loop(&mut self, trips: usize) {
        self.pop_scope();
        self.nest -= 1;
        self.indent -= 1;
        self.k_mult /= trips as f64;
        self.loops.pop();
    }

    /// Generates the statements of a loop body, ending (usually) with an update of an outer
    /// variable so that the loop matters, and leaves the loop.
    fn loop_body(&mut self, trips: usize, footer: &[String]) {
        let mark = *self.scope_marks.last().expect("inside a loop scope");
        let k = self.child_len(4);
        for _ in 0..k {
            self.stmt();
        }
        self.absorb_locals();
        if self.chance(0.85) {
            self.update(mark);
        }
        for l in footer {
            self.line(l);
        }
        self.leave_loop(trips);
    }

    /// Updates a variable declared before position `mark` (outside the current loop).
    fn update(&mut self, mark: usize) {
        self.budget -= 1;
        let outer = |v: &Var| v.mutable && matches!(v.ty, Ty::Float | Ty::Vector);
        let cands: Vec<usize> = self
            .visible(outer)
            .into_iter()
            .filter(|&i| i < mark && !self.frozen.contains(&self.vars[i].name))
            .collect();
        if cands.is_empty() {
            return;
        }
        let i = self.pick(&cands);
        if self.vars[i].ty == Ty::Vector {
            self.s_vec_write(i);
        } else if self.chance(0.65)
            && [
                Construct::AddAssign,
                Construct::SubAssign,
                Construct::MulAssign,
                Construct::DivAssign,
            ]
            .iter()
            .any(|&c| self.on(c))
        {
            self.s_compound(i);
        } else if self.on(Construct::Assign) {
            self.s_assign(i);
        }
    }

    /// Folds values computed in the current block and not read since into variables outside
    /// it, so that little of what a block computes is dead.
    fn absorb_locals(&mut self) {
        let mark = *self.scope_marks.last().expect("inside a scope");
        let locals: Vec<usize> = self
            .visible(|v| v.dirty && matches!(v.ty, Ty::Float | Ty::Vector | Ty::Nested { .. }))
            .into_iter()
            .filter(|&i| i >= mark)
            .collect();
        for i in locals.into_iter().rev().take(2) {
            if self.chance(0.8) {
                self.absorb(i, mark);
            }
        }
    }

    /// Updates a variable declared before position `mark` with the value of variable `i`.
    fn absorb(&mut self, i: usize, mark: usize) {
        let cands: Vec<usize> = self
            .visible(|v| v.mutable && matches!(v.ty, Ty::Float | Ty::Vector))
            .into_iter()
            .filter(|&t| t < mark && !self.frozen.contains(&self.vars[t].name))
            .collect();
        if cands.is_empty() {
            return;
        }
        let t = self.pick(&cands);
        let name = self.vars[t].name.clone();
        if self.vars[t].ty == Ty::Vector {
            self.write_target = Some(name.clone());
        }
        let me = self.read_any(i);
        let place = if self.vars[t].ty == Ty::Vector {
            let ix = self.index_into(t);
            format!("{name}[{ix}]")
        } else {
            name
        };
        let compound = if self.vars[t].ty == Ty::Vector {
            Construct::VecCompound
        } else {
            Construct::AddAssign
        };
        let mut done = false;
        if self.on(compound) && self.chance(0.5) {
            if let Some(e) = self.charge(t, me.clone()) {
                self.count(compound);
                self.line(format!("{place} += {};", e.s));
                done = true;
            }
        }
        if !done
            && self.vars[t].ty == Ty::Float
            && self.on(Construct::MulAssign)
            && self.chance(0.3)
        {
            self.count(Construct::MulAssign);
            let f = self.squash(me.clone(), 1.0);
            self.line(format!("{place} *= {};", f.s));
            done = true;
        }
        if !done && (self.vars[t].ty == Ty::Vector || self.on(Construct::Assign)) {
            if self.vars[t].ty == Ty::Float {
                self.count(Construct::Assign);
            }
            let old = if self.vars[t].ty == Ty::Vector {
                self.vec_read_of(t)
            } else {
                self.read_var(t)
            };
            let e = self.combine(old, me);
            let e = self.self_wrap(e);
            let base = self.vars[t].base;
            let e = self.squash(e, base);
            self.line(format!("{place} = {};", e.s));
        }
        self.write_target = None;
        self.vars[t].dirty = true;
    }

    fn loop_name(&self) -> &'static str {
        ["i", "j", "l"][self.loops.len().min(2)]
    }

    fn s_for(&mut self) {
        self.count(Construct::ForRange);
        self.ensure_target();
        let i = self.loop_name();
        let outer = self.index_vars();
        // (header, trips, lo)
        let mut forms: Vec<(String, usize, usize, Option<Construct>)> =
            vec![("0..3".into(), 3, 0, None), ("0..2".into(), 2, 0, None)];
        if let Some(len) = self.len() {
            forms.push((format!("0..{len}"), N_MAX, 0, None));
            forms.push((format!("0..{len}"), N_MAX, 0, None));
            forms.push((format!("1..{len}"), N_MAX - 1, 1, None));
            if self.on(Construct::ForRev) {
                forms.push((
                    format!("(0..{len}).rev()"),
                    N_MAX,
                    0,
                    Some(Construct::ForRev),
                ));
                forms.push((
                    format!("(1..{len}).rev()"),
                    N_MAX - 1,
                    1,
                    Some(Construct::ForRev),
                ));
            }
            if self.on(Construct::ForStepBy) {
                forms.push((
                    format!("(0..{len}).step_by(2)"),
                    N_MAX / 2,
                    0,
                    Some(Construct::ForStepBy),
                ));
                forms.push((
                    format!("(1..{len}).step_by(2)"),
                    N_MAX / 2,
                    1,
                    Some(Construct::ForStepBy),
                ));
            }
            if let Some(&o) = outer.last() {
                let on = self.vars[o].name.clone();
                let Ty::Index { lo } = self.vars[o].ty else {
                    unreachable!("index_vars returns indices")
                };
                forms.push((format!("0..{on}"), N_MAX - 1, 0, None));
                forms.push((format!("{on}..{len}"), N_MAX, lo, None));
                forms.push((format!("0..{on}"), N_MAX - 1, 0, None));
            }
        }
        self.struct_ranges(&mut forms);
        let (range, trips, lo, c) = self.pick(&forms);
        if let Some(c) = c {
            self.count(c);
        }
        self.line(format!("for {i} in {range} {{"));
        self.enter_loop(LoopKind::ContinueOk, trips);
        self.declare_index(i, lo);
        self.loop_body(trips, &[]);
        self.line("}");
    }

    fn s_for_iter(&mut self) {
        self.for_iter_over(None);
    }

    /// `for &x in src.iter()` (or `.enumerate()`) over a slice or local vector, or over
    /// `forced`: (sequence, bound of its elements, its name if it is a local vector).
    fn for_iter_over(&mut self, forced: Option<(String, f64, Option<String>)>) {
        let mut srcs: Vec<(String, f64, Option<String>)> = Vec::new();
        for s in self.slices.clone() {
            srcs.push((s.to_string(), self.slice_bound, None));
        }
        for w in self.visible(|v| v.ty == Ty::Vector) {
            let v = &self.vars[w];
            srcs.push((v.name.clone(), v.bound, Some(v.name.clone())));
        }
        let (src, bound, vec) = match forced {
            Some(f) => f,
            None => self.pick(&srcs),
        };
        if let Some(w) = &vec {
            self.frozen.push(w.clone());
        }
        self.ensure_target();
        let x = ["x", "y", "z"][self.loops.len().min(2)];
        let enumerate =
            self.on(Construct::ForEnumerate) && (!self.on(Construct::ForIter) || self.chance(0.4));
        let i = self.loop_name();
        let header = if enumerate {
            self.count(Construct::ForEnumerate);
            format!("for ({i}, &{x}) in {src}.iter().enumerate() {{")
        } else {
            self.count(Construct::ForIter);
            let forms = if vec.as_deref().is_some_and(|w| self.is_mut_ref(w)) {
                // `&io` would be `&&mut [f64]`.
                vec![format!("&*{src}"), format!("{src}.iter()")]
            } else if vec.is_some() {
                vec![format!("&{src}"), format!("{src}.iter()")]
            } else {
                vec![src.clone(), format!("{src}.iter()")]
            };
            let it = self.pick(&forms);
            format!("for &{x} in {it} {{")
        };
        self.line(header);
        self.enter_loop(LoopKind::ContinueOk, N_MAX);
        self.declare(x.to_string(), Ty::Float, false, bound, 0.0);
        if enumerate {
            self.declare_index(i, 0);
        }
        self.loop_body(N_MAX, &[]);
        if vec.is_some() {
            self.frozen.pop();
        }
        self.line("}");
    }

    fn s_while(&mut self) {
        self.count(Construct::While);
        self.ensure_target();
        let k = self.fresh("k");
        let (lim, trips0) = match self.len() {
            Some(len) => (len, N_MAX),
            None => ("3", 3),
        };
        let step = if self.chance(0.25) { 2 } else { 1 };
        let trips = trips0.div_ceil(step);
        let muts = self.visible(|v| v.ty == Ty::Float && v.mutable);
        let mut cond = format!("{k} < {lim}");
        if self.on(Construct::ActiveCond) && !muts.is_empty() && self.chance(0.3) {
            self.count(Construct::ActiveCond);
            let s = self.pick(&muts);
            let e = self.read_var(s);
            let c = self.pick(LITS);
            cond = format!("{cond} && {} < {}", e.s, lit(c * e.b.max(1.0)));
        }
        self.line(format!("let mut {k} = 0;"));
        self.line(format!("while {cond} {{"));
        self.enter_loop(LoopKind::NoContinue, trips);
        self.declare_index(&k, 0);
        let footer = [format!("{k} += {step};")];
        self.loop_body(trips, &footer);
        self.line("}");
    }

    fn s_loop(&mut self) {
        self.count(Construct::Loop);
        self.ensure_target();
        let k = self.fresh("k");
        let (lim, trips) = match self.len() {
            Some(len) => (len, N_MAX),
            None => ("3", 3),
        };
        self.line(format!("let mut {k} = 0;"));
        self.line("loop {");
        if self.chance(0.5) {
            // Counter checked and incremented first: `continue` is safe.
            let i = self.loop_name();
            self.enter_loop(LoopKind::ContinueOk, trips);
            self.line(format!("if {k} >= {lim} {{"));
            self.line("    break;");
            self.line("}");
            self.line(format!("let {i} = {k};"));
            self.line(format!("{k} += 1;"));
            self.declare_index(i, 0);
            self.loop_body(trips, &[]);
        } else {
            // Counter incremented and checked last (the body runs at least once, and N_MIN > 0).
            self.enter_loop(LoopKind::NoContinue, trips);
            self.declare_index(&k, 0);
            let footer = [
                format!("{k} += 1;"),
                format!("if {k} >= {lim} {{"),
                "    break;".to_string(),
                "}".to_string(),
            ];
            self.loop_body(trips, &footer);
        }
        self.line("}");
    }

    fn s_let_if(&mut self) {
        self.count(Construct::IfExpr);
        let name = self.fresh("t");
        let b = self.if_expr(&format!("let {name} = "), EXPR_CAP, None);
        self.declare(name, Ty::Float, false, b, 0.0);
    }

    /// Emits `{prefix}if c { e } else if c { e } else { e };` with every branch under `cap`;
    /// returns the bound of the value.
    /// `old`: the variable being assigned, which branches usually build on.
    fn if_expr(&mut self, prefix: &str, cap: f64, old: Option<usize>) -> f64 {
        let c = self.cond();
        self.line(format!("{prefix}if {c} {{"));
        let mut b = self.branch_expr(cap, old);
        let mut chain = 0;
        while self.on(Construct::ElseIf) && chain < 1 && self.chance(0.25) {
            self.count(Construct::ElseIf);
            chain += 1;
            let c = self.cond();
            self.line(format!("}} else if {c} {{"));
            b = b.max(self.branch_expr(cap, old));
        }
        self.line("} else {");
        b = b.max(self.branch_expr(cap, old));
        self.line("};");
        b
    }

    /// The inside of a block expression: maybe a `let`, then the value.
    fn branch_expr(&mut self, cap: f64, old: Option<usize>) -> f64 {
        self.indent += 1;
        self.push_scope();
        if self.chance(0.25) {
            self.s_let(false);
        }
        let d = self.rng.gen_range(0..=2);
        let e = match old {
            Some(i) if self.chance(0.7) => {
                let me = self.read_var(i);
                let other = self.expr(d);
                self.combine(me, other)
            }
            _ => self.expr_nc(d),
        };
        let e = self.squash(e, cap);
        self.line(&e.s);
        self.pop_scope();
        self.indent -= 1;
        e.b
    }

    fn s_let_match(&mut self) {
        self.count(Construct::MatchExpr);
        let name = self.fresh("t");
        let (scrut, m) = self.scrutinee();
        self.line(format!("let {name} = match {scrut} {{"));
        self.indent += 1;
        let mut b: f64 = 0.0;
        for pat in self.arm_patterns(m) {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr_nc(d);
            b = b.max(e.b);
            self.line(format!("{pat} => {},", e.s));
        }
        self.indent -= 1;
        self.line("};");
        self.declare(name, Ty::Float, false, b, 0.0);
    }

    // ---- return values ----------------------------------------------------------------------

    /// The value to return, built from every variable written since last read (so that no
    /// update is dead) and a random expression; `consume` marks them read. Returns the printed
    /// value (of the output type) and updates the function's return bound.
    fn ret_value(&mut self, consume: bool) -> (String, f64) {
        let saved: Vec<bool> = self.vars.iter().map(|v| v.dirty).collect();
        let mut terms = Vec::new();
        let mut dirty =
            self.visible(|v| v.dirty && matches!(v.ty, Ty::Float | Ty::Vector | Ty::Nested { .. }));
        dirty.shuffle(&mut self.rng);
        dirty.truncate(8);
        for i in dirty {
            let e = self.read_any(i);
            let e = if self.chance(0.35) {
                let c = self.pick(LITS);
                let c = Ex::new(lit(c), ATOM, c, true);
                self.product(c, e)
            } else {
                e
            };
            terms.push(e);
        }
        // A `Vec` output is sometimes one value repeated (`vec![e; 3]`).
        let splat = self.out == OutKind::Vec && self.chance(0.3);
        let parts = if splat { 1 } else { self.out.arity() };
        let mut outs: Vec<Vec<Ex>> = vec![Vec::new(); parts];
        for t in terms {
            let k = self.rng.gen_range(0..parts);
            outs[k].push(t);
        }
        let mut printed = Vec::new();
        let mut bound: f64 = 0.0;
        for mut ts in outs {
            if ts.is_empty() || self.chance(0.3) {
                let d = self.rng.gen_range(0..=2);
                let other = self.expr(d);
                let x = self.var_leaf();
                let e = self.combine(x, other);
                ts.push(e);
            }
            let mut acc = ts.remove(0);
            for t in ts {
                let op = if self.chance(0.75) { "+" } else { "-" };
                acc = self.sum(acc, op, t);
            }
            let acc = self.scale(acc, RET_CAP);
            bound = bound.max(acc.b);
            printed.push(acc.s);
        }
        if !consume {
            for (v, d) in self.vars.iter_mut().zip(saved) {
                v.dirty = d;
            }
        }
        self.ret_bound = self.ret_bound.max(bound);
        let s = match self.out {
            OutKind::F64 => printed.remove(0),
            OutKind::Tuple => format!("({})", printed.join(", ")),
            OutKind::Array => format!("[{}]", printed.join(", ")),
            OutKind::TupleArray => format!("([{}, {}], {})", printed[0], printed[1], printed[2]),
            OutKind::Vec if splat => format!("vec![{}; {VEC_OUT_LEN}]", printed[0]),
            OutKind::Vec => format!("vec![{}]", printed.join(", ")),
            OutKind::Unit => {
                let place = match self.inout {
                    Some(io) => format!("{io}[0]"),
                    None => self
                        .unit_place
                        .clone()
                        .expect("a `()` output has an in-out parameter or struct"),
                };
                format!("{place} = {};", printed[0])
            }
        };
        (s, bound)
    }

    /// The end of the body: the returned value, plain, after `return`, or as an `if` expression.
    fn tail(&mut self) {
        if self.on(Construct::IfExpr) && self.can_cond() && self.chance(0.12) {
            self.count(Construct::IfExpr);
            let c = self.cond();
            self.line(format!("if {c} {{"));
            self.indent += 1;
            let (a, _) = self.ret_value(false);
            self.line(a);
            self.indent -= 1;
            self.line("} else {");
            self.indent += 1;
            let (b, _) = self.ret_value(true);
            self.line(b);
            self.indent -= 1;
            self.line("}");
        } else if !self.no_early_return && self.chance(0.1) {
            // (`no_early_return`: an in-out helper's squash loop may follow the tail.)
            let (v, _) = self.ret_value(true);
            let r = self.ret_stmt(&v);
            self.line(r);
        } else {
            let (v, _) = self.ret_value(true);
            self.line(v);
        }
    }
}

fn param_name(p: &Param) -> String {
    match p {
        Param::Scalar(n)
        | Param::Slice(n)
        | Param::Len(n)
        | Param::Array(n)
        | Param::InOut(n)
        | Param::InOutArray(n)
        | Param::Workspace(n)
        | Param::InOutScalar(n)
        | Param::Nested(n, ..)
        | Param::Row(n, _)
        | Param::InOutRow(n, _)
        | Param::Ragged(n, _)
        | Param::Tally(n) => n.clone(),
        Param::Struct(l) => l.kind.root().to_string(),
    }
}

// ---- the generated file -------------------------------------------------------------------

fn emit_file(
    cfg: &Config,
    helpers: &[FnOut],
    all: &[&FnOut],
    na: &[nalgebra::NaOut],
    counts: &[(Construct, usize)],
) -> String {
    let mut s = String::new();
    s.push_str("// @generated by build.rs with tests/gen/mod.rs: do not edit.\n");
    let disabled: Vec<&str> = cfg.disabled.iter().map(|c| c.name()).collect();
    s.push_str(&format!(
        "// seed {:#x}, {} programs, {} helpers, {} nalgebra programs, disabled: [{}]\n\n",
        cfg.seed,
        cfg.programs,
        cfg.helpers,
        cfg.nalgebra,
        disabled.join(", ")
    ));
    s.push_str(&format!("pub const SEED: u64 = {:#x};\n", cfg.seed));
    s.push_str(&format!(
        "pub const PRIMAL_ONLY: bool = {};\n",
        cfg.primal_only
    ));
    s.push_str(&format!("pub const HVP: f64 = {:?};\n", cfg.hvp));
    s.push_str(&format!("pub const SPLIT: f64 = {:?};\n", cfg.split));
    let full = cfg.only.is_none() && cfg.programs >= DEFAULT_PROGRAMS;
    s.push_str("/// Whether the run is large enough to contain every enabled construct.\n");
    s.push_str(&format!("pub const FULL_RUN: bool = {full};\n"));
    s.push_str("/// (construct, enabled, number of functions using it)\n");
    s.push_str("pub const CONSTRUCTS: &[(&str, bool, usize)] = &[\n");
    for (c, n) in counts {
        s.push_str(&format!(
            "    ({:?}, {}, {n}),\n",
            c.name(),
            cfg.enabled(*c)
        ));
    }
    s.push_str("];\n\n");
    for f in all {
        s.push_str(&f.source);
        s.push('\n');
    }
    if !na.is_empty() {
        s.push_str(nalgebra::PRELUDE);
        s.push('\n');
    }
    for f in na {
        s.push_str(&f.source);
        s.push('\n');
    }
    s.push_str("pub fn cases() -> Vec<Case> {\n    vec![\n");
    // A helper with scalars outside its `wrt` has no case of its own (the adapters pass a
    // tangent for every scalar): its callers check it.
    for f in all.iter().filter(|f| f.fixed.is_empty()) {
        emit_case(&mut s, cfg, helpers, f);
    }
    for f in na {
        s.push_str(&f.case);
    }
    s.push_str("    ]\n}\n");
    s
}

/// Helpers `f` calls, directly or not, in definition order.
fn called_helpers(helpers: &[FnOut], f: &FnOut) -> Vec<usize> {
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    let mut todo: Vec<usize> = f.calls.iter().copied().collect();
    while let Some(h) = todo.pop() {
        if seen.insert(h) {
            todo.extend(helpers[h].calls.iter().copied());
        }
    }
    seen.into_iter().collect()
}

fn emit_case(s: &mut String, cfg: &Config, helpers: &[FnOut], f: &FnOut) {
    let name = &f.name;
    let mut args = Vec::new();
    let mut tangents = Vec::new();
    let mut adjoints = Vec::new();
    let mut loads = String::new();
    let mut stores = String::new();
    let mut extra_slices: Vec<String> = Vec::new();
    let mut inouts: Vec<inout::InOutAdapter> = Vec::new();
    // Declarations of a struct taken by `&` or by value and of its tangent.
    let mut struct_init = String::new();
    let mut struct_init_t = String::new();
    // Outputs returned (the final contents of in-out parameters follow them: those of fixed
    // size in parameter order, then the slice's).
    let outs = if f.out == OutKind::Unit {
        0
    } else {
        f.out.arity()
    };
    let total_fixed: usize = f
        .params
        .iter()
        .filter_map(|p| inout::InOutAdapter::new(p, 0, 0))
        .map(|a| a.fixed)
        .sum();
    let mut at = outs;
    // Scalar slots of the adapters: one per float parameter, three per array parameter.
    let mut k = 0;
    for p in &f.params {
        let slice_at = outs + total_fixed;
        if let Some(a) = inout::InOutAdapter::new(p, k, at).filter(|a| !a.slice) {
            at += a.fixed;
            k += a.slots;
            args.push(a.arg.clone());
            tangents.push(a.tangent.clone());
            adjoints.push(a.adjoint.clone());
            inouts.push(a);
            continue;
        }
        if let Some(a) = inout::InOutAdapter::new(p, k, slice_at) {
            // (A struct taken by `&mut` with a `Vec` field has scalar slots as well.)
            k += a.slots;
            args.push(a.arg.clone());
            tangents.push(a.tangent.clone());
            adjoints.push(a.adjoint.clone());
            inouts.push(a);
            continue;
        }
        match p {
            Param::Scalar(_) => {
                args.push(format!("s[{k}]"));
                tangents.push(format!("ts[{k}]"));
                adjoints.push(format!("&mut g{k}"));
                loads.push_str(&format!("                let mut g{k} = gs[{k}];\n"));
                stores.push_str(&format!("                gs[{k}] = g{k};\n"));
                k += 1;
            }
            Param::Array(_) => {
                let slots = |x: &str| format!("[{x}[{k}], {x}[{}], {x}[{}]]", k + 1, k + 2);
                args.push(slots("s"));
                tangents.push(slots("ts"));
                adjoints.push(format!("&mut g{k}"));
                loads.push_str(&format!(
                    "                let mut g{k} = {};\n",
                    slots("gs")
                ));
                stores.push_str(&format!(
                    "                gs[{k}..{}].copy_from_slice(&g{k});\n",
                    k + 3
                ));
                k += 3;
            }
            Param::Slice(_) => {
                args.push("v".to_string());
                if f.wrt_no_slice {
                    // Not differentiated: no tangent, no adjoint (the test keeps its tangent 0).
                    continue;
                }
                tangents.push("tv".to_string());
                if adjoints.iter().any(|a| a == "gv") {
                    // A second slice parameter gets the same values and its own adjoint
                    // buffer, added into `gv` afterwards.
                    let z = format!("gz{}", extra_slices.len());
                    adjoints.push(format!("&mut {z}"));
                    extra_slices.push(z);
                } else {
                    adjoints.push("gv".to_string());
                }
            }
            Param::Len(_) => args.push("n".to_string()),
            Param::Ragged(_, lens) => {
                let a = ragged::adapter(lens, k);
                args.push(a.arg);
                tangents.push(a.tangent);
                adjoints.push(a.adjoint);
                loads.push_str(&a.load);
                stores.push_str(&a.store);
                k += a.slots;
            }
            Param::Nested(..) | Param::Row(..) => {
                let a = nested_rows::adapter(p, k);
                args.push(a.arg);
                tangents.push(a.tangent);
                adjoints.push(a.adjoint);
                loads.push_str(&a.load);
                stores.push_str(&a.store);
                k += a.slots;
            }
            Param::Struct(l) => {
                let a = structs::adapter(l, k);
                let (init, init_t) = structs::init(l, k);
                struct_init.push_str(&init);
                struct_init_t.push_str(&init_t);
                args.push(a.arg);
                tangents.push(a.tangent);
                adjoints.push(a.adjoint);
                loads.push_str(&a.load);
                stores.push_str(&a.store);
                k += a.slots;
            }
            Param::Tally(_) => args.push("&mut vec![3usize, 1, 4]".to_string()),
            Param::Workspace(n) => {
                // Constants in, whatever the function leaves in it out (not an output).
                args.push("&mut [0.5, -0.25, 1.0]".to_string());
                let _ = n;
            }
            Param::InOut(_)
            | Param::InOutArray(_)
            | Param::InOutScalar(_)
            | Param::InOutRow(..) => {
                unreachable!("adapted above")
            }
        }
    }
    let scalars = k;
    // A method's receiver is the struct `st` (its adapter's argument is empty).
    let method = f
        .params
        .iter()
        .filter_map(structs::layout)
        .any(|l| l.kind.method());
    let callee = |suffix: &str| {
        if method {
            format!("st.{name}{suffix}")
        } else {
            format!("{name}{suffix}")
        }
    };
    args.retain(|a| !a.is_empty());
    let with = |more: &[String]| -> String {
        args.iter()
            .chain(more)
            .cloned()
            .collect::<Vec<String>>()
            .join(", ")
    };
    let called: Vec<String> = called_helpers(helpers, f)
        .into_iter()
        .map(|h| format!("{:?}", helpers[h].name))
        .collect();
    let constructs: Vec<String> = f
        .constructs()
        .iter()
        .map(|c| format!("{:?}", c.name()))
        .collect();
    // A `Vec` output is already flat, and its seed is a slice; `()` gives nothing.
    let vec_out = f.out == OutKind::Vec;
    let unit = f.out == OutKind::Unit;
    let flat = |x: &str| {
        if unit {
            "::std::vec::Vec::<f64>::new()".to_string()
        } else if vec_out {
            x.to_string()
        } else {
            format!("Out::flat({x})")
        }
    };
    let seed = if !inouts.is_empty() {
        if vec_out {
            format!("&c[..{outs}]")
        } else {
            format!("Out::unflat(&c[..{outs}])")
        }
    } else if vec_out {
        "c".to_string()
    } else {
        "Out::unflat(c)".to_string()
    };
    let ind = "                ";
    // The final contents of the in-out parameter (and of its tangent) follow the outputs.
    // Fixed-size contents first, then the slice's.
    inouts.sort_by_key(|a| a.slice);
    let cat = |f: fn(&inout::InOutAdapter) -> &String| -> String {
        inouts.iter().map(|a| f(a).as_str()).collect()
    };
    let (init, init_t, init_b, add_b, extend, extend_t) = (
        cat(|a| &a.init),
        cat(|a| &a.init_tangent),
        cat(|a| &a.init_adjoint),
        cat(|a| &a.add_adjoint),
        cat(|a| &a.extend),
        cat(|a| &a.extend_t),
    );
    let _ = ind;
    let bind = |call: String, pair: bool| -> String {
        match (unit, pair) {
            (true, false) => format!("{ind}{call};\n{ind}let mut y = {};\n", flat("")),
            (true, true) => format!(
                "{ind}{call};\n{ind}let (mut y, mut t) = ({}, {});\n",
                flat(""),
                flat("")
            ),
            (false, false) => format!("{ind}let mut y = {};\n", flat(&call)),
            (false, true) => format!(
                "{ind}let (y, t) = {call};\n{ind}let (mut y, mut t) = ({}, {});\n",
                flat("y"),
                flat("t")
            ),
        }
    };
    s.push_str("        Case {\n");
    s.push_str(&format!("            name: {name:?},\n"));
    s.push_str(&format!("            index: {},\n", f.index));
    s.push_str(&format!("            source: r#\"{}\"#,\n", f.source));
    s.push_str(&format!("            helpers: &[{}],\n", called.join(", ")));
    s.push_str(&format!(
        "            constructs: &[{}],\n",
        constructs.join(", ")
    ));
    s.push_str(&format!("            scalars: {scalars},\n"));
    s.push_str(&format!("            slice: {},\n", f.has_slice()));
    s.push_str(&format!(
        "            slice_active: {},\n",
        f.has_slice() && !f.wrt_no_slice
    ));
    let fixed = outs + total_fixed;
    s.push_str(&format!("            outputs: {fixed},\n"));
    s.push_str(&format!(
        "            inout_slice: {},\n",
        inouts.iter().any(|a| a.slice)
    ));
    s.push_str(&format!(
        "            primal: |s, v, n| {{\n{init}{struct_init}{}{extend}{ind}y\n            }},\n",
        bind(format!("{}({})", callee(""), with(&[])), false)
    ));
    if cfg.primal_only {
        s.push_str("            jvp: None,\n            vjp: None,\n            split: None,\n");
    } else {
        s.push_str(&format!(
            "            jvp: Some(|s, v, n, ts, tv| {{\n{init}{init_t}{struct_init}{struct_init_t}{}{extend}{extend_t}{ind}(y, t)\n            }}),\n",
            bind(format!("{}({})", callee("_jvp"), with(&tangents)), true),
        ));
        for z in &extra_slices {
            loads.push_str(&format!(
                "                let mut {z} = vec![0.0; v.len()];\n"
            ));
            stores.push_str(&format!(
                "                for (g, z) in gv.iter_mut().zip(&{z}) {{\n                    *g += z;\n                }}\n"
            ));
        }
        if !unit {
            adjoints.push(seed);
        }
        let vjp = format!(
            "{init}{init_b}{struct_init}{loads}{}{stores}{add_b}{extend}{ind}y\n",
            bind(format!("{}({})", callee("_vjp"), with(&adjoints)), false),
        );
        s.push_str(&format!(
            "            vjp: Some(|s, v, n, gs, gv, c| {{\n{}            }}),\n",
            checkpoint::twin_check(f, &vjp)
        ));
        s.push_str(&split::adapter(
            f,
            &split::Parts {
                args: &with(&[]),
                adjoints: &adjoints.join(", "),
                loads: &loads,
                stores: &stores,
                scalars,
                value: &flat("y"),
            },
        ));
    }
    s.push_str(&second::adapter(cfg, f));
    s.push_str("        },\n");
}
