//! Reconvergence points as the assembler computes them: the immediate
//! post-dominator of every branch that can diverge (`simt_kernel::cfg`).

use simt_isa::{NO_RECONV, Operand};
use simt_kernel::cfg::Cfg;

/// The reconvergence pc of the branch at each pc that has one, in pc order.
fn reconv(body: &str) -> Vec<(usize, u32)> {
    let module = simt_asm::assemble("t.s", &format!(".kernel k\n{body}")).unwrap_or_else(|d| panic!("{d}"));
    module.kernels[0]
        .code
        .iter()
        .enumerate()
        .filter_map(|(pc, inst)| match inst.operands[0] {
            Operand::Label { reconv, .. } => Some((pc, reconv)),
            _ => None,
        })
        .collect()
}

#[test]
fn if_else_reconverges_at_the_join() {
    let body = "ISETP.EQ P0, R1, 0\n@P0 BRA EVEN\nIMUL R2, R0, 3\nBRA JOIN\nEVEN: SHL R2, R0, 1\nJOIN: VOTE.BALLOT R3, PT\nEXIT\n";
    assert_eq!(reconv(body), [(1, 5), (3, NO_RECONV)]);
}

#[test]
fn nested_if_else() {
    let body = "@P0 BRA ELSE1\n@P1 BRA ELSE2\nNOP\nBRA END2\nELSE2: NOP\nEND2: NOP\nBRA END1\nELSE1: NOP\nEND1: EXIT\n";
    assert_eq!(reconv(body), [(0, 8), (1, 5), (3, NO_RECONV), (6, NO_RECONV)]);
}

#[test]
fn loop_with_break() {
    let body = "NOP\nLOOP: @P0 BRA DONE\nNOP\n@P2 BRA LOOP\nDONE: NOP\nEXIT\n";
    assert_eq!(reconv(body), [(1, 4), (3, 4)]);
}

#[test]
fn loop_with_early_exit_and_break_meets_at_the_virtual_exit() {
    let body = "NOP\nLOOP: @P0 BRA DONE\n@P1 EXIT\n@P2 BRA LOOP\nDONE: NOP\nEXIT\n";
    assert_eq!(reconv(body), [(1, 6), (3, 6)]);
}

#[test]
fn while_loop_with_back_edge() {
    // The loops.s shape: the exit test at the top, an unconditional back edge.
    let body = "MOV R5, 0\nLOOP: ISETP.GE.U32 P0, R5, R4\n@P0 BRA DONE\nIADD R5, R5, 1\nBRA LOOP\nDONE: EXIT\n";
    assert_eq!(reconv(body), [(2, 5), (4, NO_RECONV)]);
}

#[test]
fn unstructured_jumps() {
    let body = "@P0 BRA B\nA: NOP\n@P1 BRA C\nB: NOP\nC: NOP\nEXIT\n";
    assert_eq!(reconv(body), [(0, 4), (2, 4)]);
}

#[test]
fn branch_to_the_next_instruction() {
    assert_eq!(reconv("@P0 BRA NEXT\nNEXT: EXIT\n"), [(0, 1)]);
}

#[test]
fn falling_off_the_end_reaches_the_exit() {
    assert_eq!(reconv("@P0 BRA L\nNOP\nL: NOP\n"), [(0, 2)]);
    assert_eq!(reconv("@P0 BRA L\nEXIT\nL: NOP\n"), [(0, 3)]);
}

#[test]
fn infinite_loops_reconverge_at_the_exit() {
    assert_eq!(reconv("@P0 EXIT\nSPIN: @P1 BRA SPIN\nBRA SPIN\n"), [(1, 3), (2, NO_RECONV)]);
}

#[test]
fn branches_that_cannot_diverge_have_no_reconvergence_point() {
    assert_eq!(reconv("@PT BRA L\n@!PT BRA L\nL: EXIT\n"), [(0, NO_RECONV), (1, NO_RECONV)]);
}

#[test]
fn graph_edges() {
    let module = simt_asm::assemble("t.s", ".kernel k\n@P0 BRA L\nEXIT\nL: @P1 EXIT\nBRA L\n").unwrap();
    let cfg = Cfg::build(&module.kernels[0].code);
    assert_eq!(cfg.exit(), 4);
    assert_eq!(cfg.successors(0), [1, 2]);
    assert_eq!(cfg.successors(1), [4]);
    assert_eq!(cfg.successors(2), [3, 4]);
    assert_eq!(cfg.successors(3), [2]);
    assert_eq!(cfg.successors(4), [] as [u32; 0]);
    assert_eq!(cfg.post_dominators(), [4, 4, 4, 2, 4]);
}

#[test]
fn long_chains_do_not_overflow_the_stack() {
    let body = "@P0 BRA END\n".to_string() + &"NOP\n".repeat(200_000) + "END: EXIT\n";
    assert_eq!(reconv(&body), [(0, 200_001)]);
}
