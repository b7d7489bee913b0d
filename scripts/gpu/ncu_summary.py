#!/usr/bin/env python3
"""Sums an `ncu --csv --metrics gpu__time_duration.sum` log per kernel name and prints the top N.

Only the last forward is counted: the rows from the last embedding kernel on (a bench run with one
warm-up forward profiles that forward too, and the first forward of a large bucket also times its
GEMM candidates).

usage: ncu_summary.py NCU_CSV SHAPE [TOP]   (used by run_gpu_suite.sh and run_ab_suite.sh)
"""
import collections
import csv
import re
import sys

path, shape = sys.argv[1], sys.argv[2]
top = int(sys.argv[3]) if len(sys.argv) > 3 else 12
rows = [r for r in csv.reader(open(path)) if len(r) > 5]
at = next(i for i, r in enumerate(rows) if "Kernel Name" in r)  # bench's own JSON lines come first
hdr, rows = rows[at], rows[at + 1:]
ki, vi = hdr.index("Kernel Name"), hdr.index("Metric Value")
starts = [i for i, r in enumerate(rows) if "embed_ln_kernel" in r[ki]]
if starts:
    rows = rows[starts[-1]:]
ui = hdr.index("Metric Unit") if "Metric Unit" in hdr else None
tot, cnt = collections.Counter(), collections.Counter()
for r in rows:
    try:
        v = float(r[vi].replace(",", ""))
    except ValueError:
        continue
    unit = r[ui] if ui is not None else "ns"
    v = v / 1000.0 if unit in ("ns", "nsecond") else (v if unit in ("us", "usecond") else v * 1000.0)
    name = re.sub(r"\(.*", "", r[ki])[:70]
    tot[name] += v
    cnt[name] += 1
print("profile %s: %d kernels, %.1f us total" % (shape, sum(cnt.values()), sum(tot.values())))
for n, v in tot.most_common(top):
    print("  %9.1f us %4d x  %s" % (v, cnt[n], n))
