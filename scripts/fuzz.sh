#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers of untrusted input (libFuzzer, ASan + UBSan).
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 seconds each, every target below
# Builds build/fuzz with clang (-DLAYA_FUZZ=ON, no CUDA, libraries instrumented for coverage) and runs
# each fuzz/<target>.cpp harness for SECONDS, two at a time (FUZZ_JOBS to change), starting from the
# seeds in fuzz/corpus/<target>/. The growing corpus goes to build/fuzz/corpus/<target>/ (the seeds are
# never modified); crashes, timeouts (> 1 s per input) and OOMs (> 2048 MB) land in
# build/fuzz/findings/<target>/ and make the script exit non-zero. Logs: build/fuzz/logs/<target>.log.
# Reproduce a finding: build/fuzz/fuzz/<target> build/fuzz/findings/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
all=(json_fuzz json_array_fuzz request_fuzz tokenizer_fuzz tokenizer_json_fuzz safetensors_fuzz model_config_fuzz python_json_fuzz)
targets=("${@:-${all[@]}}")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
jobs=${FUZZ_JOBS:-2}

build=build/fuzz
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAYA_FUZZ=ON -DLAYA_WITH_CUDA=OFF -DLAYA_SANITIZE=ON \
  -DLAYA_BUILD_TESTS=OFF -DLAYA_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link -fno-omit-frame-pointer -gline-tables-only" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

export LAYA_FIXTURES_DIR=${LAYA_FIXTURES_DIR:-$PWD/../shared/fixtures}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/logs"

run_one() {
  local t=$1
  local corpus=$build/corpus/$t findings=$build/findings/$t
  mkdir -p "$corpus" "$findings"
  local seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  local dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  "$build/fuzz/$t" "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$secs" -timeout=1 -rss_limit_mb=2048 \
    -max_len="${FUZZ_MAX_LEN:-65536}" -print_final_stats=1 -artifact_prefix="$findings/" >"$build/logs/$t.log" 2>&1
}

status=0
running=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

for t in "${targets[@]}"; do
  log=$build/logs/$t.log
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  n=$(find "$build/findings/$t" -type f | wc -l)
  printf '%-20s execs=%-10s %-22s findings=%s\n' "$t" "${execs:-?}" "${cov:-?}" "$n"
  [ "$n" -eq 0 ] || status=1
done
exit $status
