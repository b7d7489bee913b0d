#!/usr/bin/env bash
# Session 44, call 1: the decision layers' key split (item 220) — the unpruned layer's groups capped
# (LAYA_CUDA_ATTN_HEAD_SPLIT_MAX) and the pruned layer's split chosen for one head tile a row
# (LAYA_CUDA_ATTN_PRUNED_SPLIT_BY_ROWS): GPU tests under both, rounds, traces of the tail.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
LAYA_CUDA_ATTN_PRUNED_SPLIT_BY_ROWS=1 LAYA_CUDA_ATTN_HEAD_SPLIT_MAX=2 timeout 240 $R test_gpu \
  --gtest_filter=-*Extra*:*Official* > $OUT/tests.log 2>&1
echo "test_gpu (pruned by rows, head max 2) rc=$?" >> $OUT/summary.txt
grep -E "PASSED|FAILED" $OUT/tests.log | tail -5 >> $OUT/summary.txt
gzip -9n $OUT/tests.log
log "tests done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_X=0 h2:LAYA_CUDA_ATTN_HEAD_SPLIT_MAX=2 h1:LAYA_CUDA_ATTN_HEAD_SPLIT_MAX=1 pr:LAYA_CUDA_ATTN_PRUNED_SPLIT_BY_ROWS=1" \
LAYA_BENCH_SHAPES=1x256,1x512,2x512,4x464,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "1x512 LAYA_X=0" "1x512 LAYA_CUDA_ATTN_HEAD_SPLIT_MAX=2" "4x464 LAYA_X=0" "4x464 LAYA_CUDA_ATTN_PRUNED_SPLIT_BY_ROWS=1" \
         "16x512 LAYA_X=0" "16x512 LAYA_CUDA_ATTN_PRUNED_SPLIT_BY_ROWS=1"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --tail 20 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 1 end"
