#!/usr/bin/env bash
# Session 36, call 1: the LayerNorm kernels' blocks of 1, 2 or 4 rows by bucket (item 171) and the
# add+LN's rows last to first (item 172). GPU tests, then one build's switches in interleaved
# rounds, then kernel traces of 1x48 with and without the spread.
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
zcat $OUT/tests.log.gz | grep -E "RowsPerBlock.*(OK|FAILED)" | sort | uniq -c >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="four:LAYA_CUDA_LN_SPREAD=0 spread:LAYA_CUDA_LN_SPREAD=1 reverse:LAYA_CUDA_LN_SPREAD=1,LAYA_CUDA_LN_REVERSE=1" \
LAYA_BENCH_SHAPES=1x16,1x48,4x32,1x128,1x256,1x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for v in "1x48 0 0" "1x48 1 0" "16x512 1 0" "16x512 1 1"; do
  set -- $v
  LAYA_CUDA_LN_SPREAD=$2 LAYA_CUDA_LN_REVERSE=$3 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so \
    LAYA_KERNEL_TRACE=/tmp/trace.tsv $R laya-engine bench --model $CK \
    --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $1 spread $2 reverse $3"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$1-$2-$3.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$1-$2-$3.txt >> $OUT/summary.txt
  grep -E '^add_ln' $OUT/t/timeline-$1-$2-$3.txt | head -2 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 1 end"
