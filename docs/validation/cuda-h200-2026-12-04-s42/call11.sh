#!/usr/bin/env bash
# Session 42, call 11: the fused GeGLU GEMM below 1,280 tokens again (LAYA_CUDA_GEGLU_GEMM_FROM 384 /
# 256 against the engine's 1,280) — interleaved rounds, traces at 1x512.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 11 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="from1280:LAYA_CUDA_GEGLU_GEMM_FROM=1280 from384:LAYA_CUDA_GEGLU_GEMM_FROM=384 from256:LAYA_CUDA_GEGLU_GEMM_FROM=256" \
LAYA_BENCH_SHAPES=1x256,4x64,1x384,1x464,1x512,2x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/a \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/a/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/a/bench.jsonl > $OUT/bench.jsonl.gz
for f in 1280 384; do
  LAYA_CUDA_GEGLU_GEMM_FROM=$f CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x512 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x512 fused from $f" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 9 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/a
log "call 11 end"
