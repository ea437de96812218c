//! Arbitrary bytes as PTX: the parser, the inliner, the inferences, the allocator and the
//! translation must answer with a module or diagnostics, never a panic or a hang. Seed it
//! with the corpus: `cargo fuzz run translate_ptx /tmp/fc/ptx ../tests/ptx/fixtures`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match simt_ptx::translate("fuzz.ptx", &text, None) {
        // What translates is a valid module: it serialises, loads back and reassembles.
        Ok(module) => {
            let bytes = simt_isa::write_module(&module);
            simt_isa::read_module(&bytes).expect("translated bytecode loads back");
            let shown = simt_isa::disassemble_with_source(&module);
            simt_asm::assemble("fuzz.s", &shown).expect("simt ptx output assembles");
        }
        Err(d) => assert!(!d.is_empty()),
    }
});
