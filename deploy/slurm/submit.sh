#!/bin/bash
# Submit a sharded fedcon run and its merge to Slurm:
#   FEDCON_SHARED=/shared/fedcon deploy/slurm/submit.sh 8 reproduce all --quick
# runs 8 array tasks (shards 0..7) then, if all succeed, the merge into
# $FEDCON_SHARED/merged. Watch with: fedcon status $FEDCON_SHARED
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: FEDCON_SHARED=DIR $0 SHARDS FEDCON-ARGS..." >&2
  exit 2
fi
: "${FEDCON_SHARED:?set FEDCON_SHARED to a directory every node sees}"
n=$1; shift
case $n in ''|*[!0-9]*|0) echo "$0: SHARDS must be a positive integer, got '$n'" >&2; exit 2;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$FEDCON_SHARED"
export FEDCON_SHARED
array=$(sbatch --parsable --export=ALL --array=0-$((n - 1)) "$here/fedcon-array.sbatch" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --dependency=afterok:"$array" "$here/fedcon-merge.sbatch")
echo "array job $array ($n shards), merge job $merge: results in $FEDCON_SHARED/merged"
