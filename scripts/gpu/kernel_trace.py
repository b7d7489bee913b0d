#!/usr/bin/env python3
"""Timeline per forward from liblaya_kernel_trace.so's record (bench/cuda/kernel_trace.cpp).

usage: kernel_trace.py TRACE.tsv [--head N] [--layer-detail N] [--tail N]

A forward replayed from a CUDA Graph is one cudaGraphLaunch: its kernels share the launch's
correlation id. For the forwards of the most common kernel count (the measured replays of one
bucket) it prints, as medians over the forwards:
  - the span (first kernel's start to last kernel's end) and how it splits into time in kernels
    (the union of their intervals) and time with no kernel running (the gaps: edges, launches);
  - a table by kernel (short name, grid): calls a forward, time in them, the gaps before them
    (start minus the previous kernel's end; below zero where a programmatic edge let it start
    early), in microseconds a forward;
  - with --head N, the forward's first N kernels (the staging copy, the embedding, layer 0), one by one;
  - with --layer-detail N, the N kernels from the forward's middle, one by one (one layer's chain);
  - with --tail N, the forward's last N kernels (the decision layers and heads), likewise.
Each kernel of those lists also shows what it adds to the forward: its end minus the latest end
before it (its place in the chain, whatever overlapped).
"""
import re
import statistics
import sys
from collections import Counter, defaultdict


def short_name(mangled):
    """The function's own identifier from an Itanium-mangled name (nvjet's names are plain C)."""
    if not mangled.startswith("_Z"):
        return mangled[:48]
    s = mangled[2:]
    if s.startswith("N"):  # nested: take the last identifier before the closing E
        s, last = s[1:], None
        while s and s[0].isdigit():
            m = re.match(r"(\d+)", s)
            n = int(m.group(1))
            last = s[len(m.group(1)):len(m.group(1)) + n]
            s = s[len(m.group(1)) + n:]
            if s.startswith("I"):  # template arguments of this component: stop here
                break
        return last or mangled[:48]
    m = re.match(r"(\d+)", s)
    if not m:
        return mangled[:48]
    n = int(m.group(1))
    return s[len(m.group(1)):len(m.group(1)) + n]


def main():
    args = sys.argv[1:]

    def count_option(flag):  # "--flag N" taken out of args; 0 when absent
        if flag not in args:
            return 0
        i = args.index(flag)
        n = int(args[i + 1])
        del args[i:i + 2]
        return n

    head, detail, tail = count_option("--head"), count_option("--layer-detail"), count_option("--tail")
    groups = defaultdict(list)
    for line in open(args[0]):
        f = line.rstrip("\n").split("\t")
        if len(f) < 9:
            continue
        corr, graph, start, end, grid, block, regs, smem, name = f[:9]
        groups[(int(corr), int(graph))].append((int(start), int(end), int(grid), int(block), short_name(name)))
    forwards = [sorted(k) for (corr, graph), k in groups.items() if graph != 0 and len(k) >= 8]
    if not forwards:
        print("no graph replays in the trace")
        return
    count = Counter(len(k) for k in forwards).most_common(1)[0][0]
    forwards = [k for k in forwards if len(k) == count]
    labels = ["%s[%d]" % (k[4], k[2]) for k in forwards[0]]
    spans, busy = [], []
    per_pos_dur = [[] for _ in range(count)]
    per_pos_gap = [[] for _ in range(count)]
    per_pos_adds = [[] for _ in range(count)]
    for k in forwards:
        if ["%s[%d]" % (x[4], x[2]) for x in k] != labels:
            continue  # another kernel order (should not happen within one graph)
        spans.append(k[-1][1] - k[0][0])
        covered, reach = 0, k[0][0]
        for s, e, *_ in k:
            if e > reach:
                covered += e - max(s, reach)
                reach = e
        busy.append(covered)
        prev_end = None
        for i, (s, e, *_) in enumerate(k):
            per_pos_dur[i].append(e - s)
            per_pos_gap[i].append(0 if prev_end is None else s - prev_end)
            per_pos_adds[i].append(e - s if prev_end is None else max(e, prev_end) - prev_end)
            prev_end = max(prev_end or e, e)
    med = statistics.median
    span, inside = med(spans) / 1e3, med(busy) / 1e3
    print("%d forwards of %d kernels: span %.1f us, in kernels %.1f us, no kernel running %.1f us"
          % (len(spans), count, span, inside, span - inside))
    table = defaultdict(lambda: [0, 0.0, 0.0])
    for i, label in enumerate(labels):
        t = table[label]
        t[0] += 1
        t[1] += med(per_pos_dur[i]) / 1e3
        t[2] += med(per_pos_gap[i]) / 1e3
    print("%-64s %6s %10s %10s %8s" % ("kernel[grid]", "calls", "time us", "gaps us", "us/call"))
    for label, (n, dur, gap) in sorted(table.items(), key=lambda x: -x[1][1] - x[1][2]):
        print("%-64s %6d %10.1f %10.1f %8.2f" % (label[:64], n, dur, gap, dur / n))
    total_gap = sum(med(g) for g in per_pos_gap) / 1e3
    print("sum of kernel times %.1f us, of gaps %.1f us (negative gaps: overlap under programmatic edges)"
          % (sum(med(d) for d in per_pos_dur) / 1e3, total_gap))
    def listing(first, n):
        print("kernels %d..%d of the forward (medians):" % (first, first + n - 1))
        for i in range(first, first + n):
            print("  %-64s gap %6.2f  time %6.2f  adds %6.2f us" % (labels[i][:64], med(per_pos_gap[i]) / 1e3,
                                                                   med(per_pos_dur[i]) / 1e3, med(per_pos_adds[i]) / 1e3))
    if head:
        listing(0, min(head, count))
    if detail:
        listing(count // 2 - detail // 2, detail)
    if tail:
        n = min(tail, count)
        listing(count - n, n)


if __name__ == "__main__":
    main()
