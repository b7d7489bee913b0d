#!/usr/bin/env bash
# Packs what the GPU machine needs into .gpu/ (git-ignored; carried with `run ... carry=[".gpu"]`):
# the laya-engine binary and the GPU test binaries of a CUDA build, every non-system shared
# library they load (ldd, minus glibc, libstdc++/libgcc and the CUDA driver/cuBLAS, which the GPU
# machine's image provides), the ModernBERT tokenizer and the multilingual stand-in (full-size
# checkpoints are synthesized there),
# the official laya wheel, all compressed into .gpu/bundle.tar.xz (the tree that travels is
# limited to 64 MiB), plus .gpu/run.sh, which unpacks once and runs a program with LD_LIBRARY_PATH set.
#
# usage: [LAYA_BASELINE_BIN=DIR] [LAYA_ALT_BIN=DIR] [LAYA_BUNDLE_PROBES="laya_bench_http ..."|none] scripts/gpu/bundle.sh [BUILD_DIR]
#        (default build/cuda-h; build laya-engine test_gpu test_cuda_host first)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/cuda-h}
FIX=${LAYA_FIXTURES_DIR:-../shared/fixtures}
WHEEL=${LAYA_WHEEL:-/tmp/laya/laya-0.3.20-py3-none-any.whl}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/tokenizer/original" "$STAGE/wheels"
for f in "$B/bin/laya-engine" "$B/tests/gpu/test_gpu" "$B/tests/gpu/test_cuda_host"; do
  [ -x "$f" ] || { echo "bundle: missing $f (build it first)" >&2; exit 1; }
  cp "$f" "$STAGE/bin/"
  strip --strip-debug "$STAGE/bin/$(basename "$f")" || true
done
# Optional, when built: the HTTP benchmark (bench/server, --backend cuda) and the CUDA benchmarks
# (bench/cuda: GEMM candidates, PDL probes, grid barrier, instruction cache, small GEMM timeline, wgmma
# loop, clock gap). LAYA_BUNDLE_PROBES names the ones to take (space-separated; default "all";
# "none": none) — the carried tree is limited to 64 MiB and the repository's tracked files take
# about half of it, so a bundle with a baseline and every probe no longer fits (session 40).
PROBES=" ${LAYA_BUNDLE_PROBES:-all} "
for f in "$B/bench/server/laya_bench_http" "$B/bench/cuda/laya_bench_gemm" "$B/bench/cuda/laya_bench_gemm_pdl" \
         "$B/bench/cuda/laya_bench_grid_barrier" "$B/bench/cuda/laya_bench_icache" \
         "$B/bench/cuda/laya_bench_small_gemm_timeline" \
         "$B/bench/cuda/laya_bench_wgmma_loop" "$B/bench/cuda/laya_bench_clock_gap"; do
  case "$PROBES" in *" all "*|*" $(basename "$f") "*) ;; *) continue ;; esac
  if [ -x "$f" ]; then
    cp "$f" "$STAGE/bin/" && strip --strip-debug "$STAGE/bin/$(basename "$f")" || true
  fi
done
# Optional A/B baselines: LAYA_BASELINE_BIN=DIR holding laya-engine (and test_gpu) of an earlier
# build, bundled as laya-engine-base / test_gpu-base (same libraries) for side-by-side benches;
# LAYA_ALT_BIN=DIR likewise as laya-engine-alt / test_gpu-alt (a third build, e.g. another arch).
for pair in "base:${LAYA_BASELINE_BIN:-}" "alt:${LAYA_ALT_BIN:-}"; do
  suffix=${pair%%:*} dir=${pair#*:}
  [ -n "$dir" ] || continue
  for f in laya-engine test_gpu; do
    [ -x "$dir/$f" ] && cp "$dir/$f" "$STAGE/bin/$f-$suffix" && strip --strip-debug "$STAGE/bin/$f-$suffix" || true
  done
done
# Optional: the CUPTI kernel-trace injection library (CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so;
# scripts/gpu/kernel_trace.py reads its record); the CUPTI it links comes along through ldd below.
T="$B/bench/cuda/liblaya_kernel_trace.so"
SCAN=("$STAGE"/bin/*)
if [ -f "$T" ]; then cp "$T" "$STAGE/lib/" && SCAN+=("$STAGE/lib/$(basename "$T")"); fi
ldd "${SCAN[@]}" | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libutil.so*|ld-linux*|libstdc++*|libgcc_s*|libcuda.so*|libcublas*|libcudart*|libnvidia*) ;;
    *) cp -L "$lib" "$STAGE/lib/" ;;
  esac
done
cp "$FIX/tokenizer-modernbert/tokenizer.json" "$STAGE/tokenizer/"
cp "$FIX/tokenizer-modernbert/original/"*.json "$STAGE/tokenizer/original/"
cp "$FIX/tokenizer-modernbert/original/tokenizer_config.json" "$STAGE/tokenizer/"
# The multilingual layout's stand-in tokenizer (fixtures README), for the multilingual checkpoint.
mkdir -p "$STAGE/tokenizer-mmbert"
cp "$FIX/tokenizer-mmbert-standin/tokenizer.json" "$STAGE/tokenizer-mmbert/"
[ -f "$WHEEL" ] && cp "$WHEEL" "$STAGE/wheels/"
mkdir -p .gpu
rm -f .gpu/bundle.tar.xz
tar -C "$STAGE" -cJf .gpu/bundle.tar.xz .
# The tree's commit when bundled (-dirty: with uncommitted changes), which the suites log: the GPU
# machine's copy of the repository need not carry the git state the binaries were built from.
git describe --always --dirty > .gpu/commit.txt 2>/dev/null || echo '?' > .gpu/commit.txt
cat > .gpu/run.sh <<'RUN'
#!/usr/bin/env bash
# .gpu/run.sh PROGRAM [ARGS]: runs a bundled program (laya-engine, test_gpu, test_cuda_host).
HERE=$(cd "$(dirname "$0")" && pwd)
X=${LAYA_GPU_UNPACK:-/tmp/laya-gpu}
if [ ! -f "$X/.unpacked" ]; then mkdir -p "$X" && tar -C "$X" -xJf "$HERE/bundle.tar.xz" && touch "$X/.unpacked"; fi
if [ -z "${LAYA_CUBLAS_DIR:-}" ]; then
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null); do
    if ls "$d"/libcublasLt.so.13* >/dev/null 2>&1; then LAYA_CUBLAS_DIR=$d; break; fi
  done
  if [ -z "${LAYA_CUBLAS_DIR:-}" ]; then
    f=$(find / -xdev -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
    [ -n "$f" ] && LAYA_CUBLAS_DIR=$(dirname "$f")
  fi
fi
export LD_LIBRARY_PATH="$X/lib:${LAYA_CUBLAS_DIR:-}:${LD_LIBRARY_PATH:-}"
prog=$1; shift
exec "$X/bin/$prog" "$@"
RUN
chmod +x .gpu/run.sh
cp scripts/gpu/suite_common.sh scripts/gpu/run_gpu_suite.sh scripts/gpu/run_ab_suite.sh scripts/gpu/run_env_variants.sh scripts/gpu/official_gpu_bench.py scripts/gpu/kernel_trace.py \
  scripts/gpu/compare_answers.sh scripts/gpu/gen_requests.py .gpu/ 2>/dev/null || true
du -sh .gpu/bundle.tar.xz
