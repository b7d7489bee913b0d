#!/usr/bin/env bash
# Session 50, call 1: both calls session 49 prepared, in one device call on one bundle —
# part 1 = session 48's call5.sh (branch t80p-rule against main), part 2 = session 49's call2.sh
# (the kernel image and the generic kernels), told this bundle's names for its two builds.
# Bundle, from main's checkout (bundle.sh's LAYA_ALT_BIN), with the three builds' laya-engine /
# test_gpu copied out first:
#   LAYA_BASELINE_BIN=<main 90a-real> LAYA_ALT_BIN=<main 90-real> LAYA_BUNDLE_PROBES=none \
#     scripts/gpu/bundle.sh <dir holding the branch's 90a-real bin/ and tests/gpu/>
# laya-engine / test_gpu = branch (e48bb31: 4f95e29 with main 06497bf merged), -base = main 06497bf
# (90a-real), -alt = main 06497bf (90-real). Each part writes to its own folder; what comes back is
# copied out after each part, so a part killed by its limit still leaves the other's results.
# Part 2 runs first: if the call is cut short, the generic path's first run matters more.
set -u
O=${OUT:-/tmp/out}
mkdir -p "$O"
OUT=/tmp/p2 LAYA_CALL2_HOPPER=-base LAYA_CALL2_GENERIC=-alt timeout -s KILL 270 bash .gpu/call2.sh
echo "part 2 rc=$?" >> /tmp/p2/summary.txt
cp /tmp/p2/summary.txt "$O/part2-summary.txt"
(cd /tmp/p2 && tar -czf "$O/part2-logs.tar.gz" tests.log tests-generic.log answers-*.jsonl decide-*.err 2>/dev/null)
OUT=/tmp/p1 timeout -s KILL 300 bash .gpu/call5.sh
echo "part 1 rc=$?" >> /tmp/p1/summary.txt
cp /tmp/p1/summary.txt "$O/part1-summary.txt"
cp /tmp/p1/call5-tests.log.gz "$O/part1-tests.log.gz" 2>/dev/null
cp /tmp/p1/call5-bench.jsonl.gz "$O/part1-bench.jsonl.gz" 2>/dev/null
