//! Contract section 6: on structured control flow whose divergent loops end
//! within `Y` iterations, `its` and `stack` issue the same active mask at every
//! instruction and compute the same results. Checked on random programs of
//! nested if/else, one-armed ifs, data-dependent loops and early exits.

mod common;

use common::{Rng, assemble_text, stepped_traces, u32s};
use simt_host::{LaunchRequest, prepare};
use simt_interp::{Launch, RunOptions, SimtModel};
use simt_isa::Module;

/// Writes a random structured program body; data lives in R1..R7, loop counters and
/// trip counts of nesting depth `d` in R8+d and R12+d, R0 is the thread index.
struct Generator {
    rng: Rng,
    text: String,
    labels: u32,
}

impl Generator {
    fn label(&mut self) -> u32 {
        self.labels += 1;
        self.labels
    }

    fn data(&mut self) -> u32 {
        1 + self.rng.below(7) as u32
    }

    fn line(&mut self, s: &str) {
        self.text.push_str("    ");
        self.text.push_str(s);
        self.text.push('\n');
    }

    fn arithmetic(&mut self) {
        let (d, a) = (self.data(), self.data());
        let imm = self.rng.below(100);
        let op = ["IADD", "IMUL", "XOR", "ISUB"][self.rng.below(4) as usize];
        self.line(&format!("{op} R{d}, R{a}, {imm}"));
    }

    /// A lane-dependent condition in P(depth % 4).
    fn condition(&mut self, depth: u32) -> u32 {
        let p = depth % 4;
        let a = if self.rng.below(2) == 0 { 0 } else { self.data() };
        let cmp = ["LT", "GE", "EQ", "NE"][self.rng.below(4) as usize];
        let mask = [1, 3, 7, 15, 31][self.rng.below(5) as usize];
        let t = self.data();
        self.line(&format!("AND R{t}, R{a}, {mask}"));
        let imm = self.rng.below(mask + 1);
        self.line(&format!("ISETP.{cmp}.U32 P{p}, R{t}, {imm}"));
        p
    }

    fn block(&mut self, depth: u32, budget: &mut u32) {
        let statements = 1 + self.rng.below(4);
        for _ in 0..statements {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            match (self.rng.below(10), depth < 3) {
                (0..=3, _) | (_, false) => self.arithmetic(),
                (4..=5, true) => {
                    let p = self.condition(depth);
                    let (els, end) = (self.label(), self.label());
                    self.line(&format!("@!P{p} BRA L{els}"));
                    self.block(depth + 1, budget);
                    self.line(&format!("BRA L{end}"));
                    self.text.push_str(&format!("L{els}:\n"));
                    self.block(depth + 1, budget);
                    self.text.push_str(&format!("L{end}:\n"));
                }
                (6..=7, true) => {
                    let p = self.condition(depth);
                    let end = self.label();
                    self.line(&format!("@P{p} BRA L{end}"));
                    self.block(depth + 1, budget);
                    self.text.push_str(&format!("L{end}:\n"));
                }
                (8, true) => {
                    // while (j < trips) with trips = f(lane) <= 7 < Y
                    let (counter, trips) = (8 + depth, 12 + depth);
                    let (top, done) = (self.label(), self.label());
                    let src = self.data();
                    self.line(&format!("AND R{trips}, R{src}, 7"));
                    self.line(&format!("MOV R{counter}, 0"));
                    self.text.push_str(&format!("L{top}:\n"));
                    self.line(&format!("ISETP.GE.U32 P{}, R{counter}, R{trips}", depth % 4));
                    self.line(&format!("@P{} BRA L{done}", depth % 4));
                    self.block(depth + 1, budget);
                    self.line(&format!("IADD R{counter}, R{counter}, 1"));
                    self.line(&format!("BRA L{top}"));
                    self.text.push_str(&format!("L{done}:\n"));
                }
                _ => {
                    // Early exit of some threads, after they stored what they have. (A branch to a
                    // shared exit block from several places would be unstructured: a goto join.)
                    let p = self.condition(depth);
                    self.line(STORE);
                    self.line(&format!("@P{p} EXIT"));
                }
            }
        }
    }
}

/// Stores R0..R7 of the thread to `out[8 * tid ..]` (R24 holds the address).
const STORE: &str = "LD.PARAM.U32 R24, [out]\n    LEA R24, R0, R24, 5\n    ST.GLOBAL.V4.B32 [R24], R0\n    ST.GLOBAL.V4.B32 [R24+16], R4";

fn program(seed: u64) -> String {
    let mut g = Generator { rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1), text: String::new(), labels: 0 };
    g.text.push_str(".kernel random\n.param .ptr.u32 out\n.launch grid(1) block(64)\n.arg out = zeros(512)\n");
    g.line("S2R R0, SR_TID.X");
    for r in 1..16 {
        g.line(&format!("IMAD R{r}, R0, {}, {}", 2 * r + 1, r));
    }
    let mut budget = 24;
    g.block(0, &mut budget);
    g.line(STORE);
    g.line("EXIT");
    g.text
}

/// Each warp's (pc, active mask) issue sequence, and the output buffer.
fn trace(module: &Module, simt: SimtModel) -> (Vec<Vec<(u32, u32)>>, Vec<u32>) {
    let kernel = &module.kernels[0];
    let p = prepare(kernel, &LaunchRequest::default()).expect("defaults");
    let options = RunOptions { simt, max_steps: 1_000_000, ..RunOptions::default() };
    let launch = Launch::new(kernel, &p.config, &p.memory, &options).expect("valid");
    let traces =
        stepped_traces(&launch, |f| f.render(module, false)).into_iter().map(|t| t.into_iter().map(|(pc, active, _)| (pc, active)).collect()).collect();
    (traces, u32s(&p.buffer("out").expect("out").1))
}

/// The first (warp, step) where two issue sequences disagree.
fn first_difference(a: &[Vec<(u32, u32)>], b: &[Vec<(u32, u32)>]) -> Option<(usize, usize)> {
    a.iter().zip(b).enumerate().find_map(|(w, (x, y))| {
        let i = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
        (i < x.len().max(y.len())).then_some((w, i))
    })
}

#[test]
fn random_structured_programs_issue_identical_masks_under_both_models() {
    let mut diverged = 0;
    for seed in 0..300 {
        let source = program(seed);
        let module = assemble_text(&source);
        let (its, its_out) = trace(&module, SimtModel::Its);
        let (stack, stack_out) = trace(&module, SimtModel::Stack);
        assert_eq!(its_out, stack_out, "seed {seed}: results differ\n{source}");
        if let Some((w, i)) = first_difference(&its, &stack) {
            let window = |t: &[(u32, u32)]| format!("{:x?}", &t[i.saturating_sub(3)..(i + 3).min(t.len())]);
            panic!("seed {seed}: warp {w} issues differ at step {i}: its {} vs stack {}\n{source}", window(&its[w]), window(&stack[w]));
        }
        diverged += usize::from(its.iter().flatten().any(|&(_, mask)| mask != u32::MAX));
    }
    assert!(diverged > 200, "only {diverged} of 300 programs diverged: the generator is too tame");
}
