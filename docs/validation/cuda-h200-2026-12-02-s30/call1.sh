#!/usr/bin/env bash
# Session 30, call 1: tests (5b0074e: the workspace by token budget); engine memory by --max-tokens;
# the rules measured on english dims only, at the multilingual dims (env switches, four rounds);
# english's 1x1x1-cluster rule per GEMM at ten row counts of 129-768 tokens (four rounds).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh
echo "== $(date -u +%H:%M:%S) call 1 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
$R test_cuda_host > "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_cuda_host rc=$?" | tee -a "$OUT/summary.txt"
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1
echo "== $(date -u +%H:%M:%S) test_gpu rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|MaxTokens" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
# The multilingual variants first: their run synthesizes /tmp/ck-multilingual.
V="base:LAYA_X=0 split2:LAYA_CUDA_ATTN_SPLIT_MAX=2 split1:LAYA_CUDA_ATTN_SPLIT_MAX=1"
V="$V once256:LAYA_CUDA_ROPE_ONCE_FROM=256 fused1024:LAYA_CUDA_ROPE_ONCE_FROM=1024"
V="$V part256:LAYA_CUDA_PARTIALS_MAX_M=256 part64:LAYA_CUDA_PARTIALS_MAX_M=64"
V="$V res513:LAYA_CUDA_RESIDUAL_GEMM_FROM=513,LAYA_CUDA_LEAN_ADD_LN_FROM=513"
V="$V tune2048:LAYA_CUDA_GEMM_TUNE_FROM_M=2048 tune4096:LAYA_CUDA_GEMM_TUNE_FROM_M=4096 nopref:LAYA_CUDA_GEGLU_PREFETCH=0"
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=1x96,1x128,1x192,1x256,1x384,1x512,2x512,1x768,1x1024,4x464,4x512,5x512,3x1024,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ml timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) multilingual variants rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/ml/summary.txt >> $OUT/summary.txt
C="1-64;129-768:5248x1024+1024x1024;769-1535"
V="base:LAYA_X=0 mlpin_cl:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:1024x1024;769-1535"
V="$V attnout_cl:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024;769-1535"
V="$V qkv_1:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024+3072x1024;769-1535"
V="$V mlpout_1:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024+1024x2624;769-1535"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=1x160,1x192,1x224,1x256,1x320,1x384,1x448,1x512,2x320,3x256 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/en timeout 180 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english cluster variants rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/en/summary.txt >> $OUT/summary.txt
# Memory by token budget (typed-decisions checkpoint synthesized here; english exists from above).
[ -d /tmp/ck-typed-decisions ] || $R laya-engine synth --layout typed-decisions --seed 2 /tmp/ck-typed-decisions \
  --tokenizer /tmp/laya-gpu/tokenizer > /dev/null 2>&1
for mt in 0 8192 4096 1024; do
  $R laya-engine bench --model /tmp/ck-typed-decisions --backend cuda --shapes 1x1024 --warmup 3 --iters 10 \
    --max-tokens $mt --json 2>&1 | sed "s/^{/{\"max_tokens\":$mt,\"layout\":\"typed\",/" | tee -a "$OUT/memory.jsonl"
done
for mt in 0 2048; do
  $R laya-engine bench --model /tmp/ck-english --backend cuda --shapes 1x512 --warmup 3 --iters 10 \
    --max-tokens $mt --json 2>&1 | sed "s/^{/{\"max_tokens\":$mt,\"layout\":\"english\",/" | tee -a "$OUT/memory.jsonl"
done
$R laya-engine bench --model /tmp/ck-typed-decisions --backend cuda --shapes 4x1024 --max-tokens 2048 --json \
  2>&1 | tail -2 | tee -a "$OUT/memory.jsonl"
echo "== $(date -u +%H:%M:%S) memory done" | tee -a "$OUT/summary.txt"
python3 - "$OUT/memory.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
last = ""
for l in open(sys.argv[1]):
    if not l.startswith("{"):
        continue
    r = json.loads(l)
    if "p50_ms" in r:
        last = f"{r['shape']} p50 {r['p50_ms']:.3f} ms"
    elif "device_memory_mb" in r:
        print(f"{r.get('layout')} max_tokens {r.get('max_tokens')}: {last}, engine memory {r['device_memory_mb']:.0f} MB")
PY
echo "== $(date -u +%H:%M:%S) call 1 end" | tee -a "$OUT/summary.txt"
