#!/usr/bin/env bash
# Session 34, call 3: where the asynchronous K tiles (item 164) lose. The bundled laya-engine is a
# stamps build (call3-stamps-async.patch on 03922df's attention: session 33's stamps plus four inside
# the key loop, and the async switch back): thread 0 of each attention block stamps %globaltimer;
# layers 3 (global) and 4 (local) printed at the engine's release. 1x512 and 1x464 with the async K
# tiles (default here) and without (LAYA_CUDA_ATTN_ASYNC_ROPE_K=0), two processes each, alternating.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
for round in 1 2; do
  for v in "async LAYA_CUDA_ATTN_ASYNC_ROPE_K=1" "sync LAYA_CUDA_ATTN_ASYNC_ROPE_K=0"; do
    set -- $v
    for shape in 1x512 1x464; do
      echo "## $1 $shape round $round" >> $OUT/stamps.txt
      env $2 LAYA_CUDA_ATTN_STAMPS=3,4 $R laya-engine bench --model $CK --backend cuda --execution graph --json \
        --shapes $shape --warmup 20 --iters 40 2>&1 > $OUT/bench-$1-$shape-$round.jsonl | grep -v warning >> $OUT/stamps.txt
      python3 -c "import json,sys; [print('$1 $shape round $round p50', json.loads(l)['p50_ms']) for l in open(sys.argv[1]) if 'p50_ms' in l]" \
        $OUT/bench-$1-$shape-$round.jsonl >> $OUT/summary.txt
    done
  done
done
cat $OUT/bench-*.jsonl > $OUT/bench.jsonl && rm -f $OUT/bench-*.jsonl
log "call 3 end"
