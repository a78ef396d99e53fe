#!/usr/bin/env python3
"""compare-results.py [--csv] ONE MERGED: exit 0 when the result JSON files
of a one-process run (ONE) and of a merged sharded run (MERGED) are equal
field by field, timing fields aside (start, end, wall*, *runtime*, *_ns,
*seconds); trial files and manifests are not compared (the merge copies the
former, and the latter name the shards). With --csv, the CSV tables too,
cell by cell as text, but for the columns whose header starts with wall,
time or runtime (e.g. Table 4's "wall s A1 / cP"). Used by make test-slurm
and make test-k8s."""
import csv
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


def table(path):
    """The CSV's rows, each section's timing columns (by its header) blank."""
    rows, drop = [], set()
    with open(path, newline="") as fh:
        for i, row in enumerate(csv.reader(fh)):
            if not row:
                drop = None
            elif drop is None or i == 0:
                drop = {j for j, h in enumerate(row) if h.strip().lower().startswith(("wall", "time", "runtime"))}
            rows.append([("" if drop and j in drop else x) for j, x in enumerate(row)])
    return rows


def results(root, tables):
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != "trials"]
        for f in files:
            path = os.path.join(d, f)
            if f.endswith(".json") and not f.startswith(("manifest", "shard-")):
                with open(path) as fh:
                    out[os.path.relpath(path, root)] = strip(json.load(fh))
            elif tables and f.endswith(".csv"):
                out[os.path.relpath(path, root)] = table(path)
    return out


args = sys.argv[1:]
tables = "--csv" in args
args = [x for x in args if x != "--csv"]
a, b = results(args[0], tables), results(args[1], tables)
if not a or a != b:
    print("differ:", sorted(set(a) ^ set(b)) or [k for k in a if a[k] != b.get(k)], file=sys.stderr)
    sys.exit(1)
print("same results:" if tables else "same result JSON:", ", ".join(sorted(a)))
