#!/usr/bin/env bash
# ThreadSanitizer over the code that runs on several threads (docs/server.md, "Data races"): the
# scheduler (test_runtime), the HTTP server in process on a deterministic backend (test_server), and
# the real `laya-engine serve` built with TSan under the acceptance tests and the wrk load test
# (concurrency 1, 8 and 64). Any race report fails the run (halt_on_error). Part of
# scripts/test.sh; its own build (build/tsan, preset tsan) takes ≈ 2.5 minutes on 2 cores, the runs
# ≈ 45 s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
targets=(test_runtime test_server test_server_acceptance laya-engine)
cmake --preset tsan
cmake --build --preset tsan -j "$(nproc)" --target "${targets[@]}"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# The CPU backend's parallel loops run on libgomp and its GEMMs on OpenBLAS threads; neither library
# is instrumented, so TSan cannot see their barriers and would report the loops' outputs read after
# them. One CPU thread keeps the model on the calling worker thread: the scheduler's, server's and
# pool's threads are what this run is about.
export LAYA_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
build/tsan/tests/runtime/test_runtime --gtest_brief=1
build/tsan/tests/server/test_server --gtest_brief=1
build/tsan/tests/server/test_server_acceptance --gtest_brief=1
# At concurrency 64 the TSan-built CPU server answers in ≈ 1.5 s (≈ 35 requests/s on 2 cores), near
# wrk's 2 s timeout: timeouts there would say nothing about races.
LAYA_LOAD_TEST_WRK_TIMEOUT=30 ctest --test-dir build/tsan -R '^server_load_wrk$' --output-on-failure
echo "tsan: no data race reported"
