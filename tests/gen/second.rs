//! Second order in the random programs (`#[differentiate(hvp)]`): takes the generated helpers and
//! programs and the share of programs `AD_RANDOM_HVP` asks for, gives them `hvp` where the macro
//! supports it (no struct, no array of arrays, every differentiated callee with `hvp` too), and
//! the adapters through which `tests/random_programs/second.rs` calls `<f>_grad`, `<f>_hvp` and
//! `<f>_hessian` of a function with a float output.
//!
//! The adapters flatten as the first-order ones do: the scalar slots (one per float, three per
//! `[f64; 3]`, `C` per row `&[f64; C]`) in parameter order, then the slice (every slice parameter
//! gets the same values and the same direction, so their gradients add up, and the Hessian's
//! rows and columns of all of them fold into the slice's).

use super::*;

/// The variable that sets [`Config::hvp`]: `0` (none), `1` (every program that can have it),
/// or a share in between (programs drawn by their index).
pub const HVP_VAR: &str = "AD_RANDOM_HVP";

/// Share of the programs that get `hvp` when `AD_RANDOM_HVP` is not set. Helpers get it
/// whenever some program may call them.
pub const DEFAULT_HVP: f64 = 1.0;

/// Constructs the generic copy of `hvp` does not take (spanned errors in `transform/lift.rs`):
/// struct arguments and methods, arrays of arrays as arguments (local ones it takes).
pub const UNSUPPORTED: &[Construct] = &[
    Construct::StructRef,
    Construct::StructValue,
    Construct::StructMut,
    Construct::StructMethod,
    Construct::StructMutMethod,
    Construct::StructVecField,
    Construct::StructArrayField,
    Construct::StructNestedField,
    Construct::StructRowsField,
    Construct::StructIntBound,
    Construct::StructPowiField,
    Construct::StructLen,
    Construct::StructUnitOut,
    Construct::StructFieldArg,
    Construct::StructFieldLend,
    Construct::StructNestedParam,
    Construct::NestedParam,
];

/// Reads `AD_RANDOM_HVP` through `var` into `cfg.hvp`: `0`/`off`/`false`, `1`/`on`/`true`/`all`,
/// or a share in [0, 1].
pub fn read_env(cfg: &mut Config, var: &impl Fn(&str) -> Option<String>) -> Result<(), String> {
    let Some(s) = var(HVP_VAR) else {
        return Ok(());
    };
    cfg.hvp = match s.trim() {
        "" | "0" | "off" | "false" => 0.0,
        "1" | "on" | "true" | "all" => 1.0,
        x => x
            .parse::<f64>()
            .ok()
            .filter(|h| (0.0..=1.0).contains(h))
            .ok_or_else(|| format!("{HVP_VAR}: not 0, 1 or a share in [0, 1]: {s:?}"))?,
    };
    Ok(())
}

/// Whether the generic copy can take `f` itself (its callees aside).
fn supported(f: &FnOut) -> bool {
    UNSUPPORTED.iter().all(|&c| f.counts[c as usize] == 0)
        && !f
            .params
            .iter()
            .any(|p| matches!(p, Param::Struct(_) | Param::Nested(..) | Param::Ragged(..)))
}

/// Whether program number `index` is among the share `cfg.hvp` of programs: a hash of the seed
/// and the index (no draw from the generator's streams, so sources do not change).
fn chosen(cfg: &Config, index: u64) -> bool {
    if cfg.hvp >= 1.0 {
        return true;
    }
    let mut x = cfg.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    ((x >> 11) as f64 / (1u64 << 53) as f64) < cfg.hvp
}

/// Adds `hvp` to the `#[differentiate]` of every helper the generic copy takes (when any
/// program may get it) and of the share `cfg.hvp` of programs that it takes; a function gets it
/// only if every helper it calls has it.
pub(super) fn mark(cfg: &Config, helpers: &mut [FnOut], programs: &mut [FnOut]) {
    if cfg.primal_only || cfg.hvp <= 0.0 {
        return;
    }
    let mut with: Vec<bool> = Vec::new();
    for h in helpers.iter_mut() {
        let ok = supported(h) && h.calls.iter().all(|&c| with[c]);
        if ok {
            add_hvp(h);
        }
        with.push(ok);
    }
    for p in programs.iter_mut() {
        if chosen(cfg, p.index) && supported(p) && p.calls.iter().all(|&c| with[c]) {
            add_hvp(p);
        }
    }
}

/// `#[differentiate]` → `#[differentiate(hvp)]`, `#[differentiate(wrt(..))]` →
/// `#[differentiate(wrt(..), hvp)]`.
fn add_hvp(f: &mut FnOut) {
    let Some((attr, rest)) = f.source.split_once('\n') else {
        return;
    };
    let new = if attr == "#[differentiate]" {
        "#[differentiate(hvp)]".to_string()
    } else if let Some(inner) = attr
        .strip_prefix("#[differentiate(")
        .and_then(|a| a.strip_suffix(")]"))
    {
        format!("#[differentiate({inner}, hvp)]")
    } else {
        return;
    };
    f.source = format!("{new}\n{rest}");
}

/// Whether `f` was given `hvp`.
fn has_hvp(f: &FnOut) -> bool {
    let attr = f.source.lines().next().unwrap_or("");
    attr == "#[differentiate(hvp)]"
        || (attr.starts_with("#[differentiate(") && attr.ends_with(", hvp)]"))
}

/// The `second:` field of `f`'s case: `Some` with the adapters of `<f>_grad`, `<f>_hvp` and
/// `<f>_hessian` for a function with `hvp`, a float output and only parameters they take.
pub(super) fn adapter(cfg: &Config, f: &FnOut) -> String {
    match adapters(cfg, f) {
        Some(a) => format!("            second: Some({a}),\n"),
        None => "            second: None,\n".to_string(),
    }
}

/// How an active parameter's gradient field lands in the flat gradient.
enum Slots {
    /// `m` scalar slots from `k` on.
    Scalars(usize, usize),
    /// The slice.
    Slice,
}

fn adapters(cfg: &Config, f: &FnOut) -> Option<String> {
    if cfg.primal_only || !has_hvp(f) || f.out != OutKind::F64 {
        return None;
    }
    let mut args = Vec::new();
    let mut dirs = Vec::new();
    let mut fields: Vec<(String, Slots)> = Vec::new();
    let mut k = 0;
    let items = |x: &str, k: usize, m: usize| {
        let xs: Vec<String> = (k..k + m).map(|j| format!("{x}[{j}]")).collect();
        format!("[{}]", xs.join(", "))
    };
    for p in &f.params {
        match p {
            Param::Scalar(n) => {
                args.push(format!("s[{k}]"));
                dirs.push(format!("ds[{k}]"));
                fields.push((n.clone(), Slots::Scalars(k, 1)));
                k += 1;
            }
            Param::Array(n) => {
                args.push(items("s", k, 3));
                dirs.push(items("ds", k, 3));
                fields.push((n.clone(), Slots::Scalars(k, 3)));
                k += 3;
            }
            Param::Row(n, c) => {
                args.push(format!("&{}", items("s", k, *c)));
                dirs.push(format!("&{}", items("ds", k, *c)));
                fields.push((n.clone(), Slots::Scalars(k, *c)));
                k += c;
            }
            Param::Slice(n) => {
                args.push("v".to_string());
                if !f.wrt_no_slice {
                    dirs.push("dv".to_string());
                    fields.push((n.clone(), Slots::Slice));
                }
            }
            Param::Len(_) => args.push("n".to_string()),
            Param::Workspace(_) => args.push("&mut [0.5, -0.25, 1.0]".to_string()),
            _ => return None,
        }
    }
    let name = &f.name;
    let args = args.join(", ");
    let dirs = dirs.join(", ");
    let (i1, i2, i3) = (" ".repeat(16), " ".repeat(20), " ".repeat(24));
    let mut flat = String::new();
    let mut order = String::new();
    for (n, slots) in &fields {
        let (dst, k0, m) = match slots {
            Slots::Scalars(k, 1) => {
                flat.push_str(&format!("{i3}gs[{k}] += g.{n};\n"));
                order.push_str(&format!("{i2}at.push({k});\n"));
                continue;
            }
            Slots::Scalars(k, m) => (format!("gs[{k}..{}]", k + m), k.to_string(), m.to_string()),
            Slots::Slice => ("gv".to_string(), k.to_string(), "v.len()".to_string()),
        };
        flat.push_str(&format!(
            "{i3}for (a, b) in {dst}.iter_mut().zip(g.{n}.iter()) {{\n{i3}    *a += b;\n{i3}}}\n"
        ));
        order.push_str(&format!("{i2}at.extend({k0}..{k0} + {m});\n"));
    }
    // `flatten(&g)`: the gradient struct `g` as (scalar slots, slice).
    let grad = format!(
        "{}{}",
        grad_struct(name),
        if f.generic { "<f64>" } else { "" }
    );
    let flatten = format!(
        "{i2}let flatten = |g: &{grad}| {{\n{i3}let (mut gs, mut gv) = (vec![0.0; {k}], vec![0.0; v.len()]);\n{flat}{i3}(gs, gv)\n{i2}}};\n"
    );
    let slice = if f.has_slice() && !f.wrt_no_slice {
        "v.len()"
    } else {
        "0"
    };
    let mut a = String::from("crate::second::Second {\n");
    a.push_str(&format!(
        "{i1}grad: |s, v, n| {{\n{flatten}{i2}let (y, g) = {name}_grad({args});\n\
         {i2}let (gs, gv) = flatten(&g);\n{i2}(y, gs, gv)\n{i1}}},\n"
    ));
    a.push_str(&format!(
        "{i1}hvp: |s, v, n, ds, dv| {{\n{flatten}{i2}let (y, g, h) = {name}_hvp({args}, {dirs});\n\
         {i2}let ((gs, gv), (hs, hv)) = (flatten(&g), flatten(&h));\n{i2}(y, gs, gv, hs, hv)\n{i1}}},\n"
    ));
    a.push_str(&format!(
        "{i1}hessian: |s, v, n| {{\n{flatten}{i2}let (y, g, hm) = {name}_hessian({args});\n\
         {i2}let (gs, gv) = flatten(&g);\n\
         {i2}// Where each row and column of the Hessian lands in the flat order.\n\
         {i2}let mut at: Vec<usize> = Vec::new();\n{order}\
         {i2}(y, gs, gv, crate::second::fold(&hm, &at, {k} + {slice}))\n{i1}}},\n"
    ));
    a.push_str("            }");
    Some(a)
}

/// The name of the gradient struct `<f>_grad` returns (`h0` → `H0Grad`).
fn grad_struct(name: &str) -> String {
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        if let Some(first) = c.next() {
            out.extend(first.to_uppercase());
            out.push_str(c.as_str());
        }
    }
    out.push_str("Grad");
    out
}
