#!/usr/bin/env bash
# Session 43, call 2: where the small buckets' 2.6 us before embed_ln come from (item 215) — the
# forward's first kernels traced by bucket and by switch (the staging copy as a memcpy node, the
# narrow layout's carveout), on 088b114's engine.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
for v in "1x48 LAYA_X=0" "1x48 LAYA_CUDA_BUS_IO=0" "1x16 LAYA_X=0" "4x16 LAYA_X=0" "1x64 LAYA_X=0" \
         "1x64 LAYA_CUDA_NARROW_CARVEOUT=-1" "1x128 LAYA_X=0" "1x160 LAYA_X=0" "1x48 LAYA_CUDA_SMALL_GEMM_MAX_M=0"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --head 4 --tail 2 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
log "call 2 end"
