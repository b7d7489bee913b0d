#!/usr/bin/env bash
# Session 16 call 6 (item 97): the start-up warm-up of every bucket size (warmup_shapes "auto").
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" | tee -a $S
timeout 300 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|^\[  FAILED|AutoWarmup" $OUT/tests.log | tee -a $S
SH=1x16,1x48,1x64,2x64,1x128,4x64,1x512,4x464,16x512,2x48,3x48,5x100,7x300
for warm in none auto; do
  W=$warm; [ $warm = none ] && W=""
  for pass in first steady; do
    if [ $pass = first ]; then WU=0; I=1; else WU=3; I=10; fi
    timeout 200 $R laya-engine bench --model $EN --backend cuda --execution graph --warmup-shapes "$W" --shapes $SH --warmup $WU --iters $I --json 2>>/dev/null \
      | sed "s/^{/{\"warm\":\"$warm\",\"pass\":\"$pass\",/" >> $OUT/bench.jsonl
  done
done
python3 - $OUT/bench.jsonl <<'PY' | tee -a $S
import json, sys
by, order, load = {}, [], {}
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r:
            by[(r["warm"], r["pass"], r["shape"])] = r["p50_ms"]
            if r["shape"] not in order: order.append(r["shape"])
        elif "load_s" in r:
            load[(r["warm"], r["pass"])] = r["load_s"]
print("load s: " + ", ".join("%s/%s %.2f" % (k[0], k[1], v) for k, v in load.items()))
print("shape    none first  none steady  auto first  auto steady   (graph mode, ms)")
for s in order:
    v = [by.get((w, p, s), float('nan')) for w, p in (("none","first"),("none","steady"),("auto","first"),("auto","steady"))]
    print("%-7s %10.3f %12.3f %11.3f %12.3f" % (s, *v))
PY
for warm in auto none; do
  t0=$(date +%s.%N)
  $R laya-engine --log-level info serve --model $EN --backend cuda --port 18080 --warmup-shapes $warm > /tmp/serve_$warm.log 2>&1 &
  SP=$!
  for i in $(seq 1 600); do curl -sf http://127.0.0.1:18080/ready > /dev/null && break; sleep 0.05; done
  t1=$(date +%s.%N)
  echo "serve --warmup-shapes $warm: ready after $(python3 -c "print('%.2f' % ($t1 - $t0))") s" | tee -a $S
  curl -s http://127.0.0.1:18080/info | python3 -c "import json,sys; print('info batching', json.load(sys.stdin)['batching'])" | tee -a $S
  kill $SP; wait $SP 2>/dev/null
  grep -E "warmed" /tmp/serve_$warm.log | tee -a $S
done
