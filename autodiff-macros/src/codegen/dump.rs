//! Dumps for reading what the macro did: takes a function's name and text produced along the
//! pipeline, gives files in the directories named by two environment variables.
//!
//! - `AUTODIFF_EXPAND_DIR`: `<dir>/<fn>.rs`, the generated companions (run `rustfmt` on it).
//! - `AUTODIFF_DUMP_IR`: `<dir>/<fn>.ir.txt`, the IR after each pass (lowering, activity, exit
//!   normalisation), every variable printed as `name#id` with its shape and activity, then the
//!   adjoint program of reverse mode (`reverse/program.rs`) and the forward program of forward
//!   mode (`forward/program.rs`), one statement a line.
//!
//! rustc does not track these variables: touch a source file to make the macro run again.

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The IR dump of one function: sections added as passes run, written when dropped.
#[derive(Default)]
pub struct IrDump {
    target: Option<std::path::PathBuf>,
    text: String,
}

impl IrDump {
    /// A dump for function `name`, active only when `AUTODIFF_DUMP_IR` is set.
    pub fn new(name: &syn::Ident) -> Self {
        let target = std::env::var_os("AUTODIFF_DUMP_IR")
            .map(|dir| std::path::Path::new(&dir).join(format!("{name}.ir.txt")));
        IrDump {
            target,
            text: String::new(),
        }
    }

    pub fn enabled(&self) -> bool {
        self.target.is_some()
    }

    /// Adds a section; `text` is only built when the dump is enabled.
    pub fn section(&mut self, title: &str, text: impl FnOnce() -> String) {
        if self.enabled() {
            self.text
                .push_str(&format!("// ===== {title}\n{}\n", text()));
        }
    }
}

impl Drop for IrDump {
    fn drop(&mut self) {
        if let Some(path) = &self.target {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(path, &self.text);
        }
    }
}

/// Writes the generated companions to `$AUTODIFF_EXPAND_DIR/<fn>.rs` when that variable is set.
pub fn expansion(name: &syn::Ident, out: &TokenStream) {
    let Ok(dir) = std::env::var("AUTODIFF_EXPAND_DIR") else {
        return;
    };
    let text = match syn::parse2::<syn::File>(out.clone()) {
        // One item per paragraph (readable enough with `rustfmt` run on the file).
        Ok(file) => file
            .items
            .iter()
            .map(|item| item.to_token_stream().to_string() + "\n\n")
            .collect(),
        Err(_) => out.to_string(),
    };
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{name}.rs")), text);
}
