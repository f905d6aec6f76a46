//! What each field of a struct argument is, read from the body's uses (`lower/structs.rs`):
//! takes the function body, gives a vote per name and field (indexed, iterated or lent by `&`
//! to a call: a sequence; an index, a range bound, a `powi` exponent, next to an integer or cast
//! with `as`: an integer; next to a float: a float), names that must share a class joined, and
//! each field's class.

use super::structs::{chain, key_string, Class, SEQ_METHODS, WRITING_METHODS};
use super::*;
use std::collections::HashSet;

/// An operand's reading: a name whose class is decided elsewhere, or a class.
enum Operand {
    Key(String),
    Class(Class),
    Unknown,
}

/// The votes of the body's uses for what each name and field is.
pub(super) struct Votes<'c, 'a> {
    pub(super) cx: &'c Lowerer<'a>,
    pub(super) roots: Vec<String>,
    pub(super) votes: HashMap<String, Vec<Class>>,
    /// Names that must be of one class (`a * s.k`, `let m = s.m;`).
    pub(super) edges: Vec<(String, String)>,
    /// Each field used, first use first.
    pub(super) uses: Vec<(syn::Ident, Vec<syn::Member>, TokenStream)>,
    pub(super) written: HashSet<String>,
    /// Arguments known to be sequences of floats (their elements are floats).
    pub(super) float_seqs: HashSet<String>,
    /// The body's bindings in scope, innermost last: each name bound in the body (a `let`, a
    /// closure's or a `for` loop's pattern, a `match` arm) stands for a key of its own
    /// (`m#3`), so that a closure's `m` and an integer `m` outside it are not one name.
    pub(super) scopes: Vec<HashMap<String, String>>,
    /// Bindings made so far (numbers the keys).
    pub(super) bound: usize,
}

impl Votes<'_, '_> {
    fn chain(&self, e: &syn::Expr) -> Option<(syn::Ident, Vec<syn::Member>)> {
        let roots = &self.roots;
        chain(e, &|n| roots.iter().any(|r| r == n))
    }

    fn key(&self, e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Paren(p) => self.key(&p.expr),
            syn::Expr::Group(g) => self.key(&g.expr),
            syn::Expr::Reference(r) => self.key(&r.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.key(&u.expr),
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| {
                let n = i.to_string();
                let bound = self.scopes.iter().rev().find_map(|s| s.get(&n));
                bound.cloned().unwrap_or(n)
            }),
            e => self.chain(e).map(|(r, m)| key_string(&r, &m)),
        }
    }

    /// Binds the names of pattern `p` in the innermost scope, each to a key of its own; a name
    /// with a type (`m: f64`) votes for the type's class. Gives the key of a pattern that is one
    /// name.
    fn bind(&mut self, p: &syn::Pat, ty: Option<&syn::Type>) -> Option<String> {
        match p {
            syn::Pat::Ident(pi) => {
                if let Some((_, sub)) = &pi.subpat {
                    self.bind(sub, None);
                }
                let name = pi.ident.to_string();
                self.bound += 1;
                let key = format!("{name}#{}", self.bound);
                if self.scopes.is_empty() {
                    self.scopes.push(HashMap::new());
                }
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name, key.clone());
                }
                if let Some(c) = ty.and_then(|t| self.cx.class_of_type(t)) {
                    self.vote(key.clone(), c);
                }
                Some(key)
            }
            syn::Pat::Type(pt) => self.bind(&pt.pat, Some(&pt.ty)),
            syn::Pat::Reference(r) => self.bind(&r.pat, None),
            syn::Pat::Paren(pp) => self.bind(&pp.pat, ty),
            syn::Pat::Tuple(t) => {
                let items: Vec<&syn::Type> = match ty {
                    Some(syn::Type::Tuple(tt)) => tt.elems.iter().collect(),
                    _ => Vec::new(),
                };
                for (i, e) in t.elems.iter().enumerate() {
                    self.bind(e, items.get(i).copied());
                }
                None
            }
            syn::Pat::TupleStruct(t) => {
                for e in &t.elems {
                    self.bind(e, None);
                }
                None
            }
            syn::Pat::Struct(st) => {
                for f in &st.fields {
                    self.bind(&f.pat, None);
                }
                None
            }
            syn::Pat::Slice(sl) => {
                for e in &sl.elems {
                    self.bind(e, None);
                }
                None
            }
            syn::Pat::Or(o) => {
                // Every alternative binds the same names: the first one's keys.
                o.cases.first().and_then(|c| self.bind(c, ty))
            }
            _ => None,
        }
    }

    fn vote(&mut self, key: String, c: Class) {
        self.votes.entry(key).or_default().push(c);
    }

    fn operand(&self, e: &syn::Expr) -> Operand {
        if let Some(k) = self.key(e) {
            return Operand::Key(k);
        }
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(_) => Operand::Class(Class::Scalar),
                syn::Lit::Int(i) if matches!(i.suffix(), "f32" | "f64") => {
                    Operand::Class(Class::Scalar)
                }
                syn::Lit::Int(_) => Operand::Class(Class::Int),
                _ => Operand::Unknown,
            },
            syn::Expr::Paren(p) => self.operand(&p.expr),
            syn::Expr::Group(g) => self.operand(&g.expr),
            syn::Expr::Unary(u) => self.operand(&u.expr),
            syn::Expr::Cast(c) => match self.cx.class_of_type(&c.ty) {
                Some(c) => Operand::Class(c),
                None => Operand::Unknown,
            },
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if name == "len" {
                    Operand::Class(Class::Int)
                } else if crate::methods::float_method(&name).is_some() {
                    Operand::Class(Class::Scalar)
                } else {
                    Operand::Unknown
                }
            }
            syn::Expr::Index(ix) => match self.key(&ix.expr) {
                Some(k) if self.float_seqs.contains(&k) => Operand::Class(Class::Scalar),
                _ => Operand::Unknown,
            },
            syn::Expr::Binary(b) if arithmetic(&b.op) => match self.operand(&b.left) {
                Operand::Unknown => self.operand(&b.right),
                o => o,
            },
            _ => Operand::Unknown,
        }
    }

    /// `a` and `b` are of one class.
    fn same(&mut self, a: Operand, b: Operand) {
        match (a, b) {
            (Operand::Key(x), Operand::Key(y)) => self.edges.push((x, y)),
            (Operand::Key(k), Operand::Class(c)) | (Operand::Class(c), Operand::Key(k)) => {
                self.vote(k, c)
            }
            _ => {}
        }
    }

    /// Arguments of a call: a field lent by `&` (`total(&s.w)`) is a sequence (a float cannot
    /// be passed by reference to a differentiated function; rustc's check at the field catches
    /// a wrong reading).
    fn lent<'e>(&mut self, args: impl IntoIterator<Item = &'e syn::Expr>) {
        for a in args {
            if let syn::Expr::Reference(r) = a {
                if r.mutability.is_none() {
                    if let Some((root, members)) = self.chain(&r.expr) {
                        self.vote(key_string(&root, &members), Class::Seq);
                    }
                }
            }
        }
    }

    /// `e` is used as an integer (an index, a range bound): so are the names it adds up.
    fn int_use(&mut self, e: &syn::Expr) {
        match e {
            syn::Expr::Paren(p) => self.int_use(&p.expr),
            syn::Expr::Binary(b) if arithmetic(&b.op) => {
                self.int_use(&b.left);
                self.int_use(&b.right);
            }
            e => {
                if let Some(k) = self.key(e) {
                    self.vote(k, Class::Int);
                }
            }
        }
    }

    /// The place an assignment writes: its field, if any, is written.
    fn written_place(&mut self, e: &syn::Expr) {
        match e {
            syn::Expr::Index(ix) => self.written_place(&ix.expr),
            syn::Expr::Paren(p) => self.written_place(&p.expr),
            syn::Expr::Unary(u) => self.written_place(&u.expr),
            e => {
                if let Some((r, m)) = self.chain(e) {
                    self.written.insert(key_string(&r, &m));
                }
            }
        }
    }

    /// Each field's class: its own votes and those of every name it must share a class with; a
    /// field nothing tells about is a float.
    pub(super) fn resolve(&self) -> HashMap<String, Class> {
        let mut keys: Vec<String> = self.votes.keys().cloned().collect();
        for (a, b) in &self.edges {
            keys.push(a.clone());
            keys.push(b.clone());
        }
        for (r, m, _) in &self.uses {
            keys.push(key_string(r, m));
        }
        keys.sort();
        keys.dedup();
        let index: HashMap<&str, usize> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();
        let mut parent: Vec<usize> = (0..keys.len()).collect();
        fn find(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        for (a, b) in &self.edges {
            let (x, y) = (
                find(&mut parent, index[a.as_str()]),
                find(&mut parent, index[b.as_str()]),
            );
            parent[x] = y;
        }
        let mut group: HashMap<usize, Class> = HashMap::new();
        for (k, vs) in &self.votes {
            let g = find(&mut parent, index[k.as_str()]);
            for v in vs {
                let e = group.entry(g).or_insert(*v);
                *e = (*e).max(*v);
            }
        }
        let mut out = HashMap::new();
        for (r, m, _) in &self.uses {
            let k = key_string(r, m);
            let g = find(&mut parent, index[k.as_str()]);
            out.insert(k, group.get(&g).copied().unwrap_or(Class::Scalar));
        }
        out
    }
}

fn arithmetic(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        Add(_)
            | Sub(_)
            | Mul(_)
            | Div(_)
            | Rem(_)
            | AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
    )
}

fn compares_or_computes(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    arithmetic(op) || matches!(op, Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) | Ne(_))
}

impl<'ast> Visit<'ast> for Votes<'_, '_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if let Some((root, members)) = self.chain(e) {
            let key = key_string(&root, &members);
            if !self.uses.iter().any(|(r, m, _)| key_string(r, m) == key) {
                self.uses.push((root, members, e.to_token_stream()));
            }
            return;
        }
        match e {
            syn::Expr::Binary(b) if compares_or_computes(&b.op) => {
                let (l, r) = (self.operand(&b.left), self.operand(&b.right));
                self.same(l, r);
                if !matches!(
                    b.op,
                    syn::BinOp::Add(_)
                        | syn::BinOp::Sub(_)
                        | syn::BinOp::Mul(_)
                        | syn::BinOp::Div(_)
                        | syn::BinOp::Rem(_)
                        | syn::BinOp::Lt(_)
                        | syn::BinOp::Le(_)
                        | syn::BinOp::Gt(_)
                        | syn::BinOp::Ge(_)
                        | syn::BinOp::Eq(_)
                        | syn::BinOp::Ne(_)
                ) {
                    self.written_place(&b.left);
                }
            }
            syn::Expr::Assign(a) => {
                let (l, r) = (self.operand(&a.left), self.operand(&a.right));
                self.same(l, r);
                self.written_place(&a.left);
            }
            syn::Expr::Index(ix) => {
                if let Some(k) = self.key(&ix.expr) {
                    self.vote(k, Class::Seq);
                }
                self.int_use(&ix.index);
            }
            syn::Expr::Range(r) => {
                for end in [&r.start, &r.end].into_iter().flatten() {
                    self.int_use(end);
                }
            }
            syn::Expr::Cast(c) => {
                if let Some(k) = self.key(&c.expr) {
                    self.vote(k, Class::Int);
                }
            }
            syn::Expr::Reference(r) if r.mutability.is_some() => self.written_place(&r.expr),
            // `f64::powi(x, s.n)`: the method's rule, its receiver first.
            syn::Expr::Call(c) => {
                if let syn::Expr::Path(p) = &*c.func {
                    let segs = &p.path.segments;
                    let name = segs.last().map(|s| s.ident.to_string());
                    let rule = name.as_deref().and_then(crate::methods::float_method);
                    if let (Some(rule), true) = (rule, segs.len() == 2 && p.qself.is_none()) {
                        for (i, a) in c.args.iter().enumerate() {
                            let class = match (i, rule.arity) {
                                (1, crate::methods::Arity::PowI) => Class::Int,
                                _ => Class::Scalar,
                            };
                            if let Some(k) = self.key(a) {
                                self.vote(k, class);
                            }
                        }
                    }
                }
                self.lent(&c.args);
            }
            syn::Expr::MethodCall(m) => {
                self.lent(&m.args);
                let name = m.method.to_string();
                let recv = self.key(&m.receiver);
                if SEQ_METHODS.contains(&name.as_str()) {
                    if let Some(k) = recv {
                        self.vote(k, Class::Seq);
                    }
                    if WRITING_METHODS.contains(&name.as_str()) {
                        self.written_place(&m.receiver);
                    }
                } else if let Some(rule) = crate::methods::float_method(&name) {
                    if let Some(k) = recv {
                        self.vote(k, Class::Scalar);
                    }
                    let arg = if rule.arity == crate::methods::Arity::PowI {
                        Class::Int
                    } else {
                        Class::Scalar
                    };
                    for a in &m.args {
                        if let Some(k) = self.key(a) {
                            self.vote(k, arg);
                        }
                    }
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }

    // Scopes: a name is bound after what initialises it is read (`let m = m * 2;`), and only
    // for the block, closure, loop body or arm it is bound in.

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.scopes.push(HashMap::new());
        syn::visit::visit_block(self, b);
        self.scopes.pop();
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        // Read in the scope before the binding.
        let o = l.init.as_ref().map(|init| self.operand(&init.expr));
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, d)) = &init.diverge {
                self.visit_expr(d);
            }
        }
        if let (Some(key), Some(o)) = (self.bind(&l.pat, None), o) {
            self.same(Operand::Key(key), o);
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.scopes.push(HashMap::new());
        for p in &c.inputs {
            self.bind(p, None);
        }
        self.visit_expr(&c.body);
        self.scopes.pop();
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.scopes.push(HashMap::new());
        let key = self.bind(&f.pat, None);
        if let (Some(k), syn::Expr::Range(_)) = (key, &*f.expr) {
            self.vote(k, Class::Int);
        }
        self.visit_block(&f.body);
        self.scopes.pop();
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.scopes.push(HashMap::new());
        self.bind(&a.pat, None);
        if let Some((_, g)) = &a.guard {
            self.visit_expr(g);
        }
        self.visit_expr(&a.body);
        self.scopes.pop();
    }

    /// `if let p = e { .. }`: `p`'s names are bound in the branch taken when it matches.
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.scopes.push(HashMap::new());
        self.visit_expr(&i.cond);
        self.visit_block(&i.then_branch);
        self.scopes.pop();
        if let Some((_, e)) = &i.else_branch {
            self.visit_expr(e);
        }
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.scopes.push(HashMap::new());
        self.visit_expr(&w.cond);
        self.visit_block(&w.body);
        self.scopes.pop();
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.visit_expr(&l.expr);
        self.bind(&l.pat, None);
    }

    /// The items of `vec![..]` are expressions like any other (`vec![s.k; s.n]`).
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Some(body) = VecBody::parse(m) {
            if let Some(len) = &body.len {
                self.int_use(len);
                self.visit_expr(len);
            }
            for e in &body.items {
                self.visit_expr(e);
            }
        }
    }
}

/// The body of a `vec![..]`: `vec![e; len]` or `vec![a, b, ..]`.
pub(super) struct VecBody {
    pub(super) items: Vec<syn::Expr>,
    pub(super) len: Option<syn::Expr>,
}

impl VecBody {
    pub(super) fn parse(m: &syn::Macro) -> Option<VecBody> {
        if !m.path.is_ident("vec") {
            return None;
        }
        m.parse_body_with(|input: syn::parse::ParseStream| {
            let mut body = VecBody {
                items: Vec::new(),
                len: None,
            };
            if input.is_empty() {
                return Ok(body);
            }
            body.items.push(input.parse()?);
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                body.len = Some(input.parse()?);
                return Ok(body);
            }
            while !input.is_empty() {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                body.items.push(input.parse()?);
            }
            Ok(body)
        })
        .ok()
    }

    pub(super) fn tokens(&self) -> TokenStream {
        let items = &self.items;
        match &self.len {
            Some(len) => quote!(#(#items)*; #len),
            None => quote!(#(#items),*),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{SeqKind, Shape};
    use crate::testing::lowered;
    use syn::parse_quote;

    /// The field arguments of a lowered function: `(path after the root, shape, in-out)`.
    fn fields(item: syn::ItemFn) -> Vec<(String, Shape, bool)> {
        let f = lowered(item);
        f.fields
            .iter()
            .map(|p| {
                let at = p.field.as_ref().expect("a field argument");
                (
                    at.members.to_string().replace(' ', ""),
                    p.shape.clone(),
                    p.inout,
                )
            })
            .collect()
    }

    #[test]
    fn fields_are_read_from_their_uses() {
        let got = fields(parse_quote! {
            fn f(s: &State, x: f64) -> f64 {
                let m = s.mass;
                let mut e = 0.0;
                for i in 0..s.n {
                    e += s.w[i] * x.powi(s.p) + m * s.bob.length;
                }
                e + s.q as f64
            }
        });
        let slice = Shape::Seq(SeqKind::Slice);
        // `n` (range bound), `p` (`powi` exponent) and `q` (`as`) are integers: no field argument.
        assert_eq!(
            got,
            vec![
                (".mass".into(), Shape::Scalar, false),
                (".w".into(), slice, false),
                (".bob.length".into(), Shape::Scalar, false),
            ]
        );
    }

    #[test]
    fn written_fields_of_a_mut_struct_are_in_out() {
        let got = fields(parse_quote! {
            fn step(&mut self, dt: f64) {
                for i in 0..self.x.len() {
                    self.x[i] += dt * self.v[i];
                }
                self.t += dt;
            }
        });
        let slice = Shape::Seq(SeqKind::Slice);
        assert_eq!(
            got,
            vec![
                (".x".into(), slice.clone(), true),
                (".v".into(), slice, false),
                (".t".into(), Shape::Scalar, true),
            ]
        );
    }

    #[test]
    fn a_closure_parameter_is_not_the_local_it_shadows() {
        // The integer `m` outside the closure and the float `m` inside it are two names.
        let got = fields(parse_quote! {
            fn f(s: &S, v: &[f64]) -> f64 {
                let m: usize = s.n;
                let g = |m: f64| s.k * m;
                let h = |m| s.c * m;
                g(v[m]) + h(v[0])
            }
        });
        let scalar = |f: &str| (f.to_string(), Shape::Scalar, false);
        assert_eq!(got, vec![scalar(".k"), scalar(".c")]);
    }

    #[test]
    fn a_name_shares_the_class_of_what_it_is_computed_with() {
        // `k` is only ever next to `c`, which is an index: both integers.
        let got = fields(parse_quote! {
            fn f(s: &S, v: &[f64]) -> f64 {
                let c = s.k + 1;
                v[c] * s.a
            }
        });
        assert_eq!(got, vec![(".a".into(), Shape::Scalar, false)]);
    }
}
