# Shared start of the GPU suites (sourced by run_gpu_suite.sh and run_ab_suite.sh after they set
# PH, the comma list of phases to run): output folder, bundle runner, phase test, timestamped log,
# and the machine record ($OUT/gpu.txt).
set -u
OUT=${OUT:-/tmp/laya-gpu-out}
mkdir -p "$OUT"
R=.gpu/run.sh
X=${LAYA_GPU_UNPACK:-/tmp/laya-gpu}
SHAPES=${LAYA_BENCH_SHAPES:-1x48,4x64,1x464,1x512,4x464,16x512}
export PYTHONUNBUFFERED=1
has() { [[ ",$PH," == *",$1,"* ]]; }
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }
# The commit the bundle was made from (bundle.sh), not this copy's git state.
bundle_commit() { cat .gpu/commit.txt 2>/dev/null || echo '?'; }
record_machine() {
  { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv; nproc; } > "$OUT/gpu.txt" 2>&1
  $R laya-engine version >> "$OUT/gpu.txt" 2>&1
}
# The GPU's SM clock and power while a phase runs, sampled every 100 ms into /tmp/smi-NAME.csv and
# summarised into the summary: the large shapes run at the 700 W power cap, with the SM clock well
# below its maximum (docs/benchmarks/cuda.md item 51), so every timing needs its clock beside it.
smi_start() {
  nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_event_reasons.sw_power_cap --format=csv,noheader,nounits \
    -lms 100 > "/tmp/smi-$1.csv" 2>/dev/null &
  SMI_PID=$!
}
smi_stop() {
  kill "$SMI_PID" 2>/dev/null
  wait "$SMI_PID" 2>/dev/null
  python3 - "/tmp/smi-$1.csv" "$1" <<'PY' | tee -a "$OUT/summary.txt"
import sys
rows = []
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    try:
        rows.append((float(f[0]), float(f[1]), f[2] == "Active"))
    except (ValueError, IndexError):
        pass
busy = [r for r in rows if r[1] > 150]  # samples while work ran (idle H200: 80-130 W)
if busy:
    clk = [r[0] for r in busy]
    pw = [r[1] for r in busy]
    print("GPU during %s: %d busy samples, SM clock mean %.0f MHz (min %.0f), power mean %.0f W (max %.0f), "
          "at the power cap in %d%%" % (sys.argv[2], len(busy), sum(clk) / len(clk), min(clk), sum(pw) / len(pw),
                                        max(pw), 100 * sum(r[2] for r in busy) // len(busy)))
else:
    # A run of a few tens of milliseconds ends before nvidia-smi's averaged power reading rises.
    print("GPU during %s: no sample above 150 W (%d in all): too short to heat the GPU" % (sys.argv[2], len(rows)))
PY
}
# The synthetic checkpoint of a layout, synthesized once per machine at /tmp/ck-LAYOUT (english
# seed 1, typed-decisions seed 2 — both with the ModernBERT tokenizer —, multilingual seed 3 with
# the mmBERT stand-in): every suite and call uses the same checkpoint. usage: synth_layout LAYOUT
synth_layout() {
  local dir=/tmp/ck-$1 seed tok=$X/tokenizer
  case $1 in
    english) seed=1 ;; typed-decisions) seed=2 ;; multilingual) seed=3 tok=$X/tokenizer-mmbert ;;
    *) echo "synth_layout: english, typed-decisions or multilingual (got '$1')" >&2; exit 2 ;;
  esac
  [ -d "$dir" ] || $R laya-engine synth --layout "$1" --seed $seed "$dir" --tokenizer "$tok" 2>&1 | tail -2
}
# Checks a variant list, space-separated NAME:VAR=VALUE[,VAR=VALUE] (a value cannot hold a comma),
# before anything runs; exits 2 naming the bad item. usage: check_variants LIST_NAME "$LIST"
check_variants() {
  local v kv
  for v in $2; do
    for kv in $(echo "${v#*:}" | tr ',' ' '); do
      [[ "$kv" == *=* ]] || { echo "$1: '$kv' in '$v' is not VAR=VALUE (values cannot contain commas)" >&2; exit 2; }
    done
  done
}
