#!/bin/bash
# Submit a sharded fedcon run and its merge to Slurm:
#   FEDCON_SHARED=/shared/fedcon deploy/slurm/submit.sh 8 reproduce all --quick
# runs 8 array tasks (shards 0..7) then, if all succeed, the merge into
# $FEDCON_SHARED/merged; if a task fails, Slurm cancels the merge
# (--kill-on-invalid-dep=yes) instead of leaving it pending forever. The
# arguments are checked first by a dry run of shard 0's configuration: a
# typo is reported here (exit 2), not inside the queued tasks.
# Watch with: fedcon status $FEDCON_SHARED
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: FEDCON_SHARED=DIR $0 SHARDS FEDCON-ARGS..." >&2
  exit 2
fi
: "${FEDCON_SHARED:?set FEDCON_SHARED to a directory every node sees}"
n=$1; shift
case $n in ''|*[!0-9]*|0*) echo "$0: SHARDS must be a positive integer without leading zeros, got '$n'" >&2; exit 2;; esac
here=$(cd "$(dirname "$0")" && pwd)
FEDCON=${FEDCON:-fedcon}
if ! dry=$(cd "${FEDCON_WORKDIR:-$PWD}" && "$FEDCON" "$@" --shard "0/$n" --dry-run --quiet 2>&1 >/dev/null); then
  echo "$dry" >&2
  echo "$0: '$FEDCON $* --shard 0/$n --dry-run' failed: nothing submitted" >&2
  exit 2
fi
mkdir -p "$FEDCON_SHARED"
export FEDCON_SHARED
array=$(sbatch --parsable --export=ALL --array=0-$((n - 1)) "$here/fedcon-array.sbatch" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --kill-on-invalid-dep=yes --dependency=afterok:"$array" "$here/fedcon-merge.sbatch")
merge=${merge%%;*}
echo "array job $array ($n shards), merge job $merge: results in $FEDCON_SHARED/merged"
