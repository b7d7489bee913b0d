#!/usr/bin/env bash
# Session 37, call 1: GPU tests on e6a0ddc's code; the chain probe with flags instead of the
# programmatic wait (laya_bench_grid_barrier, item 177).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "(Geglu|Gelu).*(OK|FAILED)" | sort | uniq -c | head -20 >> $OUT/summary.txt
for th in 128 256; do
  for rep in 1 2; do
    log "grid barrier probe threads=$th rep=$rep"
    timeout 120 $R laya_bench_grid_barrier --ctas 16,32,64,128,132 --threads $th --launches 112 >> $OUT/summary.txt 2>&1
    echo "rc=$?" >> $OUT/summary.txt
  done
done
rm -rf $OUT/suite
log "call 1 end"
