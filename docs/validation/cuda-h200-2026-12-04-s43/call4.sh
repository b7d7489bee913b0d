#!/usr/bin/env bash
# Session 43, call 4: attention's rules by layer kind at 129-512 tokens (item 216) — the global
# layers' K rotated once by the RoPE pass (LAYA_CUDA_ROPE_ONCE_GLOBAL_FROM=128), the windowed layers
# with at most two key groups (LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=2); the same bytes, rounds, traces.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
for e in LAYA_CUDA_ROPE_ONCE_GLOBAL_FROM=128 LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=2; do
  LAYA_COMPARE_ENV_B="$e" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
  echo "compare $e rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_X=0 gpass:LAYA_CUDA_ROPE_ONCE_GLOBAL_FROM=128 lsplit2:LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=2" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x464,1x512,2x256,4x128 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "1x512 LAYA_X=0" "1x512 LAYA_CUDA_ROPE_ONCE_GLOBAL_FROM=128" "1x512 LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=2"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 24 2>&1 | sed -n '1,12p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 4 end"
