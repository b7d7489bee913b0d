#!/usr/bin/env bash
# Installs every Debian 12 package laya-engine needs to build, test and serve.
# Idempotent and non-interactive; re-running it is cheap when everything is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3
  libboost1.81-dev          # Boost.Beast / Asio: the HTTP server
  libsimdjson-dev           # fast JSON parsing (tokenizer.json)
  nlohmann-json3-dev        # config files
  libspdlog-dev libfmt-dev  # logging and formatting
  prometheus-cpp-dev        # /metrics exposition
  libcli11-dev              # command line
  libutf8proc-dev           # Unicode normalisation and categories (tokenizer)
  libopenblas-dev           # CPU GEMM
  libssl-dev                # SHA-256
  zlib1g-dev                # gzip-compressed golden test data
  libgtest-dev libgmock-dev libbenchmark-dev
  wrk                       # loopback load tests
  curl                      # README example, HTTP smoke tests
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
