//! Nested arrays (issue 10): local nested arrays (`let mut nm = [[x; C]; R];`, nested literals
//! `[[a, b], [c, d]]`, `vec![[x; C]; n]`), element reads and writes `nm[i][j]`, row copies
//! (`let r = nm[i];`), row assignments (`nm[i] = [a, b];`), loops over the rows (`for i in
//! 0..nm.len()`, `for q in nm.iter()`, `nm.iter().map(|q| ..).sum::<f64>()`, `nm.iter_mut()`,
//! zipped), a nested parameter `np: &[[f64; C]]` or `np: &[[f64; C]; R]` (the test builds it from
//! its scalars with `as_chunks`), and rows lent to helpers `hr*(r: &[f64; C], ..)` and
//! `hr*(r: &mut [f64; C], ..)` (`&nm[i]`, `&mut nm[i]`, a row of the loop, a row copy; in
//! `nested_rows.rs`).
//!
//! A nested array is a variable of type [`Ty::Nested`]: its `bound`, `base` and `room` are those
//! of its elements, with the conventions of local vectors (`=` writes stay within `base`,
//! `+=`/`-=` are charged to `room`, `*=` multiplies by at most 1).

use super::*;

impl FnGen<'_> {
    // ---- parameters and helpers -------------------------------------------------------------

    /// Sometimes adds the nested parameter `np` to a program's parameters.
    pub(super) fn nested_param(&mut self, params: &mut Vec<Param>) {
        if !self.on(Construct::NestedParam) || !self.chance(0.2) {
            return;
        }
        self.count(Construct::NestedParam);
        let fixed = self.chance(0.4);
        let rows = self.rng.gen_range(2..=3);
        let cols = self.rng.gen_range(2..=3);
        params.push(Param::Nested("np".into(), rows, cols, fixed));
    }

    /// Declares the nested parameter (its elements lie in [-1, 1]).
    pub(super) fn nested_input(&mut self, params: &[Param]) {
        for p in params {
            if let Param::Nested(n, rows, cols, _) = p {
                self.push_input(n, 1.0);
                let v = self.vars.last_mut().expect("just declared");
                v.ty = Ty::Nested {
                    rows: Some(*rows),
                    cols: *cols,
                };
            }
        }
    }

    // ---- reads ------------------------------------------------------------------------------

    /// Visible nested arrays.
    pub(super) fn nested_vars(&self) -> Vec<usize> {
        self.visible(|v| matches!(v.ty, Ty::Nested { .. }))
    }

    /// Visible nested arrays that may be written now (not borrowed by a loop over them).
    pub(super) fn writable_nested(&self) -> Vec<usize> {
        self.visible(|v| matches!(v.ty, Ty::Nested { .. }) && v.mutable)
            .into_iter()
            .filter(|&i| !self.frozen.contains(&self.vars[i].name))
            .collect()
    }

    pub(super) fn shape(&self, i: usize) -> (Option<usize>, usize) {
        match self.vars[i].ty {
            Ty::Nested { rows, cols } => (rows, cols),
            _ => unreachable!("not a nested array"),
        }
    }

    /// Reads variable `i` whatever its kind (a float, an element of a vector or nested array).
    pub(super) fn read_any(&mut self, i: usize) -> Ex {
        match self.vars[i].ty {
            Ty::Vector => self.vec_read_of(i),
            Ty::Nested { .. } => self.nested_read_of(i),
            _ => self.read_var(i),
        }
    }

    /// `nm[i][j]` of a visible nested array.
    pub(super) fn nested_read(&mut self) -> Ex {
        let ns = self.nested_vars();
        let i = self.pick(&ns);
        self.nested_read_of(i)
    }

    fn nested_read_of(&mut self, i: usize) -> Ex {
        let (r, c) = (self.row_index(i), self.col_index(i));
        self.nested_elem(i, &r, &c)
    }

    fn nested_elem(&mut self, i: usize, r: &str, c: &str) -> Ex {
        self.vars[i].dirty = false;
        let e = Ex::atom(
            format!("{}[{r}][{c}]", self.vars[i].name),
            self.vars[i].bound,
        );
        self.scale(e, EXPR_CAP)
    }

    /// A valid row index of nested array `i`.
    pub(super) fn row_index(&mut self, i: usize) -> String {
        match self.shape(i).0 {
            None => self.index(),
            Some(r) => self.small_index(r),
        }
    }

    pub(super) fn col_index(&mut self, i: usize) -> String {
        let c = self.shape(i).1;
        self.small_index(c)
    }

    /// An index below `m`: a loop index known to stay below it, an index variable modulo `m`,
    /// or a constant.
    pub(super) fn small_index(&mut self, m: usize) -> String {
        let known: Vec<String> = self
            .small_idx
            .iter()
            .filter(|&&(v, hi)| hi <= m && self.is_visible(v))
            .map(|&(v, _)| self.vars[v].name.clone())
            .collect();
        if !known.is_empty() && self.chance(0.7) {
            return self.pick(&known);
        }
        let idx = self.index_vars();
        if !idx.is_empty() && self.chance(0.4) {
            let j = self.pick(&idx);
            return format!("{} % {m}", self.vars[j].name);
        }
        self.rng.gen_range(0..m).to_string()
    }

    pub(super) fn is_visible(&self, v: usize) -> bool {
        v < self.vars.len()
            && !self.vars[v + 1..]
                .iter()
                .any(|w| w.name == self.vars[v].name)
    }

    /// Trips of a loop over the rows of nested array `i`.
    pub(super) fn row_trips(&self, i: usize) -> usize {
        self.shape(i).0.unwrap_or(N_MAX)
    }

    // ---- statements -------------------------------------------------------------------------

    pub(super) fn is_nested_stmt(&self, c: Construct) -> bool {
        matches!(
            c,
            Construct::NestedLocal
                | Construct::NestedElemWrite
                | Construct::NestedIndexLoop
                | Construct::NestedRowCopy
                | Construct::NestedRowAssign
                | Construct::NestedRowIter
                | Construct::NestedRowMap
                | Construct::NestedIterMut
                | Construct::NestedRowCall
        )
    }

    /// The nested-array statements possible here.
    pub(super) fn nested_stmts(&mut self, opts: &mut Vec<(St, f64)>) {
        let can_nest = self.nest < 3 && self.budget >= 2;
        let loop_ok = can_nest
            && (self.loops.is_empty() || (self.loops.len() < 2 && self.on(Construct::ForNested)));
        let mut add = |c: Construct, w: f64| opts.push((St::Idiom(c), w));
        if self.on(Construct::NestedLocal) && self.nested_count < 2 {
            add(
                Construct::NestedLocal,
                if self.loops.is_empty() { 1.5 } else { 0.3 },
            );
        }
        let any = !self.nested_vars().is_empty();
        let writable = self.writable_nested();
        let big_base = writable.iter().any(|&i| self.vars[i].base >= 1.0);
        if !writable.is_empty() {
            if self.on(Construct::NestedElemWrite) {
                add(Construct::NestedElemWrite, 4.0);
            }
            if self.on(Construct::NestedRowAssign) {
                add(Construct::NestedRowAssign, 1.2);
            }
            if self.on(Construct::NestedIndexLoop) && self.on(Construct::NestedElemWrite) && loop_ok
            {
                add(Construct::NestedIndexLoop, 1.5);
            }
            if self.on(Construct::NestedIterMut) && big_base {
                add(Construct::NestedIterMut, 1.0);
            }
        }
        if any {
            if self.on(Construct::NestedRowCopy) {
                add(Construct::NestedRowCopy, 0.7);
            }
            if self.on(Construct::NestedRowIter) && loop_ok {
                add(Construct::NestedRowIter, 1.0);
            }
            if self.on(Construct::NestedRowMap) {
                add(Construct::NestedRowMap, 0.6);
            }
        }
        if self.can_row_call() {
            add(Construct::NestedRowCall, 1.0);
        }
    }

    /// A statement of this file (already counted by `s_idiom`).
    pub(super) fn s_nested(&mut self, c: Construct) {
        match c {
            Construct::NestedLocal => self.s_nested_decl(),
            Construct::NestedElemWrite => {
                let i = self.pick(&self.writable_nested());
                let (r, c) = (self.row_index(i), self.col_index(i));
                self.nested_write_at(i, &r, &c);
            }
            Construct::NestedIndexLoop => self.s_nested_index_loop(),
            Construct::NestedRowCopy => self.s_nested_row_copy(),
            Construct::NestedRowAssign => self.s_nested_row_assign(),
            Construct::NestedRowIter => self.s_nested_row_iter(),
            Construct::NestedRowMap => self.s_nested_row_map(),
            Construct::NestedIterMut => self.s_nested_iter_mut(),
            _ => self.s_nested_row_call(),
        }
    }

    /// `let mut nm = [[x; C]; R];` (typed or not), a nested literal `[[a, b], [c, d]]`, or
    /// `vec![[x; C]; n]`.
    fn s_nested_decl(&mut self) {
        self.nested_count += 1;
        let name = self.fresh("nm");
        let cols = self.rng.gen_range(2..=3);
        let base0: f64 = self.pick(&[1.0, 2.0, 4.0]);
        let room: f64 = self.pick(&[2.0, 8.0, 16.0]);
        let r: f64 = self.rng.gen();
        let (rows, base) = if r < 0.25 && self.on(Construct::NestedVec) && self.has_len() {
            self.count(Construct::NestedVec);
            let len = self.len().expect("checked above");
            let (x, b) = self.nested_fill(base0);
            if self.on(Construct::TypedLet) && self.chance(0.3) {
                self.count(Construct::TypedLet);
                self.line(format!(
                    "let mut {name}: Vec<[f64; {cols}]> = vec![[{x}; {cols}]; {len}];"
                ));
            } else {
                self.line(format!("let mut {name} = vec![[{x}; {cols}]; {len}];"));
            }
            (None, b)
        } else if r < 0.6 && self.on(Construct::NestedLiteral) {
            self.count(Construct::NestedLiteral);
            let rows = self.rng.gen_range(2..=4);
            let mut b = base0;
            let mut items = Vec::new();
            for k in 0..rows * cols {
                // One element with a type at least (`[[0.5, 1.0]]` would be `{float}`).
                let e = if k == 0 || self.chance(0.7) {
                    let d = self.rng.gen_range(0..=1);
                    self.expr_nc(d)
                } else {
                    self.literal()
                };
                b = b.max(e.b);
                items.push(e.s);
            }
            let rows_s: Vec<String> = items
                .chunks(cols)
                .map(|c| format!("[{}]", c.join(", ")))
                .collect();
            self.line(format!("let mut {name} = [{}];", rows_s.join(", ")));
            (Some(rows), b)
        } else {
            let rows = self.rng.gen_range(2..=4);
            if self.on(Construct::TypedLet) && self.chance(0.3) {
                self.count(Construct::TypedLet);
                self.line(format!(
                    "let mut {name}: [[f64; {cols}]; {rows}] = [[0.0; {cols}]; {rows}];"
                ));
                (Some(rows), base0)
            } else {
                let (x, b) = self.nested_fill(base0);
                self.line(format!("let mut {name} = [[{x}; {cols}]; {rows}];"));
                (Some(rows), b)
            }
        };
        self.declare(name, Ty::Nested { rows, cols }, true, base, room);
    }

    /// The value a nested array is filled with (`0.0_f64`, or an expression), and the base of
    /// the array.
    fn nested_fill(&mut self, base0: f64) -> (String, f64) {
        if self.chance(0.5) {
            let c: f64 = self.pick(&[0.0, 0.0, 1.0, 0.5]);
            (format!("{}_f64", lit(c)), base0)
        } else {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr_nc(d);
            (e.s, base0.max(e.b))
        }
    }

    /// `nm[r][c] = e;`, `+= e`, `-= e` or `*= f` on the writable nested array `i`.
    fn nested_write_at(&mut self, i: usize, r: &str, c: &str) {
        self.count(Construct::NestedElemWrite);
        let name = self.vars[i].name.clone();
        let ops = [("=", 3.0), ("+=", 3.0), ("-=", 1.0), ("*=", 1.0)];
        let (op, e) = self.element_write(i, &ops, &mut |g| g.nested_elem(i, r, c));
        self.line(format!("{name}[{r}][{c}] {op} {};", e.s));
        self.vars[i].dirty = true;
    }

    /// `for i in 0..nm.len() { nm[i][c] op e; ... }`, sometimes with an inner loop over the
    /// columns, `for j in 0..C { nm[i][j] op e; }`.
    fn s_nested_index_loop(&mut self) {
        self.count(Construct::NestedIndexLoop);
        let w = self.pick(&self.writable_nested());
        let name = self.vars[w].name.clone();
        let (rows, cols) = self.shape(w);
        let trips = self.row_trips(w);
        let i = self.loop_name();
        let range = match rows {
            Some(r) if self.chance(0.5) => format!("0..{r}"),
            None if self.chance(0.5) => format!("0..{}", self.len().expect("a Vec has a length")),
            _ => format!("0..{name}.len()"),
        };
        self.line(format!("for {i} in {range} {{"));
        self.enter_loop(LoopKind::ContinueOk, trips);
        self.declare_index(i, 0);
        let iv = self.vars.len() - 1;
        if let Some(r) = rows {
            self.small_idx.push((iv, r));
        }
        let inner = self.loops.len() < 2 && self.on(Construct::ForNested) && self.chance(0.4);
        if inner {
            let j = self.loop_name();
            self.line(format!("for {j} in 0..{cols} {{"));
            self.enter_loop(LoopKind::ContinueOk, cols);
            self.declare_index(j, 0);
            self.small_idx.push((self.vars.len() - 1, cols));
            self.nested_write_at(w, i, j);
            self.small_idx.pop();
            self.leave_loop(cols);
            self.line("}");
        } else {
            let c = self.col_index(w);
            self.nested_write_at(w, i, &c);
        }
        self.loop_body(trips, &[]);
        if rows.is_some() {
            self.small_idx.pop();
        }
        self.line("}");
    }

    /// `let r = nm[i];` (typed or not), or `let r = &np[i];` of a nested array not written.
    fn s_nested_row_copy(&mut self) {
        let ns = self.nested_vars();
        let i = self.pick(&ns);
        let name = self.vars[i].name.clone();
        let cols = self.shape(i).1;
        let ix = self.row_index(i);
        let r = self.fresh("rw");
        let by_ref = !self.vars[i].mutable && self.chance(0.4);
        if by_ref {
            self.line(format!("let {r} = &{name}[{ix}];"));
            self.row_refs.push(r.clone());
        } else if self.on(Construct::TypedLet) && self.chance(0.3) {
            self.count(Construct::TypedLet);
            self.line(format!("let {r}: [f64; {cols}] = {name}[{ix}];"));
        } else {
            self.line(format!("let {r} = {name}[{ix}];"));
        }
        let b = self.vars[i].bound;
        self.vars[i].dirty = false;
        if !by_ref {
            // An array by value: `map` and slice patterns may take it too.
            self.arrays.push(r.clone());
        }
        self.declare(r, Ty::Vector, false, b, 0.0);
        let v = self.vars.last_mut().expect("just declared");
        v.arr_len = Some(cols);
        // Read back by the return value if nothing else reads it.
        v.dirty = true;
    }

    /// `nm[i] = [e, e];`, `nm[i] = [e; C];` or `nm[i] = nm[j];`: every value within the base.
    fn s_nested_row_assign(&mut self) {
        let w = self.pick(&self.writable_nested());
        let name = self.vars[w].name.clone();
        let cols = self.shape(w).1;
        let base = self.vars[w].base;
        let ix = self.row_index(w);
        let r: f64 = self.rng.gen();
        let value = if r < 0.25 {
            // Copies of elements (already within what the array holds).
            let j = self.row_index(w);
            format!("{name}[{j}]")
        } else if r < 0.45 {
            let d = self.rng.gen_range(0..=2);
            let e = self.expr_nc(d);
            let e = self.squash(e, base);
            format!("[{}; {cols}]", e.s)
        } else {
            let mut items = Vec::new();
            for k in 0..cols {
                let d = self.rng.gen_range(0..=2);
                let e = if k == 0 && self.chance(0.4) {
                    let me = self.nested_elem(w, &ix, "0");
                    let other = self.expr(d);
                    self.combine(me, other)
                } else {
                    self.expr(d)
                };
                let e = self.squash(e, base);
                items.push(e.s);
            }
            let reads_self = items.iter().any(|e| e.contains(&format!("{name}[")));
            if reads_self && self.on(Construct::NestedRowAssignSelf) {
                self.count(Construct::NestedRowAssignSelf);
            } else if reads_self {
                // See `DEFAULT_DISABLED`: the items bound first.
                let ts: Vec<String> = (0..cols).map(|_| self.fresh("t")).collect();
                self.line(format!("let ({}) = ({});", ts.join(", "), items.join(", ")));
                for t in &ts {
                    self.declare(t.clone(), Ty::Float, false, base, 0.0);
                    self.vars.last_mut().expect("just declared").dirty = false;
                }
                items = ts;
            }
            format!("[{}]", items.join(", "))
        };
        self.line(format!("{name}[{ix}] = {value};"));
        self.vars[w].dirty = true;
    }

    /// A row variable `q` (a reference to a row of nested array `i`) for a loop or closure body.
    pub(super) fn declare_row_ref(&mut self, q: &str, i: usize) {
        let b = self.vars[i].bound;
        let cols = self.shape(i).1;
        self.declare(q.to_string(), Ty::Vector, false, b, 0.0);
        self.vars.last_mut().expect("just declared").arr_len = Some(cols);
        self.row_refs.push(q.to_string());
        if self.vars[i].mutable {
            self.rows_of_mut.push(q.to_string());
        }
    }

    /// `for q in nm.iter() { acc += q[0] * q[1]; ... }` (or `.enumerate()`), reading the rows.
    fn s_nested_row_iter(&mut self) {
        let ns = self.nested_vars();
        let n = self.pick(&ns);
        let name = self.vars[n].name.clone();
        let rows = self.shape(n).0;
        let cols = self.shape(n).1;
        let trips = self.row_trips(n);
        self.ensure_target();
        if self.chance(0.2) {
            // The elements of one row: `for &x in &nm[i]`, `nm[i].iter()`, `.enumerate()`.
            let ix = self.row_index(n);
            let b = self.vars[n].bound;
            self.vars[n].dirty = false;
            self.for_iter_over(Some((format!("{name}[{ix}]"), b, Some(name))));
            self.count(Construct::NestedRowIter);
            return;
        }
        let q = self.fresh("q");
        let i = self.loop_name();
        let enumerate = self.chance(0.3);
        // Rows zipped with the rows of another nested array (read only).
        let others: Vec<usize> = self.nested_vars().into_iter().filter(|&o| o != n).collect();
        let partner =
            (!enumerate && !others.is_empty() && self.chance(0.3)).then(|| self.pick(&others));
        let p = self.fresh("p");
        let by_ref = if self.is_mut_ref(&name) || name == "np" {
            name.clone()
        } else {
            format!("&{name}")
        };
        if enumerate {
            self.line(format!("for ({i}, {q}) in {name}.iter().enumerate() {{"));
        } else if let Some(o) = partner {
            let other = self.vars[o].name.clone();
            self.line(format!(
                "for ({q}, {p}) in {name}.iter().zip({other}.iter()) {{"
            ));
            self.vars[o].dirty = false;
        } else if self.chance(0.3) {
            self.line(format!("for {q} in {by_ref} {{"));
        } else {
            self.line(format!("for {q} in {name}.iter() {{"));
        }
        self.vars[n].dirty = false;
        self.frozen.push(name);
        // The zipped partner is borrowed by the loop as well: nothing in the body may lend it
        // `&mut` (E0502 in the program itself, seed 30004).
        if let Some(o) = partner {
            self.frozen.push(self.vars[o].name.clone());
        }
        let mark = self.vars.len();
        self.enter_loop(LoopKind::ContinueOk, trips);
        self.declare_row_ref(&q, n);
        if let Some(o) = partner {
            self.declare_row_ref(&p, o);
        }
        if enumerate {
            self.declare_index(i, 0);
            if let Some(r) = rows {
                self.small_idx.push((self.vars.len() - 1, r));
            }
        }
        // An accumulator outside the loop takes a product of two elements of the row.
        let accs: Vec<usize> = self
            .visible(|v| v.ty == Ty::Float && v.mutable)
            .into_iter()
            .filter(|&a| a < mark)
            .collect();
        if !accs.is_empty() && self.on(Construct::AddAssign) {
            let a = self.pick(&accs);
            let b = self.vars[n].bound;
            let x = self.scale(Ex::atom(format!("{q}[0]"), b), EXPR_CAP);
            let y = self.scale(Ex::atom(format!("{q}[{}]", cols - 1), b), EXPR_CAP);
            let e = self.product(x, y);
            if let Some(e) = self.charge(a, e) {
                self.count(Construct::AddAssign);
                let acc = self.vars[a].name.clone();
                self.line(format!("{acc} += {};", e.s));
                self.vars[a].dirty = true;
                self.vars[a].zero = false;
            }
        }
        self.loop_body(trips, &[]);
        if enumerate && rows.is_some() {
            self.small_idx.pop();
        }
        if partner.is_some() {
            self.row_refs.pop();
            self.frozen.pop();
        }
        self.row_refs.pop();
        self.frozen.pop();
        self.line("}");
        self.count(Construct::NestedRowIter);
    }

    /// `let t = nm.iter().map(|q| q[0] * e).sum::<f64>();`
    fn s_nested_row_map(&mut self) {
        let ns = self.nested_vars();
        let n = self.pick(&ns);
        let name = self.vars[n].name.clone();
        let cols = self.shape(n).1;
        let trips = self.row_trips(n) as f64;
        let q = self.fresh("q");
        self.push_scope();
        self.declare_row_ref(&q, n);
        let qi = self.vars.len() - 1;
        let k = self.rng.gen_range(0..cols);
        let b = self.vars[n].bound;
        let me = self.scale(Ex::atom(format!("{q}[{k}]"), b), EXPR_CAP);
        let d = self.rng.gen_range(0..=2);
        let body = if self.chance(0.5) {
            let other = self.expr(d);
            self.product(me, other)
        } else {
            let other = self.vec_read_of(qi);
            let e = self.combine(me, other);
            self.self_wrap(e)
        };
        self.row_refs.pop();
        self.pop_scope();
        self.vars[n].dirty = false;
        let t = self.fresh("t");
        let call = format!("{name}.iter().map(|{q}| {})", body.s);
        if self.on(Construct::TypedLet) && self.chance(0.3) {
            self.count(Construct::TypedLet);
            self.line(format!("let {t}: f64 = {call}.sum();"));
        } else {
            self.line(format!("let {t} = {call}.sum::<f64>();"));
        }
        self.declare(t, Ty::Float, false, trips * body.b, 0.0);
    }

    /// `for q in nm.iter_mut() { q[0] = (k * q[0] + t).sin(); .. }`, sometimes zipped with the
    /// rows of another nested array: every value written lies within 1.
    fn s_nested_iter_mut(&mut self) {
        let ws: Vec<usize> = self
            .writable_nested()
            .into_iter()
            .filter(|&i| self.vars[i].base >= 1.0)
            .collect();
        let w = self.pick(&ws);
        let name = self.vars[w].name.clone();
        let cols = self.shape(w).1;
        let bound = self.vars[w].bound;
        let t = self.unit_temp();
        let k = SCALES
            .iter()
            .copied()
            .find(|c| c * bound <= 1.0)
            .unwrap_or(SCALES[SCALES.len() - 1]);
        let k = lit(k.min(1.0));
        let others: Vec<usize> = self
            .nested_vars()
            .into_iter()
            .filter(|&o| o != w && self.shape(o).1 >= 1)
            .collect();
        let q = self.fresh("q");
        let partner = (!others.is_empty() && self.chance(0.4)).then(|| self.pick(&others));
        let c = cols - 1;
        match partner {
            Some(o) => {
                let other = self.vars[o].name.clone();
                let ko = SCALES
                    .iter()
                    .copied()
                    .find(|c| c * self.vars[o].bound <= 1.0)
                    .unwrap_or(SCALES[SCALES.len() - 1]);
                let ko = lit(ko.min(1.0));
                let p = self.fresh("p");
                self.line(format!(
                    "for ({q}, {p}) in {name}.iter_mut().zip({other}.iter()) {{"
                ));
                self.line(format!(
                    "    {q}[{c}] = ({k} * {q}[{c}] + {ko} * {p}[0] + {t}).sin();"
                ));
                self.vars[o].dirty = false;
            }
            None => {
                self.line(format!("for {q} in {name}.iter_mut() {{"));
                self.line(format!(
                    "    {q}[0] = ({k} * {q}[0] + {k} * {q}[{c}] + {t}).tanh();"
                ));
            }
        }
        if self.chance(0.5) {
            self.line(format!("    {q}[1] *= ({k} * {q}[0] * {t}).cos();"));
        }
        self.line("}");
        self.vars[w].dirty = true;
    }
}
