#!/usr/bin/env bash
# Session 35, call 1: the fused GeGLU GEMM on wide tiles (128 rows x 128 outputs, two consumer
# warpgroups on wgmma.m64n256k16; LAYA_CUDA_GEGLU_WIDE=1) against its 256 x 64 tiles, where the
# engine fuses (1,280 tokens and up), and wide tiles fused from 384 tokens. GPU tests first, then
# interleaved rounds, then kernel traces of 4x464 and 16x512 in both shapes.
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
zcat $OUT/tests.log.gz | grep -E "Geglu.*(OK|FAILED)|geglu gemm M=" | sort | uniq -c | head -20 >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="narrow:LAYA_CUDA_GEGLU_WIDE=0 wide:LAYA_CUDA_GEGLU_WIDE=1 wide_from_384:LAYA_CUDA_GEGLU_WIDE=1,LAYA_CUDA_GEGLU_GEMM_FROM=384,LAYA_CUDA_GEGLU_GEMM_MIN_FILL=0" \
LAYA_BENCH_SHAPES=1x464,1x512,2x512,10x128,3x512,13x128,4x464,4x512,5x512,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for v in "4x464 LAYA_CUDA_GEGLU_WIDE=0" "4x464 LAYA_CUDA_GEGLU_WIDE=1" "16x512 LAYA_CUDA_GEGLU_WIDE=0" "16x512 LAYA_CUDA_GEGLU_WIDE=1"; do
  set -- $v
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv env $2 $R laya-engine bench --model $CK \
    --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 40 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $1 $2"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$1-$2.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$1-$2.txt >> $OUT/summary.txt
  grep -E 'geglu_gemm' $OUT/t/timeline-$1-$2.txt | head -2 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 1 end"
