fn main() {
    // Read when the script runs, not baked in when it is compiled: one compiled script may serve
    // two checkouts that share a target directory (CI builds a clone with the checkout's target).
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let grammar = std::path::Path::new(&manifest_dir).join("grammar/simt.lalrpop");
    lalrpop::Configuration::new()
        .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .emit_rerun_directives(true)
        .process_file(grammar)
        .expect("grammar/simt.lalrpop compiles");
}
