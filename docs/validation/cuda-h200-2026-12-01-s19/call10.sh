#!/usr/bin/env bash
# Session 19 call 10 (item 110): does cuBLASLt's pick let its dependents launch early? The trigger
# probe of laya_bench_gemm_pdl for the four encoder GEMMs at 512, 1,920 and 8,192 rows.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
record_machine
timeout 240 $R laya_bench_gemm_pdl --trigger 1 --m 512,1920,8192 --nk 3072x1024,1024x1024,5248x1024,1024x2624 \
  > $OUT/trigger.txt 2>&1
echo "rc=$?" >> $OUT/trigger.txt
