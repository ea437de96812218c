//! Arbitrary bytes as bytecode: `read_module` returns a module or an error,
//! never a panic, a hang or an allocation larger than the input allows.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(module) = simt_isa::read_module(data) {
        // A loaded module is valid: it must write, load again and disassemble.
        let again = simt_isa::read_module(&simt_isa::write_module(&module)).expect("a loaded module round-trips");
        assert_eq!(again.kernels.len(), module.kernels.len());
        let _ = simt_isa::disassemble(&module);
    }
});
