#!/usr/bin/env bash
# Session 33, call 3: cuBLASLt's workspace memsets moved beside the own kernel before them in the
# captured graph (graph_memsets.h, LAYA_CUDA_MOVE_GEMM_MEMSETS, default on in this build).
# GPU tests (the new ones: the graph edit on stand-ins; bitwise answers at 8x512 / 5x512 on english),
# the switch off against on in interleaved rounds, and the trace of 16x512 / 8x512 with it on.
# Then attention's phases from inside (an experiment build, bundled as laya-engine-base: the
# record's call3-stamps.patch on this commit): each block of encoder layers 3 (global) and 4 (local)
# stamps %globaltimer at 8 points (LAYA_CUDA_ATTN_STAMPS=3,4), at 1x256, 1x512 and 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_GPU_PARITY_DIRS=$CK timeout 120 $R test_gpu --gtest_filter='*Memsets*' > $OUT/memsets-test.log 2>&1
log "memset tests rc=$?"
grep -E "moved|OK \]|FAILED|PASSED|SKIPPED" $OUT/memsets-test.log >> $OUT/summary.txt
LAYA_VARIANTS="off:LAYA_CUDA_MOVE_GEMM_MEMSETS=0 on:LAYA_CUDA_MOVE_GEMM_MEMSETS=1" \
LAYA_BENCH_SHAPES=1x48,1x512,4x464,5x512,6x512,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for shape in 16x512 8x512; do
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace-$shape.tsv $R laya-engine bench --model $CK \
    --backend cuda --execution graph --json --shapes $shape --warmup 20 --iters 100 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $shape (memsets moved)"; python3 .gpu/kernel_trace.py /tmp/trace-$shape.tsv --layer-detail 16; } > $OUT/t/timeline-$shape.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$shape.txt >> $OUT/summary.txt
  grep memset $OUT/t/timeline-$shape.txt | head -3 >> $OUT/summary.txt
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
for shape in 1x256 1x512 4x464; do
  echo "## $shape" >> $OUT/stamps.txt
  LAYA_CUDA_ATTN_STAMPS=3,4 $R laya-engine-base bench --model $CK --backend cuda --execution graph --json --shapes $shape \
    --warmup 20 --iters 100 2>&1 >/dev/null | grep -A8 "attention stamps" >> $OUT/stamps.txt
done
for round in 1 2; do  # what the stamps build costs with the stamps off
  for b in laya-engine laya-engine-base; do
    $R $b bench --model $CK --backend cuda --execution graph --json --shapes 1x256,1x512,4x464 --warmup 20 --iters 60 \
      2>/dev/null | sed "s/^{/{\"bin\":\"$b\",/" >> $OUT/stamps-cost.jsonl
  done
done
python3 - $OUT/stamps-cost.jsonl <<'PY' >> $OUT/stamps.txt
import json, sys, collections
t = collections.defaultdict(list)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "p50_ms" in r: t[(r["shape"], r["bin"])].append(r["p50_ms"])
for k, v in sorted(t.items()): print("%-6s %-16s p50 %s" % (k[0], k[1], " ".join("%.3f" % x for x in v)))
PY
cat $OUT/stamps.txt >> $OUT/summary.txt
log "call 3 end"
