#!/usr/bin/env bash
# Session 43, call 9: global layers of 257-448-token rows at four key groups now that their K
# arrives rotated (item 219, LAYA_CUDA_ATTN_GLOBAL_SPLIT4=1) — rounds and traces.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 9 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="new:LAYA_X=0 gs4:LAYA_CUDA_ATTN_GLOBAL_SPLIT4=1" \
LAYA_BENCH_SHAPES=1x256,1x288,1x320,1x384,1x448,1x512 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "1x384 LAYA_X=0" "1x384 LAYA_CUDA_ATTN_GLOBAL_SPLIT4=1"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 24 2>&1 | sed -n '1p;/^kernels/,$p' | grep -E "forwards|attention|rope" >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 9 end"
