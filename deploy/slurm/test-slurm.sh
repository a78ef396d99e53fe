#!/bin/bash
# A real Slurm test of sharded runs (make test-slurm): installs Debian's
# slurm-wlm and munge (as root or with sudo), starts a one-node slurmctld and
# slurmd on this machine, submits a 4-task array of a small sweep and of the
# quick Table 4 with their merges (afterok), waits, and compares the merged
# result JSON with a one-process run's, timing fields aside.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
start=$(date +%s)
need=()
command -v slurmctld >/dev/null || need+=(slurm-wlm)
command -v munged >/dev/null || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v python3 >/dev/null || { echo "test-slurm: python3 is needed to compare the results" >&2; exit 2; }

work=$(mktemp -d /tmp/fedcon-slurm.XXXXXX)
chmod 755 "$work"
host=$(hostname -s)
cpus=$(nproc)
conf=/etc/slurm/slurm.conf
pids=()
stop_munge=
cleanup() {
  set +e
  command -v scancel >/dev/null && $SUDO scancel --user=root >/dev/null 2>&1
  for p in "${pids[@]}"; do $SUDO kill "$p" 2>/dev/null; done
  sleep 2
  for p in "${pids[@]}"; do $SUDO kill -9 "$p" 2>/dev/null; done
  [ -n "${stop_munge:-}" ] && [ -f /run/munge/munged.pid ] && $SUDO kill "$(cat /run/munge/munged.pid)" 2>/dev/null
  return 0
}
trap cleanup EXIT

# munge: a key, then the daemon.
$SUDO mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null; then $SUDO mungekey --create --force; else $SUDO create-munge-key -f; fi
fi
$SUDO chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge 2>/dev/null || true
$SUDO chmod 400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  if [ -n "$SUDO" ]; then sudo -u munge munged 2>/dev/null || sudo munged --force 2>/dev/null; else munged --force 2>/dev/null; fi
  stop_munge=1
  for i in $(seq 10); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 1; done
fi
munge -n | unmunge >/dev/null || { echo "test-slurm: munged does not answer" >&2; exit 1; }

# A one-node cluster: no cgroups (linuxproc tracking, no task plugin).
$SUDO mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
$SUDO tee "$conf" >/dev/null <<CONF
ClusterName=fedcon-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
$SUDO slurmctld -D -i -f "$conf" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
$SUDO slurmd -D -f "$conf" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 60); do
  if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)'; then break; fi
  [ "$i" -eq 60 ] && { echo "test-slurm: the node never became idle:"; sinfo; tail -5 "$work"/slurm*.log; exit 1; } >&2
  sleep 1
done
echo "test-slurm: slurm up after $(( $(date +%s) - start )) s (node $host, $cpus CPUs)"

cd "$repo"
go build -o "$work/fedcon" .
cat >"$work/tiny.yaml" <<'YAML'
preset: table4
base: {cells: [[2, 10, 1], [3, 20, 2]], trials: 3}
sweep:
  beta: [5, 10]
YAML
export FEDCON="$work/fedcon" FEDCON_WORKDIR="$work"
declare -A runs=([sweep]="sweep $work/tiny.yaml" [table4]="reproduce all --quick --only table4")
merges=()
for name in "${!runs[@]}"; do
  # shellcheck disable=SC2086
  out=$(cd "$work" && FEDCON_SHARED="$work/$name" "$repo/deploy/slurm/submit.sh" 4 ${runs[$name]})
  echo "test-slurm: $name: $out"
  merges+=("$(echo "$out" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')")
  # shellcheck disable=SC2086
  (cd "$work" && "$FEDCON" ${runs[$name]} --quiet --out "$work/$name-one" >/dev/null)
done
for i in $(seq 600); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 1
done
fail=0
for j in "${merges[@]}"; do
  state=$(scontrol show job "$j" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  if [ -n "$state" ] && [ "$state" != COMPLETED ]; then echo "test-slurm: merge job $j: $state" >&2; fail=1; fi
done
for name in "${!runs[@]}"; do
  if ! python3 - "$work/$name-one" "$work/$name/merged" <<'PY'
import json, os, sys
def timing(k):
    return k in ("start", "end") or k.startswith("wall") or "runtime" in k or k.endswith("_ns") or k.endswith("seconds")
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not timing(k)}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
def results(root):
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != "trials"]
        for f in files:
            if f.endswith(".json") and not f.startswith(("manifest", "shard-")):
                with open(os.path.join(d, f)) as fh:
                    out[os.path.relpath(os.path.join(d, f), root)] = strip(json.load(fh))
    return out
a, b = results(sys.argv[1]), results(sys.argv[2])
if not a or a != b:
    print("differ:", sorted(set(a) ^ set(b)) or [k for k in a if a[k] != b.get(k)], file=sys.stderr)
    sys.exit(1)
print("same result JSON:", ", ".join(sorted(a)))
PY
  then fail=1; echo "test-slurm: $name: the merge differs from the one-process run (logs: $work)" >&2; fi
done
echo "test-slurm: $([ $fail -eq 0 ] && echo PASS || echo FAIL) in $(( $(date +%s) - start )) s"
[ $fail -ne 0 ] || rm -rf "$work"
exit $fail
