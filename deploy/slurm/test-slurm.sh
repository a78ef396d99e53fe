#!/bin/bash
# A real Slurm test of sharded runs (make test-slurm): installs Debian's
# slurm-wlm and munge (as root or with sudo), starts a one-node slurmctld and
# slurmd of its own (configuration, state, spool and logs under one
# temporary directory, on free ports; SLURM_CONF points the client commands
# at it; the system's Slurm files are not touched), submits a 4-task array
# of a small sweep and of the quick Table 4 with their merges (afterok), and
# compares the merged result JSON with a one-process run's, timing fields
# aside. Then: arguments that do not parse are refused before anything is
# submitted, and an array with a failing task gets its merge cancelled
# instead of pending forever. Every wait has a hard deadline; on exit it
# cancels exactly the jobs it submitted and stops the daemons it started.
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
mkdir -p "$work/state" "$work/spool"
host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$work/slurm.conf
pids=()
jobs_submitted=()
stop_munge=
log_tail() {
  for f in "$work"/slurmctld.log "$work"/slurmd.log "$work"/slurmctld.out "$work"/slurmd.out; do
    [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
  done
  return 0
}
cleanup() {
  set +e
  if [ ${#jobs_submitted[@]} -gt 0 ]; then
    timeout 10 scancel "${jobs_submitted[@]}" >/dev/null 2>&1
  fi
  for p in "${pids[@]}"; do $SUDO kill "$p" 2>/dev/null; done
  for _ in 1 2 3 4 5; do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 1
  done
  for p in "${pids[@]}"; do $SUDO kill -9 "$p" 2>/dev/null; done
  [ -n "${stop_munge:-}" ] && [ -f /run/munge/munged.pid ] && $SUDO kill "$(cat /run/munge/munged.pid)" 2>/dev/null
  return 0
}
trap cleanup EXIT
fail_now() { echo "test-slurm: $*" >&2; log_tail >&2; exit 1; }

# munge: the system's daemon when it answers; else a key (only when there
# is none) and a daemon that this script stops again.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  $SUDO mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    if command -v mungekey >/dev/null; then $SUDO mungekey --create; else $SUDO create-munge-key; fi
  fi
  $SUDO chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge 2>/dev/null || true
  $SUDO chmod 400 /etc/munge/munge.key
  if [ -n "$SUDO" ]; then sudo -u munge munged 2>/dev/null || sudo munged --force 2>/dev/null; else munged --force 2>/dev/null; fi
  stop_munge=1
  for _ in $(seq 10); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 1; done
fi
munge -n | unmunge >/dev/null || { echo "test-slurm: munged does not answer" >&2; exit 1; }

# Two free ports: another Slurm on this machine keeps its own.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

# A one-node cluster: no cgroups (linuxproc tracking, no task plugin).
cat >"$SLURM_CONF" <<CONF
ClusterName=fedcon-test-$$
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
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
MessageTimeout=5
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
$SUDO slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
$SUDO slurmd -D -N "$host" -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
# Health check: both daemons alive, the controller answering, the node
# idle; at most 45 s, each query at most 5 s.
deadline=$(($(date +%s) + 45))
while :; do
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || fail_now "a Slurm daemon (pid $p) exited during start-up:"
  done
  if timeout 5 scontrol ping 2>/dev/null | grep -q UP &&
    timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)'; then
    break
  fi
  [ "$(date +%s)" -lt "$deadline" ] || fail_now "slurmctld and slurmd not up and idle within 45 s:"
  sleep 1
done
echo "test-slurm: slurm up after $(($(date +%s) - start)) s (node $host, $cpus CPUs, ports $ctld_port/$slurmd_port, $work)"

cd "$repo"
go build -o "$work/fedcon" .
cat >"$work/tiny.yaml" <<'YAML'
preset: table4
base: {cells: [[2, 10, 1], [3, 20, 2]], trials: 3}
sweep:
  beta: [5, 10]
YAML
# A fedcon whose array task 1 fails: its merge must be cancelled.
cat >"$work/fedcon-fails-task-1" <<SH
#!/bin/sh
[ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ] && { echo "task 1 fails on purpose" >&2; exit 3; }
exec "$work/fedcon" "\$@"
SH
chmod +x "$work/fedcon-fails-task-1"
export FEDCON="$work/fedcon" FEDCON_WORKDIR="$work"

# submit NAME FEDCON ARGS...: submits through submit.sh, records the job
# ids (for the cleanup) and sets merge_id.
submit() {
  local name=$1 bin=$2 out array
  shift 2
  out=$(cd "$work" && FEDCON=$bin FEDCON_SHARED="$work/$name" "$repo/deploy/slurm/submit.sh" 4 "$@") ||
    fail_now "$name: submit.sh failed"
  echo "test-slurm: $name: $out"
  array=$(echo "$out" | sed -n 's/^array job \([0-9]*\).*/\1/p')
  merge_id=$(echo "$out" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
  [ -n "$array" ] && [ -n "$merge_id" ] || fail_now "$name: no job ids in '$out'"
  jobs_submitted+=("$array" "$merge_id")
}

fail=0
# Bad arguments: refused by the dry run, nothing queued.
before=$(timeout 5 squeue -h | wc -l)
if (cd "$work" && FEDCON_SHARED="$work/bad" "$repo/deploy/slurm/submit.sh" 4 reproduce table4 --beta -1 2>"$work/bad.err"); then
  echo "test-slurm: submit.sh accepted --beta -1" >&2; fail=1
elif [ "$(timeout 5 squeue -h | wc -l)" != "$before" ] || ! grep -q "nothing submitted" "$work/bad.err"; then
  echo "test-slurm: submit.sh with --beta -1 queued jobs or said nothing: $(cat "$work/bad.err")" >&2; fail=1
else
  echo "test-slurm: bad arguments refused before submitting: $(head -n 1 "$work/bad.err")"
fi

declare -A runs=([sweep]="sweep $work/tiny.yaml" [table4]="reproduce all --quick --only table4")
merges=()
for name in "${!runs[@]}"; do
  # shellcheck disable=SC2086
  submit "$name" "$FEDCON" ${runs[$name]}
  merges+=("$merge_id")
  # shellcheck disable=SC2086
  (cd "$work" && "$FEDCON" ${runs[$name]} --quiet --out "$work/$name-one" >/dev/null)
done
submit failing "$work/fedcon-fails-task-1" sweep "$work/tiny.yaml"
doomed=$merge_id

# Every submitted job leaves the queue (the doomed merge by cancellation)
# within 10 minutes, or the test fails with the queue and the logs.
deadline=$(($(date +%s) + 600))
while [ -n "$(timeout 5 squeue -h -o %i -j "$(IFS=,; echo "${jobs_submitted[*]}")" 2>/dev/null)" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || {
    timeout 5 squeue -o '%i %T %r' >&2
    fail_now "jobs still queued after 600 s"
  }
  sleep 2
done
job_state() { timeout 5 scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
for j in "${merges[@]}"; do
  state=$(job_state "$j")
  if [ "$state" != COMPLETED ]; then echo "test-slurm: merge job $j: $state" >&2; fail=1; fi
done
state=$(job_state "$doomed")
if [ "$state" = CANCELLED ]; then
  echo "test-slurm: a failed shard cancelled its merge (job $doomed: $state)"
else
  echo "test-slurm: merge job $doomed after a failed shard: '$state', want CANCELLED" >&2
  fail=1
fi

for name in "${!runs[@]}"; do
  if ! python3 "$repo/deploy/compare-results.py" "$work/$name-one" "$work/$name/merged"
  then fail=1; echo "test-slurm: $name: the merge differs from the one-process run (logs: $work)" >&2; fi
done
echo "test-slurm: $([ $fail -eq 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - start)) s"
[ $fail -ne 0 ] || rm -rf "$work"
exit $fail
