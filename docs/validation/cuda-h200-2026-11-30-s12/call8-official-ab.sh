#!/usr/bin/env bash
# Session 12, call 8: the extended single-CTA-cluster kernel test, then official parity with the
# 1x1x1-cluster rule off and on (same official dump), to explain 0.0255 -> 0.0264.
R=.gpu/run.sh
$R test_gpu --gtest_filter=*SingleCta* > $OUT/kernel.log 2>&1; echo "kernel test rc=$?" >> $OUT/kernel.log
$R laya-engine synth --layout english --seed 1 /tmp/ck-english --tokenizer /tmp/laya-gpu/tokenizer > /dev/null 2>&1
python3 -m pip install -q --no-deps --no-index --target /tmp/laya-site /tmp/laya-gpu/wheels/laya-*.whl > $OUT/official.log 2>&1
PYTHONPATH=/tmp/laya-site python3 scripts/gpu/official_gpu_bench.py --model /tmp/ck-english --shapes 1x48 --warmup 1 --iters 2 \
  --parity-out /tmp/official_parity.jsonl --parity-requests 30 >> $OUT/official.log 2>&1
for v in 0 64 0 64; do
  echo "== LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_MAX_M=$v" >> $OUT/official.log
  LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_MAX_M=$v LAYA_GPU_OFFICIAL_PARITY=/tmp/official_parity.jsonl LAYA_GPU_OFFICIAL_MODEL=/tmp/ck-english \
    $R test_gpu --gtest_filter=*Official* >> $OUT/official.log 2>&1
done
grep -E "^==|official parity|rc=|bitwise|close to|PASSED|FAILED" $OUT/kernel.log $OUT/official.log
