#!/usr/bin/env python3
"""The suites' bench table: p50 / p95 (host and device) per shape and implementation, mean of the
rounds, and the official / ours-graph ratio per round, from `laya-engine bench --json` and
official_gpu_bench.py --json lines tagged with "round" and "impl" (run_gpu_suite.sh).

usage: bench_table.py BENCH.jsonl
"""
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "shape" in r and "p50_ms" in r:
        by[(r.get("impl", "?"), r["shape"])].append(r)
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.replace("+", "x").split("x")])
print("%-8s %-13s %9s %9s %11s %11s" % ("shape", "impl", "p50 ms", "p95 ms", "dev p50", "dev p95"))
for s in shapes:
    for impl in ("ours-eager", "ours-graph", "official"):
        rs = by.get((impl, s), [])
        if not rs: continue
        m = lambda k: sum(r.get(k, float("nan")) for r in rs) / len(rs)
        print("%-8s %-13s %9.3f %9.3f %11.3f %11.3f" % (s, impl, m("p50_ms"), m("p95_ms"), m("device_p50_ms") if "device_p50_ms" in rs[0] else float("nan"), m("device_p95_ms") if "device_p95_ms" in rs[0] else float("nan")))
    o, g = by.get(("official", s)), by.get(("ours-graph", s))
    if o and g:
        ratios = [a["p50_ms"] / b["p50_ms"] for a, b in zip(o, g)]
        print("%-8s official/ours-graph p50 ratio per round: %s" % (s, ", ".join("%.2fx" % x for x in ratios)))
mem = [r for r in rows if "device_memory_mb" in r]
for r in mem: print("device memory in use by the engine after run: %.0f MB (%s)" % (r["device_memory_mb"], r.get("impl")))
