#!/usr/bin/env bash
# Session 33, call 6: serve on the final engine (the memset kernels on): the suite's http phase
# (six requests through serve, then laya_bench_http: the small request and mixed traffic).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 6 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
OUT=$OUT/suite timeout 150 bash .gpu/run_gpu_suite.sh http > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) suite rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/suite/summary.txt >> $OUT/summary.txt
cp $OUT/suite/http.txt $OUT/http.txt 2>/dev/null
rm -rf $OUT/suite
echo "== $(date -u +%H:%M:%S) call 6 end" | tee -a "$OUT/summary.txt"
