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
record_machine() {
  { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv; nproc; } > "$OUT/gpu.txt" 2>&1
  $R laya-engine version >> "$OUT/gpu.txt" 2>&1
}
