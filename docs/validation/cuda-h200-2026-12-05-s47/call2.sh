#!/usr/bin/env bash
# Session 47, call 2 (prepared). The same bundle as call 1 (03ba318). The fused GeGLU GEMM at
# 257-1,024 tokens, where the engine runs cuBLASLt + the GeGLU pass (LAYA_CUDA_GEGLU_GEMM_FROM=1280):
# fused on the 256 x 64 tiles (f64, forced — the experiment's rule would take 80 at 1,024 tokens;
# item 212 measured it slower: 82 tiles at 512 tokens leave 50 SMs idle), on 256 x 40 (f40) and on
# 128 x 80 tiles (f128), both one full round of 132 tiles at 385-512 tokens, and those two with a
# ring of 5 stages (f40s5, f128s5). Answers of f40s5 / f128 against f64 (the same bytes expected),
# traces of 1x512 per variant, the A/B at seven shapes (four rounds).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
FUSE="LAYA_CUDA_GEGLU_GEMM_FROM=257 LAYA_CUDA_GEGLU_GEMM_MIN_FILL=0"
for b in "LAYA_CUDA_GEGLU_TILE_OUTPUTS=40 LAYA_CUDA_GEGLU_STAGES=5" "LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 LAYA_CUDA_GEGLU_TILE_ROWS=128"; do
  LAYA_COMPARE_ENV_A="$FUSE LAYA_CUDA_GEGLU_TILE_OUTPUTS=64" LAYA_COMPARE_ENV_B="$FUSE $b" timeout -s KILL 100 \
    bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
  echo "compare fused from 257 tokens, 64-output tiles vs $b, english rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
for v in "base:LAYA_CUDA_GEGLU_TILE_OUTPUTS=0" "f64:$FUSE LAYA_CUDA_GEGLU_TILE_OUTPUTS=64" "f40:$FUSE LAYA_CUDA_GEGLU_TILE_OUTPUTS=40" \
         "f128:$FUSE LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 LAYA_CUDA_GEGLU_TILE_ROWS=128" \
         "f40s5:$FUSE LAYA_CUDA_GEGLU_TILE_OUTPUTS=40 LAYA_CUDA_GEGLU_STAGES=5" \
         "f128s5:$FUSE LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 LAYA_CUDA_GEGLU_TILE_ROWS=128 LAYA_CUDA_GEGLU_STAGES=5"; do
  env ${v#*:} CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv timeout -s KILL 60 \
    $R laya-engine bench --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x512 --warmup 10 \
    --iters 40 > /dev/null 2>&1
  echo "## 1x512 ${v%%:*}" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -8 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
log "traces done"
F=LAYA_CUDA_GEGLU_GEMM_FROM=257,LAYA_CUDA_GEGLU_GEMM_MIN_FILL=0
LAYA_VARIANTS="base:LAYA_CUDA_GEGLU_TILE_OUTPUTS=0 f64:$F,LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 f40:$F,LAYA_CUDA_GEGLU_TILE_OUTPUTS=40 f128:$F,LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_TILE_ROWS=128 f40s5:$F,LAYA_CUDA_GEGLU_TILE_OUTPUTS=40,LAYA_CUDA_GEGLU_STAGES=5 f128s5:$F,LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_TILE_ROWS=128,LAYA_CUDA_GEGLU_STAGES=5" \
LAYA_BENCH_SHAPES=1x256,1x320,1x384,1x464,1x512,2x256,2x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
rm -rf $OUT/ab
log "call 2 end"
