//! Lowering: takes the parsed function (`syn::ItemFn`) and the attribute, gives the IR
//! (`ir::Function`) with names resolved, shapes inferred from syntax, if/match/block expressions
//! hoisted into statements and iterator loops turned into index loops. Every construct it does
//! not understand becomes an error at its own tokens; lowering goes on after an error so that all
//! of them are reported together.

use crate::attr::Attr;
use crate::diag::Diag;
use crate::ir::*;
use crate::methods;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;

mod borrows;
mod build;
mod calls;
mod chains;
mod checkpoint;
mod chunks;
mod closures;
mod consumers;
mod control;
mod convert;
mod exprs;
mod field_votes;
mod inplace;
mod na;
mod nested;
mod patterns;
mod ragged;
mod shapes;
mod stmts;
mod struct_calls;
mod struct_copies;
mod struct_exits;
mod struct_mut;
mod struct_nest;
mod struct_output;
mod struct_uses;
mod struct_values;
mod structs;
mod syntax;
mod types;

use build::*;
use chains::*;
pub use checkpoint::strip as strip_checkpoints;
use convert::{is_from_name, to_primitive_target};
use shapes::call_result_untyped;
use syntax::*;

pub fn lower(item: &syn::ItemFn, attr: &Attr, diag: &mut Diag) -> Option<Function> {
    let mut cx = Lowerer {
        diag,
        vars: Vec::new(),
        scopes: vec![Vec::new()],
        float_generics: float_generics(&item.sig.generics)
            .into_iter()
            .chain(attr.float.iter().map(ToString::to_string))
            .collect(),
        loop_results: Vec::new(),
        closures: HashMap::new(),
        views: HashMap::new(),
        chunked: HashMap::new(),
        poisoned_names: Vec::new(),
        no_hoist: false,
        call_lets: Vec::new(),
        items: Vec::new(),
        item_shapes: item_shapes(&item.block),
        stmt_call: None,
        mut_ref_tokens: Vec::new(),
        elem_aliases: HashMap::new(),
        alias_ok: false,
        rows: HashMap::new(),
        rows_fixed: Default::default(),
        output_row: None,
        top_tail: true,
        nested_ok: false,
        nested_row: None,
        const_generics: item
            .sig
            .generics
            .const_params()
            .map(|c| c.ident.to_string())
            .collect(),
        structs: Default::default(),
        checkpoint_attrs: Default::default(),
        na: HashMap::new(),
        na_fields: Vec::new(),
        any_na_syntax: na::names_na_type(&item.block),
        na_out: Default::default(),
        sole_float: None,
        let_target: None,
        ragged: HashMap::new(),
        ragged_fields: Vec::new(),
        copy_fields: Vec::new(),
        copy_seqs: Vec::new(),
    };
    cx.check_signature(&item.sig);
    // Struct arguments: their fields become arguments of their own (`lower/structs.rs`).
    // Struct values built or taken apart in the body, and a struct output
    // (`lower/struct_values.rs`), then struct arguments.
    let (values, out_plan) = cx.plan_struct_values(item);
    let (mut plan, block) = cx.plan_structs(&values);
    plan.out_base = out_plan
        .as_ref()
        .and_then(|p| p.base.as_ref())
        .map(|b| b.to_string());
    cx.structs = plan;
    let params = cx.params(&item.sig, attr);
    let plan = std::mem::take(&mut cx.structs);
    let mut fields = cx.field_params(&plan, &params);
    let mut copies = cx.copy_params(&params, fields.len());
    fields.append(&mut copies);
    fields.append(&mut cx.na_fields);
    let struct_checks = cx.field_checks(&plan);
    for p in params.iter().filter(|p| {
        p.strukt.is_some()
            && (p.active || p.shape == Shape::Struct)
            && !plan.rebound.contains(&p.name.to_string())
    }) {
        let calls = p.shape == Shape::Struct;
        // Copies of a struct taken by `&mut` are not held whole (reported below).
        let copies = calls && p.strukt != Some(StructArg::MutRef);
        for whole in structs::whole_uses(&block, &p.name.to_string(), calls, copies) {
            let (what, instead) = if calls && p.strukt == Some(StructArg::MutRef) {
                (
                    "this use of a struct taken by `&mut` that the function passes on whole \
                     (yet)",
                    "pass it on by `&mut` in a call statement of its own (`g(s, x);`, \
                     `g(&mut *s, x);`, `s.step(dt);`, `let y = s.energy();`); copies (`s.clone()`) \
                     are not supported yet",
                )
            } else if let Some(t) = calls.then(|| impl_param_like(&p.ty)).flatten() {
                cx.diag.unsupported_at(
                    &whole,
                    &format!(
                        "a value of type `{t}` used whole, read as a struct: the macro cannot see \
                         the `impl`'s type parameters (yet)"
                    ),
                    &format!(
                        "if `{t}` is a float type parameter of the `impl` (`impl<{t}: Float> \
                         ..`), name it: `#[differentiate(float({t}))]`; if it is a struct, pass \
                         it to a differentiated function or read its fields"
                    ),
                );
                continue;
            } else if calls {
                (
                    "this use of a whole struct argument (yet)",
                    "pass it to a differentiated function or method (`g(s, x)`, `g(&s)`, \
                     `g(s.clone())`, `s.energy(x)`), or read its fields",
                )
            } else if p.strukt == Some(StructArg::MutRef) {
                (
                    "using a struct argument taken by `&mut` whole (passing it on, calling its \
                     methods, copying it) (yet)",
                    "read and write its fields (`s.x`, `self.v[i]`) and pass those on \
                     (`push(&mut self.v, dt)`), or take it by `&` or by value; a value holding \
                     no floats to differentiate (a random-number generator, a counter) is \
                     passed through unchanged when left out of `wrt(...)`",
                )
            } else {
                (
                    "using a struct argument taken by value whole when the function writes its \
                     fields (yet)",
                    "keep the changed values in locals, or take the struct by `&mut`",
                )
            };
            cx.diag.unsupported_at(&whole, what, instead);
        }
    }
    cx.structs = plan;
    let output = cx.output(&item.sig, &params);
    cx.sole_float = sole_float(&params, output.as_ref());
    // The row offsets of ragged arguments are field arguments too.
    fields.append(&mut cx.ragged_fields);
    cx.output_row = output
        .as_ref()
        .and_then(|o| o.nest.as_ref())
        .filter(|n| n.ragged.is_none())
        .map(|n| n.row.clone());
    let mut body = Vec::new();
    // A function giving `()` ends in a statement, even when written without `;`
    // (`if c { r[0] = x; } else { r[0] = y; }`).
    let unit = output.as_ref().is_some_and(Output::is_unit);
    cx.declare_int_locals(&mut body);
    let tail = cx.block_into_as(&block, &mut body, !unit);
    cx.sync_int_locals(&mut body);
    cx.infer_shapes(&body, item.sig.ident.span());
    cx.check_copy_fields(&body);
    let mut tail = tail;
    cx.reclassify_calls(&mut body, tail.as_mut());
    cx.check_call_results(&body, tail.as_ref());
    cx.check_mut_borrows(&body, tail.as_ref());
    cx.lend_rows(&mut body, tail.as_mut());
    cx.check_nested_uses(&body, tail.as_ref());
    let ragged_out = output
        .as_ref()
        .and_then(|o| o.nest.as_ref())
        .and_then(|n| n.ragged);
    // With rows of `Vec`s as the output, its value is checked by `ragged_output`.
    let tail_checked = match ragged_out {
        Some(rows) => {
            cx.ragged_output(rows, &mut body, tail.as_ref(), item.block.span());
            None
        }
        None => tail.as_ref(),
    };
    cx.check_ragged_uses(&body, tail_checked);
    let mut output = output;
    if output.as_ref().is_some_and(|o| o.strukt.is_some()) {
        if let Some(p) = params.iter().find(|p| p.nest.is_some() || p.na.is_some()) {
            cx.diag.unsupported_at(
                &p.name,
                "arrays of arrays or nalgebra values next to a struct output (yet)",
                "return a tuple or an array, or pass the values in a function of its own",
            );
        }
    }
    if let (Some(o), Some(p)) = (output.as_mut(), out_plan.as_ref()) {
        cx.finish_struct_output(o, p, &values.block, &mut tail, &mut body);
    }
    checkpoint::misplaced(&item.block, cx.diag);
    let attrs = std::mem::take(&mut cx.checkpoint_attrs);
    let checkpoints = cx.check_checkpoints(&body, attrs);
    for (v, row) in &cx.rows {
        cx.vars[*v].row = Some(row.clone());
    }
    let mut output = output?;
    cx.na_output_dims(&mut output, &body);
    let float_generics = item
        .sig
        .generics
        .type_params()
        .filter(|p| cx.float_generics.contains(&p.ident.to_string()))
        .map(|p| p.ident.clone())
        .chain(
            attr.float
                .iter()
                .filter(|t| !item.sig.generics.type_params().any(|p| p.ident == **t))
                .cloned(),
        )
        .collect();
    Some(Function {
        item: item.clone(),
        params,
        fields,
        struct_checks,
        output,
        vars: cx.vars,
        body: Block { stmts: body },
        tail,
        items: cx.items,
        float_generics,
        checkpoints,
        wrt_span: attr.wrt_span,
    })
}

/// The float type every float of the signature has (`T` in `fn f<T: Float>(x: T, v: &[T]) -> T`),
/// if there is one.
fn sole_float(params: &[Param], output: Option<&Output>) -> Option<syn::Type> {
    let mut types = params
        .iter()
        .filter_map(|p| match p.shape {
            Shape::Scalar => Some(&p.ty),
            _ => p.elem_ty.as_ref(),
        })
        .chain(output.map(|o| &o.elem_ty));
    let first = types.next()?;
    let key = first.to_token_stream().to_string();
    types
        .all(|t| t.to_token_stream().to_string() == key)
        .then(|| first.clone())
}

/// The name of a type that reads like a type parameter (`T`, `F`, `&T`: one or two capitals, no
/// path, no arguments): a struct to the macro unless it is declared, but likely a parameter of an
/// enclosing `impl` it cannot see, which the errors about it then name.
pub(super) fn impl_param_like(ty: &syn::Type) -> Option<String> {
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        t => t,
    };
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    let id = tp.path.get_ident()?.to_string();
    (id.len() <= 2 && id != "Self" && id.chars().all(|c| c.is_ascii_uppercase())).then_some(id)
}

/// Type parameters that are floats: those bounded by `Float` (or `Real`, `RealField`).
fn float_generics(g: &syn::Generics) -> Vec<String> {
    let mut out = Vec::new();
    let is_float_bound = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "Float" | "Real" | "RealField" | "FloatCore"
            )
        }),
        _ => false,
    };
    for p in g.type_params() {
        if p.bounds.iter().any(is_float_bound) {
            out.push(p.ident.to_string());
        }
    }
    if let Some(w) = &g.where_clause {
        for pred in &w.predicates {
            if let syn::WherePredicate::Type(t) = pred {
                if let syn::Type::Path(tp) = &t.bounded_ty {
                    if let Some(id) = tp.path.get_ident() {
                        if t.bounds.iter().any(is_float_bound) {
                            out.push(id.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Names in scope, innermost last.
pub(crate) type Scopes = Vec<Vec<(String, VarId)>>;

pub(crate) struct Lowerer<'a> {
    /// The call being lowered as a whole statement, if any (compared by address only).
    pub(crate) stmt_call: Option<*const syn::ExprCall>,
    /// The tokens of each `&mut v` lowered, by the index its `MutRef` node carries as its id.
    pub(crate) mut_ref_tokens: Vec<TokenStream>,
    /// Names bound to an element by `iter_mut` (`for y in v.iter_mut()`): `y` stands for
    /// `base[index]`, read and written through `*y`.
    pub(crate) elem_aliases: HashMap<VarId, (VarId, Expr)>,
    /// Set while lowering the operand of `*` or a method receiver (see `deref_operand`).
    pub(crate) alias_ok: bool,
    /// Variables holding a nested array (`[[T; C]; R]`, `&[[T; C]]`...), flattened row-major:
    /// their row length `C` (`lower/nested.rs`).
    pub(crate) rows: HashMap<VarId, ArrayLen>,
    /// Those of `rows` with a fixed number of rows (`[[T; C]; R]`, `&[[T; C]; R]`).
    pub(crate) rows_fixed: std::collections::HashSet<VarId>,
    /// Set just before lowering an expression that may be a nested array literal (a `let`'s
    /// value, the returned value); taken by the first `expr` call.
    pub(crate) nested_ok: bool,
    /// The row length of the nested array literal just lowered where `nested_ok` allowed it.
    pub(crate) nested_row: Option<ArrayLen>,
    /// The row length of a nested array output (`-> [[T; C]; R]`).
    pub(crate) output_row: Option<ArrayLen>,
    /// True until the function's body starts lowering (its tail may be a nested literal).
    pub(crate) top_tail: bool,
    /// The function's const generic parameters (array lengths that cannot be multiplied).
    pub(crate) const_generics: Vec<String>,
    pub(crate) diag: &'a mut Diag,
    pub(crate) vars: Vec<Var>,
    pub(crate) scopes: Vec<Vec<(String, VarId)>>,
    pub(crate) float_generics: Vec<String>,
    /// For each enclosing `loop` used as an expression: the variable its `break value` sets.
    pub(crate) loop_results: Vec<(Option<String>, Option<VarId>)>,
    /// Local closures (`let sq = |a| a * a;`), inlined where called: the closure and the scopes
    /// it captured.
    pub(crate) closures: HashMap<VarId, (syn::ExprClosure, Scopes)>,
    /// Names bound to a window of a sequence (`windows`, `chunks`): `w[j]` reads `base[offset + j]`.
    pub(crate) views: HashMap<VarId, View>,
    /// Views whose items are chunks of a fixed length (the `chunks` of
    /// `let (chunks, rest) = v.as_chunks::<N>();`): `N` (`chunks.rs`).
    pub(crate) chunked: HashMap<VarId, ArrayLen>,
    /// Arguments already reported as unsupported: uses of them are not reported again.
    pub(crate) poisoned_names: Vec<String>,
    /// Lowering code that runs again or may not run (a `while` condition, the right side of
    /// `&&`/`||`): a changing method is not hoisted out of it (`lower/calls.rs`).
    pub(crate) no_hoist: bool,
    /// Variables bound without a type to the result of a call (assumed to be one float).
    pub(crate) call_lets: Vec<(VarId, TokenStream)>,
    /// Items declared in the body, copied into the generated functions.
    pub(crate) items: Vec<TokenStream>,
    /// Names of the `const` and `static` items declared in the body, with their declared types.
    pub(crate) item_shapes: HashMap<String, syn::Type>,
    /// The struct arguments and the fields the body uses (`lower/structs.rs`).
    pub(crate) structs: structs::StructPlan,
    /// `#[checkpoint]` loops by index variable, checked once the body is lowered.
    pub(crate) checkpoint_attrs: std::collections::BTreeMap<VarId, checkpoint::CheckpointAttr>,
    /// Variables holding the storage of a nalgebra value, with its dimensions (`lower/na/`).
    pub(crate) na: HashMap<VarId, na::NaDims>,
    /// The dimensions of nalgebra arguments, as field arguments bound from them.
    pub(crate) na_fields: Vec<Param>,
    /// The function's tokens name a nalgebra type (constructors may build values).
    pub(crate) any_na_syntax: bool,
    /// What a `DMatrix` output needs: how dimensions read in the public companions.
    pub(crate) na_out: na::NaOut,
    /// The one float type of the signature's floats, if they have one (`T`, `f64`).
    pub(crate) sole_float: Option<syn::Type>,
    /// The annotation of the `let` whose value is a conversion being lowered
    /// (`let c: f64 = convert(x);`), taken by the conversion.
    pub(crate) let_target: Option<syn::Type>,
    /// Ragged variables (`m: &[Vec<T>]`, flattened): the variable holding their row offsets
    /// (`lower/ragged.rs`).
    pub(crate) ragged: HashMap<VarId, VarId>,
    /// The row offsets of ragged arguments, as field arguments the public companions bind.
    pub(crate) ragged_fields: Vec<Param>,
    /// The locals of the written fields of struct copies (`lower/struct_copies.rs`), checked to
    /// be floats or integers once lowered (`check_copy_fields`).
    pub(crate) copy_fields: Vec<syn::Ident>,
    /// The sequence fields of struct copies whose elements the body writes
    /// (`lower/struct_copies.rs`): the field argument's name, the struct argument copied and the
    /// field; made field arguments by `copy_params` (`FieldOf::copy`).
    pub(crate) copy_seqs: Vec<(syn::Ident, syn::Ident, syn::Member)>,
}

/// The `const` and `static` items declared anywhere in a function body, by name.
fn item_shapes(body: &syn::Block) -> HashMap<String, syn::Type> {
    struct Items(HashMap<String, syn::Type>);
    impl<'ast> syn::visit::Visit<'ast> for Items {
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            self.0.insert(c.ident.to_string(), (*c.ty).clone());
        }
        fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
            self.0.insert(s.ident.to_string(), (*s.ty).clone());
        }
        // Items of nested functions are not in scope here.
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    }
    let mut items = Items(HashMap::new());
    syn::visit::Visit::visit_block(&mut items, body);
    items.0
}

/// A borrowed window `base[offset .. offset + len]`.
#[derive(Clone)]
pub(crate) struct View {
    pub base: VarId,
    pub offset: Expr,
    pub len: Expr,
    /// Borrowed `&mut` (`split_at_mut`, `chunks_mut`): passed bare to a call statement, the
    /// callee may write through it.
    pub mutable: bool,
    /// A row of a nested array (`p[i]`, an item of `p.iter()`): borrowed as `&[T; N]`.
    pub row: Option<ArrayLen>,
}

/// What a type is to the macro.
enum TypeClass {
    Float,
    /// A float sequence type; `Array` carries the length tokens.
    Seq(SeqKind),
    Int,
    Bool,
    /// A type with floats inside that the macro cannot differentiate (nested containers, structs
    /// of floats spelled out, nalgebra types...).
    UnsupportedFloat(&'static str),
    Other,
}

impl Lowerer<'_> {
    // ----------------------------------------------------------------- variables and scopes

    pub(super) fn new_var(
        &mut self,
        name: syn::Ident,
        mutable: bool,
        shape: Shape,
        origin: VarOrigin,
        ty: Option<syn::Type>,
    ) -> VarId {
        self.vars.push(Var {
            name,
            mutable,
            shape,
            origin,
            ty,
            active: false,
            row: None,
        });
        self.vars.len() - 1
    }

    pub(super) fn synthetic(&mut self, what: &str, shape: Shape, span: Span) -> VarId {
        let _ = span;
        let name = crate::names::synthetic(what, self.vars.len());
        self.new_var(name, true, shape, VarOrigin::Synthetic, None)
    }

    pub(super) fn bind(&mut self, name: &syn::Ident, var: VarId) {
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), var));
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    pub(super) fn with_scope<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(Vec::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    /// Whether an expression reads an argument that was already reported as unsupported.
    fn mentions_poisoned(&self, e: &syn::Expr) -> bool {
        if self.poisoned_names.is_empty() {
            return false;
        }
        struct Finder<'b>(&'b [String], bool);
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(id) = p.path.get_ident() {
                    if self.0.iter().any(|n| id == n) {
                        self.1 = true;
                    }
                }
            }
        }
        let mut f = Finder(&self.poisoned_names, false);
        f.visit_expr(e);
        f.1
    }

    /// Whether a syntax tree reads any local variable in scope.
    fn refs_locals(&self, e: &syn::Expr) -> bool {
        struct Finder<'b, 'c> {
            cx: &'b Lowerer<'c>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if p.qself.is_none() {
                    if let Some(id) = p.path.get_ident() {
                        if self.cx.lookup(&id.to_string()).is_some() {
                            self.found = true;
                        }
                    }
                }
                syn::visit::visit_expr_path(self, p);
            }
            fn visit_macro(&mut self, _: &'ast syn::Macro) {
                self.found = true;
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
                self.found = true;
            }
        }
        let mut f = Finder {
            cx: self,
            found: false,
        };
        f.visit_expr(e);
        f.found
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::print;
    use crate::ir::*;
    use crate::testing::{errors, lowered, var};
    use syn::parse_quote;

    #[test]
    fn in_place_code_lowers_to_element_writes() {
        let f = lowered(parse_quote! {
            fn f(r: &mut [f64], s: f64) {
                for y in r.iter_mut() {
                    *y *= s;
                }
                let (a, b) = r.split_at_mut(1);
                b[0] = a[0];
                r.swap(0, 1);
            }
        });
        let text = print::function(&f);
        // `*y` is `r[k]`; `b[0]` is `r[1 + 0]`; the swap goes through a temporary.
        assert!(text.contains("r#0[__ad_k_"), "{text}");
        assert!(
            text.contains("r#0[((0usize + 1) + 0)] = r#0[(0usize + 0)];"),
            "{text}"
        );
        assert!(
            text.contains("= r#0[0];\n    r#0[0] = r#0[1];\n    r#0[1] = __ad_swap_"),
            "{text}"
        );
        assert!(f.params[0].active_inout() && f.output.is_unit());
    }

    #[test]
    fn mut_borrows_are_call_arguments_of_call_statements() {
        let ok = errors(parse_quote! {
            fn f(x: f64, r: &mut [f64]) -> f64 {
                let mut v = vec![x; 2];
                g(x, &mut v);
                let e = g(x, r);
                h(&mut *r);
                e + v[0]
            }
        });
        assert!(ok.is_empty(), "{ok:?}");
        let bad = errors(parse_quote! {
            fn f(x: f64) -> f64 {
                let mut v = vec![x; 2];
                g(x, &mut v) + 1.0
            }
        });
        assert!(
            bad.iter()
                .any(|e| e.contains("`&mut` borrows outside a call statement")),
            "{bad:?}"
        );
    }

    #[test]
    fn loops_and_chains_lower_to_index_loops() {
        let f = lowered(parse_quote! {
            fn f(w: f64, xs: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n {
                    s += w * xs[i];
                }
                let m: f64 = xs.iter().map(|x| x * w).sum();
                s + m
            }
        });
        assert_eq!(
            print::function(&f),
            "fn f(w#0 [scalar]: f64, xs#1 [slice]: &[f64], n#2 [int]: usize) -> f64 {
    let mut s#3 [scalar] = 0.0;
    for i#4 [int] in (0 .. n#2) {
        s#3 += (w#0 * xs#1[i#4]);
    }
    let __ad_c_5#5 [int] = xs#1.len();
    let mut __ad_acc_6#6 [scalar] = (::autodiff_runtime::__private::zero::< f64 > ());
    for __ad_k_7#7 [int] in (0usize .. __ad_c_5#5) {
        let x#8 [scalar] = xs#1[__ad_k_7#7];
        let __ad_c_9#9 [scalar] = (x#8 * w#0);
        __ad_acc_6#6 = (__ad_acc_6#6 + __ad_c_9#9);
    }
    let m#10 [scalar] = __ad_acc_6#6;
    (s#3 + m#10)
}
"
        );
    }

    #[test]
    fn closures_are_inlined_with_their_own_bindings() {
        let f = lowered(parse_quote! {
            fn f(a: f64, b: f64) -> f64 {
                let k = |t: f64| t * a;
                let a = a * 3.0;
                let t = b;
                k(b) + a + t
            }
        });
        // The closure (`k#2`) reads the argument `a#0`, not the shadowing `a#3`; its parameter
        // `t#5` is a variable of its own (typed, as written), distinct from the user's `t#4`.
        assert_eq!(
            print::function(&f),
            "fn f(a#0 [scalar]: f64, b#1 [scalar]: f64) -> f64 {
    let a#3 [scalar] = (a#0 * 3.0);
    let t#4 [scalar] = b#1;
    let t#5 [scalar] = b#1;
    let __ad_c_6#6 [scalar] = (t#5 * a#0);
    ((__ad_c_6#6 + a#3) + t#4)
}
"
        );
        assert!(matches!(&f.vars[5].ty, Some(syn::Type::Path(p)) if p.path.is_ident("f64")));
    }

    #[test]
    fn split_at_binds_two_views() {
        let f = lowered(parse_quote! {
            fn f(v: &[f64], k: usize) -> f64 {
                let (h, t) = v.split_at(k);
                h[0] + t[1] + h.len() as f64
            }
        });
        assert_eq!(
            print::function(&f),
            "fn f(v#0 [slice]: &[f64], k#1 [int]: usize) -> f64 {
    ((v#0[(0usize + 0)] + v#0[((0usize + k#1) + 1)]) + (k#1 as f64))
}
"
        );
    }

    #[test]
    fn typed_lets_with_unreadable_types_take_the_value_shape() {
        let f = lowered(parse_quote! {
            fn f(a: f64) -> f64 {
                let y: Real = a * 2.0;
                y
            }
        });
        assert_eq!(f.vars[var(&f, "y")].shape, Shape::Scalar);
    }

    #[test]
    fn unsupported_constructs_are_reported_at_their_tokens() {
        let errs = errors(parse_quote! {
            fn f(a: f64, w: &[f64]) -> f64 {
                g(DAMPING, w) * a
            }
        });
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("passing `DAMPING`, whose type the macro cannot see"));
        let errs = errors(parse_quote! {
            fn f(a: f64) -> f64 {
                let o = Some(a * 2.0);
                let b = Box::new(a);
                o.unwrap() + *b
            }
        });
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].contains("through `Some(..)`"), "{errs:?}");
        assert!(errs[1].contains("through `Box::new(..)`"), "{errs:?}");
    }
}
