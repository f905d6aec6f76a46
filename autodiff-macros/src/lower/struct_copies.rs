//! Copies of struct arguments bound to locals, before struct arguments are planned (a syntactic
//! step of `struct_values.rs`'s pass): takes `let t = s.clone();`, `let t = *s;`,
//! `let t = (*s).clone();` (`s` a struct argument read only, or a struct local not `mut`), gives
//! `t` as a struct local all of whose fields come from `s` (like `let t = State { ..*s };`):
//! `t.k` reads `s.k`, `t` returned whole is a struct output based on `s`. A copy bound by
//! `let mut` whose fields the rest of the block writes whole (`t.x = ..`, `t.v -= ..`, `&mut
//! t.x`) and that it uses otherwise only through field reads (or gives back as the function's
//! value) is a struct local with one local per written field (`let mut __ad_l0_t_x = s.x;`), the
//! other fields `s`'s. A field whose elements the block writes (`t.x[i] += ..`, `t.v[0] = ..`,
//! of a copy in the function's body, not a nested block, of a struct argument) is a field
//! argument of its own (`FieldOf::copy`, `copy_params`): an in-out sequence the companions bind
//! to a clone of `s.x` (array or `Vec`, whichever the field is: the macro cannot see which),
//! which is what the copy holds at the `let` since `s` is read only. Any other `let mut` copy is
//! left to `struct_calls.rs` (held whole).

use super::struct_values::{plain_name, Local, Pass};
use super::structs::{chain, WRITING_METHODS};
use super::*;

/// `s.clone()`, `*s`, `(*s).clone()`, `s.to_owned()`: the name copied.
pub(super) fn copied(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::MethodCall(m)
            if (m.method == "clone" || m.method == "to_owned") && m.args.is_empty() =>
        {
            plain_name(&m.receiver)
        }
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => plain_name(&u.expr),
        syn::Expr::Paren(p) => copied(&p.expr),
        _ => None,
    }
}

/// Whether the block binds a copy of one of `roots` by `let` (the pass must then run).
pub(super) fn copies_root(b: &syn::Block, roots: &[String]) -> bool {
    struct F<'r>(&'r [String], bool);
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let Some(init) = &l.init {
                if copied(&init.expr).is_some_and(|n| self.0.contains(&n.to_string())) {
                    self.1 = true;
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut f = F(roots, false);
    f.visit_block(b);
    f.1
}

/// The struct arguments' types as paths for struct literals (`State`, `Self`; generic
/// arguments left to inference).
pub(super) fn root_paths(cx: &Lowerer, sig: &syn::Signature) -> HashMap<String, syn::Path> {
    let mut out = HashMap::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(_) => {
                out.insert("self".to_string(), syn::parse_quote!(Self));
            }
            syn::FnArg::Typed(pt) => {
                let syn::Pat::Ident(pi) = &*pt.pat else {
                    continue;
                };
                if cx.struct_type(&pt.ty, &sig.generics).is_none() {
                    continue;
                }
                let ty = match &*pt.ty {
                    syn::Type::Reference(r) => &*r.elem,
                    t => t,
                };
                if let syn::Type::Path(tp) = ty {
                    let mut path = tp.path.clone();
                    if let Some(last) = path.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                    out.insert(pi.ident.to_string(), path);
                }
            }
        }
    }
    out
}

impl Pass<'_, '_> {
    /// `let t = s.clone();` (or `*s`, `(*s).clone()`) of a struct argument read only or a
    /// struct local not `mut`, bound to a plain name without `mut`: `t` entered in `locals`
    /// with every field from `s`. False when `l` is not such a `let`.
    ///
    /// `let mut t = s.clone();` whose fields `rest` (the statements after it) writes: `t` entered
    /// with a local per written field, its `let`s pushed to `out` (see the module's doc);
    /// `output`: the block's value is the function's, where `t` may be given whole.
    pub(super) fn copy_let(
        &mut self,
        l: &syn::Local,
        locals: &mut HashMap<String, Local>,
        rest: &[syn::Stmt],
        output: bool,
        out: &mut Vec<syn::Stmt>,
    ) -> bool {
        let Some(init) = &l.init else { return false };
        if init.diverge.is_some() {
            return false;
        }
        let Some(src) = copied(&init.expr) else {
            return false;
        };
        let pat = match &l.pat {
            syn::Pat::Type(pt) => &*pt.pat,
            p => p,
        };
        let syn::Pat::Ident(pi) = pat else {
            return false;
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            return false;
        }
        let Written {
            whole: written,
            elems,
            elems_at,
            unsupported,
        } = match pi.mutability {
            None => Written::default(),
            Some(_) => match written_fields(&pi.ident.to_string(), rest, output) {
                Some(w) => w,
                None => return false,
            },
        };
        let n = src.to_string();
        let path = match locals.get(&n) {
            Some(local) if !local.mutable => local.path.clone(),
            Some(_) => return false,
            None if self.roots.contains(&n) => match self.types.get(&n) {
                Some(p) => p.clone(),
                None => return false,
            },
            None => return false,
        };
        // Reported once: the copy's fields poisoned, so their uses are not reported again.
        let mut report = unsupported;
        if report.is_none() && !elems.is_empty() && (self.depth > 0 || locals.contains_key(&n)) {
            report = Some((
                elems_at.unwrap_or_else(|| src.to_token_stream()),
                "writing elements of a field of a copy made inside a loop, a branch or a \
                 block, or of a copy of a struct local (yet)",
                "copy the struct argument at the top of the function's body (`let mut t = \
                 s.clone();` before the loop) and write the copy's elements there",
            ));
        }
        let k = self.count;
        self.count += 1;
        let mut fields = Vec::new();
        for m in &written {
            let name = super::struct_values::member_name(m);
            let id = syn::Ident::new(
                &format!("__ad_l{k}_{}_{name}", pi.ident),
                Span::mixed_site().located_at(m.span()),
            );
            let mut st: syn::Stmt = syn::parse_quote!(let mut #id = #src.#m;);
            self.uses(&mut st, locals);
            out.push(st);
            self.cx.copy_fields.push(id.clone());
            fields.push((name, m.clone(), id));
        }
        for m in &elems {
            let name = super::struct_values::member_name(m);
            let id = syn::Ident::new(
                &format!("__ad_l{k}_{}_{name}", pi.ident),
                Span::mixed_site().located_at(m.span()),
            );
            if report.is_some() {
                self.cx.poisoned_names.push(id.to_string());
            } else {
                self.cx.copy_seqs.push((id.clone(), src.clone(), m.clone()));
            }
            fields.push((name, m.clone(), id));
        }
        if let Some((at, what, instead)) = report {
            self.cx.diag.unsupported_at(&at, what, instead);
        }
        locals.insert(
            pi.ident.to_string(),
            Local {
                path,
                fields,
                base: Some(syn::parse_quote!(#src)),
                mutable: pi.mutability.is_some(),
            },
        );
        true
    }
}

impl Lowerer<'_> {
    /// The field arguments of the sequence fields of struct copies whose elements the body
    /// writes (`copy_seqs`): in-out `&mut [_]` sequences, numbered after the `before` field
    /// arguments, active (the body writes active values into them whether or not the struct is
    /// active), each bound to a clone of the field by the companions (`FieldOf::copy`).
    pub(super) fn copy_params(&mut self, params: &[Param], before: usize) -> Vec<Param> {
        let mut out = Vec::new();
        for (id, root, m) in self.copy_seqs.clone() {
            if !params.iter().any(|p| p.name == root) {
                continue;
            }
            let shape = Shape::Seq(SeqKind::Slice);
            let ty: syn::Type = syn::parse_quote!(&mut [_]);
            let var = self.new_var(
                id.clone(),
                true,
                shape.clone(),
                VarOrigin::Param(params.len() + before + out.len()),
                Some(ty.clone()),
            );
            self.bind(&id, var);
            out.push(Param {
                var,
                name: id,
                ty,
                shape,
                elem_ty: None,
                active: true,
                inout: true,
                nest: None,
                na: None,
                strukt: None,
                field: Some(FieldOf {
                    root,
                    members: quote!(.#m),
                    lent: false,
                    flat: false,
                    copy: true,
                }),
            });
        }
        out
    }

    /// The locals of the written fields of struct copies, once lowered: a float or an integer
    /// each; an array or `Vec` field (bound by reference to the struct's, not copied) reported.
    /// Likewise a sequence field of a struct argument bound whole by `let mut` (`let mut v =
    /// s.q;`: the field argument is a borrow of the field, which the local would write through).
    pub(super) fn check_copy_fields(&mut self, body: &[Stmt]) {
        let seq_fields: Vec<&syn::Ident> = self
            .structs
            .fields
            .iter()
            .filter(|f| f.class == super::structs::Class::Seq)
            .map(|f| &f.ident)
            .collect();
        let mut copied = Vec::new();
        crate::ir::visit_stmt_list(body, &mut |s| {
            if let Stmt::Let {
                pat: Pat::Bind(v),
                init: Some(e),
            } = s
            {
                if let ExprKind::Var(f) = &e.kind {
                    let field = &self.vars[*f];
                    // (A written copy's field is reported below.)
                    if self.vars[*v].mutable
                        && !self.copy_fields.contains(&self.vars[*v].name)
                        && matches!(field.origin, VarOrigin::Param(_))
                        && seq_fields.contains(&&field.name)
                    {
                        copied.push(e.span);
                    }
                }
            }
        });
        for span in copied {
            self.diag.unsupported(
                span,
                "binding a sequence field of a struct argument whole to a `let mut` local (yet)",
                "copy its elements (`let mut q = [s.q[0], s.q[1], s.q[2]];`), or bind it \
                 without `mut` and read it",
            );
        }
        let mut bad = Vec::new();
        for v in &self.vars {
            if self.copy_fields.contains(&v.name)
                && !matches!(v.shape, Shape::Scalar | Shape::Int | Shape::Bool)
            {
                bad.push(v.name.clone());
            }
        }
        for name in bad {
            self.diag.unsupported_at(
                &name,
                "writing an array or `Vec` field of a copy of a struct argument whole, or \
                 lending it whole by `&mut` without writing its elements (yet)",
                "write its elements (`t.q[0] = t.q[1] * dt; t.q[1] = ..`, in a loop over \
                 `t.q.len()`): a field whose elements are written may also be lent by `&mut`",
            );
        }
    }
}

/// The fields of `t` (a `let mut` copy) that `rest` writes whole, in the order first written,
/// and those whose elements it writes (`t.x[i] = ..`, `t.x[i] += ..`; such a field may also be
/// borrowed whole, `&mut t.x`, not assigned whole), when it writes some and otherwise uses `t`
/// only through field reads (and gives it whole as its last value when `output`); `None`
/// otherwise (then `t` is held whole, `struct_calls.rs`).
#[derive(Default)]
struct Written {
    /// Fields written whole (`t.x = ..`, `t.x += ..`, `&mut t.x`), none of `elems`.
    whole: Vec<syn::Member>,
    /// Fields whose elements are written (`t.x[i] = ..`).
    elems: Vec<syn::Member>,
    /// The first element write (for spans).
    elems_at: Option<TokenStream>,
    /// A use of one of `elems` not supported (assigned whole, `t.x = ..`; its length changed,
    /// `t.x.push(v)`): where, what and what to write instead.
    unsupported: Option<(TokenStream, &'static str, &'static str)>,
}

fn written_fields(t: &str, rest: &[syn::Stmt], output: bool) -> Option<Written> {
    struct F<'t> {
        t: &'t str,
        written: Vec<syn::Member>,
        /// Fields assigned whole (not only borrowed whole), with the first place.
        assigned: Vec<(syn::Member, TokenStream)>,
        elems: Vec<syn::Member>,
        /// The first element write, and the first call changing a field's length.
        elems_at: Option<TokenStream>,
        grown_at: Option<TokenStream>,
        other: bool,
    }
    impl F<'_> {
        /// A place `t.x` (written whole: noted, `borrow` when by `&mut`), an element `t.x[i]`
        /// (noted), or a place inside `t` another way (`t.q[i][j]`, `t.a.b`: not supported
        /// here); false when the place is not rooted at `t`.
        fn place(&mut self, p: &syn::Expr, borrow: bool) -> bool {
            let mut at = p;
            let mut inner = 0;
            // Indexed by ranges only (`&mut t.x[..][..n]`: one sub-slice of the field).
            let mut ranges = true;
            loop {
                match at {
                    syn::Expr::Paren(x) => at = &x.expr,
                    syn::Expr::Index(i) => {
                        inner += 1;
                        ranges &= matches!(&*i.index, syn::Expr::Range(_));
                        at = &i.expr;
                    }
                    _ => break,
                }
            }
            if borrow && ranges && inner > 1 {
                inner = 1;
            }
            let Some((_, members)) = chain(at, &|n| n == self.t) else {
                return false;
            };
            match (members.as_slice(), inner) {
                ([m], 0) => {
                    if !self.written.contains(m) {
                        self.written.push(m.clone());
                    }
                    if !borrow && !self.assigned.iter().any(|(a, _)| a == m) {
                        self.assigned.push((m.clone(), p.to_token_stream()));
                    }
                }
                ([m], 1) => {
                    if !self.elems.contains(m) {
                        self.elems.push(m.clone());
                    }
                    self.elems_at.get_or_insert_with(|| p.to_token_stream());
                }
                _ => self.other = true,
            }
            true
        }
    }
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            match e {
                syn::Expr::Assign(a) if self.place(&a.left, false) => {
                    self.visit_place_indices(&a.left);
                    self.visit_expr(&a.right)
                }
                syn::Expr::Binary(b)
                    if super::struct_values::is_compound(&b.op) && self.place(&b.left, false) =>
                {
                    self.visit_place_indices(&b.left);
                    self.visit_expr(&b.right)
                }
                syn::Expr::Reference(r) if r.mutability.is_some() && self.place(&r.expr, true) => {
                    self.visit_place_indices(&r.expr)
                }
                // `t.x.fill(0.0)`, `t.x.swap(i, j)`: element writes of the field.
                syn::Expr::MethodCall(m)
                    if WRITING_METHODS.contains(&m.method.to_string().as_str())
                        && chain(&m.receiver, &|n| n == self.t).is_some() =>
                {
                    match chain(&m.receiver, &|n| n == self.t).map(|(_, ms)| ms) {
                        Some(ms) if ms.len() == 1 && is_field(&m.receiver) => {
                            if !self.elems.contains(&ms[0]) {
                                self.elems.push(ms[0].clone());
                                self.elems_at.get_or_insert_with(|| e.to_token_stream());
                            }
                        }
                        _ => self.other = true,
                    }
                    for a in &m.args {
                        self.visit_expr(a);
                    }
                }
                // `t.x.push(v)`: the length of a `Vec` field changed.
                syn::Expr::MethodCall(m)
                    if GROWING_METHODS.contains(&m.method.to_string().as_str())
                        && chain(&m.receiver, &|n| n == self.t).is_some() =>
                {
                    self.grown_at.get_or_insert_with(|| e.to_token_stream());
                    for a in &m.args {
                        self.visit_expr(a);
                    }
                }
                // A field read (its indices visited).
                syn::Expr::Field(_) if chain(e, &|n| n == self.t).is_some() => {}
                syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.t) => {
                    self.other = true
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            // `vec![..]`'s items are expressions (rewritten like any other, `struct_values.rs`);
            // other macros naming `t` keep it whole.
            if let Some(body) = super::field_votes::VecBody::parse(m) {
                for e in body.items.iter().chain(body.len.as_ref()) {
                    self.visit_expr(e);
                }
            } else if crate::ir::token_names(&m.tokens, true)
                .iter()
                .any(|n| n == self.t)
            {
                self.other = true;
            }
        }
    }
    impl F<'_> {
        /// The indices of a place rooted at `t` (`t.x[t.n[0]]`: reads).
        fn visit_place_indices(&mut self, p: &syn::Expr) {
            match p {
                syn::Expr::Paren(x) => self.visit_place_indices(&x.expr),
                syn::Expr::Index(i) => {
                    self.visit_expr(&i.index);
                    self.visit_place_indices(&i.expr);
                }
                _ => {}
            }
        }
    }
    let mut f = F {
        t,
        written: Vec::new(),
        assigned: Vec::new(),
        elems: Vec::new(),
        elems_at: None,
        grown_at: None,
        other: false,
    };
    for (i, s) in rest.iter().enumerate() {
        // The function's value, `t` whole: a struct output from the written fields and `s`.
        if let syn::Stmt::Expr(e, None) = s {
            if output && i + 1 == rest.len() && plain_name(e).is_some_and(|n| n == t) {
                continue;
            }
        }
        f.visit_stmt(s);
        // A `let` binding `t` again ends the copy's scope.
        if let syn::Stmt::Local(l) = s {
            let mut names = Vec::new();
            super::struct_values::pat_names(&l.pat, &mut names);
            if names.iter().any(|n| n == t) {
                break;
            }
        }
    }
    // A field whose elements are written is the copy's sequence: assigned whole, it is not
    // supported (the field argument is a borrow of the clone).
    let assigned = f
        .assigned
        .iter()
        .find(|(m, _)| f.elems.contains(m))
        .map(|(_, at)| at.clone());
    let whole: Vec<syn::Member> = f
        .written
        .into_iter()
        .filter(|m| !f.elems.contains(m))
        .collect();
    let unsupported = match (assigned, f.grown_at) {
        (Some(at), _) => Some((
            at,
            "assigning whole a field of a copy whose elements the function writes (yet)",
            "write its elements (`t.x[i] = ..`) instead of the whole field",
        )),
        (None, Some(at)) if !f.elems.is_empty() => Some((
            at,
            "changing the length of a `Vec` field of a copy (yet)",
            "give the `Vec` its length before the function (or build it in a differentiated \
             function of its own) and write its elements (`t.x[i] = ..`)",
        )),
        _ => None,
    };
    let any = !whole.is_empty() || !f.elems.is_empty();
    (!f.other && any).then_some(Written {
        whole,
        elems: f.elems,
        elems_at: f.elems_at,
        unsupported,
    })
}

/// Methods changing a `Vec`'s length.
const GROWING_METHODS: &[&str] = &[
    "push",
    "pop",
    "extend",
    "extend_from_slice",
    "resize",
    "truncate",
    "clear",
    "insert",
    "remove",
    "append",
    "drain",
    "retain",
    "swap_remove",
];

/// `t.x` itself (not `t.x[i]`, `(t.x)`).
fn is_field(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Field(_))
}
