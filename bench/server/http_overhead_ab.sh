#!/bin/bash
# A/B of the c=1 HTTP overhead of two laya_bench_http binaries, alternating runs so that both see the
# same machine state (on a VM the cost of a thread wake-up drifts between runs; see
# docs/benchmarks/http.md). Prints, per forward time N, the median over pairs of each binary's
# overhead (HTTP p50 - in-process p50) and of the paired difference.
#   bench/server/http_overhead_ab.sh BASE_BIN NEW_BIN [spin|sleep] [PAIRS] [N_LIST]
# BASE_ARGS / NEW_ARGS (environment): extra options for one binary only, e.g.
#   NEW_ARGS='--busy-poll-us 250' (an option the base binary may not know).
set -euo pipefail
base=$1 new=$2 wait=${3:-spin} pairs=${4:-12} delays=${5:-0,300,1000}
# AB_ROWS=FILE keeps the per-run rows (binary, pair, N, overhead) there, e.g. to split by regime.
if [ -n "${AB_ROWS:-}" ]; then rows=$AB_ROWS; : > "$rows"; else rows=$(mktemp); trap 'rm -f "$rows"' EXIT; fi
for t in $(seq "$pairs"); do
  for b in base new; do
    bin=$base extra=${BASE_ARGS:-}
    [ $b = new ] && bin=$new extra=${NEW_ARGS:-}
    # shellcheck disable=SC2086 # extra options split on purpose
    "$bin" $extra --null-backend-us "$delays" --null-wait "$wait" --requests 400 --concurrency '' 2>&1 |
      awk -v b=$b -v t="$t" '$1 ~ /^[0-9]+$/ && NF == 8 {print b, t, $1, $6}' >> "$rows"
  done
done
python3 - "$rows" <<'PY'
import collections, statistics, sys
pairs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    b, t, n, overhead = line.split()
    pairs[(int(n), int(t))][b] = float(overhead)
print(f"{'N us':>6} {'pairs':>5} {'base us':>8} {'new us':>8} {'paired diff us':>15}")
for n in sorted({n for n, _ in pairs}):
    v = [(p['base'], p['new']) for (m, _), p in pairs.items() if m == n and len(p) == 2]
    print(f"{n:>6} {len(v):>5} {statistics.median(a for a, _ in v):8.1f} {statistics.median(b for _, b in v):8.1f} "
          f"{statistics.median(b - a for a, b in v):15.1f}")
PY
