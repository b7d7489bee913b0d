#!/usr/bin/env bash
# Session 40, call 1: attention fused into the attention output GEMM for buckets of <= 64 tokens
# (attn_out_gemm.cu, LAYA_CUDA_ATTN_OUT_FUSED): GPU tests (its kernel test among them), the
# unfused path's bytes against c413521's engine (base), the fused path's against the unfused,
# interleaved rounds (unfused vs fused in one binary, english and multilingual), kernel traces at 1x48.
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
$R test_gpu --gtest_filter='*AttnOutGemm*' 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) |Failure|differing|nRMS" | head -20 >> $OUT/summary.txt
LAYA_COMPARE_ENV_B="LAYA_CUDA_ATTN_OUT_FUSED=0" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare base / unfused rc=$?" >> $OUT/summary.txt
timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare base / fused rc=$? (expected 1: four partials instead of two)" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="unfused:LAYA_CUDA_ATTN_OUT_FUSED=0 fused:LAYA_CUDA_ATTN_OUT_FUSED=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,2x32,4x16,8x6,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="unfused:LAYA_CUDA_ATTN_OUT_FUSED=0 fused:LAYA_CUDA_ATTN_OUT_FUSED=1" \
LAYA_BENCH_SHAPES=1x16,1x48,4x16 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ml \
  timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "multilingual variants rc=$?"
grep -v "^==" $OUT/ml/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ml/bench.jsonl > $OUT/ml-bench.jsonl.gz
synth_layout english > /dev/null
for v in 0 1; do
  LAYA_CUDA_ATTN_OUT_FUSED=$v CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 fused=$v" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -30 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab $OUT/ml
log "call 1 end"
