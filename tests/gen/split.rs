//! Split mode in the random programs (`#[differentiate(split)]`): takes the generated helpers
//! and programs and the share of programs `AD_RANDOM_SPLIT` asks for, gives them `split` where
//! the macro supports it (a float output of any kind but `()`, no `&mut` argument, no struct
//! argument or method, no array of arrays; see `check` in `codegen/split.rs`), and the adapter
//! through which `tests/random_programs/split.rs` runs `<f>_vjp_split` once and its pullback
//! on several seeds.
//!
//! The adapter flattens as the first-order `vjp` adapter does (the same loads and stores of the
//! scalar slots, the slice's adjoint in `gv`), with fresh zero buffers for each seed.

use super::*;

/// The variable that sets [`Config::split`]: `0` (none), `1` (every program that can have it),
/// or a share in between (programs drawn by their index).
pub const SPLIT_VAR: &str = "AD_RANDOM_SPLIT";

/// Share of the programs that get `split` when `AD_RANDOM_SPLIT` is not set. Helpers get it
/// whenever some program may (no program needs a callee with `split`: the pullback calls the
/// callees' `_vjp`).
pub const DEFAULT_SPLIT: f64 = 1.0;

/// Reads `AD_RANDOM_SPLIT` through `var` into `cfg.split`: `0`/`off`/`false`,
/// `1`/`on`/`true`/`all`, or a share in [0, 1].
pub fn read_env(cfg: &mut Config, var: &impl Fn(&str) -> Option<String>) -> Result<(), String> {
    let Some(s) = var(SPLIT_VAR) else {
        return Ok(());
    };
    cfg.split = match s.trim() {
        "" | "0" | "off" | "false" => 0.0,
        "1" | "on" | "true" | "all" => 1.0,
        x => x
            .parse::<f64>()
            .ok()
            .filter(|h| (0.0..=1.0).contains(h))
            .ok_or_else(|| format!("{SPLIT_VAR}: not 0, 1 or a share in [0, 1]: {s:?}"))?,
    };
    Ok(())
}

/// Whether split mode takes `f`: a value to return, and only parameters that are neither
/// written through (`&mut`), nor structs, nor arrays of arrays. (The generator writes no
/// explicit lifetime parameters, which split mode refuses too.)
pub(super) fn supported(f: &FnOut) -> bool {
    f.out != OutKind::Unit
        && f.params.iter().all(|p| {
            matches!(
                p,
                Param::Scalar(_)
                    | Param::Array(_)
                    | Param::Slice(_)
                    | Param::Len(_)
                    | Param::Row(..)
            )
        })
        && !f.source.contains("<'")
}

/// Whether program number `index` is among the share `cfg.split` of programs: a hash of the
/// seed and the index (no draw from the generator's streams, so sources do not change; another
/// mixing constant than `hvp`'s, so the two shares are drawn independently).
fn chosen(cfg: &Config, index: u64) -> bool {
    if cfg.split >= 1.0 {
        return true;
    }
    let mut x = cfg.seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^= x >> 29;
    ((x >> 11) as f64 / (1u64 << 53) as f64) < cfg.split
}

/// Adds `split` to the `#[differentiate]` of every helper split mode takes (when any program
/// may get it) and of the share `cfg.split` of programs that it takes. Runs before `hvp` is
/// added (`second.rs` reads `hvp` as the last option).
pub(super) fn mark(cfg: &Config, helpers: &mut [FnOut], programs: &mut [FnOut]) {
    if cfg.primal_only || cfg.split <= 0.0 {
        return;
    }
    for h in helpers.iter_mut().filter(|h| supported(h)) {
        add_split(h);
    }
    for p in programs.iter_mut() {
        if chosen(cfg, p.index) && supported(p) {
            add_split(p);
        }
    }
}

/// `#[differentiate]` → `#[differentiate(split)]`, `#[differentiate(wrt(..))]` →
/// `#[differentiate(wrt(..), split)]`.
fn add_split(f: &mut FnOut) {
    let Some((attr, rest)) = f.source.split_once('\n') else {
        return;
    };
    let new = if attr == "#[differentiate]" {
        "#[differentiate(split)]".to_string()
    } else if let Some(inner) = attr
        .strip_prefix("#[differentiate(")
        .and_then(|a| a.strip_suffix(")]"))
    {
        format!("#[differentiate({inner}, split)]")
    } else {
        return;
    };
    f.source = format!("{new}\n{rest}");
}

/// Whether the attribute (first line) of a generated function's source names the option
/// `split` (a word of its own, not part of a parameter's name).
pub fn has_split(source: &str) -> bool {
    let attr = source.lines().next().unwrap_or("");
    attr.starts_with("#[differentiate(")
        && attr
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "split")
}

/// What the first-order `vjp` adapter of a function is made of (`emit_case`).
pub(super) struct Parts<'a> {
    /// The arguments of the call, joined.
    pub args: &'a str,
    /// The adjoint arguments and the seed (read from `c`), joined: the pullback's arguments.
    pub adjoints: &'a str,
    /// Copies of the scalar slots `gs[..]` into adjoint locals (and the buffers of further
    /// slice parameters), and their stores back.
    pub loads: &'a str,
    pub stores: &'a str,
    /// Number of scalar slots.
    pub scalars: usize,
    /// The value `y` flattened (`Out::flat(y)`, or `y` for a `Vec`).
    pub value: &'a str,
}

/// The `split:` field of `f`'s case: `Some` with the adapter of `<f>_vjp_split` for a function
/// with `split`. The call is the scrutinee of a `match`, so temporaries among its arguments
/// (`&[s[0], s[1]]`) live as long as the pullback that borrows them.
pub(super) fn adapter(f: &FnOut, parts: &Parts) -> String {
    if !has_split(&f.source) {
        return "            split: None,\n".to_string();
    }
    let name = &f.name;
    let Parts {
        args,
        adjoints,
        loads,
        stores,
        scalars,
        value,
    } = parts;
    let (i2, i3, i4) = (" ".repeat(16), " ".repeat(20), " ".repeat(24));
    // The loads and stores are written for the `vjp` adapter's indentation (16).
    let deeper = |code: &str| -> String {
        code.lines()
            .map(|l| format!("{}{l}\n", " ".repeat(12)))
            .collect()
    };
    let (loads, stores) = (deeper(loads), deeper(stores));
    format!(
        "            split: Some(|s, v, n, cs| {{\n\
         {i2}match {name}_vjp_split({args}) {{\n\
         {i3}(y, pb) => {{\n\
         {i4}let mut adj = ::std::vec::Vec::new();\n\
         {i4}for &c in cs {{\n\
         {i4}    let (mut gs0, mut gv0) = (vec![0.0; {scalars}], vec![0.0; v.len()]);\n\
         {i4}    let (gs, gv): (&mut [f64], &mut [f64]) = (&mut gs0, &mut gv0);\n\
         {loads}\
         {i4}    pb({adjoints});\n\
         {stores}\
         {i4}    adj.push((gs.to_vec(), gv.to_vec()));\n\
         {i4}}}\n\
         {i4}({value}, adj)\n\
         {i3}}}\n\
         {i2}}}\n\
         {}}}),\n",
        " ".repeat(12)
    )
}
