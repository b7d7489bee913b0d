#!/usr/bin/env bash
# Temporary (item 50): forward time with kernel families left out, graph mode, one process each.
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh
source scripts/gpu/suite_common.sh >/dev/null 2>&1 || true
[ -d /tmp/ck-english ] || $R laya-engine synth --layout english --seed 1 /tmp/ck-english --tokenizer /tmp/laya-gpu/tokenizer > /dev/null 2>&1
for pass in 1 2; do
  for v in none qkv rope attn wo ln1 mlpin wo2 ln2 head; do
    echo "== pass $pass ablate $v" >> $OUT/ablate.txt
    LAYA_CUDA_ABLATE=$v $R laya-engine bench --model /tmp/ck-english --backend cuda --shapes 1x48,1x512,4x464,16x512 --warmup 10 --iters 20 2>/dev/null | grep -E "^ +[0-9]+x[0-9]+" >> $OUT/ablate.txt
  done
done
