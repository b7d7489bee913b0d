#!/usr/bin/env bash
# Session 43, call 3: the first layer's QKV GEMM on a plain edge from embed_ln (item 215,
# LAYA_CUDA_FIRST_QKV_PLAIN=1) — traces of the forward's first kernels, interleaved rounds at the
# small shapes.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
for v in "1x48 LAYA_X=0" "1x48 LAYA_CUDA_FIRST_QKV_PLAIN=1" "1x128 LAYA_CUDA_FIRST_QKV_PLAIN=1"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --head 5 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
log "traces done"
LAYA_VARIANTS="base:LAYA_X=0 plain:LAYA_CUDA_FIRST_QKV_PLAIN=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,1x128,4x16 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
rm -rf $OUT/ab
log "call 3 end"
