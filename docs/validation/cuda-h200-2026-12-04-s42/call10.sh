#!/usr/bin/env bash
# Session 42, call 10: the forward's first edge in the small buckets (LAYA_CUDA_FIRST_EDGES: 0 as is,
# 1 the staging copy launched without the programmatic attribute, 2 embed_ln launched with it) —
# the same bytes, interleaved rounds, traces at 1x48 (the first kernels).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 10 start, bundled from $(bundle_commit)"
for m in 1 2; do
  LAYA_COMPARE_ENV_B="LAYA_CUDA_FIRST_EDGES=$m" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english 2>&1 | grep -E "identical" >> $OUT/summary.txt
  echo "compare english, first edges 0 vs $m rc=${PIPESTATUS[0]}" >> $OUT/summary.txt
done
synth_layout english > /dev/null
LAYA_VARIANTS="asis:LAYA_CUDA_FIRST_EDGES=0 copyplain:LAYA_CUDA_FIRST_EDGES=1 embedpdl:LAYA_CUDA_FIRST_EDGES=2" \
LAYA_BENCH_SHAPES=1x16,1x48,4x16,1x128,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/a \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/a/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/a/bench.jsonl > $OUT/bench.jsonl.gz
for m in 0 1 2; do
  LAYA_CUDA_FIRST_EDGES=$m CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 first edges $m" >> $OUT/summary.txt
  python3 - /tmp/t.tsv <<'PY' >> $OUT/summary.txt
import collections, statistics, sys
fw = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 9 and f[1] != "0":
        fw[(int(f[0]), int(f[1]))].append((int(f[2]), int(f[3]), f[8][:40]))
runs = [sorted(k) for k in fw.values() if len(k) >= 8]
n = collections.Counter(len(k) for k in runs).most_common(1)[0][0]
runs = [k for k in runs if len(k) == n]
print("span %.1f us" % (statistics.median(k[-1][1] - k[0][0] for k in runs) / 1e3))
for i in range(3):
    print("  kernel %d %-40s time %.2f  start after the previous end %.2f us" % (i, runs[0][i][2],
          statistics.median(k[i][1] - k[i][0] for k in runs) / 1e3,
          statistics.median(k[i][0] - k[i - 1][1] for k in runs) / 1e3 if i else 0.0))
PY
  rm -f /tmp/t.tsv
done
rm -rf $OUT/a
log "call 10 end"
