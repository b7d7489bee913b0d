#!/usr/bin/env bash
# Session 34, call 1: the fused GeGLU GEMM's warpgroups without rows skip their MMAs
# (LAYA_CUDA_GEGLU_SKIP_PAST_M), attention's K tiles after a key group's first by cp.async with
# their RoPE rows (LAYA_CUDA_ATTN_ASYNC_ROPE_K), and K rotated inside attention up to 2,048 tokens
# (LAYA_CUDA_ROPE_ONCE_FROM=2048) — each against the build's default, interleaved rounds.
# GPU tests first, a short full-size english parity, then the kernel traces of 1x512 and 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_GPU_PARITY_DIRS=$CK LAYA_GPU_PARITY_REQUESTS=12 LAYA_GPU_PARITY_MAX_TOKENS=2048 timeout 150 \
  $R test_gpu --gtest_filter='*ParityWithCpuEngineOnExtraCheckpoints*' > $OUT/parity.log 2>&1
log "english parity rc=$?"
grep -E "^\[  (PASSED|FAILED) |worst|requests" $OUT/parity.log | head -12 >> $OUT/summary.txt
LAYA_VARIANTS="on:LAYA_X=0 geglu_all_rows:LAYA_CUDA_GEGLU_SKIP_PAST_M=0 sync_k:LAYA_CUDA_ATTN_ASYNC_ROPE_K=0 rope_in_attn_2048:LAYA_CUDA_ROPE_ONCE_FROM=2048" \
LAYA_BENCH_SHAPES=1x48,1x384,1x464,1x512,2x512,13x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for v in "1x512 LAYA_X=0" "1x512 LAYA_CUDA_ATTN_ASYNC_ROPE_K=0" "4x464 LAYA_X=0" "4x464 LAYA_CUDA_GEGLU_SKIP_PAST_M=0"; do
  set -- $v
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv env $2 $R laya-engine bench --model $CK \
    --backend cuda --execution graph --json --shapes $1 --warmup 20 --iters 100 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $1 $2"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$1-$2.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$1-$2.txt >> $OUT/summary.txt
  grep -E 'attention_mma|geglu_gemm' $OUT/t/timeline-$1-$2.txt | head -2 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 1 end"
