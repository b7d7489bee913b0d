#!/usr/bin/env bash
# Session 20 call 1 (item 113): the register-A loop with A resident in L2 (fragment order and the
# engine's row-major layout), against the same from DRAM and the shared-memory reference.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/gpu.txt 2>&1
timeout 240 $R laya_bench_wgmma_loop --tiles 64 > $OUT/wgmma-loop.txt 2>&1; echo "rc=$?" >> $OUT/wgmma-loop.txt
tail -40 $OUT/wgmma-loop.txt
