#!/usr/bin/env bash
# Temporary (call 4): SM clock, power and clock-event reasons while the engine runs each shape for a few seconds.
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh
[ -d /tmp/ck-english ] || $R laya-engine synth --layout english --seed 1 /tmp/ck-english --tokenizer /tmp/laya-gpu/tokenizer > /dev/null 2>&1
nvidia-smi --help-query-gpu | grep -i -E "reason|power.limit|enforced" | head -20 > $OUT/smi-fields.txt
F=timestamp,clocks.sm,clocks.mem,power.draw,enforced.power.limit,temperature.gpu
nvidia-smi --help-query-gpu | grep -q clocks_event_reasons.active && F=$F,clocks_event_reasons.active || F=$F,clocks_throttle_reasons.active
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE > $OUT/smi-idle.txt 2>&1
for shp in 16x512:300 1x48:3000 4x464:1000 1x512:2000; do
  s=${shp%%:*}; n=${shp##*:}
  nvidia-smi --query-gpu=$F --format=csv,noheader -lms 50 > $OUT/smi-$s.csv 2>&1 & P=$!
  sleep 0.5
  $R laya-engine bench --model /tmp/ck-english --backend cuda --shapes $s --warmup 20 --iters $n 2>/dev/null | grep -E "^ +[0-9]+x" >> $OUT/power-bench.txt
  sleep 0.3; kill $P
done
