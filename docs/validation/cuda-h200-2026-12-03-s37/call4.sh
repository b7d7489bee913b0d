#!/usr/bin/env bash
# Session 37, call 4: GPU tests; the RoPE pass's positions and table rows read before its
# programmatic wait (item 180) against 5819fcf's engine (base), interleaved rounds; traces at 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "Rope.*(OK|FAILED)" | sort | uniq -c >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=2x512,3x512,4x464,5x512,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 280 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for b in laya-engine-base laya-engine laya-engine-base laya-engine; do
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv timeout 60 $R $b bench --model $CK \
    --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
  { echo "## 4x464 $b"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } >> $OUT/t/timeline-4x464-$b.txt 2>&1
  grep -E '^## |forwards|^rope_kernel|^nvjet_sm90_tst_192' $OUT/t/timeline-4x464-$b.txt | tail -4 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 4 end"
