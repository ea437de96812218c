//! Why a partition's issue slot went the way it did: every cycle of every
//! partition is accounted to exactly one of these.

/// The reason of one issue slot. When no warp issues, the partition's reason is the
/// most telling of its warps' reasons: the order of the variants from `UnitBusy` down
/// (a warp that was ready but for its unit says more than one waiting on a register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A warp instruction issued.
    Issued,
    /// Valid without ready: the next instruction's unit cannot accept it this cycle.
    UnitBusy,
    /// The SM has as many misses outstanding as it may.
    MemoryThrottle,
    /// A register or predicate the instruction reads or writes has a write pending (or a
    /// fence waits for the warp's memory operations).
    Scoreboard,
    /// After a branch, or waiting at a reconvergence point or warp collective.
    BranchReconvergence,
    /// Waiting at `BAR.SYNC` for the rest of the block.
    Barrier,
    /// The partition's warps have all finished; others have not.
    Done,
    /// No warp is resident, or only the warps of blocks still launching.
    NoWarp,
}

impl Reason {
    /// Every reason, in report order.
    pub const ALL: [Reason; 8] = [
        Reason::Issued,
        Reason::NoWarp,
        Reason::Scoreboard,
        Reason::UnitBusy,
        Reason::Barrier,
        Reason::MemoryThrottle,
        Reason::BranchReconvergence,
        Reason::Done,
    ];

    /// The name used in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Issued => "issued",
            Reason::NoWarp => "no_warp",
            Reason::Scoreboard => "scoreboard",
            Reason::UnitBusy => "unit_busy",
            Reason::Barrier => "barrier",
            Reason::MemoryThrottle => "memory_throttle",
            Reason::BranchReconvergence => "branch/reconvergence",
            Reason::Done => "done",
        }
    }

    /// Index into per-reason counters.
    pub fn index(self) -> usize {
        self as usize
    }
}
