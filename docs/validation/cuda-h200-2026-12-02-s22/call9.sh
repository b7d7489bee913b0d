#!/usr/bin/env bash
# Session 22 call 9: where the final engine's time goes at 1x512, 4x464 and 1x48 (ncu kernel
# durations of one eager forward, serialised; for the next session's planning).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_PROFILE_SHAPES="1x512 4x464 1x48" LAYA_PROFILE_TOP=24 timeout 200 bash .gpu/run_ab_suite.sh profile
echo "profile rc=$? ($SECONDS s)" >> $OUT/summary.txt
