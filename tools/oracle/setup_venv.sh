#!/usr/bin/env bash
# Creates the oracle virtualenv: the official `laya` package (0.3.20) with the PyTorch and
# transformers it runs on, and Hugging Face `tokenizers`, all from PyPI. Only the oracle scripts
# in tools/oracle/ need it; the default test run does not (it uses the committed golden data).
#   tools/oracle/setup_venv.sh [VENV_DIR]     (default: $LAYA_ORACLE_VENV or /opt/laya-oracle)
set -euo pipefail
venv="${1:-${LAYA_ORACLE_VENV:-/opt/laya-oracle}}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q "laya==0.3.20" "torch==2.11.0" "transformers==5.17.0" "tokenizers" "safetensors" "numpy"
echo "$venv/bin/python"
