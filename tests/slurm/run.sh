#!/usr/bin/env bash
# A sweep through a real one-node Slurm cluster: `simt sweep --emit slurm`, one
# array task cancelled, `--status` showing its jobs missing, a second emit covering
# exactly them, and the collected table equal to the local pool's, byte for byte.
#
# Usage: tests/slurm/run.sh [SIMT]   (default target/release/simt). Installs Slurm
# with apt-get when it is missing and this is root; otherwise prints why and skips.
# The daemons run from a scratch folder and are stopped by their pid files.
set -euo pipefail

SIMT=$(realpath "${1:-target/release/simt}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

skip() { echo "slurm test skipped: $*"; exit 0; }

if ! command -v sbatch >/dev/null || ! command -v slurmctld >/dev/null; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || skip "Slurm is not installed and this is not root with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmd slurmctld slurm-client munge) >/dev/null 2>&1 \
        || skip "apt-get could not install slurmd slurmctld slurm-client munge"
fi
[ "$(id -u)" = 0 ] || skip "the one-node cluster runs its daemons as root"

D=$(mktemp -d)
stop() {
    for pid in "$D/slurmd.pid" "$D/slurmctld.pid" ${STARTED_MUNGE:+/run/munge/munged.pid}; do
        [ -f "$pid" ] || continue
        p=$(cat "$pid")
        kill "$p" 2>/dev/null || continue
        # A daemon writes its state as it stops: removing its directory under it fails
        # ("Directory not empty"), so wait up to five seconds for it to go.
        for _ in $(seq 50); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
    done
    rm -rf "$D"
}
trap stop EXIT

STARTED_MUNGE=
mkdir -p "$D/state" "$D/spool" "$D/log" /run/munge
chown munge:munge /run/munge
[ -f /etc/munge/munge.key ] || skip "munge has no key (/etc/munge/munge.key)"
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    su -s /bin/sh munge -c /usr/sbin/munged || skip "munged does not start"
    STARTED_MUNGE=1
fi
HOST=$(hostname)
cat > "$D/slurm.conf" <<EOF
ClusterName=local
SlurmctldHost=$HOST
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/ctld.log
SlurmdLogFile=$D/log/d.log
ReturnToService=2
MaxArraySize=1001
NodeName=$HOST CPUs=$(nproc) RealMemory=2000 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$D/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start"
slurmd -f "$SLURM_CONF" || skip "slurmd does not start"
for _ in $(seq 60); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %t | grep -q idle || skip "the node never became idle: $(sinfo 2>&1 | tail -1)"

# Twelve jobs: two kernels, three grids, both SIMT models.
work() {
    local dir=$1
    mkdir -p "$dir/k"
    cp "$ROOT/asm/saxpy.s" "$ROOT/asm/vector_add.s" "$dir/k/"
    printf 'out = "s.sweep"\n[[kernel]]\npath = "k/*.s"\n[grid]\nsimt = ["its", "stack"]\ngrid = ["1", "2", "4"]\n' > "$dir/plan.toml"
}
wait_for() {
    for _ in $(seq 300); do [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0; sleep 1; done
    echo "slurm test: job $1 did not finish"; squeue; exit 1
}
fail() { echo "slurm test failed: $*"; exit 1; }

W="$D/cluster"; work "$W"; cd "$W"
"$SIMT" sweep plan.toml --emit slurm arr --chunk 4 --partition local > emit.txt
grep -q "^12 jobs in 3 array tasks" emit.txt || fail "first emit: $(cat emit.txt)"
# Held, so task 1 can be cancelled before anything runs.
jid=$(sbatch --parsable --hold arr/sweep.sbatch)
scancel "${jid}_1"
scontrol release "$jid"
wait_for "$jid"
status=$("$SIMT" sweep plan.toml --status)
[ "$status" = "12 jobs: 8 done, 0 failed, 4 missing" ] || fail "after the cancelled task: $status"
"$SIMT" sweep plan.toml --emit slurm arr --chunk 4 > emit.txt
grep -q "^4 jobs in 1 array tasks" emit.txt || fail "second emit: $(cat emit.txt)"
jid=$(sbatch --parsable arr/sweep.sbatch)
wait_for "$jid"
status=$("$SIMT" sweep plan.toml --status)
[ "$status" = "12 jobs: 12 done, 0 failed, 0 missing" ] || fail "after the second array: $status"
"$SIMT" collect s.sweep -o "$D/cluster.csv"

L="$D/local"; work "$L"; cd "$L"
"$SIMT" sweep plan.toml 2> /dev/null
"$SIMT" collect s.sweep -o "$D/local.csv"
cmp "$D/cluster.csv" "$D/local.csv" || fail "the cluster's table differs from the local pool's"
echo "slurm test passed: a cancelled array task re-emitted and run, table equal to the local pool's"
