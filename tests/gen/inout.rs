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
        if self.inout.is_some() && self.on(Construct::UnitOut) && self.chance(0.4) {
            self.count(Construct::UnitOut);
            OutKind::Unit
        } else {
            out
        }
    }

    /// Whether `name` is a `&mut` parameter (`&name` would be `&&mut [f64]`).
    pub(super) fn is_mut_ref(&self, name: &str) -> bool {
        self.inout == Some(name) || (self.workspace && name == "wk")
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
    /// ... before the vjp call (the seed of the final contents: `c` after the other outputs).
    pub init_adjoint: String,
    /// After the vjp call: the initial contents' adjoint added to the scalar or slice buffers.
    pub add_adjoint: String,
    /// The name holding the final contents, and that of their tangent.
    pub name: String,
    pub tname: String,
    /// The final contents have the slice's length.
    pub slice: bool,
}

impl InOutAdapter {
    /// For parameter `p` at scalar slot `k`, with `outs` outputs before its contents.
    pub(super) fn new(p: &Param, k: usize, outs: usize) -> Option<InOutAdapter> {
        let ind = "                ";
        match p {
            Param::InOut(n) => Some(InOutAdapter {
                arg: format!("&mut {n}"),
                tangent: format!("&mut t{n}"),
                adjoint: format!("&mut b{n}"),
                init: format!("{ind}let mut {n} = v.to_vec();\n"),
                init_tangent: format!("{ind}let mut t{n} = tv.to_vec();\n"),
                init_adjoint: format!("{ind}let mut b{n} = c[{outs}..].to_vec();\n"),
                add_adjoint: format!(
                    "{ind}for (g, b) in gv.iter_mut().zip(&b{n}) {{\n{ind}    *g += b;\n{ind}}}\n"
                ),
                name: n.clone(),
                tname: format!("t{n}"),
                slice: true,
            }),
            Param::InOutArray(n) => {
                let slots = |x: &str, o: usize| format!("[{x}[{o}], {x}[{}], {x}[{}]]", o + 1, o + 2);
                Some(InOutAdapter {
                    arg: format!("&mut {n}"),
                    tangent: format!("&mut t{n}"),
                    adjoint: format!("&mut b{n}"),
                    init: format!("{ind}let mut {n} = {};\n", slots("s", k)),
                    init_tangent: format!("{ind}let mut t{n} = {};\n", slots("ts", k)),
                    init_adjoint: format!("{ind}let mut b{n} = {};\n", slots("c", outs)),
                    add_adjoint: format!(
                        "{ind}for j in 0..3 {{\n{ind}    gs[{k} + j] += b{n}[j];\n{ind}}}\n"
                    ),
                    name: n.clone(),
                    tname: format!("t{n}"),
                    slice: false,
                })
            }
            _ => None,
        }
    }
}
