//! Ragged parameters (issue 10): `rp: &[Vec<f64>]`, rows of different lengths drawn per program
//! (one of them empty; the test builds the rows from its scalars), elements read as leaves
//! (`rp[i][j]`, `rp[i][k % rp[i].len()]`) and summaries over the rows bound to a fresh float
//! (`for r in rp.iter()`, `for i in 0..rp.len() { for j in 0..rp[i].len() .. }`, `enumerate`,
//! chains over a row, `r.is_empty()`, `r[r.len() - 1]`), which the rest of the program uses.
//! The elements lie in [-1, 1].

use super::*;

/// What the test's adapters pass for a ragged parameter with rows of `lens` at scalar slot `k`.
pub(super) fn adapter(lens: &[usize], k: usize) -> nested_rows::Adapter {
    let ind = "                ";
    let rows = |x: &str| {
        let mut at = k;
        let items: Vec<String> = lens
            .iter()
            .map(|n| {
                let s = format!("{x}[{at}..{}].to_vec()", at + n);
                at += n;
                s
            })
            .collect();
        format!("vec![{}]", items.join(", "))
    };
    let mut store = String::new();
    let mut at = k;
    for (r, n) in lens.iter().enumerate() {
        store.push_str(&format!(
            "{ind}gs[{at}..{}].copy_from_slice(&g{k}[{r}]);\n",
            at + n
        ));
        at += n;
    }
    nested_rows::Adapter {
        arg: format!("&{}", rows("s")),
        tangent: format!("&{}", rows("ts")),
        adjoint: format!("&mut g{k}"),
        load: format!("{ind}let mut g{k}: Vec<Vec<f64>> = {};\n", rows("gs")),
        store,
        slots: lens.iter().sum(),
    }
}

impl FnGen<'_> {
    /// Sometimes adds the ragged parameter `rp` (not next to a struct parameter, which the
    /// macro does not take).
    pub(super) fn ragged_param(&mut self, params: &mut Vec<Param>) {
        if !self.on(Construct::RaggedParam)
            || params.iter().any(|p| matches!(p, Param::Struct(_)))
            || !self.chance(0.2)
        {
            return;
        }
        self.count(Construct::RaggedParam);
        let rows = self.rng.gen_range(2..=4);
        let mut lens: Vec<usize> = (0..rows).map(|_| self.rng.gen_range(0..=3)).collect();
        let empty = self.rng.gen_range(0..rows);
        lens[empty] = 0;
        let full = (empty + 1) % rows;
        lens[full] = lens[full].max(1);
        let at = self.rng.gen_range(0..=params.len());
        params.insert(at, Param::Ragged("rp".into(), lens.clone()));
        self.ragged = Some(lens);
    }

    /// `rp[i][j]` of a nonempty row, `j` a constant or an index variable modulo the row's
    /// length.
    pub(super) fn ragged_read(&mut self) -> Ex {
        self.count(Construct::RaggedRead);
        let lens = self.ragged.clone().expect("a ragged parameter");
        let full: Vec<usize> = (0..lens.len()).filter(|&i| lens[i] > 0).collect();
        let i = self.pick(&full);
        let idx = self.index_vars();
        let j = if !idx.is_empty() && self.chance(0.4) {
            let k = self.pick(&idx);
            format!("{} % rp[{i}].len()", self.vars[k].name)
        } else {
            self.rng.gen_range(0..lens[i]).to_string()
        };
        let e = Ex::atom(format!("rp[{i}][{j}]"), 1.0);
        self.scale(e, EXPR_CAP)
    }

    /// A summary of the rows bound to a fresh float: `let t = ..;` over a coefficient `c`
    /// (a small expression bound first).
    pub(super) fn s_ragged_rows(&mut self) {
        self.count(Construct::RaggedRows);
        let lens = self.ragged.clone().expect("a ragged parameter");
        let total: usize = lens.iter().sum();
        let d = self.rng.gen_range(0..=1);
        let e = self.expr(d);
        let e = self.scale(e, 1.0);
        let c = self.bind_temp(&e);
        let t = self.fresh("t");
        let (r, x, i, j) = (
            self.fresh("r"),
            self.fresh("x"),
            self.fresh("i"),
            self.fresh("j"),
        );
        let g = self.fresh("g");
        let bound = match self.rng.gen_range(0..7) {
            0 => {
                self.line(format!("let mut {t} = 0.0;"));
                self.line(format!("for {r} in rp.iter() {{"));
                self.line(format!("    for {x} in {r}.iter() {{"));
                self.line(format!("        {t} += ({x} * {c}).sin();"));
                self.line("    }");
                self.line("}");
                total as f64
            }
            1 => {
                self.line(format!("let mut {t} = 0.0;"));
                self.line(format!("for {i} in 0..rp.len() {{"));
                self.line(format!("    for {j} in 0..rp[{i}].len() {{"));
                self.line(format!(
                    "        {t} += rp[{i}][{j}] * {c} / (({j} + 1) as f64);"
                ));
                self.line("    }");
                self.line("}");
                total as f64
            }
            2 => {
                self.line(format!(
                    "let {t}: f64 = rp.iter().enumerate().map(|({i}, {r})| {r}.iter().sum::<f64>() \
                     * {c} * ({i} as f64)).sum();"
                ));
                lens.iter().enumerate().map(|(i, n)| (i * n) as f64).sum()
            }
            3 => {
                self.line(format!("let mut {t} = {c};"));
                self.line(format!("for ({i}, {r}) in rp.iter().enumerate() {{"));
                self.line(format!("    if !{r}.is_empty() {{"));
                self.line(format!(
                    "        {t} += {r}[{r}.len() - 1] * {r}[0] * ({i} as f64);"
                ));
                self.line("    }");
                self.line("}");
                1.0 + lens.iter().enumerate().map(|(i, _)| i as f64).sum::<f64>()
            }
            4 => {
                // A local copy of the rows, written, then read by rows.
                self.line(format!("let mut {g} = rp.to_vec();"));
                self.line(format!("for {i} in 0..{g}.len() {{"));
                self.line(format!("    for {j} in 0..{g}[{i}].len() {{"));
                self.line(format!(
                    "        {g}[{i}][{j}] = {g}[{i}][{j}] * {c} + 0.5;"
                ));
                self.line("    }");
                self.line("}");
                self.line(format!("let mut {t} = 0.0;"));
                self.line(format!("for {r} in {g}.iter() {{"));
                self.line(format!("    for {x} in {r}.iter() {{"));
                self.line(format!("        {t} += {x}.sin();"));
                self.line("    }");
                self.line("}");
                total as f64
            }
            5 => {
                // A local grid of rows `vec![vec![c; 3]; rows]`, written from the rows.
                self.line(format!("let mut {g} = vec![vec![{c}; 3]; rp.len()];"));
                self.line(format!("for {i} in 0..rp.len() {{"));
                self.line(format!("    for {j} in 0..rp[{i}].len().min(3) {{"));
                self.line(format!("        {g}[{i}][{j}] += rp[{i}][{j}] * {c};"));
                self.line("    }");
                self.line("}");
                self.line(format!(
                    "let {t}: f64 = {g}.iter().map(|{r}| {r}.iter().map(|{x}| {x} * {x}).sum::<f64>()).sum();"
                ));
                12.0 * lens.len() as f64
            }
            _ => {
                let full: Vec<usize> = (0..lens.len()).filter(|&i| lens[i] > 0).collect();
                let row = self.pick(&full);
                self.line(format!("let {r} = &rp[{row}];"));
                self.line(format!(
                    "let {t}: f64 = {r}.iter().map(|{x}| {x} * {x} * {c}).sum::<f64>() + \
                     {r}.len() as f64;"
                ));
                2.0 * lens[row] as f64
            }
        };
        self.declare(t, Ty::Float, false, bound.max(1.0), 0.0);
    }
}
