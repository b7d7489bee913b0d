#!/usr/bin/env bash
# Session 38, call 4: GPU tests; attention's P.V under the next key tile's softmax
# (item 189), against 63b8792's engine (base): bitwise the same dumps and answers (decide over
# requests of 20-900 words, 1-4 questions), interleaved rounds, traces at 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
synth_layout english > /dev/null
python3 .gpu/gen_requests.py 7 > /tmp/req.jsonl  # scripts/gpu/gen_requests.py since
for b in laya-engine-base laya-engine; do
  rm -rf /tmp/d-$b
  $R $b decide --model /tmp/ck-english --backend cuda --input /tmp/req.jsonl \
    --dump /tmp/d-$b --dump-names encoder.0,encoder.27,head.1,logits,act_logits > /tmp/ans-$b.jsonl 2>/tmp/err-$b.log
  echo "$b decide rc=$? answers $(wc -l < /tmp/ans-$b.jsonl), dump files $(find /tmp/d-$b -name '*.f32' | wc -l)" >> $OUT/summary.txt
  $R $b decide --model /tmp/ck-english --backend cuda --input /tmp/req.jsonl > /tmp/ansg-$b.jsonl 2>>/tmp/err-$b.log
done
(cd /tmp/d-laya-engine-base && find . -name '*.f32' | sort | xargs md5sum) > /tmp/m-base.txt
(cd /tmp/d-laya-engine && find . -name '*.f32' | sort | xargs md5sum) > /tmp/m-new.txt
echo "dumps identical: $(cmp -s /tmp/m-base.txt /tmp/m-new.txt && echo yes || echo NO) ($(wc -l < /tmp/m-new.txt) files)" >> $OUT/summary.txt
echo "answers identical (dump runs): $(cmp -s /tmp/ans-laya-engine-base.jsonl /tmp/ans-laya-engine.jsonl && echo yes || echo NO)" >> $OUT/summary.txt
echo "answers identical (plain runs): $(cmp -s /tmp/ansg-laya-engine-base.jsonl /tmp/ansg-laya-engine.jsonl && echo yes || echo NO)" >> $OUT/summary.txt
grep -o '"input_tokens":[0-9]*' /tmp/ansg-laya-engine.jsonl | tr '\n' ' ' >> $OUT/summary.txt; echo >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x512,10x128,3x512,4x464,4x512,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for b in laya-engine-base laya-engine; do
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $b bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 4x464 $b" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 16 2>&1 | grep -E "span|attention" >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 4 end"
