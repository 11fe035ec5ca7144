//! The tables in `rules/data/*.toml` (generated from installed torches, and the hand-written
//! ones beside them) stay the source of truth; this turns each into JSON in `OUT_DIR` at build
//! time, so that a scan deserializes them with `serde_json` (the same `serde` types) instead of
//! parsing TOML on every run: the TOML parse was ~15M instructions for the module-hooks table
//! alone, inside the scan's one-worker link step. A table that does not parse fails the build.

use std::path::Path;

fn main() {
    let data = Path::new("rules/data");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", data.display());
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out).join("rules_data");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/rules_data");
    let mut entries: Vec<_> = std::fs::read_dir(data)
        .expect("read rules/data")
        .map(|entry| entry.expect("list rules/data").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    entries.sort();
    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let table: toml::Table =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{} parses: {e}", path.display()));
        let json = serde_json::to_string(&table)
            .unwrap_or_else(|e| panic!("{} as JSON: {e}", path.display()));
        let stem = path.file_stem().expect("a file name");
        let target = out.join(stem).with_extension("json");
        std::fs::write(&target, json).unwrap_or_else(|e| panic!("write {}: {e}", target.display()));
    }
}
