//! Struct arguments: takes the signature and the body, gives the struct arguments (`s: &State`,
//! `&self`, `&mut self`...), the fields the body reads or writes as floats, and the body with
//! each such field (`s.k`, `self.x`) replaced by the name of a field argument of its own.
//!
//! The macro cannot see a struct's definition, so it reads what each field is from how the body
//! uses it (indexed or iterated: a sequence; an index, a range bound, next to an integer or cast
//! with `as`: an integer; otherwise a float), and the generated code checks each reading with
//! rustc (`__private::float_field`, `float_seq_field`, `constant_field`), so a wrong reading is
//! a compile error at the field, never a wrong derivative. The emitters see field arguments as
//! ordinary arguments; `codegen/structs.rs` binds them from the struct (and their tangents and
//! adjoints from the struct's tangent) at the top of every companion.

use super::field_votes::Votes;
use super::struct_mut::IntLocal;
use super::*;
use std::collections::HashSet;
use syn::visit_mut::VisitMut;

/// What the body makes of one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    Scalar,
    Int,
    Seq,
}

/// A field of a struct argument the body uses (`s.a.b`), by first use.
#[derive(Clone)]
pub(super) struct FieldUse {
    pub(super) root: syn::Ident,
    pub(super) members: Vec<syn::Member>,
    /// The tokens of the first use (for spans).
    pub(super) tokens: TokenStream,
    pub(super) class: Class,
    pub(super) written: bool,
    /// The name of the field argument in the IR and in generated code.
    pub(super) ident: syn::Ident,
    /// The row length of a field that is an array of arrays (`struct_rows.rs`): the field
    /// argument is its flat form, indexed and iterated by rows as a nested array argument.
    pub(super) row: Option<ArrayLen>,
}

/// The struct arguments of a function and the fields its body uses.
#[derive(Default)]
pub(crate) struct StructPlan {
    /// Struct arguments by name, with how they are passed.
    pub(super) roots: Vec<(String, StructArg)>,
    pub(super) fields: Vec<FieldUse>,
    /// Struct arguments rebound in the body (reported once; their later uses are not).
    pub(super) rebound: Vec<String>,
    /// The struct argument a struct output takes the fields it does not list from (`..*s`, or
    /// `s` returned whole): active even if the body reads no float field of it.
    pub(super) out_base: Option<String>,
    /// Struct arguments passed whole to a call (`g(s, x)`, `s.energy(x)`): active even if the
    /// body reads no float field of them.
    pub(super) passed: Vec<String>,
    /// Integer fields of `&mut` struct arguments the body only writes (`self.calls += 1;`),
    /// by key (`self.calls`): each such statement is kept verbatim (`Stmt::Macro`).
    pub(super) int_writes: Vec<String>,
    /// The type name of each struct argument taken by name (`s: &Pose`: `("s", "Pose")`).
    pub(super) type_names: Vec<(String, String)>,
    /// Integer fields of `&mut` struct arguments held in locals of their own
    /// (`lower/struct_mut.rs`), by key: whether the body writes them, and the local once
    /// declared.
    pub(super) int_locals: Vec<IntLocal>,
}

impl StructPlan {
    /// Whether `name` is a field argument (`st.k` rewritten): bound by reference when written,
    /// but a float by value in the body as the user wrote it.
    pub(super) fn is_field_arg(&self, name: &syn::Ident) -> bool {
        self.fields.iter().any(|f| f.ident == *name)
    }

    pub(super) fn is_root(&self, name: &str) -> bool {
        self.roots.iter().any(|(n, _)| n == name)
    }

    fn root_kind(&self, name: &str) -> Option<&StructArg> {
        self.roots.iter().find(|(n, _)| n == name).map(|(_, k)| k)
    }

    /// Whether the body writes a field of struct argument `root` (`s.x += ..`).
    pub(super) fn writes_fields(&self, root: &str) -> bool {
        self.fields.iter().any(|f| f.root == root && f.written)
    }

    /// Whether the body uses a float field of struct argument `root`, or a struct output takes
    /// fields from it.
    pub(super) fn has_float_fields(&self, root: &str) -> bool {
        self.out_base.as_deref() == Some(root)
            || self.passed.iter().any(|p| p == root)
            || self
                .fields
                .iter()
                .any(|f| f.root == root && f.class != Class::Int)
    }
}

/// Types that are never user structs: the standard library's, nalgebra's (issue 11).
const NOT_STRUCTS: &[&str] = &[
    "String",
    "str",
    "Option",
    "Result",
    "Box",
    "Rc",
    "Arc",
    "RefCell",
    "Cell",
    "Mutex",
    "RwLock",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "PhantomData",
    "Range",
    "RangeInclusive",
    "Cow",
    "Path",
    "PathBuf",
    "Duration",
    "Instant",
    "Ordering",
    "Wrapping",
    "Vec",
    "DMatrix",
    "DVector",
    "SMatrix",
    "SVector",
    "Matrix",
    "Vector2",
    "Vector3",
    "Vector4",
    "Matrix2",
    "Matrix3",
    "Matrix4",
    "RowDVector",
    "OMatrix",
    "OVector",
    "Point",
    "Point2",
    "Point3",
];

/// Methods that only a sequence has.
pub(super) const SEQ_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "iter_mut",
    "windows",
    "chunks",
    "chunks_exact",
    "chunks_mut",
    "chunks_exact_mut",
    "first",
    "last",
    "to_vec",
    "as_slice",
    "as_mut_slice",
    "split_at",
    "split_at_mut",
    "copy_from_slice",
    "fill",
    "swap",
];

/// Sequence methods that write into the sequence.
pub(super) const WRITING_METHODS: &[&str] = &[
    "iter_mut",
    "chunks_mut",
    "chunks_exact_mut",
    "split_at_mut",
    "copy_from_slice",
    "fill",
    "swap",
    "as_mut_slice",
];

impl Lowerer<'_> {
    /// Whether `ty` (behind at most one reference) names a user struct: `Self`, or a path type
    /// that is not a float, integer, `bool`, standard or nalgebra type nor a type parameter.
    pub(super) fn struct_type(&self, ty: &syn::Type, generics: &syn::Generics) -> Option<bool> {
        let (inner, mutable) = match ty {
            syn::Type::Reference(r) => (&*r.elem, Some(r.mutability.is_some())),
            t => (t, None),
        };
        // A tuple of floats and float arrays (`p: (f64, f64)`, `&(f64, [f64; 3])`) is read like
        // a tuple struct: its parts are fields `p.0`, its tangent the tuple of theirs.
        if let syn::Type::Tuple(t) = inner {
            let part = |e: &syn::Type| {
                matches!(self.classify(e), TypeClass::Float)
                    || matches!(e, syn::Type::Array(a) if matches!(self.classify(&a.elem), TypeClass::Float))
            };
            let floats = !t.elems.is_empty() && t.elems.iter().all(part);
            return floats.then_some(mutable == Some(true));
        }
        let syn::Type::Path(tp) = inner else {
            return None;
        };
        if tp.qself.is_some() {
            return None;
        }
        let name = tp.path.segments.last()?.ident.to_string();
        let is_param = generics.type_params().any(|p| p.ident == name);
        let upper = name.chars().next().is_some_and(char::is_uppercase);
        let known = NOT_STRUCTS.contains(&name.as_str())
            || Self::mentions_na(ty)
            || self.is_float_name(&name)
            || INT_TYPES.contains(&name.as_str());
        (name == "Self" || (upper && !known && !is_param)).then_some(mutable == Some(true))
    }

    /// The struct arguments of `item`, the fields its body uses, and the body with float fields
    /// replaced by their field arguments' names. Errors at fields written where they cannot be
    /// and at a struct argument rebound in the body.
    pub(super) fn plan_structs(&mut self, item: &syn::ItemFn) -> (StructPlan, syn::Block) {
        let mut plan = StructPlan::default();
        let mut types: HashMap<String, Class> = HashMap::new();
        for input in &item.sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => {
                    let kind = match (&r.reference, &r.mutability) {
                        (None, _) => StructArg::Value,
                        (Some(_), None) => StructArg::Ref,
                        (Some(_), Some(_)) => StructArg::MutRef,
                    };
                    plan.roots.push(("self".to_string(), kind));
                }
                syn::FnArg::Typed(pt) => {
                    let syn::Pat::Ident(pi) = &*pt.pat else {
                        continue;
                    };
                    let name = pi.ident.to_string();
                    if let Some(mutable) = self.struct_type(&pt.ty, &item.sig.generics) {
                        let kind = match (&*pt.ty, mutable) {
                            (_, true) => StructArg::MutRef,
                            (syn::Type::Reference(_), false) => StructArg::Ref,
                            _ => StructArg::Value,
                        };
                        if let Some(t) = super::struct_nest::type_name(&pt.ty) {
                            plan.type_names.push((name.clone(), t));
                        }
                        plan.roots.push((name, kind));
                    } else if let Some(c) = self.class_of_type(&pt.ty) {
                        types.insert(name, c);
                    }
                }
            }
        }
        if plan.roots.is_empty() {
            return (plan, (*item.block).clone());
        }
        let mut votes = Votes {
            cx: self,
            roots: plan.roots.iter().map(|(n, _)| n.clone()).collect(),
            votes: types.into_iter().map(|(k, c)| (k, vec![c])).collect(),
            edges: Vec::new(),
            uses: Vec::new(),
            written: HashSet::new(),
            float_seqs: HashSet::new(),
            scopes: Vec::new(),
            bound: 0,
        };
        for input in &item.sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                if let (syn::Pat::Ident(pi), TypeClass::Seq(_)) =
                    (&*pt.pat, votes.cx.classify(strip_ref(&pt.ty)))
                {
                    votes.float_seqs.insert(pi.ident.to_string());
                }
            }
        }
        votes.visit_block(&item.block);
        let classes = votes.resolve();
        let (uses, written) = (votes.uses, votes.written);
        for (n, (root, members, tokens)) in uses.into_iter().enumerate() {
            let key = key_string(&root, &members);
            let row = plan.nested_row(&root.to_string(), &members);
            let path: Vec<String> = std::iter::once(root.to_string())
                .chain(members.iter().map(member_text))
                .collect();
            let ident = syn::Ident::new(
                &format!("__ad_f{}_{}", n, path.join("_")),
                Span::mixed_site().located_at(tokens.span()),
            );
            if row.is_none() {
                if let Some(at) = super::struct_nest::double_index(&item.block, &root, &members) {
                    let field = quote!(#root #(.#members)*);
                    self.diag.unsupported_at(
                        &at,
                        &format!(
                            "`{field}[i][j]` of a field it cannot tell is an array of arrays \
                             (it reads the rows' length from `#[derive(Differentiable)]`)"
                        ),
                        "derive `Differentiable` on the struct before this function in the same \
                         crate, or pass the field as an argument of its own",
                    );
                    // Its uses are not reported again.
                    self.poisoned_names.push(ident.to_string());
                }
            }
            let class = match row {
                Some(_) => Class::Seq,
                None => classes.get(&key).copied().unwrap_or(Class::Scalar),
            };
            let written = written.contains(&key);
            let kind = plan.root_kind(&root.to_string()).cloned();
            // An integer field of a `&mut` struct only written (a counter): kept as written.
            let counter = written
                && class == Class::Int
                && kind == Some(StructArg::MutRef)
                && write_only(&item.block, &root.to_string(), &members);
            if counter {
                plan.int_writes.push(key.clone());
            }
            if written && !counter {
                let why = match (class, kind) {
                    // One of a `&mut` struct is a local of its own (`lower/struct_mut.rs`).
                    (Class::Int, Some(StructArg::MutRef)) => None,
                    (Class::Int, _) => Some(
                        "writing an integer field of a struct argument not taken by `&mut`: \
                         keep the value in a local variable, or take the struct by `&mut`",
                    ),
                    (Class::Seq, Some(StructArg::Value)) => Some(
                        "writing into a sequence field of a struct passed by value (yet): take \
                         the struct by `&mut`, or copy the field into a local `Vec` first",
                    ),
                    _ => None,
                };
                if let Some(why) = why {
                    self.diag
                        .error_at(&tokens, format!("#[differentiate] does not support {why}"));
                }
            }
            plan.fields.push(FieldUse {
                root,
                members,
                tokens,
                class,
                written,
                ident,
                row,
            });
        }
        plan.passed = plan
            .roots
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| passed_to_calls(&item.block, n))
            .collect();
        plan.plan_int_locals();
        let mut block = (*item.block).clone();
        let mut rw = Rewrite {
            plan: &plan,
            rebound: Vec::new(),
        };
        rw.visit_block_mut(&mut block);
        let rebound = rw.rebound;
        plan.rebound = rebound.iter().map(|i| i.to_string()).collect();
        for id in rebound {
            self.diag.error_at(
                &id,
                format!(
                    "#[differentiate] does not support rebinding `{id}`, a struct argument whose \
                     fields the function reads; give the new binding another name"
                ),
            );
        }
        (plan, block)
    }

    /// Binds the field arguments of `plan`: variables of their own, after the arguments.
    pub(super) fn field_params(&mut self, plan: &StructPlan, params: &[Param]) -> Vec<Param> {
        let mut out = Vec::new();
        for f in plan.fields.iter().filter(|f| f.class != Class::Int) {
            let root = params.iter().find(|p| p.name == f.root);
            let Some(root) = root else { continue };
            // A field of a struct lent whole is in-out and changes at each lending call; a
            // float one is held by value (`codegen/lend.rs`).
            let lent = plan.lent(&f.root.to_string());
            let inout = (f.written || lent) && root.strukt == Some(StructArg::MutRef);
            let (shape, ty): (Shape, syn::Type) = match (f.class, inout) {
                (Class::Seq, false) => (Shape::Seq(SeqKind::Slice), syn::parse_quote!(&[_])),
                (Class::Seq, true) => (Shape::Seq(SeqKind::Slice), syn::parse_quote!(&mut [_])),
                (_, false) => (Shape::Scalar, syn::parse_quote!(_)),
                (_, true) if lent => (Shape::Scalar, syn::parse_quote!(_)),
                (_, true) => (Shape::Scalar, syn::parse_quote!(&mut _)),
            };
            let var = self.new_var(
                f.ident.clone(),
                f.written || lent,
                shape.clone(),
                VarOrigin::Param(params.len() + out.len()),
                Some(ty.clone()),
            );
            self.bind(&f.ident, var);
            if let Some(row) = &f.row {
                self.rows.insert(var, row.clone());
            }
            let members = &f.members;
            out.push(Param {
                var,
                name: f.ident.clone(),
                ty,
                shape,
                elem_ty: None,
                active: root.active,
                inout,
                nest: None,
                na: None,
                strukt: None,
                field: Some(FieldOf {
                    root: f.root.clone(),
                    members: quote!(#(.#members)*),
                    lent,
                    flat: f.row.is_some(),
                    copy: false,
                }),
            });
        }
        out
    }

    /// The checks generated code makes of the plan's readings: each float field is a float, each
    /// sequence field a sequence of floats, each integer field carries no derivative.
    pub(super) fn field_checks(&self, plan: &StructPlan) -> Vec<TokenStream> {
        let rt = crate::names::rt();
        plan.fields
            .iter()
            .map(|f| {
                let check = match f.class {
                    Class::Scalar => quote!(float_field),
                    Class::Seq => quote!(float_seq_field),
                    Class::Int => quote!(constant_field),
                };
                let (root, members) = (&f.root, &f.members);
                let span = f.tokens.span();
                if let Some(row) = &f.row {
                    let c = row.tokens();
                    return quote::quote_spanned!(span=>
                        #rt::float_rows_field::<_, { #c }>(&#root #(.#members)*);
                    );
                }
                quote::quote_spanned!(span=> #rt::#check(&#root #(.#members)*);)
            })
            .collect()
    }

    pub(super) fn class_of_type(&self, ty: &syn::Type) -> Option<Class> {
        match self.classify(strip_ref(ty)) {
            TypeClass::Float => Some(Class::Scalar),
            TypeClass::Int => Some(Class::Int),
            TypeClass::Seq(_) => Some(Class::Seq),
            _ => None,
        }
    }
}

pub(super) fn strip_ref(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(r) => &r.elem,
        t => t,
    }
}

fn member_text(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(id) => id.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

pub(super) fn key_string(root: &syn::Ident, members: &[syn::Member]) -> String {
    let mut k = root.to_string();
    for m in members {
        k.push('.');
        k.push_str(&member_text(m));
    }
    k
}

/// `root.a.b` with `root` a struct argument: the root and the members.
pub(super) fn chain(
    e: &syn::Expr,
    is_root: &dyn Fn(&str) -> bool,
) -> Option<(syn::Ident, Vec<syn::Member>)> {
    match e {
        syn::Expr::Field(f) => {
            if let syn::Expr::Path(p) = &*f.base {
                let id = p.path.get_ident()?;
                return (p.qself.is_none() && is_root(&id.to_string()))
                    .then(|| (id.clone(), vec![f.member.clone()]));
            }
            let (root, mut members) = chain(&f.base, is_root)?;
            members.push(f.member.clone());
            Some((root, members))
        }
        _ => None,
    }
}

/// Replaces each float field of a struct argument by its field argument's name; collects the
/// bindings that rebind a struct argument's name.
struct Rewrite<'p> {
    plan: &'p StructPlan,
    rebound: Vec<syn::Ident>,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let plan = self.plan;
        if let Some((root, members)) = chain(e, &|n| plan.is_root(n)) {
            let found = plan
                .fields
                .iter()
                .find(|f| f.root == root && f.members == members);
            if let Some(f) = found.filter(|f| f.class != Class::Int) {
                let id = &f.ident;
                *e = syn::parse_quote!(#id);
            }
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if let Some(mut body) = super::field_votes::VecBody::parse(m) {
            for e in body.items.iter_mut().chain(body.len.as_mut()) {
                self.visit_expr_mut(e);
            }
            m.tokens = body.tokens();
        }
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if self.plan.is_root(&p.ident.to_string()) {
            self.rebound.push(p.ident.clone());
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }
}

/// A method of a struct's own (not a float's, a sequence's or `clone`): `self.force(i)`.
pub(super) fn own_method(name: &str) -> bool {
    !SEQ_METHODS.contains(&name)
        && !matches!(name, "clone" | "to_owned")
        && crate::methods::float_method(name).is_none()
}

/// `root` itself.
fn is_root(e: &syn::Expr, root: &str) -> bool {
    matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(root))
}

/// `root.clone()`.
fn cloned_root(e: &syn::Expr, root: &str) -> bool {
    matches!(e, syn::Expr::MethodCall(m)
        if m.method == "clone" && m.args.is_empty() && is_root(&m.receiver, root))
}

/// A struct argument passed whole as an argument of a call: `s`, `&s`, `&*s`, `*s`,
/// `s.clone()`.
fn passed_whole(e: &syn::Expr, root: &str) -> bool {
    let deref = |e: &syn::Expr| {
        matches!(e, syn::Expr::Unary(u)
            if matches!(u.op, syn::UnOp::Deref(_)) && is_root(&u.expr, root))
    };
    match e {
        syn::Expr::Reference(r) => is_root(&r.expr, root) || deref(&r.expr),
        _ => is_root(e, root) || deref(e) || cloned_root(e, root),
    }
}

/// A struct argument copied whole into a local (`let mut s = s0.clone();`, `= *s0`):
/// a struct held whole from then on (`lower/struct_calls.rs`).
pub(super) fn copied_whole(e: &syn::Expr, root: &str) -> bool {
    let e = match e {
        syn::Expr::Paren(p) => &*p.expr,
        e => e,
    };
    match e {
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_root(&u.expr, root),
        _ => cloned_root(e, root),
    }
}

/// Whether struct argument `root` is passed whole to a call, is the receiver of one of its
/// own methods, or is copied whole into a local.
fn passed_to_calls(block: &syn::Block, root: &str) -> bool {
    struct F<'r>(&'r str, bool);
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            self.1 |= c.args.iter().any(|a| passed_whole(a, self.0));
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.1 |= receiver_whole(&m.receiver, self.0) && own_method(&m.method.to_string());
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_local(&mut self, l: &'ast syn::Local) {
            self.1 |= l
                .init
                .as_ref()
                .is_some_and(|i| copied_whole(&i.expr, self.0));
            syn::visit::visit_local(self, l);
        }
    }
    let mut f = F(root, false);
    f.visit_block(block);
    f.1
}

/// Whether every use of field `root.members` in the block is the place of an assignment
/// statement (`s.calls += 1;`) whose right-hand side does not read it.
fn write_only(block: &syn::Block, root: &str, members: &[syn::Member]) -> bool {
    struct F<'a> {
        root: &'a str,
        members: &'a [syn::Member],
        uses: usize,
        writes: usize,
    }
    impl F<'_> {
        fn is_it(&self, e: &syn::Expr) -> bool {
            chain(e, &|n| n == self.root).is_some_and(|(_, m)| m == self.members)
        }
    }
    impl<'ast> Visit<'ast> for F<'_> {
        fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
            if let syn::Stmt::Expr(e, Some(_)) = s {
                let left = match e {
                    syn::Expr::Assign(a) => Some(&*a.left),
                    syn::Expr::Binary(b) if super::stmts::is_compound_assign(&b.op) => {
                        Some(&*b.left)
                    }
                    _ => None,
                };
                if left.is_some_and(|l| self.is_it(l)) {
                    self.writes += 1;
                }
            }
            syn::visit::visit_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.is_it(e) {
                self.uses += 1;
                return;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            // A macro naming the struct and the field may read it (`vec![st.sub.y; n]` does
            // not read `st.c`).
            let names = crate::ir::token_names(&m.tokens, true);
            let field = match self.members.last() {
                Some(syn::Member::Named(id)) => names.contains(&id.to_string()),
                _ => true,
            };
            if field && names.iter().any(|n| n == self.root) {
                self.uses += 1;
            }
        }
    }
    let mut f = F {
        root,
        members,
        uses: 0,
        writes: 0,
    };
    f.visit_block(block);
    f.writes > 0 && f.uses == f.writes
}

/// The receiver of a method of a struct argument passed whole: `s`, `s.clone()`.
fn receiver_whole(e: &syn::Expr, root: &str) -> bool {
    is_root(e, root) || cloned_root(e, root)
}

/// The uses of a struct argument as a whole (`g(&s)`, `s.energy()`, `let t = s;`), outside field
/// reads: not supported for an active struct, except, with `calls`, as a bare argument of a call
/// (`g(s, x)`) or the receiver of a method (`self.force(i)`), and with `copies` copied into a
/// local held whole (`let mut s = s0.clone();`).
pub(super) fn whole_uses(
    block: &syn::Block,
    root: &str,
    calls: bool,
    copies: bool,
) -> Vec<TokenStream> {
    struct Finder<'r> {
        root: &'r str,
        calls: bool,
        copies: bool,
        found: Vec<TokenStream>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        // `let mut s = s0.clone();`: a copy held whole (`lower/struct_calls.rs`).
        fn visit_local(&mut self, l: &'ast syn::Local) {
            match &l.init {
                Some(i)
                    if self.copies && i.diverge.is_none() && copied_whole(&i.expr, self.root) => {}
                _ => syn::visit::visit_local(self, l),
            }
        }
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            let root = self.root;
            if chain(e, &|n| n == root).is_some() {
                return;
            }
            let bare = |a: &syn::Expr| passed_whole(a, root);
            match e {
                syn::Expr::Call(c) if self.calls => {
                    self.visit_expr(&c.func);
                    for a in c.args.iter().filter(|a| !bare(a)) {
                        self.visit_expr(a);
                    }
                    return;
                }
                syn::Expr::MethodCall(m)
                    if self.calls
                        && receiver_whole(&m.receiver, root)
                        && own_method(&m.method.to_string()) =>
                {
                    for a in &m.args {
                        self.visit_expr(a);
                    }
                    return;
                }
                _ => {}
            }
            if let syn::Expr::Path(p) = e {
                if p.qself.is_none() && p.path.is_ident(root) {
                    self.found.push(e.to_token_stream());
                }
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut f = Finder {
        root,
        calls,
        copies,
        found: Vec::new(),
    };
    f.visit_block(block);
    f.found
}
