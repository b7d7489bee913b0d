#!/usr/bin/env bash
# Session 40, call 7: the partial counts had moved with the engine (item 199), so the other
# switches of the goal shapes are re-checked on today's engine (ff0373f's bundle, its defaults as
# base), interleaved rounds. Small buckets: attention's query tile (16 / 64 against 32), the wide
# layout up to 64 tokens or 32, the narrow buckets' carveout left to the driver, the decision
# layers' output GEMMs whole. Large: PDL on every edge from 512 tokens, attention's five-blocks form
# from 1,024 tokens, the rope pass from 256, the fused GeGLU GEMM from 1,024.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_X=0 tile16:LAYA_CUDA_ATTN_SMALL_TILE=16 tile64:LAYA_CUDA_ATTN_SMALL_TILE=64 wide64:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=64 wide32:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=32 carve:LAYA_CUDA_NARROW_CARVEOUT=-1 decwhole:LAYA_CUDA_DECISION_PARTS=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,2x32,4x16,1x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 280 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "small variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/small-bench.jsonl.gz
LAYA_VARIANTS="base:LAYA_X=0 pdl512:LAYA_CUDA_PDL_ALL_FROM=512 five1024:LAYA_CUDA_ATTN_FIVE_BLOCKS_FROM=1024 ropeonce256:LAYA_CUDA_ROPE_ONCE_FROM=256 geglu1024:LAYA_CUDA_GEGLU_GEMM_FROM=1024" \
LAYA_BENCH_SHAPES=1x512,2x512,4x464,8x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/lg \
  timeout 280 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "large variants rc=$?"
grep -v "^==" $OUT/lg/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/lg/bench.jsonl > $OUT/large-bench.jsonl.gz
rm -rf $OUT/ab $OUT/lg
log "call 7 end"
