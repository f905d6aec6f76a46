//! Fields of derived structs that are arrays of arrays (`r: [[f64; 3]; 3]`,
//! `p: Vec<[f64; 3]>`): takes each struct `#[derive(Differentiable)]` expands (its name and
//! fields' types), keeps the row length of each such field for the rest of the crate's
//! compilation (the macro runs in one process per crate, expanding items in source order, as
//! `registry.rs`), and gives `lower/structs.rs` the row length of a field of a struct argument,
//! which cannot be read from the body (`s.r[i][j]` does not say how long a row is).
//!
//! A struct not derived earlier in the crate, or two derived structs of one name whose fields
//! disagree, gives nothing: the field is then read as the body's uses say (and a nested field
//! read so is a rustc error at the field's check). A poisoned lock is recovered (entries are
//! inserted whole).

use quote::ToTokens;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// What a derived struct's named field is.
#[derive(Clone, PartialEq, Eq)]
enum Known {
    /// An array of arrays, with its row length as written.
    Rows(String),
    /// Anything else.
    Other,
    /// Two derived structs of one name disagree.
    Ambiguous,
}

/// (struct name, field name) → what the field is.
type Map = HashMap<(String, String), Known>;

static ROWS: Mutex<Option<Map>> = Mutex::new(None);

fn lock() -> MutexGuard<'static, Option<Map>> {
    ROWS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
/// `C` of `[[T; C]; R]` or `Vec<[T; C]>` with `T` a single name (a float type or parameter).
pub fn row_len(ty: &syn::Type) -> Option<syn::Expr> {
    let row = match ty {
        syn::Type::Array(a) => &*a.elem,
        syn::Type::Path(tp) if tp.qself.is_none() => {
            let last = tp.path.segments.last()?;
            if last.ident != "Vec" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                return None;
            };
            match a.args.first()? {
                syn::GenericArgument::Type(t) => t,
                _ => return None,
            }
        }
        syn::Type::Paren(p) => return row_len(&p.elem),
        _ => return None,
    };
    let syn::Type::Array(row) = row else {
        return None;
    };
    match &*row.elem {
        syn::Type::Path(tp) if tp.qself.is_none() && tp.path.get_ident().is_some() => {
            Some(row.len.clone())
        }
        _ => None,
    }
}

/// Records the named fields of derived struct `name`.
pub fn record(name: &str, fields: &[(String, &syn::Type)]) {
    let mut guard = lock();
    let map = guard.get_or_insert_with(HashMap::new);
    for (field, ty) in fields {
        let known = match row_len(ty) {
            Some(len) => Known::Rows(len.to_token_stream().to_string()),
            None => Known::Other,
        };
        let key = (name.to_string(), field.clone());
        match map.get(&key) {
            Some(old) if *old != known => {
                map.insert(key, Known::Ambiguous);
            }
            Some(_) => {}
            None => {
                map.insert(key, known);
            }
        }
    }
}

/// The row length of field `field` of derived struct `name`, if it is an array of arrays.
pub fn row_of(name: &str, field: &str) -> Option<proc_macro2::TokenStream> {
    let guard = lock();
    match guard
        .as_ref()?
        .get(&(name.to_string(), field.to_string()))?
    {
        Known::Rows(len) => len.parse().ok(),
        _ => None,
    }
}

/// The row length of field `field` of `self` (a method cannot see its `impl`'s type): known when
/// every derived struct with a field of that name has it an array of arrays of the same row
/// length. A wrong guess (a struct not derived, with a field of that name of another type) is
/// a rustc error at the field's check (`__private::float_rows_field`), never a wrong derivative.
pub fn row_of_field(field: &str) -> Option<proc_macro2::TokenStream> {
    let guard = lock();
    let mut found: Option<&String> = None;
    for ((_, f), known) in guard.as_ref()? {
        if f != field {
            continue;
        }
        match (known, found) {
            (Known::Rows(len), None) => found = Some(len),
            (Known::Rows(len), Some(old)) if len == old => {}
            _ => return None,
        }
    }
    found?.parse().ok()
}
