//! The memory system behind the SMs' L1s, used only at window boundaries: the TLBs, the
//! crossbar, the L2 partitions and slices, and DRAM channels of banks with row buffers.
//!
//! A load's latency is the sum of the stages it passes, each a parameter of the machine file:
//! the L1 tag check and MSHR (`l1.miss_latency`), the L1 TLB (free on a hit; `tlb.l2_latency`
//! on an L2 TLB hit, `tlb.walk_latency` on a walk), the crossbar there and back, the slice
//! (`l2.slice_latency`), the far partition (`l2.far_latency`) when the near one lacks the line,
//! and on a miss the DRAM bank (precharge, activate, read, as the row buffer requires), its
//! channel's data bus and the controller (`dram.latency`); an atomic also passes the slice's
//! atomic unit (`l2.atomic_latency`), one operation a cycle on a line. Queueing at the L2's
//! bandwidth server, at a busy bank, at a refreshing bank and at a channel's bus comes on top,
//! so a pointer chase's latency changes with footprint and stride, and a stream's bandwidth
//! falls short of the peak by what row misses, bus turnarounds and refreshes cost.

use crate::cache::{Lookup, SectorCache, shard_of};
use crate::config::{LINE_BYTES, Machine, SECTOR_BYTES};
use crate::sim::{LineMap, ReqKind, Request};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

/// Fixed-point fraction of a cycle used for bandwidth servers and DRAM timings.
const FRAC: u32 = 16;
const ONE: u64 = 1 << FRAC;
/// No row open in a bank.
const CLOSED: u64 = u64::MAX;

/// Spreads line and row numbers over partitions, channels and banks, as real address hashing does.
fn mix(n: u64) -> u64 {
    let h = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// Cycles of `ns` nanoseconds at `clock_ghz`, in fixed point.
fn fixed_cycles(ns: f64, clock_ghz: f64) -> u64 {
    (ns * clock_ghz * f64::from(1u32 << FRAC)).round() as u64
}

#[derive(Clone, Copy)]
struct Bank {
    open: u64,
    /// The fixed-point cycle from which the bank takes its next command.
    free: u64,
}

#[derive(Clone, Copy)]
struct Channel {
    bus_free: u64,
    /// Sectors of writes waiting to go out in a batch.
    pending_writes: u64,
    /// The fixed-point cycle the batches of writes drained so far are out, at the channel's
    /// rate, counting the writes alone.
    writes_free: u64,
    /// Whether reads used the bus since the last batch of writes (the next batch turns it around).
    read_since_batch: bool,
}

/// DRAM: channels, each a data bus shared by its banks. A read waits for its bank (busy,
/// refreshing), which opens its row if another is open, and for a slot on its channel's bus;
/// a write opens its row too, and writes go out in batches that turn the bus around after
/// reads; a full write queue holds the L2 line being written back.
struct Dram {
    banks: Vec<Bank>,
    channels: Vec<Channel>,
    per_channel: u64,
    row_lines: u64,
    sector_cost: u64,
    t_rcd: u64,
    t_rp: u64,
    t_cl: u64,
    refresh_interval: u64,
    refresh: u64,
    turnaround: u64,
    write_batch: u64,
    latency: u64,
}

impl Dram {
    fn new(machine: &Machine) -> Dram {
        let d = &machine.memory.dram;
        let clock = machine.clock_ghz;
        let per_cycle = d.bandwidth_gbs / clock / f64::from(d.channels);
        let sector_cost = ((f64::from(SECTOR_BYTES) * f64::from(1u32 << FRAC)) / per_cycle).round().max(1.0) as u64;
        Dram {
            banks: vec![Bank { open: CLOSED, free: 0 }; (d.channels * d.banks) as usize],
            channels: vec![Channel { bus_free: 0, pending_writes: 0, writes_free: 0, read_since_batch: false }; d.channels as usize],
            per_channel: u64::from(d.banks),
            row_lines: u64::from(d.row_bytes / LINE_BYTES),
            sector_cost,
            t_rcd: fixed_cycles(d.t_rcd_ns, clock),
            t_rp: fixed_cycles(d.t_rp_ns, clock),
            t_cl: fixed_cycles(d.t_cl_ns, clock),
            refresh_interval: fixed_cycles(d.refresh_interval_ns, clock),
            refresh: fixed_cycles(d.refresh_ns, clock),
            turnaround: fixed_cycles(d.turnaround_ns, clock),
            write_batch: u64::from(d.write_batch),
            latency: u64::from(d.latency) << FRAC,
        }
    }

    /// Reads or writes `sectors` of `line`, asked for at fixed-point cycle `at`; returns the
    /// fixed-point cycle the data is back at the L2 slice (reads) or the controller's write
    /// queue has taken it (writes).
    fn access(&mut self, line: u64, sectors: u64, at: u64, write: bool) -> u64 {
        // Consecutive lines fill one row; the next row goes to another channel and bank.
        let row = line / self.row_lines;
        let h = mix(row);
        let channels = self.channels.len() as u64;
        let ch = (h % channels) as usize;
        let index = ch * self.per_channel as usize + ((h / channels) % self.per_channel) as usize;
        let all_banks = self.banks.len() as u64;
        let bank = &mut self.banks[index];
        let mut t = at.max(bank.free);
        if self.refresh_interval > 0 {
            // Banks refresh in turn, each every interval: one landing in its bank's refresh waits it out.
            let offset = (index as u64 * self.refresh_interval) / all_banks;
            let phase = (t + self.refresh_interval - offset % self.refresh_interval) % self.refresh_interval;
            if phase < self.refresh {
                t += self.refresh - phase;
                bank.open = CLOSED;
            }
        }
        let ready = t
            + self.t_cl
            + match bank.open {
                o if o == row => 0,
                CLOSED => self.t_rcd,
                _ => self.t_rp + self.t_rcd,
            };
        bank.open = row;
        let channel = &mut self.channels[ch];
        let cost = self.sector_cost.saturating_mul(sectors);
        if write {
            // A write needs its row open as a read does (JEDEC JESD235): the bank opens it, closing the
            // row a read may have had open, and is busy until the data is in. That is charged when
            // the write is queued, not when its batch drains, which the model does not order.
            bank.free = bank.free.max((ready - self.t_cl).saturating_add(cost));
            // Writes wait in the controller's queue and go out in batches.
            channel.pending_writes += sectors;
            if channel.pending_writes >= self.write_batch {
                // The bus turns around to write and back only if reads used it since the last batch.
                let turns = if channel.read_since_batch { 2 * self.turnaround } else { 0 };
                channel.read_since_batch = false;
                let batch = turns + self.sector_cost.saturating_mul(channel.pending_writes);
                channel.bus_free = channel.bus_free.max(at).saturating_add(batch);
                channel.writes_free = channel.writes_free.max(at).saturating_add(batch);
                channel.pending_writes = 0;
            }
            // The queue holds one batch beyond the one going out: while the batches already
            // drained keep the channel busy for longer than a batch takes, the write waits for
            // room, and so does the L2 line it leaves. Reads booked on the bus do not hold the
            // queue back (a controller drains writes at a high-water mark, ahead of reads).
            return at.max(channel.writes_free.saturating_sub(self.sector_cost.saturating_mul(self.write_batch)));
        }
        channel.read_since_batch = true;
        // The controller reorders around busy banks (FR-FCFS): the bus gives each read a slot in
        // the order they come, and the data goes out once both its slot and its bank are ready.
        let slot = channel.bus_free.max(at).saturating_add(cost);
        channel.bus_free = slot;
        let end = slot.max(ready.saturating_add(cost));
        // The bank takes its next read as this one's data starts, so row hits stream back to back.
        bank.free = end - self.t_cl.min(end);
        end.saturating_add(self.latency)
    }
}

/// The most shards the L2's tags are cut into: a window's few thousand requests gain nothing
/// from more, and each costs a task and a list per window.
const MAX_SHARDS: usize = 64;

/// The fewest requests in a window whose shards look them up on several threads.
const PARALLEL_LOOKUPS: usize = 1024;

/// How many requests ahead a shard asks the host to load the L2 sets a request needs.
const PREFETCH_AHEAD: usize = 8;

/// Lookups a shard on another thread sends at once: a chunk takes it about 15 microseconds.
const STREAM_CHUNK: usize = 64;

/// How long this thread waits for another's lookups before it runs their task itself: well past
/// the time a sleeping thread takes to wake (50-100 microseconds on this project's host).
const PATIENCE: Duration = Duration::from_micros(300);

/// The L2's tags for the sets of one shard (see [`SectorCache::split`]), in the whole L2 and
/// in each partition's copies. A line's sets in all of them fall in one shard, so shards look
/// their requests up apart, on several threads.
struct Shard {
    /// The whole L2: where every line's coherent copy lives.
    whole: SectorCache,
    /// With partitions, each one's copies of what its SMs read (empty with one partition).
    near: Vec<SectorCache>,
}

/// What the L2's tags hold of a request, looked up before its timing is worked out.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Found {
    /// Sectors the requesting SM's partition had a copy of.
    near_hit: u8,
    /// Sectors looked up in the whole L2.
    rest: u8,
    /// What the whole L2 held of those, and what it evicted for them.
    lookup: Lookup,
}

impl Shard {
    /// Looks `r` up from partition `side`, and fills what it lacked.
    fn look_up(&mut self, r: &Request, side: usize) -> Found {
        let write = r.kind != ReqKind::Load;
        // The near partition's copies first; what they lack comes from the whole L2.
        let near_hit = match self.near.get_mut(side) {
            Some(near) => near.access(r.line, r.sectors, true, false).hit,
            None => 0,
        };
        if write {
            // The partitions' copies are kept coherent (NVIDIA's A100 whitepaper: hardware cache
            // coherence between the two partitions), so a write drops the others' copies.
            for (_, other) in self.near.iter_mut().enumerate().filter(|&(p, _)| p != side) {
                other.invalidate(r.line, r.sectors);
            }
        }
        let rest = if write { r.sectors } else { r.sectors & !near_hit };
        let lookup = if rest != 0 { self.whole.access(r.line, rest, true, write) } else { Lookup::default() };
        Found { near_hit, rest, lookup }
    }

    /// Asks the host to start loading what looking `r` up from partition `side` reads: the
    /// sets' hints and ranks, then (`way`, once those are loaded) the tags it will compare.
    fn prefetch(&self, r: &Request, side: usize, way: bool) {
        let caches = std::iter::once(&self.whole).chain(self.near.get(side));
        for cache in caches {
            if way { cache.prefetch_way(r.line) } else { cache.prefetch(r.line) }
        }
    }

    /// Looks up `requests[mine[j]]`, the shard's `j`th request, first asking the host to load
    /// what the lookups [`PREFETCH_AHEAD`] and twice that many later will read.
    fn look_up_nth(&mut self, requests: &[Request], mine: &[u32], j: usize, side: &[u32]) -> Found {
        let side_of = |i: u32| side[requests[i as usize].sm as usize] as usize;
        for (ahead, way) in [(2 * PREFETCH_AHEAD, false), (PREFETCH_AHEAD, true)] {
            if let Some(&a) = mine.get(j + ahead) {
                self.prefetch(&requests[a as usize], side_of(a), way);
            }
        }
        self.look_up(&requests[mine[j] as usize], side_of(mine[j]))
    }

    /// Looks up `requests[i]` for each `i` of `mine`, in that order, sending what it found in
    /// chunks of [`STREAM_CHUNK`] as it goes.
    fn stream(&mut self, requests: &[Request], mine: &[u32], side: &[u32], to: &Sender<Vec<Found>>) {
        for start in (0..mine.len()).step_by(STREAM_CHUNK) {
            let found = (start..mine.len().min(start + STREAM_CHUNK)).map(|j| self.look_up_nth(requests, mine, j, side)).collect();
            if to.send(found).is_err() {
                return;
            }
        }
    }
}

/// What another thread's shard found, taken in the order it looked its requests up.
struct Stream {
    from: Receiver<Vec<Found>>,
    chunk: std::vec::IntoIter<Found>,
}

impl Stream {
    /// The next request's lookup. While the shard's thread is behind, this one does
    /// `meanwhile`'s work, a piece a call, and waits only once that says there is none left.
    fn next(&mut self, mut meanwhile: impl FnMut() -> bool) -> Found {
        let mut waiting_since = None;
        loop {
            if let Some(found) = self.chunk.next() {
                return found;
            }
            match self.from.try_recv() {
                Ok(chunk) => self.chunk = chunk.into_iter(),
                // The shard's task panicked; the scope raises its panic once this window returns.
                Err(TryRecvError::Disconnected) => return Found::default(),
                // Spinning, not sleeping: waking a sleeping thread costs tens of microseconds, as much
                // as a chunk of lookups. Only when no other thread has taken the shard's task by
                // then (more threads than cores) does this one run it.
                Err(TryRecvError::Empty) => {
                    if meanwhile() {
                        continue;
                    }
                    if waiting_since.get_or_insert_with(Instant::now).elapsed() < PATIENCE {
                        std::hint::spin_loop();
                    } else if rayon::yield_now() != Some(rayon::Yield::Executed) {
                        std::thread::yield_now();
                    }
                }
            }
        }
    }
}

/// The L2 (its partitions and slices), the TLBs and DRAM, shared by all SMs.
pub(crate) struct MemorySystem {
    /// The L2's tags, cut into shards by set (at least one).
    shards: Vec<Shard>,
    /// The partition each SM is near.
    side: Vec<u32>,
    /// The rest, which answers requests in order once their tags are looked up.
    in_order: InOrder,
}

/// The stages a request passes in the order requests come, after its L2 tags are looked up:
/// the TLBs, the L2's bandwidth, DRAM and the atomic unit; and the counters.
pub(crate) struct InOrder {
    /// The L2's partitions, 0 for a machine with one (no copies kept near the SMs).
    partitions: u32,
    l1_tlb: Vec<SectorCache>,
    /// Each SM's last page translated: its L1 TLB's most recent entry, which a hit leaves as it is.
    last_page: Vec<u64>,
    l2_tlb: SectorCache,
    l1_page_lines: u64,
    l2_page_lines: u64,
    dram: Dram,
    l2_free: u64,
    l2_cost: u64,
    to_l2: u64,
    slice: u64,
    crossbar: u64,
    far: u64,
    atomic: u64,
    tlb_l2: u64,
    walk: u64,
    atomic_free: LineMap<u64>,
    counts: L2Figures,
}

/// The L2 and DRAM counters for the report.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct L2Figures {
    /// Sectors asked of L2.
    pub sectors: u64,
    /// Sectors L2 held (near or far).
    pub hits: u64,
    /// Bytes read from DRAM.
    pub dram_read: u64,
    /// Bytes written back to DRAM.
    pub dram_write: u64,
}

impl MemorySystem {
    /// The memory system of `machine`, its L2's tags cut into up to `threads` shards (at most
    /// [`MAX_SHARDS`], a power of two that divides the set counts; the answers are the same
    /// whatever the count).
    pub fn new(machine: &Machine, threads: usize) -> MemorySystem {
        let m = &machine.memory;
        let lines = m.l2.bytes / u64::from(LINE_BYTES);
        let parts = m.l2.partitions;
        let near_lines = if parts > 1 { lines / u64::from(parts) } else { 0 };
        let divides = |n: u64| [lines, near_lines].iter().all(|&l| SectorCache::sets(l, m.l2.ways).is_multiple_of(n));
        let mut count = 1u64;
        while count * 2 <= threads.min(MAX_SHARDS) as u64 && divides(count * 2) {
            count *= 2;
        }
        let count = count as u32;
        let mut near: Vec<std::vec::IntoIter<SectorCache>> =
            (0..if parts > 1 { parts } else { 0 }).map(|_| SectorCache::split(near_lines, m.l2.ways, count).into_iter()).collect();
        let shards = SectorCache::split(lines, m.l2.ways, count)
            .into_iter()
            .map(|whole| Shard { whole, near: near.iter_mut().filter_map(Iterator::next).collect() })
            .collect();
        let sms = machine.sm.count;
        let per_cycle = m.l2.bandwidth_gbs / machine.clock_ghz;
        MemorySystem {
            shards,
            side: (0..sms).map(|sm| sm * parts / sms).collect(),
            in_order: InOrder {
                partitions: if parts > 1 { parts } else { 0 },
                l1_tlb: (0..sms).map(|_| SectorCache::new(u64::from(m.tlb.l1_entries), m.tlb.l1_entries)).collect(),
                last_page: vec![u64::MAX; sms as usize],
                l2_tlb: SectorCache::new(u64::from(m.tlb.l2_entries), m.tlb.l2_ways),
                l1_page_lines: m.tlb.l1_page_bytes / u64::from(LINE_BYTES),
                l2_page_lines: m.tlb.l2_page_bytes / u64::from(LINE_BYTES),
                dram: Dram::new(machine),
                l2_free: 0,
                l2_cost: ((f64::from(SECTOR_BYTES) * f64::from(1u32 << FRAC)) / per_cycle).round().max(1.0) as u64,
                to_l2: u64::from(m.l1.miss_latency) + u64::from(m.crossbar.latency),
                slice: u64::from(m.l2.slice_latency),
                crossbar: u64::from(m.crossbar.latency),
                far: u64::from(m.l2.far_latency),
                atomic: u64::from(m.l2.atomic_latency),
                tlb_l2: u64::from(m.tlb.l2_latency),
                walk: u64::from(m.tlb.walk_latency),
                atomic_free: LineMap::default(),
                counts: L2Figures::default(),
            },
        }
    }

    /// Answers `requests`, in their order: gives `answered` each with the cycle its answer is
    /// usable in its SM. Each shard looks its requests up in that order; when `parallel`, the
    /// shards but the first do so on the pool's other threads, ahead of this one, which looks up
    /// the first shard's as it answers (the answers are the same whatever the shards and threads).
    pub fn answer_all(&mut self, requests: &[Request], parallel: bool, mut answered: impl FnMut(&Request, u64)) {
        let n = self.shards.len();
        let mut mine: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, r) in requests.iter().enumerate() {
            mine[shard_of(r.line, n)].push(i as u32);
        }
        let MemorySystem { shards, side, in_order } = self;
        let side = &side[..];
        // Shard `s`'s next request, looked up on this thread; none once it has looked up all of them.
        let mut next = vec![0usize; n];
        let mut look_up_next = |s: usize, shard: &mut Shard| {
            let j = next[s];
            (j < mine[s].len()).then(|| {
                next[s] += 1;
                shard.look_up_nth(requests, &mine[s], j, side)
            })
        };
        let once = "each request is looked up once, in its shard's order";
        // A few hundred requests (the naive SGEMM's windows) cost less than handing them to
        // another thread and back: its two-thread boundary took 76 ms of 0.59 s that way, 64 alone.
        if !(parallel && n > 1 && requests.len() >= PARALLEL_LOOKUPS) {
            for r in requests {
                let s = shard_of(r.line, n);
                let found = look_up_next(s, &mut shards[s]).expect(once);
                answered(r, in_order.answer(r, side[r.sm as usize], found));
            }
            return;
        }
        let (first, others) = shards.split_at_mut(1);
        // What this thread looked up of its own shard while another's lookups were behind.
        let mut ahead = std::collections::VecDeque::new();
        rayon::in_place_scope(|scope| {
            let mut streams: Vec<Stream> = others
                .iter_mut()
                .zip(&mine[1..])
                .map(|(shard, list)| {
                    let (to, from) = std::sync::mpsc::channel();
                    scope.spawn(move |_| shard.stream(requests, list, side, &to));
                    Stream { from, chunk: Vec::new().into_iter() }
                })
                .collect();
            for r in requests {
                let found = match shard_of(r.line, n) {
                    0 => ahead.pop_front().or_else(|| look_up_next(0, &mut first[0])).expect(once),
                    s => streams[s - 1].next(|| look_up_next(0, &mut first[0]).map(|found| ahead.push_back(found)).is_some()),
                };
                answered(r, in_order.answer(r, side[r.sm as usize], found));
            }
        });
    }

    /// After the boundary of the window ending at `end`: the atomic unit forgets the lines it
    /// is done with by then, since every later request reaches L2 after `end`.
    pub fn end_window(&mut self, end: u64) {
        self.in_order.atomic_free.retain(|_, &mut free| free > end);
    }

    /// The counters for the report.
    pub fn figures(&self) -> L2Figures {
        self.in_order.counts
    }

    /// The cycle the answer to `r` is usable in its SM, for one request alone.
    #[cfg(test)]
    pub fn answer(&mut self, r: &Request) -> u64 {
        let mut at = 0;
        self.answer_all(std::slice::from_ref(r), false, |_, cycle| at = cycle);
        at
    }
}

impl InOrder {
    /// Extra cycles translating `line`'s address costs SM `sm`.
    fn translate(&mut self, sm: u32, line: u64) -> u64 {
        let page = line / self.l1_page_lines;
        // Most of an SM's requests fall in the page of its one before, which its L1 TLB holds
        // as the most recent: looking it up again would change nothing.
        if std::mem::replace(&mut self.last_page[sm as usize], page) == page {
            return 0;
        }
        if self.l1_tlb[sm as usize].access(page, 1, true, false).hit != 0 {
            return 0;
        }
        if self.l2_tlb.access(line / self.l2_page_lines, 1, true, false).hit != 0 { self.tlb_l2 } else { self.walk }
    }

    /// The partition that owns `line` (its DRAM is attached there).
    fn home(&self, line: u64) -> u32 {
        (mix(line) >> 7) as u32 % self.partitions.max(1)
    }

    /// The cycle the answer to `r`, from an SM near partition `side`, whose tags said `found`, is
    /// usable in its SM. Requests come in the order they were looked up in. Never sooner than
    /// [`Machine::l2_hit_latency`] after `r.cycle`, the window.
    fn answer(&mut self, r: &Request, side: u32, found: Found) -> u64 {
        let n = u64::from(r.sectors.count_ones());
        let arrive = r.cycle.saturating_add(self.to_l2 + self.translate(r.sm, r.line));
        // Saturating: the machine file's bounds keep these far from overflow, and should a
        // launch still reach it, its cycles stop at the largest figure rather than wrap.
        let start = arrive.saturating_mul(ONE).max(self.l2_free);
        self.l2_free = start.saturating_add(self.l2_cost.saturating_mul(n));
        let looked_up = start.div_ceil(ONE) + self.slice;
        self.counts.sectors += n;
        let Found { near_hit, rest, lookup } = found;
        let mut looked_up = looked_up;
        if lookup.evicted_dirty != 0 {
            // The line is free once DRAM's write queue has taken its dirty sectors: a
            // write-heavy stream runs at DRAM's pace, not the L2's.
            let evicted = u64::from(lookup.evicted_dirty.count_ones());
            self.counts.dram_write += evicted * u64::from(SECTOR_BYTES);
            let taken = self.dram.access(lookup.evicted_line, evicted, looked_up << FRAC, true);
            looked_up = looked_up.max(taken.div_ceil(ONE));
        }
        let far = if self.partitions == 0 { 0 } else { self.far };
        if r.kind == ReqKind::Store {
            // Whole sectors are written: allocated in L2 without reading DRAM, acknowledged by the near slice.
            self.counts.hits += n;
            return looked_up + self.crossbar;
        }
        let far_hit = lookup.hit & !near_hit;
        let miss = u64::from((rest & !lookup.hit).count_ones());
        self.counts.hits += u64::from((near_hit | lookup.hit).count_ones());
        let mut ready = if miss > 0 {
            self.counts.dram_read += miss * u64::from(SECTOR_BYTES);
            let remote = if self.home(r.line) != side { far } else { 0 };
            let back = self.dram.access(r.line, miss, (looked_up + remote) << FRAC, false);
            back.div_ceil(ONE) + self.crossbar
        } else if far_hit != 0 {
            looked_up + far + self.crossbar
        } else {
            looked_up + self.crossbar
        };
        if let ReqKind::Atomic { ops } = r.kind {
            // The L2's atomic unit applies one operation per cycle to a line, across SMs, each
            // `atomic` cycles from the line's arrival to its new value.
            let free = self.atomic_free.entry(r.line).or_insert(0);
            let begin = ready.max(*free);
            *free = begin + u64::from(ops);
            ready = begin + u64::from(ops) - 1 + self.atomic;
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(sm: u32, line: u64, cycle: u64) -> Request {
        Request { cycle, sm, seq: 0, line, sectors: 1, kind: ReqKind::Load, tag: 0 }
    }

    #[test]
    fn a_chase_pays_near_far_and_dram_stages() {
        let h100 = Machine::builtin("h100");
        let mut mem = MemorySystem::new(&h100, 1);
        let near = h100.l2_hit_latency();
        // Cold: DRAM, well beyond an L2 hit.
        let cold = mem.answer(&load(0, 7, 0));
        assert!(cold > near + u64::from(h100.memory.dram.latency), "cold miss {cold}");
        // Again from the same side: a near hit, the sum of the L2 path's stages.
        assert_eq!(mem.answer(&load(0, 7, 10_000)) - 10_000, near);
        // From an SM near the other partition: that partition lacks the line, the whole L2 has it;
        // and that SM's L1 TLB lacks the page, which the shared L2 TLB has.
        let other = h100.sm.count - 1;
        let m = &h100.memory;
        assert_eq!(mem.answer(&load(other, 7, 20_000)) - 20_000, near + u64::from(m.l2.far_latency + m.tlb.l2_latency));
        assert_eq!(mem.answer(&load(other, 7, 30_000)) - 30_000, near, "now a copy is near it too");
    }

    #[test]
    fn answers_are_the_same_whatever_the_shards() {
        // An H100 with an L2 of 64 sets, so that a few thousand lines fill it.
        let mut h100 = Machine::builtin("h100");
        h100.memory.l2.bytes = 64 * u64::from(h100.memory.l2.ways * LINE_BYTES);
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15);
        let requests: Vec<Request> = (0..20_000u64)
            .map(|i| {
                let x = next();
                let kind = match x % 5 {
                    0 => ReqKind::Store,
                    1 => ReqKind::Atomic { ops: 2 },
                    _ => ReqKind::Load,
                };
                // Twice the L2's lines, so that lines hit, miss, go far and are evicted dirty.
                Request { cycle: i / 4, sm: (x >> 20) as u32 % h100.sm.count, seq: i, line: (x >> 24) % 5_000, sectors: (x >> 8) as u8 | 1, kind, tag: 0 }
            })
            .collect();
        let answers = |shards: usize, threads: usize, parallel: bool| {
            let mut mem = MemorySystem::new(&h100, shards);
            let mut answers = Vec::new();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            pool.install(|| mem.answer_all(&requests, parallel, |_, at| answers.push(at)));
            answers
        };
        let one = answers(1, 1, false);
        assert_eq!(MemorySystem::new(&h100, 4).shards.len(), 4);
        assert_eq!(MemorySystem::new(&Machine::builtin("h100"), 1024).shards.len(), MAX_SHARDS, "a thousand threads, a few dozen shards");
        assert_eq!(answers(4, 4, true), one);
        assert_eq!(answers(4, 4, false), one);
        // No other thread takes the shards' tasks: this one runs them once it has waited.
        assert_eq!(answers(4, 1, true), one);
    }

    #[test]
    fn a_store_leaves_the_other_partitions_copy_stale() {
        let h100 = Machine::builtin("h100");
        let mut mem = MemorySystem::new(&h100, 1);
        let other = h100.sm.count - 1;
        mem.answer(&load(0, 9, 0));
        mem.answer(&load(other, 9, 10_000));
        let near = h100.l2_hit_latency();
        assert_eq!(mem.answer(&load(other, 9, 20_000)) - 20_000, near, "both partitions hold a copy");
        mem.answer(&Request { kind: ReqKind::Store, ..load(0, 9, 30_000) });
        let far = u64::from(h100.memory.l2.far_latency);
        assert_eq!(mem.answer(&load(other, 9, 40_000)) - 40_000, near + far, "the far side reads the written line from its home");
        assert_eq!(mem.answer(&load(0, 9, 50_000)) - 50_000, near, "the writer's side keeps its copy");
    }

    #[test]
    fn an_atomic_pays_the_atomic_unit_over_a_hit_and_queues_behind_others_on_its_line() {
        let v100 = Machine::builtin("v100");
        let mut mem = MemorySystem::new(&v100, 1);
        let (hit, unit) = (v100.l2_hit_latency(), u64::from(v100.memory.l2.atomic_latency));
        assert!(unit > 0);
        // Both SMs' TLBs hold the page.
        mem.answer(&load(0, 5, 0));
        mem.answer(&load(1, 5, 0));
        let atomic = |sm, ops, cycle| Request { kind: ReqKind::Atomic { ops }, ..load(sm, 5, cycle) };
        assert_eq!(mem.answer(&atomic(0, 1, 10_000)) - 10_000, hit + unit, "one operation on a line L2 holds");
        // Three lanes on one word, then another SM's atomic on the line in the same cycle: the
        // unit applies one operation a cycle, so the second waits for the first's three.
        assert_eq!(mem.answer(&atomic(0, 3, 20_000)) - 20_000, hit + 2 + unit);
        assert_eq!(mem.answer(&atomic(1, 1, 20_000)) - 20_000, hit + 3 + unit);
    }

    #[test]
    fn dram_row_hits_beat_row_misses_and_writes_turn_the_bus_around_and_wait_for_room() {
        let h100 = Machine::builtin("h100");
        let mut dram = Dram::new(&h100);
        let start = 1_000_000 << FRAC;
        let first = dram.access(0, 1, start, false);
        // The next line of the same row, once the bank is free: only t_cl.
        let hit = dram.access(1, 1, first, false) - first;
        // A line in another row of the same bank: precharge and activate first.
        let (rows, channels, banks) = (dram.row_lines, dram.channels.len() as u64, dram.per_channel);
        let bank_of = |line: u64| {
            let h = mix(line / rows);
            (h % channels, (h / channels) % banks)
        };
        let other = (1..).map(|r| r * rows).find(|&l| bank_of(l) == bank_of(0)).expect("a row in the same bank");
        let at = first + (1 << 30);
        let miss = dram.access(other, 1, at, false) - at;
        assert_eq!(miss - hit, dram.t_rp + dram.t_rcd, "a row miss costs precharge and activate");
        // A batch of writes holds the bus for its sectors and two turnarounds.
        let ch = bank_of(0).0 as usize;
        let before = dram.channels[ch].bus_free;
        for _ in 0..dram.write_batch {
            dram.access(0, 1, before, true);
        }
        assert_eq!(dram.channels[ch].bus_free - before, 2 * dram.turnaround + dram.write_batch * dram.sector_cost);
        // The next batch, with no read between, needs no turnaround; and a writer finding two
        // batches' worth still to go out waits for room in the queue.
        let second = dram.channels[ch].bus_free;
        let mut taken = 0;
        for _ in 0..dram.write_batch {
            taken = dram.access(0, 1, before, true);
        }
        assert_eq!(dram.channels[ch].bus_free - second, dram.write_batch * dram.sector_cost);
        assert_eq!(taken, dram.channels[ch].writes_free - dram.write_batch * dram.sector_cost, "the last write waited for the queue");
        assert!(taken > before);
    }
}
