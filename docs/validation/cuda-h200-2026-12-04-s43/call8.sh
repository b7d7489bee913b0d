#!/usr/bin/env bash
# Session 43, call 8: the RoPE pass rotating q too where it runs, attention reading no tables
# (item 218, LAYA_CUDA_ROPE_PASS_Q=1) — the same bytes, rounds, a trace.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 8 start, bundled from $(bundle_commit)"
LAYA_COMPARE_ENV_B="LAYA_CUDA_ROPE_PASS_Q=1" \
  timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
echo "compare pass q rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="new:LAYA_X=0 passq:LAYA_CUDA_ROPE_PASS_Q=1" \
LAYA_BENCH_SHAPES=1x384,1x512,2x512,3x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "4x464 LAYA_X=0" "4x464 LAYA_CUDA_ROPE_PASS_Q=1"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 9 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 8 end"
