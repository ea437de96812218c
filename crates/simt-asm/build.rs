fn main() {
    let grammar = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar/simt.lalrpop");
    lalrpop::Configuration::new()
        .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .emit_rerun_directives(true)
        .process_file(grammar)
        .expect("grammar/simt.lalrpop compiles");
}
