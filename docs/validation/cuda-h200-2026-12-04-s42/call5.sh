#!/usr/bin/env bash
# Session 42, call 5: (A) the small GEMM prefetches its W boxes past the ring into L2 right after its
# wait (LAYA_CUDA_SMALL_W_PREFETCH 1: GeGLU form, 2: every form); (B) the fused GeGLU GEMM without
# weights before its wait (LAYA_CUDA_GEGLU_GEMM_EARLY_W=0) — the same bytes, interleaved rounds,
# traces.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
LAYA_COMPARE_ENV_B="LAYA_CUDA_SMALL_W_PREFETCH=2 LAYA_CUDA_GEGLU_GEMM_EARLY_W=0" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
echo "compare english, defaults vs prefetch 2 + early_w 0 rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_CUDA_SMALL_W_PREFETCH=0 geglu:LAYA_CUDA_SMALL_W_PREFETCH=1 all:LAYA_CUDA_SMALL_W_PREFETCH=2" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/a \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "A variants rc=$?"
grep -v "^==" $OUT/a/summary.txt >> $OUT/summary.txt
LAYA_VARIANTS="early:LAYA_CUDA_GEGLU_GEMM_EARLY_W=1 late:LAYA_CUDA_GEGLU_GEMM_EARLY_W=0" \
LAYA_BENCH_SHAPES=4x464,3x512,5x512,8x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/b \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "B variants rc=$?"
grep -v "^==" $OUT/b/summary.txt >> $OUT/summary.txt
cat $OUT/a/bench.jsonl $OUT/b/bench.jsonl | gzip -9n > $OUT/bench.jsonl.gz
for v in "1x48 LAYA_CUDA_SMALL_W_PREFETCH=0" "1x48 LAYA_CUDA_SMALL_W_PREFETCH=1" "1x48 LAYA_CUDA_SMALL_W_PREFETCH=2" \
         "4x464 LAYA_CUDA_GEGLU_GEMM_EARLY_W=1" "4x464 LAYA_CUDA_GEGLU_GEMM_EARLY_W=0"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/a $OUT/b
log "call 5 end"
