#!/usr/bin/env bash
# Session 31, call 3: can a cuBLASLt kernel that waits on a programmatic edge (sm90 xmma, item 54)
# pay at 512 and 1,920 rows, where item 54 measured only 48? laya_bench_gemm_pdl enumerates every
# configuration for the encoder's four GEMM shapes, probes which wait, and times chains of
# (own kernel -> GEMM) with plain edges (the heuristic's nvjet pick) and programmatic ones (the
# fastest waiting configurations).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh
echo "== $(date -u +%H:%M:%S) call 3 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
for m in 512 1920; do
  timeout 230 $R laya_bench_gemm_pdl --m $m --nk 3072x1024,1024x1024,5248x1024,1024x2624 --probe 1 --top 3 \
    > "$OUT/pdl$m.txt" 2>&1
  echo "== $(date -u +%H:%M:%S) m=$m rc=$?" | tee -a "$OUT/summary.txt"
  grep -E "^heuristic|^M=|xmma|chain" "$OUT/pdl$m.txt" | head -80 >> "$OUT/summary.txt"
done
echo "== $(date -u +%H:%M:%S) call 3 end" | tee -a "$OUT/summary.txt"
