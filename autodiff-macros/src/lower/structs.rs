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

use super::*;
use std::collections::HashSet;
use syn::visit_mut::VisitMut;

/// What the body makes of one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Scalar,
    Int,
    Seq,
}

/// A field of a struct argument the body uses (`s.a.b`), by first use.
#[derive(Clone)]
pub(super) struct FieldUse {
    root: syn::Ident,
    members: Vec<syn::Member>,
    /// The tokens of the first use (for spans).
    tokens: TokenStream,
    class: Class,
    written: bool,
    /// The name of the field argument in the IR and in generated code.
    ident: syn::Ident,
}

/// The struct arguments of a function and the fields its body uses.
#[derive(Default)]
pub(crate) struct StructPlan {
    /// Struct arguments by name, with how they are passed.
    pub(super) roots: Vec<(String, StructArg)>,
    fields: Vec<FieldUse>,
    /// Struct arguments rebound in the body (reported once; their later uses are not).
    pub(super) rebound: Vec<String>,
}

impl StructPlan {
    pub(super) fn is_root(&self, name: &str) -> bool {
        self.roots.iter().any(|(n, _)| n == name)
    }

    fn root_kind(&self, name: &str) -> Option<&StructArg> {
        self.roots.iter().find(|(n, _)| n == name).map(|(_, k)| k)
    }

    /// Whether the body uses a float field of struct argument `root`.
    pub(super) fn has_float_fields(&self, root: &str) -> bool {
        self.fields
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
const SEQ_METHODS: &[&str] = &[
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
const WRITING_METHODS: &[&str] = &[
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
            let class = classes.get(&key).copied().unwrap_or(Class::Scalar);
            let written = written.contains(&key);
            let path: Vec<String> = std::iter::once(root.to_string())
                .chain(members.iter().map(member_text))
                .collect();
            let ident = syn::Ident::new(
                &format!("__ad_f{}_{}", n, path.join("_")),
                Span::mixed_site().located_at(tokens.span()),
            );
            let kind = plan.root_kind(&root.to_string()).cloned();
            if written {
                let why = match (class, kind) {
                    (Class::Int, _) => Some(
                        "writing an integer field of a struct argument (yet): keep the counter \
                         in a local variable, or in an argument of its own",
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
            });
        }
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
            let inout = f.written && root.strukt == Some(StructArg::MutRef);
            let (shape, ty): (Shape, syn::Type) = match (f.class, inout) {
                (Class::Seq, false) => (Shape::Seq(SeqKind::Slice), syn::parse_quote!(&[_])),
                (Class::Seq, true) => (Shape::Seq(SeqKind::Slice), syn::parse_quote!(&mut [_])),
                (_, false) => (Shape::Scalar, syn::parse_quote!(_)),
                (_, true) => (Shape::Scalar, syn::parse_quote!(&mut _)),
            };
            let var = self.new_var(
                f.ident.clone(),
                f.written,
                shape.clone(),
                VarOrigin::Param(params.len() + out.len()),
                Some(ty.clone()),
            );
            self.bind(&f.ident, var);
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
                strukt: None,
                field: Some(FieldOf {
                    root: f.root.clone(),
                    members: quote!(#(.#members)*),
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
                quote::quote_spanned!(span=> #rt::#check(&#root #(.#members)*);)
            })
            .collect()
    }

    /// Whether `e` reads an integer field of a struct argument (`s.n`, `self.cfg.steps`).
    pub(super) fn int_field(&self, plan: &StructPlan, e: &syn::Expr) -> bool {
        chain(e, &|n| plan.is_root(n)).is_some_and(|(root, members)| {
            plan.fields
                .iter()
                .any(|f| f.root == root && f.members == members && f.class == Class::Int)
        })
    }

    fn class_of_type(&self, ty: &syn::Type) -> Option<Class> {
        match self.classify(strip_ref(ty)) {
            TypeClass::Float => Some(Class::Scalar),
            TypeClass::Int => Some(Class::Int),
            TypeClass::Seq(_) => Some(Class::Seq),
            _ => None,
        }
    }
}

fn strip_ref(ty: &syn::Type) -> &syn::Type {
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

fn key_string(root: &syn::Ident, members: &[syn::Member]) -> String {
    let mut k = root.to_string();
    for m in members {
        k.push('.');
        k.push_str(&member_text(m));
    }
    k
}

/// `root.a.b` with `root` a struct argument: the root and the members.
fn chain(e: &syn::Expr, is_root: &dyn Fn(&str) -> bool) -> Option<(syn::Ident, Vec<syn::Member>)> {
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

/// An operand's reading: a name whose class is decided elsewhere, or a class.
enum Operand {
    Key(String),
    Class(Class),
    Unknown,
}

/// The votes of the body's uses for what each name and field is.
struct Votes<'c, 'a> {
    cx: &'c Lowerer<'a>,
    roots: Vec<String>,
    votes: HashMap<String, Vec<Class>>,
    /// Names that must be of one class (`a * s.k`, `let m = s.m;`).
    edges: Vec<(String, String)>,
    /// Each field used, first use first.
    uses: Vec<(syn::Ident, Vec<syn::Member>, TokenStream)>,
    written: HashSet<String>,
    /// Arguments known to be sequences of floats (their elements are floats).
    float_seqs: HashSet<String>,
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
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            e => self.chain(e).map(|(r, m)| key_string(&r, &m)),
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
    fn resolve(&self) -> HashMap<String, Class> {
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
            }
            syn::Expr::MethodCall(m) => {
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

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let (name, ty) = match &l.pat {
            syn::Pat::Ident(pi) => (Some(pi.ident.to_string()), None),
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => (Some(pi.ident.to_string()), Some(&*pt.ty)),
                _ => (None, None),
            },
            _ => (None, None),
        };
        if let Some(name) = name {
            if let Some(c) = ty.and_then(|t| self.cx.class_of_type(t)) {
                self.vote(name.clone(), c);
            }
            if let Some(init) = &l.init {
                let o = self.operand(&init.expr);
                self.same(Operand::Key(name), o);
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        if let (syn::Pat::Ident(pi), syn::Expr::Range(_)) = (&*f.pat, &*f.expr) {
            self.vote(pi.ident.to_string(), Class::Int);
        }
        syn::visit::visit_expr_for_loop(self, f);
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
struct VecBody {
    items: Vec<syn::Expr>,
    len: Option<syn::Expr>,
}

impl VecBody {
    fn parse(m: &syn::Macro) -> Option<VecBody> {
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

    fn tokens(&self) -> TokenStream {
        let items = &self.items;
        match &self.len {
            Some(len) => quote!(#(#items)*; #len),
            None => quote!(#(#items),*),
        }
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
        if let Some(mut body) = VecBody::parse(m) {
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

/// The uses of a struct argument as a whole (`g(&s)`, `s.energy()`, `let t = s;`), outside field
/// reads: not supported yet for an active struct.
pub(super) fn whole_uses(block: &syn::Block, root: &str) -> Vec<TokenStream> {
    struct Finder<'r> {
        root: &'r str,
        found: Vec<TokenStream>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            let root = self.root;
            if chain(e, &|n| n == root).is_some() {
                return;
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
        found: Vec::new(),
    };
    f.visit_block(block);
    f.found
}
