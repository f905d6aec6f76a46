//! Rows of nested arrays lent to helpers (issue 10): the row helpers `hr0`..`hr3` taking
//! `r: &[f64; C]` or `r: &mut [f64; C]`, the calls that lend them `&nm[i]`, `&mut nm[i]`, a
//! row of a loop or a row copy, and the test's adapters for nested and row parameters.

use super::*;

/// Number of row helpers: `hr0` (`&[f64; 2]`), `hr1` (`&[f64; 3]`), `hr2` (`&mut [f64; 2]`),
/// `hr3` (`&mut [f64; 3]`).
pub const ROW_HELPERS: usize = 4;
/// Bound a program guarantees for the elements of a row it passes to a row helper.
const ROW_ARG_BOUND: f64 = HELPER_SLICE_BOUND;

/// What the test's adapters pass for a nested or row parameter.
pub(super) struct Adapter {
    pub arg: String,
    pub tangent: String,
    pub adjoint: String,
    /// Adjoint buffer declared from `gs` before the vjp call, and stored back after it.
    pub load: String,
    pub store: String,
    pub slots: usize,
}

/// The adapter of `Param::Nested` or `Param::Row` `p` at scalar slot `k`.
pub(super) fn adapter(p: &Param, k: usize) -> Adapter {
    let ind = "                ";
    match p {
        Param::Nested(_, rows, cols, fixed) => {
            let m = rows * cols;
            let view = |x: &str| format!("{x}[{k}..{}].as_chunks::<{cols}>().0", k + m);
            let arg = |x: &str| {
                if *fixed {
                    format!("<&[[f64; {cols}]; {rows}]>::try_from({}).unwrap()", view(x))
                } else {
                    view(x)
                }
            };
            let init = if *fixed {
                format!(
                    "<[[f64; {cols}]; {rows}]>::try_from({}).unwrap()",
                    view("gs")
                )
            } else {
                format!("{}.to_vec()", view("gs"))
            };
            Adapter {
                arg: arg("s"),
                tangent: arg("ts"),
                adjoint: format!("&mut g{k}"),
                load: format!("{ind}let mut g{k} = {init};\n"),
                store: format!(
                    "{ind}gs[{k}..{}].copy_from_slice(g{k}.as_flattened());\n",
                    k + m
                ),
                slots: m,
            }
        }
        Param::Row(_, cols) => {
            let items = |x: &str| {
                let xs: Vec<String> = (k..k + cols).map(|j| format!("{x}[{j}]")).collect();
                format!("[{}]", xs.join(", "))
            };
            Adapter {
                arg: format!("&{}", items("s")),
                tangent: format!("&{}", items("ts")),
                adjoint: format!("&mut g{k}"),
                load: format!("{ind}let mut g{k} = {};\n", items("gs")),
                store: format!("{ind}gs[{k}..{}].copy_from_slice(&g{k});\n", k + cols),
                slots: *cols,
            }
        }
        _ => unreachable!("not a nested or row parameter"),
    }
}

impl FnGen<'_> {
    /// `hr{k}(p: f64, [q: f64,] r: &[f64; C]) -> f64` or `(.., r: &mut [f64; C]) [-> f64]`:
    /// random statements reading (and writing) the row; a written row ends squashed into
    /// [-1, 1], so that a caller's nested array keeps its bound.
    pub(super) fn row_helper(mut self, k: usize) -> FnOut {
        self.count(Construct::NestedRowCall);
        let cols = 2 + k % 2;
        let mutable = k >= 2;
        let mut params = vec![Param::Scalar("p".into())];
        if self.chance(0.5) {
            params.push(Param::Scalar("q".into()));
        }
        let scalars = params.len();
        params.push(if mutable {
            Param::InOutRow("r".into(), cols)
        } else {
            Param::Row("r".into(), cols)
        });
        self.shuffle_params(&mut params);
        for n in &["p", "q"][..scalars] {
            self.push_input(n, HELPER_ARG_BOUND);
        }
        let out = if mutable {
            self.inout = Some("r");
            self.squash_inout = true;
            self.no_early_return = true;
            self.declare("r".to_string(), Ty::Vector, true, ROW_ARG_BOUND, 8.0);
            if self.on(Construct::UnitOut) && self.chance(0.4) {
                self.count(Construct::UnitOut);
                OutKind::Unit
            } else {
                OutKind::F64
            }
        } else {
            self.row_refs.push("r".to_string());
            self.declare("r".to_string(), Ty::Vector, false, ROW_ARG_BOUND, 0.0);
            OutKind::F64
        };
        self.vars.last_mut().expect("just declared").arr_len = Some(cols);
        // The row is read at least once.
        let t = self.fresh("t");
        let x = Ex::atom("r[0]".to_string(), ROW_ARG_BOUND);
        let y = Ex::atom(format!("r[{}]", cols - 1), ROW_ARG_BOUND);
        let x = self.scale(x, 2.0);
        let y = self.scale(y, 1.0);
        let e = Ex::atom(format!("({} + {}).sin()", x.s, y.s), 1.0);
        self.line(format!("let {t} = {};", e.s));
        self.declare(t, Ty::Float, false, 1.0, 0.0);
        self.budget = self.rng.gen_range(1..=5);
        self.finish(format!("hr{k}"), 900 + k as u64, params, out)
    }

    // ---- rows lent to helpers ---------------------------------------------------------------

    /// Row helpers this function may call now.
    pub(super) fn row_callable(&self) -> Vec<usize> {
        if !self.on(Construct::NestedRowCall) || !self.on(Construct::HelperCall) || self.is_helper {
            return Vec::new();
        }
        (0..self.helpers.len())
            .filter(|&h| self.helpers[h].takes_row())
            .collect()
    }

    /// Rows of `cols` elements that may be lent: (argument, variable to mark) for `&[f64; C]`
    /// (`mutable` false) or `&mut [f64; C]`.
    pub(super) fn row_args(&mut self, cols: usize, mutable: bool) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        let ns = if mutable {
            self.writable_nested()
        } else {
            self.nested_vars()
        };
        let lend_mut = self.on(Construct::NestedRowLendMut);
        for i in ns {
            let v = &self.vars[i];
            let fits = v.bound <= ROW_ARG_BOUND && (!mutable || v.base >= 1.0);
            // `&nm[i]` of a mutable `nm`: see `DEFAULT_DISABLED`.
            let lendable = mutable || !v.mutable || lend_mut;
            if fits && lendable && self.shape(i).1 == cols {
                let ix = self.row_index(i);
                let name = &self.vars[i].name;
                let a = if mutable {
                    format!("&mut {name}[{ix}]")
                } else {
                    format!("&{name}[{ix}]")
                };
                out.push((a, i));
            }
        }
        if !mutable {
            // Row copies and rows of a loop (references already).
            for i in self.visible(|v| v.ty == Ty::Vector && v.arr_len == Some(cols)) {
                let v = &self.vars[i];
                let lendable = lend_mut || !self.rows_of_mut.contains(&v.name);
                if v.bound <= ROW_ARG_BOUND && !v.mutable && self.is_array(&v.name) && lendable {
                    let a = if self.row_refs.contains(&v.name) {
                        v.name.clone()
                    } else {
                        format!("&{}", v.name)
                    };
                    out.push((a, i));
                }
            }
        }
        out
    }

    pub(super) fn can_row_call(&self) -> bool {
        let hs = self.row_callable();
        hs.into_iter().any(|h| {
            let (cols, mutable) = self.row_param(h);
            // Lists without drawing (`row_args` draws indices).
            let ns = if mutable {
                self.writable_nested()
            } else {
                self.nested_vars()
            };
            let lend_mut = self.on(Construct::NestedRowLendMut);
            let nested = ns.into_iter().any(|i| {
                let v = &self.vars[i];
                (mutable || !v.mutable || lend_mut)
                    && self.shape(i).1 == cols
                    && v.bound <= ROW_ARG_BOUND
                    && (!mutable || v.base >= 1.0)
            });
            let rows = !mutable
                && !self
                    .visible(|v| {
                        v.ty == Ty::Vector
                            && v.arr_len == Some(cols)
                            && !v.mutable
                            && v.bound <= ROW_ARG_BOUND
                            && self.is_array(&v.name)
                            && (lend_mut || !self.rows_of_mut.contains(&v.name))
                    })
                    .is_empty();
            nested || rows
        })
    }

    /// Whether the vector `name` is an array (or a reference to one), not a `Vec` of a known
    /// length such as `q.to_vec()`.
    pub(super) fn is_array(&self, name: &str) -> bool {
        self.arrays.iter().chain(&self.row_refs).any(|a| a == name)
    }

    /// The row length of helper `h`'s row, and whether it is written.
    pub(super) fn row_param(&self, h: usize) -> (usize, bool) {
        for p in &self.helpers[h].params {
            match p {
                Param::Row(_, c) => return (*c, false),
                Param::InOutRow(_, c) => return (*c, true),
                _ => {}
            }
        }
        unreachable!("a row helper takes a row")
    }

    /// `let t = hr0(&nm[i], e);`, `hr2(&mut nm[i], t);` (scalar arguments bound first).
    pub(super) fn s_nested_row_call(&mut self) {
        let hs: Vec<usize> = self.row_callable();
        let mut cands = Vec::new();
        for h in hs {
            let (cols, mutable) = self.row_param(h);
            let args = self.row_args(cols, mutable);
            if !args.is_empty() {
                cands.push((h, args));
            }
        }
        let (h, args) = self.pick(&cands);
        let (row, target) = self.pick(&args);
        let (_, mutable) = self.row_param(h);
        let nested_target = matches!(self.vars[target].ty, Ty::Nested { .. });
        let of_mut = self.rows_of_mut.contains(&self.vars[target].name);
        if !mutable && ((nested_target && self.vars[target].mutable) || of_mut) {
            self.count(Construct::NestedRowLendMut);
        }
        self.calls.insert(h);
        self.count(Construct::HelperCall);
        let helpers = self.helpers;
        let mut printed = Vec::new();
        for p in &helpers[h].params {
            match p {
                Param::Scalar(_) => {
                    let d = self.rng.gen_range(0..=2);
                    let e = self.expr(d);
                    let e = self.scale(e, HELPER_ARG_BOUND);
                    if mutable {
                        // Not next to `&mut nm[i]`, which it may read.
                        let t = self.bind_temp(&e);
                        printed.push(t);
                    } else {
                        printed.push(e.s);
                    }
                }
                _ => printed.push(row.clone()),
            }
        }
        let call = format!("{}({})", helpers[h].name, printed.join(", "));
        if helpers[h].out == OutKind::F64 && (!mutable || self.chance(0.6)) {
            let t = self.fresh("t");
            self.line(format!("let {t} = {call};"));
            self.declare(t, Ty::Float, false, helpers[h].ret_bound, 0.0);
        } else {
            self.line(format!("{call};"));
        }
        // Written: read back by the return value; read: its value flowed into the call.
        self.vars[target].dirty = mutable;
    }
}
