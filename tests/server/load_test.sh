#!/usr/bin/env bash
# Load test: `laya-engine serve` on the demo checkpoint (CPU backend) under wrk at concurrency 1, 8
# and 64 for a fixed duration each. Fails on any non-2xx response or socket error (no 429 is
# intended at these settings: the queue holds 256), on a resident-memory growth over 16 MiB between
# a warm-up run at concurrency 64 and the end (≈ 2,000 requests after the warm-up: a leak of
# ≈ 8 KiB a request shows up), and on a non-zero exit after SIGTERM.
# Forwards take at most 16 rows: the CPU backend keeps its activation buffers at the largest batch
# it has run, so with 64-row batches a later batch a little larger than any of the warm-up's grew
# them by up to 30 MiB (seen once in CI, a one-time growth, not a leak); at 16 rows every buffer
# together stays under ≈ 12 MiB, and the warm-up at concurrency 64 fills the batches.
#
#   tests/server/load_test.sh BINARY SOURCE_DIR CACHE_DIR [SECONDS_PER_RUN]
# LAYA_LOAD_TEST_WRK_TIMEOUT (seconds, default 2: wrk's own) is how long a response may take before
# wrk counts a timeout — a socket error here; scripts/tsan.sh raises it, its server being ~30x slower.
# Needs wrk (Debian package; scripts/setup.sh installs it). Exit 77 (ctest: skipped) without it.
set -euo pipefail
bin=$1 src=$2 cache=$3 dur=${4:-3}
if ! command -v wrk >/dev/null; then
  echo "SKIPPED: wrk is not installed (scripts/setup.sh installs it)" >&2
  exit 77
fi
log=$(mktemp)
LAYA_CACHE_DIR=$cache "$bin" serve --model demo --port 0 --threads 1 --max-batch-rows 16 2>"$log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"; }
trap cleanup EXIT
port=""
for _ in $(seq 1 600); do
  port=$(grep -oP 'listening on [^ ]+:\K[0-9]+' "$log" || true)
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "FAIL: server exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; echo "FAIL: server did not start" >&2; exit 1; }
url="http://127.0.0.1:$port"
for _ in $(seq 1 600); do curl -sf "$url/ready" >/dev/null && break; sleep 0.1; done

rss_kib() { awk '/^VmRSS/{print $2}' "/proc/$pid/status"; }
fail=0
run() {
  local c=$1 t=$(( $1 < 2 ? 1 : 2 ))
  local out
  out=$(wrk -t"$t" -c"$c" -d"${dur}s" --timeout "${LAYA_LOAD_TEST_WRK_TIMEOUT:-2}s" --latency -s "$src/tests/server/wrk_post.lua" "$url/v1/systemone")
  local reqs p50 rps
  reqs=$(echo "$out" | grep -oP '^\s*\K[0-9]+(?= requests in)')
  p50=$(echo "$out" | awk '/^ +50%/{print $2}')
  rps=$(echo "$out" | awk '/^Requests\/sec/{print $2}')
  printf 'concurrency %-3s requests %-7s req/s %-9s p50 %s\n' "$c" "$reqs" "$rps" "$p50"
  if echo "$out" | grep -q 'Non-2xx'; then echo "$out" >&2; echo "FAIL: non-2xx responses at concurrency $c" >&2; fail=1; fi
  if echo "$out" | grep -q 'Socket errors'; then echo "$out" >&2; echo "FAIL: socket errors at concurrency $c" >&2; fail=1; fi
  if [ "${reqs:-0}" -lt 1 ]; then echo "$out" >&2; echo "FAIL: no request completed at concurrency $c" >&2; fail=1; fi
}
run 64 >/dev/null  # warm-up to the largest working set: batch buffers, allocator arenas, connections
rss0=$(rss_kib)
run 1
run 8
run 64
rss1=$(rss_kib)
growth=$(( rss1 - rss0 ))
echo "RSS after warm-up ${rss0} KiB, after the runs ${rss1} KiB (growth ${growth} KiB)"
if [ "$growth" -gt 16384 ]; then echo "FAIL: memory grew by ${growth} KiB" >&2; fail=1; fi
curl -s "$url/metrics" | grep -E '^laya_(batch_requests|batch_rows)_(sum|count)|^laya_requests_dropped_total' || true
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
if [ "$rc" -ne 0 ]; then cat "$log" >&2; echo "FAIL: exit code $rc after SIGTERM" >&2; fail=1; fi
[ "$fail" -eq 0 ] && echo "load test passed"
exit "$fail"
