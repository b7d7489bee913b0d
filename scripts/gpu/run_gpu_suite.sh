#!/usr/bin/env bash
# The GPU suite, run ON the GPU machine from the repository root with the bundle carried
# (scripts/gpu/bundle.sh first, then the device tool's `run` with carry [".gpu"]):
#   GPU tests (kernels, engine parity on the tiny checkpoint, determinism, cache policies),
#   parity vs the CPU fp32 engine on full-size english, typed-decisions and multilingual synthetic
#   checkpoints (synthesized here with the bundled binary), `laya-engine bench` eager and graph (then each shape
#   alone with the GPU's SM clock and power sampled: smi_start / smi_stop), the official
#   laya package on the same GPU (interleaved, two rounds) and a parity check against it; the
#   HTTP check (`http`, not in the default list): `serve --backend cuda` answering six requests, then
#   laya_bench_http with the small request (closed c = 64 / 128, open 10,000/s) and mixed traffic
#   (closed c = 64, open 900 / 1,300/s) on serve's defaults (docs/benchmarks/http.md); the
#   multilingual checkpoint (`multilingual`, not in the default list): `laya-engine bench` and the
#   official package on it, interleaved (two rounds), its official parity, and `serve` answering
#   requests in four languages; the same for typed-decisions (`typed`, not in the default list).
#   `http` runs on the layout LAYA_HTTP_LAYOUT names (english, the default; typed-decisions; multilingual).
# Results under $OUT (at most 8 files come back): gpu.txt, summary.txt, tests.log, profile.txt,
# parity.log, bench.jsonl, official.log, http.txt; ml.txt / ml_bench.jsonl, td.txt / td_bench.jsonl.
#
# usage: scripts/gpu/run_gpu_suite.sh [PHASES]   PHASES: comma list of tests,profile,bench,official,parity,http,multilingual,typed
#        (default tests,profile,bench,official,parity; order of execution is fixed). Env:
#        LAYA_BENCH_SHAPES, LAYA_BENCH_ITERS, LAYA_PARITY_REQUESTS, LAYA_PARITY_MAX_TOKENS, LAYA_PARITY_TIMEOUT,
#        LAYA_ML_SHAPES / LAYA_TD_SHAPES (the multilingual / typed phases' shapes), LAYA_HTTP_LAYOUT.
PH=${1:-tests,profile,bench,official,parity}
source "$(dirname "$0")/suite_common.sh"

log "suite start, phases $PH, bundled from $(bundle_commit)"
record_machine
cat "$OUT/gpu.txt"

EN=/tmp/ck-english TD=/tmp/ck-typed-decisions ML=/tmp/ck-multilingual  # synth_layout's folders
case ${LAYA_HTTP_LAYOUT:-english} in
  english) HTTP_CK=$EN ;; typed-decisions) HTTP_CK=$TD ;; multilingual) HTTP_CK=$ML ;;
  *) echo "LAYA_HTTP_LAYOUT: english, typed-decisions or multilingual" >&2; exit 2 ;;
esac
http_on() { has http && [ "$HTTP_CK" = "$1" ]; }
if has parity || has profile || has bench || has official || http_on $EN; then
  synth_layout english
  log "synth english done"
fi
if has parity || has typed || http_on $TD; then
  synth_layout typed-decisions
  log "synth typed-decisions done"
fi
if has parity || has multilingual || http_on $ML; then
  synth_layout multilingual
  log "synth multilingual done"
fi

if has tests; then
  $R test_cuda_host > "$OUT/tests.log" 2>&1; log "test_cuda_host rc=$?"
  $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1; log "test_gpu rc=$?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^parity|worst|requests" "$OUT/tests.log" | tee -a "$OUT/summary.txt"
fi

if has profile; then
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for shp in 1x48 16x512; do
    timeout 120 "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv \
      $R laya-engine bench --model $EN --backend cuda --execution eager --shapes $shp --warmup 1 --iters 1 \
      > /tmp/ncu_$shp.csv 2>>"$OUT/summary.txt"
    log "ncu $shp rc=$?"
    python3 scripts/gpu/ncu_summary.py /tmp/ncu_$shp.csv $shp 14 | tee -a "$OUT/profile.txt"
  done
fi

# The official laya package from the bundled wheel, installed once into /tmp/laya-site (log: $1).
official_site() {
  [ -d /tmp/laya-site ] || python3 -m pip install -q --no-deps --no-index --target /tmp/laya-site "$X"/wheels/laya-*.whl >> "$1" 2>&1
}
# Two interleaved rounds on checkpoint CK: ours eager, ours graph, then (OFFICIAL=1) the official
# package, each JSON line tagged with its round and implementation into JSONL; stderr to ERR (ours)
# and OFFICIAL_ERR. usage: bench_rounds CK SHAPES JSONL ERR OFFICIAL OFFICIAL_ERR [LOG_PREFIX]
bench_rounds() {
  local ck=$1 shapes=$2 J=$3 err=$4 official=$5 oerr=$6 pre=${7:-} round ex
  for round in 1 2; do
    for ex in eager graph; do
      $R laya-engine bench --model $ck --backend cuda --execution $ex --shapes "$shapes" --warmup 20 --iters ${LAYA_BENCH_ITERS:-60} --json \
        2>>"$err" | sed "s/^{/{\"round\":$round,\"impl\":\"ours-$ex\",/" >> "$J"
      log "${pre}bench ours $ex round $round rc=$?"
    done
    if [ "$official" = 1 ]; then
      official_site "$oerr"
      PYTHONPATH=/tmp/laya-site python3 scripts/gpu/official_gpu_bench.py --model $ck --shapes "$shapes" --warmup 20 \
        --iters ${LAYA_BENCH_ITERS:-60} --json 2>>"$oerr" | sed "s/^{/{\"round\":$round,/" >> "$J"
      log "${pre}bench official round $round rc=$?"
    fi
  done
}

if has bench; then
  bench_rounds $EN "$SHAPES" "$OUT/bench.jsonl" "$OUT/summary.txt" "$(has official && echo 1)" "$OUT/official.log"
  # Each shape once more, alone and graph-mode as above, with the SM clock and power sampled: the
  # conditions its numbers were taken under (the large shapes reach the power cap, item 51).
  for shp in $(echo "$SHAPES" | tr ',' ' '); do
    smi_start "graph-$shp"
    $R laya-engine bench --model $EN --backend cuda --execution graph --shapes "$shp" --warmup 20 \
      --iters ${LAYA_BENCH_ITERS:-60} > /dev/null 2>&1
    smi_stop "graph-$shp"
  done
  python3 scripts/gpu/bench_table.py "$OUT/bench.jsonl" | tee -a "$OUT/summary.txt"
fi

if has parity; then
  LAYA_GPU_PARITY_DIRS=$EN:$TD:$ML LAYA_GPU_PARITY_REQUESTS=${LAYA_PARITY_REQUESTS:-30} \
    LAYA_GPU_PARITY_MAX_TOKENS=${LAYA_PARITY_MAX_TOKENS:-4096} timeout ${LAYA_PARITY_TIMEOUT:-900} $R test_gpu --gtest_filter=*Extra* > "$OUT/parity.log" 2>&1
  log "full-size parity rc=$?"
  grep -E "^\[  (PASSED|FAILED) |parity|worst|requests|nRMS" "$OUT/parity.log" | head -60 | tee -a "$OUT/summary.txt"
fi

if has official; then
  official_site "$OUT/official.log"
  PYTHONPATH=/tmp/laya-site python3 scripts/gpu/official_gpu_bench.py --model $EN --shapes 1x48 --warmup 1 --iters 2 \
    --parity-out /tmp/official_parity.jsonl --parity-requests 30 >> "$OUT/official.log" 2>&1
  log "official parity dump rc=$?"
  LAYA_GPU_OFFICIAL_PARITY=/tmp/official_parity.jsonl LAYA_GPU_OFFICIAL_MODEL=$EN \
    $R test_gpu --gtest_filter=*Official* >> "$OUT/official.log" 2>&1
  log "official parity test rc=$?"
  grep -E "official parity|PASSED|FAILED" "$OUT/official.log" | tee -a "$OUT/summary.txt"
fi
if has http; then
  H=$OUT/http.txt
  $R laya-engine serve --model $HTTP_CK --backend cuda --port 18080 > /tmp/serve.log 2>&1 &
  SP=$!
  for i in $(seq 1 600); do curl -sf http://127.0.0.1:18080/ready > /dev/null && break; sleep 0.05; done
  B1='{"state": "I was charged twice for my order. Please refund the duplicate today.", "questions": {"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}}}'
  B2='{"state": "The server room is at 41 degrees and two fans have stopped.", "questions": {"team": {"type": "choice", "instructions": "Which team?", "criteria": {"facilities": "cooling", "it": "servers"}}, "urgency": {"type": "score", "instructions": "How urgent?", "criteria": ["low", "today", "now"]}}}'
  echo -n "serve: six requests, statuses " | tee -a "$OUT/summary.txt"
  for i in 1 2 3; do for b in "$B1" "$B2"; do
    curl -s -o /dev/null -w "%{http_code} " -H 'Content-Type: application/json' --data-binary "$b" \
      http://127.0.0.1:18080/v1/systemone | tee -a "$OUT/summary.txt"
  done; done; echo | tee -a "$OUT/summary.txt"
  curl -s -H 'Content-Type: application/json' --data-binary "$B2" http://127.0.0.1:18080/v1/systemone | head -c 400 | tee -a "$OUT/summary.txt"
  echo | tee -a "$OUT/summary.txt"
  kill $SP; wait $SP 2>/dev/null
  { echo "-- serve.log"; cat /tmp/serve.log; } > "$H"
  HB="timeout 150 $R laya_bench_http --model $HTTP_CK --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto --connections 256"
  { echo "-- the small request"; $HB --concurrency 64,128 --open-loop 10000 2>&1; } >> "$H"; log "http small rc=$?"
  { echo "-- mixed traffic"; $HB --mix 1 --concurrency 64 --open-loop 900,1300 2>&1; } >> "$H"; log "http mix rc=$?"
  grep -vE "^\s*$|warning" "$H" | sed -n '/^-- the small request/,$p' | tee -a "$OUT/summary.txt"
fi
# Another layout's checkpoint: ours eager and graph and the official package on it, interleaved
# (two rounds), its official parity, and `serve` answering requests in four languages.
# usage: layout_phase NAME CHECKPOINT SHAPES PORT   (results: $OUT/NAME.txt, $OUT/NAME_bench.jsonl)
layout_phase() {
  local name=$1 ck=$2 shapes=$3 port=$4 st b SP
  local M=$OUT/$name.txt J=$OUT/${name}_bench.jsonl
  bench_rounds $ck "$shapes" "$J" "$M" 1 "$M" "$name "
  python3 scripts/gpu/bench_table.py "$J" | tee -a "$OUT/summary.txt"
  PYTHONPATH=/tmp/laya-site python3 scripts/gpu/official_gpu_bench.py --model $ck --shapes 1x48 --warmup 1 --iters 2 \
    --parity-out /tmp/official_parity_$name.jsonl --parity-requests 30 >> "$M" 2>&1
  log "$name official parity dump rc=$?"
  LAYA_GPU_OFFICIAL_PARITY=/tmp/official_parity_$name.jsonl LAYA_GPU_OFFICIAL_MODEL=$ck \
    $R test_gpu --gtest_filter=*Official* >> "$M" 2>&1
  log "$name official parity test rc=$?"
  grep -E "official parity|PASSED|FAILED" "$M" | tee -a "$OUT/summary.txt"
  $R laya-engine serve --model $ck --backend cuda --port $port > /tmp/serve-$name.log 2>&1 &
  SP=$!
  for i in $(seq 1 600); do curl -sf http://127.0.0.1:$port/ready > /dev/null && break; sleep 0.05; done
  echo -n "serve $name: four requests, statuses " | tee -a "$OUT/summary.txt"
  for st in "Le serveur est en panne depuis ce matin et les clients ne peuvent plus payer." \
            "Mi pedido llegó roto y quiero que me devuelvan el dinero hoy mismo." \
            "サーバールームの温度が41度に達し、ファンが2台停止しました。" \
            "The invoice was charged twice; please refund the duplicate."; do
    b='{"state": "'"$st"'", "questions": {"urgent": {"type": "noul", "instructions": "Is this urgent?"}, "team": {"type": "choice", "instructions": "Which team?", "criteria": {"billing": "payments and refunds", "it": "servers and outages"}}}}'
    curl -s -o /tmp/$name-answer.json -w "%{http_code} " -H 'Content-Type: application/json' --data-binary "$b" \
      http://127.0.0.1:$port/v1/systemone | tee -a "$OUT/summary.txt"
    { echo; head -c 600 /tmp/$name-answer.json; echo; } >> "$M"
  done; echo | tee -a "$OUT/summary.txt"
  kill $SP; wait $SP 2>/dev/null
  { echo "-- serve.log ($name)"; cat /tmp/serve-$name.log; } >> "$M"
}
# The multilingual layout (mmBERT-base: 22 layers, d = 768, 12 heads, inter 1,152, vocab 256,000,
# rows up to 1,024 tokens) and typed-decisions (english dims, rows up to 1,024 tokens).
if has multilingual; then layout_phase ml $ML "${LAYA_ML_SHAPES:-1x48,4x64,1x512,1x1024,4x464,16x512}" 18081; fi
if has typed; then layout_phase td $TD "${LAYA_TD_SHAPES:-1x48,1x512,1x1024,4x1024,16x1024}" 18082; fi
log "suite end"
