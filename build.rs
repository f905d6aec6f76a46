//! Build script of the root package: takes the random-program settings from the environment
//! (`AD_RANDOM_SEED`, `AD_RANDOM_COUNT`, `AD_RANDOM_ONLY`, `AD_RANDOM_DISABLE`,
//! `AD_RANDOM_PRIMAL_ONLY`, `AD_RANDOM_HVP`, `AD_RANDOM_SPLIT`, `AD_RANDOM_NALGEBRA`), gives
//! `$OUT_DIR/random_programs.rs`, which `tests/random_programs.rs` includes. The generator itself lives in `tests/gen/`.

#[allow(dead_code)]
#[path = "tests/gen/mod.rs"]
mod gen;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=tests/gen");
    for var in gen::ENV_VARS {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let cfg = match gen::Config::from_env(|name| std::env::var(name).ok()) {
        Ok(cfg) => cfg,
        Err(e) => panic!("random programs: {e}"),
    };
    let generated = gen::generate(&cfg);
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let path = out.join("random_programs.rs");
    if let Err(e) = std::fs::write(&path, generated.source) {
        panic!("random programs: cannot write {}: {e}", path.display());
    }
}
