#!/usr/bin/env bash
# Session 34, call 4: the fused GeGLU GEMM's last round split over K between two CTAs a tile
# (GegluGemmArgs::split_partials, LAYA_CUDA_GEGLU_SPLIT). GPU tests (the kernel test with the split;
# the engine test on english at 4x464 / 5x512 / 16x512, opt-in via LAYA_GPU_PARITY_DIRS), then the
# split on / off in this build and the previous build (laya-engine-base, c6b842c) in interleaved
# rounds, and the 4x464 trace with and without it.
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
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_GPU_PARITY_DIRS=$CK timeout 150 $R test_gpu --gtest_filter='*SplitLastRound*' > $OUT/split-test.log 2>&1
log "split engine test rc=$?"
grep -E "OK \]|FAILED|PASSED|SKIPPED|Failure" $OUT/split-test.log | head -8 >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base split_off:LAYA_CUDA_GEGLU_SPLIT=0 split:LAYA_CUDA_GEGLU_SPLIT=1" \
LAYA_BENCH_SHAPES=13x128,14x128,4x464,4x512,5x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for v in "4x464 LAYA_CUDA_GEGLU_SPLIT=1" "4x464 LAYA_CUDA_GEGLU_SPLIT=0" "5x512 LAYA_CUDA_GEGLU_SPLIT=1" "5x512 LAYA_CUDA_GEGLU_SPLIT=0"; do
  set -- $v
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv env $2 $R laya-engine bench --model $CK \
    --backend cuda --execution graph --json --shapes $1 --warmup 20 --iters 100 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $1 $2"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$1-${2#*=}.txt 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  sed -n 2p $OUT/t/timeline-$1-${2#*=}.txt >> $OUT/summary.txt
  grep -E 'geglu_gemm' $OUT/t/timeline-$1-${2#*=}.txt | head -1 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 4 end"
