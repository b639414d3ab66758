#!/usr/bin/env bash
# The wheel lane: build every distribution (the core, each executor under executors/, each
# plugin under plugins/) as a wheel and an sdist with the standard build front end, install
# the wheels (not editable) into a fresh virtual environment with the pinned torch, and check
# them from outside the source tree (scripts/check_wheels.py): each wheel holds every module
# and entry point of its source, `python -m thunder_core doctor` finds every plugin, a small
# jit/plan smoke test runs, and a plugin wheel written for another plugin API is refused with
# a warning naming both versions. Usage: bash scripts/wheels.sh (scripts/test.sh runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
py=.venv/bin/python
[ -x "$py" ] || { echo "run scripts/test.sh first (it creates .venv)" >&2; exit 1; }
"$py" -m pip install -q -c constraints.txt build

dist="$root/dist"
rm -rf "$dist" && mkdir -p "$dist"
dirs=(.)
for d in executors/*/ plugins/*/; do
  [ -f "$d/pyproject.toml" ] && dirs+=("${d%/}")
done
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
for d in "${dirs[@]}"; do
  # from a clean copy: an editable install's *.egg-info beside the sources would let setuptools
  # add files the package list leaves out, hiding exactly what this lane must catch
  rm -rf "$src/pkg" && mkdir "$src/pkg"
  tar -C "$d" --exclude='*.egg-info' --exclude=build --exclude=dist --exclude='.venv*' --exclude=__pycache__ \
      --exclude=.git --exclude=executors --exclude=plugins -cf - . | tar -C "$src/pkg" -xf -
  "$py" -m build --no-isolation --outdir "$dist" "$src/pkg" > "$src/build.log" 2>&1 || { cat "$src/build.log"; exit 1; }
done
echo "built: $(cd "$dist" && ls | tr '\n' ' ')"

# a fresh environment each run for our packages; torch and other dependencies stay installed
venv=.venv-wheels
[ -x "$venv/bin/python" ] || "$(readlink -f .venv/bin/python)" -m venv "$venv"
"$venv/bin/python" -m pip uninstall -q -y $(cd "$dist" && ls *.whl | sed 's/-[0-9].*//; s/_/-/g') 2>/dev/null || true
"$venv/bin/python" -m pip install -q -c constraints.txt torch==2.13.0 numpy
# the wheels' dependencies from the package index, then ours again from the local folder only,
# through the core's extra, as `pip install "thunder-core[all]"` resolves them for a user
"$venv/bin/python" -m pip install -q -c constraints.txt --find-links "$dist" "$dist"/*.whl
ours=$(cd "$dist" && ls *.whl | sed 's/-[0-9].*//; s/_/-/g')
"$venv/bin/python" -m pip uninstall -q -y $ours
version=$("$py" -c "import re; print(re.search(r'__version__ = \"(.*)\"', open('thunder_core/__init__.py').read()).group(1))")
"$venv/bin/python" -m pip install -q -c constraints.txt --no-index --find-links "$dist" "thunder-core[all]==$version"
for name in $ours; do
  "$venv/bin/python" -m pip show -q "$name" >/dev/null || { echo "thunder-core[all] did not install $name" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$src" "$work"' EXIT
cd "$work"  # outside the source tree: only the installed wheels can be imported
"$root/$venv/bin/python" "$root/scripts/check_wheels.py" "$root" "$dist" "${dirs[@]}"
