#!/usr/bin/env python3
"""compare-results.py ONE MERGED: exit 0 when the result JSON files of a
one-process run (ONE) and of a merged sharded run (MERGED) are equal field by
field, timing fields aside (start, end, wall*, *runtime*, *_ns, *seconds);
trial files and manifests are not compared (the merge copies the former,
and the latter name the shards). Used by make test-slurm and make test-k8s."""
import json
import os
import sys


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
