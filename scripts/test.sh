#!/usr/bin/env bash
# Run every test on a fresh machine: creates the virtual environments it needs, installs
# the project (torch pinned to the CPU wheel 2.13.0), runs the full suite on Python 3.11,
# then the interpreter's own tests (standard library only, no torch) on 3.12 and 3.13.
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

find_python() {  # find_python 3.12 -> a command running that Python, or nothing
  local v=$1 full cand
  if command -v pyenv >/dev/null 2>&1; then
    full=$(pyenv versions --bare 2>/dev/null | grep -E "^$v(\.[0-9]+)?$" | tail -n 1 || true)
    [ -n "$full" ] && cand="$(pyenv root)/versions/$full/bin/python"
  fi
  for c in ${cand:-} "python$v"; do
    if "$c" -c "import sys; assert sys.version_info[:2] == tuple(map(int, '$v'.split('.')))" >/dev/null 2>&1; then
      echo "$c"; return
    fi
  done
}

venv() {  # venv DIR PYTHON: create DIR if missing
  [ -x "$1/bin/python" ] || "$2" -m venv "$1"
}

py311=$(find_python 3.11)
[ -n "$py311" ] || { echo "Python 3.11 not found" >&2; exit 1; }
venv .venv "$py311"
.venv/bin/python -m pip install -q -c constraints.txt torch==2.13.0 pytest hypothesis pluggy numpy matplotlib expecttest "transformers==5.23.0"
.venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e . -e executors/torch -e tests/plugins/thunder_test_plugin 2>/dev/null \
  || .venv/bin/python -m pip install -q -c constraints.txt -e . -e executors/torch -e tests/plugins/thunder_test_plugin

# ---- the triton executor (executors/triton): Triton's wheel (with ptxas, for ahead-of-time
# PTX/cubin without a GPU) and numpy (its CPU interpreter, TRITON_INTERPRET=1, runs the kernels)
.venv/bin/python -m pip install -q -c constraints.txt triton==3.9.0 numpy
.venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e executors/triton 2>/dev/null \
  || .venv/bin/python -m pip install -q -c constraints.txt -e executors/triton
# ----
# ---- the nvfuser executor (executors/nvfuser): without nvFuser's wheel here (none for torch 2.13)
# its tests that need nvfuser_direct skip; the nvFuser lane at the end runs them with the library
.venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e executors/nvfuser 2>/dev/null \
  || .venv/bin/python -m pip install -q -c constraints.txt -e executors/nvfuser
# ----

# ---- the cudnn executor (executors/cudnn): the cuDNN frontend (Python module `cudnn`) and
# libcudnn; without a GPU its tests build and validate graphs and have libcudnn build their operation
# graphs from the target's device description (libcudnn pinned to 9.26: newer ones need the driver to
# load), nothing executes
.venv/bin/python -m pip install -q -c constraints.txt nvidia-cudnn-frontend nvidia-cudnn-cu13
.venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e executors/cudnn 2>/dev/null \
  || .venv/bin/python -m pip install -q -c constraints.txt -e executors/cudnn
# ----

# ---- the distributed plugin (plugins/distributed): torch.distributed's collectives, DDP and FSDP2
# under tc.jit; its tests spawn 2 ranks on gloo (CPU)
.venv/bin/python -m pip install -q -c constraints.txt --no-build-isolation -e plugins/distributed 2>/dev/null \
  || .venv/bin/python -m pip install -q -c constraints.txt -e plugins/distributed
# ----

echo "== Python 3.11: full suite"
.venv/bin/python -m pytest -q "$@"

# ---- the op conformance kit (docs/conformance.md) against the installed executors, a small op subset
echo "== Python 3.11: conformance kit: torch and inductor executors"
conformance_plugin=$(.venv/bin/python -c "import importlib.metadata as m; print('' if any(e.name == 'thunder_conformance' for e in m.entry_points(group='pytest11')) else '-p thunder_core.testing.conformance.plugin')")
.venv/bin/python -m pytest -q $conformance_plugin --pyargs thunder_core.testing.conformance \
  --thunder-executor torch --thunder-ops "add,mul,div,exp,tanh,where,sum,amax,softmax,reshape,permute,cat,split,narrow,expand,flip,diagonal,roll,logaddexp,xlogy,special_i0e,nansum,aminmax,cummax"
.venv/bin/python -m pytest -q $conformance_plugin --pyargs thunder_core.testing.conformance \
  --thunder-executor inductor --thunder-ops "add,mul,exp,sum,reshape,permute,cat,logaddexp,nansum" --thunder-max-examples 5
echo "== Python 3.11: conformance kit: triton executor (its CPU interpreter, then planned for an H100)"
TRITON_INTERPRET=1 .venv/bin/python -m pytest -q $conformance_plugin --pyargs thunder_core.testing.conformance \
  --thunder-executor triton --thunder-ops "add,mul,exp,tanh,softmax" --thunder-max-examples 5
.venv/bin/python -m pytest -q $conformance_plugin --pyargs thunder_core.testing.conformance \
  --thunder-executor triton --thunder-ops "add,mul,exp,softmax" --thunder-target h100
echo "== Python 3.11: conformance kit: cudnn executor planned for an H100 (its claims, graphs built ahead of time)"
.venv/bin/python -m pytest -q $conformance_plugin --pyargs thunder_core.testing.conformance \
  --thunder-executor cudnn --thunder-ops "scaled_dot_product_attention,layer_norm,native_layer_norm,rms_norm" --thunder-target h100
# ---- end of the conformance kit

for v in 3.12 3.13; do
  py=$(find_python $v)
  if [ -z "$py" ]; then
    if [ "${CI:-}" = "true" ]; then echo "Python $v not found: the interpreter must be tested on it" >&2; exit 1; fi
    echo "== Python $v not found: skipping its interpreter tests"; continue
  fi
  venv ".venv-$v" "$py"
  ".venv-$v/bin/python" -m pip install -q pytest hypothesis
  echo "== Python $v: interpreter tests (no torch)"
  PYTHONPATH="$root" ".venv-$v/bin/python" -m pytest -q tests/frontend "$@"
done

echo "== wheel lane: built wheels installed (not editable) and checked from outside the tree"
bash scripts/wheels.sh

# ---- the nvFuser lane (executors/nvfuser, issue #15): thunder_core on Python 3.12 with torch 2.10
# (the CUDA 12.8 build from PyPI; no GPU is needed) and nvFuser's wheel for it. Runs the core's
# own suite there (the torch versions we support: 2.13 above, 2.10 here), then the nvfuser
# executor's tests with the real library (its definitions, their printed form re-executed, their
# fusion math; tc.plan of a GPT block for an H100). .venv-nvfuser is reused when present.
# Measured on 2 cores: about 1.5 min to create (a 4 GB download), about 6.5 min to run.
echo "== nvFuser lane: Python 3.12, torch 2.10.0, nvfuser-cu128-torch210"
py312=$(find_python 3.12)
if [ -z "$py312" ]; then
  if [ "${CI:-}" = "true" ]; then echo "Python 3.12 not found: the nvFuser lane needs it" >&2; exit 1; fi
  echo "== Python 3.12 not found: skipping the nvFuser lane"
else
  nvf_constraints=executors/nvfuser/constraints-torch210.txt
  if ! [ -x .venv-nvfuser/bin/python ] || ! .venv-nvfuser/bin/python -c "import nvfuser_direct, pytest" 2>/dev/null; then
    venv .venv-nvfuser "$py312"
    .venv-nvfuser/bin/python -m pip install -q --pre -c "$nvf_constraints" torch==2.10.0 nvfuser-cu128-torch210 \
      pytest hypothesis pluggy numpy expecttest setuptools
  fi
  .venv-nvfuser/bin/python -m pip install -q -c "$nvf_constraints" --no-build-isolation \
    -e . -e executors/torch -e tests/plugins/thunder_test_plugin -e executors/nvfuser 2>/dev/null \
    || .venv-nvfuser/bin/python -m pip install -q -c "$nvf_constraints" \
      -e . -e executors/torch -e tests/plugins/thunder_test_plugin -e executors/nvfuser
  echo "== nvFuser lane: the core's suite on torch $(.venv-nvfuser/bin/python -c 'import torch; print(torch.__version__)')"
  .venv-nvfuser/bin/python -m pytest -q tests executors/torch/tests "$@"
  echo "== nvFuser lane: the nvfuser executor with nvfuser_direct"
  .venv-nvfuser/bin/python -m pytest -q executors/nvfuser/tests "$@"
  echo "== nvFuser lane: conformance kit: nvfuser executor planned for an H100 (its claims and artifacts)"
  .venv-nvfuser/bin/python -m pytest -q --pyargs thunder_core.testing.conformance \
    --thunder-executor nvfuser --thunder-ops "add,mul,exp,tanh,where,softmax,sum,amax" --thunder-target h100
fi
# ---- end of the nvFuser lane
