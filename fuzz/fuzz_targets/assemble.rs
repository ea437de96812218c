//! Arbitrary bytes as assembly source: the lexer, parser, checker, CFG and lints must
//! answer with a module or diagnostics, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 never reaches the assembler (the CLI rejects it first); lossy
    // conversion keeps the mutated structure of the input.
    let text = String::from_utf8_lossy(data);
    if let Ok(module) = simt_asm::assemble("fuzz.s", &text) {
        // What assembles must serialise, load back and disassemble.
        let bytes = simt_isa::write_module(&module);
        let back = simt_isa::read_module(&bytes).expect("assembled bytecode loads back");
        let _ = simt_isa::disassemble(&back);
        // The divergence lints run on everything that assembles.
        let _ = simt_asm::lint(&module, &simt_asm::LintLevels::default(), false);
    }
});
