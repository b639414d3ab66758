#!/usr/bin/env bash
# Run the demo on a fresh machine: sets up .venv (torch pinned to the CPU wheel 2.13.0, the
# torch and triton executors; Triton compiles the H100 plan's kernels to PTX/cubin without a
# GPU) and runs `python -m thunder_core demo`. Usage: bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
.venv/bin/python -m pip install -q -c constraints.txt torch==2.13.0 pluggy numpy triton==3.9.0 "transformers==5.23.0"
.venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e . -e executors/torch -e executors/triton \
  2>/dev/null || .venv/bin/python -m pip install -q -c constraints.txt -e . -e executors/torch -e executors/triton
exec .venv/bin/python -m thunder_core demo "$@"
