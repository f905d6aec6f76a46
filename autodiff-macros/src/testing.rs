//! Helpers for the passes' unit tests: takes a function written as tokens, gives it lowered (and
//! analysed) with the errors the passes reported.
#![cfg(test)]

use crate::analysis::activity;
use crate::attr::Attr;
use crate::diag::Diag;
use crate::ir::{Function, Var, VarId};
use crate::transform::normalize::R;

/// Lowers `item` (all float arguments active); panics with the errors if lowering fails.
pub fn lowered(item: syn::ItemFn) -> Function {
    let mut diag = Diag::default();
    let f = crate::lower::lower(&item, &Attr::default(), &mut diag);
    if let Err(e) = diag.finish() {
        panic!("lowering reported: {e}");
    }
    f.expect("lowering gave a function")
}

/// Lowers `item` and runs activity analysis.
pub fn analysed(item: syn::ItemFn) -> Function {
    let mut f = lowered(item);
    let mut diag = Diag::default();
    activity::analyze(&mut f, &mut diag);
    if let Err(e) = diag.finish() {
        panic!("activity reported: {e}");
    }
    f
}

/// `item` lowered, analysed and normalised as the reverse emitter does it: the function, the
/// variable table normalisation extends, the variable the output is assigned to, the body.
pub fn normalized(item: syn::ItemFn) -> (Function, Vec<Var>, VarId, Vec<R>) {
    let f = analysed(item);
    let mut vars = f.vars.clone();
    let ret = vars.len();
    let mut out = vars[0].clone();
    out.name = crate::names::synthetic("ret", ret);
    out.shape = f.output.shape.clone();
    vars.push(out);
    let mut diag = Diag::default();
    let body = crate::transform::normalize::normalize(&f, &mut vars, ret, &mut diag);
    if let Err(e) = diag.finish() {
        panic!("normalisation reported: {e}");
    }
    (f, vars, ret, body)
}

/// The errors lowering and activity report for `item`, as strings.
pub fn errors(item: syn::ItemFn) -> Vec<String> {
    let mut diag = Diag::default();
    if let Some(mut f) = crate::lower::lower(&item, &Attr::default(), &mut diag) {
        if !diag.has_errors() {
            activity::analyze(&mut f, &mut diag);
        }
    }
    match diag.finish() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

/// The id of the variable named `name` (the last one bound with that name).
pub fn var(f: &Function, name: &str) -> usize {
    f.vars
        .iter()
        .rposition(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable `{name}`"))
}
