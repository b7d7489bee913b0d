#!/usr/bin/env bash
# Session 42, call 3: when a small GEMM lets the next kernel launch, and when it requests its early
# weights (LAYA_CUDA_SMALL_PDL_MODE bits: 1 late trigger, 2 early weights after 800 ns) — the same
# bytes, interleaved rounds, traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
LAYA_COMPARE_ENV_B="LAYA_CUDA_SMALL_PDL_MODE=3" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
echo "compare english, mode 0 vs 3 rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_CUDA_SMALL_PDL_MODE=0 late:LAYA_CUDA_SMALL_PDL_MODE=1 delay:LAYA_CUDA_SMALL_PDL_MODE=2 both:LAYA_CUDA_SMALL_PDL_MODE=3" \
LAYA_BENCH_SHAPES=1x16,1x48,4x16,1x64,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for mode in 0 1 2; do
  LAYA_CUDA_SMALL_PDL_MODE=$mode CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 mode $mode" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 --tail 16 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 3 end"
