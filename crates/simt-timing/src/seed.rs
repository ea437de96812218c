//! The seed's four educational RTL models (shared/reference/simt-from-rtl.txt) as Rust
//! components, cycle by cycle: a clock edge is a call to `tick`. The SM model uses the
//! [`Arbiter`] for its `lrr` schedulers; the others are the reference its stages are
//! explained and tested against (`tests/seed.rs` ports their testbenches).

/// Model 1: a round-robin issue arbiter over up to 64 warps, one-hot grant.
///
/// Unlike the seed's RTL, whose pointer advances by one per grant, the pointer moves to
/// the warp after the granted one (contract §2: "round-robin from the warp after the last
/// grant"), which is what makes every ready warp granted within `warps` cycles.
#[derive(Clone, Debug)]
pub struct Arbiter {
    warps: u32,
    pointer: u32,
}

impl Arbiter {
    /// An arbiter over `warps` warps (1 to 64), pointer reset to warp 0.
    pub fn new(warps: u32) -> Arbiter {
        assert!((1..=64).contains(&warps), "an arbiter serves 1 to 64 warps");
        Arbiter { warps, pointer: 0 }
    }

    /// The grant for this cycle's ready mask (bit `i`: warp `i` is ready): one-hot, or 0 when
    /// nothing is ready. The clock edge moves the pointer past the granted warp.
    pub fn tick(&mut self, ready: u64) -> u64 {
        let mask = if self.warps == 64 { u64::MAX } else { (1u64 << self.warps) - 1 };
        let ready = ready & mask;
        if ready == 0 {
            return 0;
        }
        // Rotate so the pointer is bit 0, take the lowest set bit, rotate back.
        let rotated = (ready >> self.pointer) | if self.pointer == 0 { 0 } else { ready << (self.warps - self.pointer) & mask };
        let granted = (rotated.trailing_zeros() + self.pointer) % self.warps;
        self.pointer = (granted + 1) % self.warps;
        1 << granted
    }
}

/// Model 2: a per-lane register file, one bank per lane, so a warp reads a register whole
/// in one cycle and no two lanes ever contend.
#[derive(Clone, Debug)]
pub struct LaneRegisterFile {
    banks: Vec<Vec<u32>>,
    read: [u32; 32],
}

impl LaneRegisterFile {
    /// 32 banks of `regs` registers each, all zero.
    pub fn new(regs: usize) -> LaneRegisterFile {
        LaneRegisterFile { banks: vec![vec![0; regs]; 32], read: [0; 32] }
    }

    /// One clock edge: write `wdata` to `waddr` when `we`, and register the read of `raddr`
    /// (every lane the same index), which [`LaneRegisterFile::rdata`] shows after the edge.
    pub fn tick(&mut self, raddr: usize, waddr: usize, we: bool, wdata: &[u32; 32]) {
        for (lane, bank) in self.banks.iter_mut().enumerate() {
            self.read[lane] = bank[raddr];
            if we {
                bank[waddr] = wdata[lane];
            }
        }
    }

    /// The registered read data, one word per lane.
    pub fn rdata(&self) -> [u32; 32] {
        self.read
    }
}

/// An operand set travelling down the MAC chain: `a`, `b` and the partial sum so far.
type InFlight = (Vec<u64>, Vec<u64>, u64);

/// Model 3: a pipelined multiply-accumulate chain of `depth` stages. Stage `s` adds
/// `a[s] * b[s]` to the sum it receives; a result leaves `depth` cycles after its operands
/// entered, and a full pipeline delivers one result per cycle.
#[derive(Clone, Debug)]
pub struct MacPipeline {
    depth: usize,
    /// Per stage: the operand set travelling with its partial sum, if valid.
    stages: Vec<Option<InFlight>>,
}

impl MacPipeline {
    /// An empty pipeline of `depth` stages.
    pub fn new(depth: usize) -> MacPipeline {
        MacPipeline { depth, stages: vec![None; depth] }
    }

    /// Pipeline depth.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// One clock edge: an operand set enters (when given) and every stage advances. Returns
    /// the dot product leaving the last stage this edge (`out_valid`, `acc_out`).
    pub fn tick(&mut self, input: Option<(&[u64], &[u64])>) -> Option<u64> {
        let out = self.stages[self.depth - 1].take().map(|(a, b, acc)| acc + a[self.depth - 1] * b[self.depth - 1]);
        for s in (1..self.depth).rev() {
            self.stages[s] = self.stages[s - 1].take().map(|(a, b, acc)| {
                let sum = acc + a[s - 1] * b[s - 1];
                (a, b, sum)
            });
        }
        self.stages[0] = input.map(|(a, b)| (a.to_vec(), b.to_vec(), 0));
        out
    }
}

/// Model 4: the valid/ready handshake between a scheduler and a unit that stays busy for
/// `busy_cycles` after accepting an instruction. A transfer happens only in a cycle where
/// the scheduler's valid and the unit's ready are both high.
#[derive(Clone, Debug)]
pub struct Handshake {
    busy_cycles: u32,
    busy: u32,
}

impl Handshake {
    /// A unit that is busy for `busy_cycles` cycles after each transfer (the seed's has 1).
    pub fn new(busy_cycles: u32) -> Handshake {
        Handshake { busy_cycles, busy: 0 }
    }

    /// `sched_ready`: whether the unit can accept this cycle.
    pub fn ready(&self) -> bool {
        self.busy == 0
    }

    /// One cycle: returns `exec_valid`, whether a transfer happened; the clock edge then
    /// makes the unit busy after a transfer, or counts its busy time down.
    pub fn tick(&mut self, valid: bool) -> bool {
        let transfer = valid && self.ready();
        if transfer {
            self.busy = self.busy_cycles;
        } else {
            self.busy = self.busy.saturating_sub(1);
        }
        transfer
    }
}
