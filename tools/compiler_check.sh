#!/usr/bin/env bash
# One compiler, warnings as errors: builds the extension and the C++ test drivers with $CXX and
# MEEPLE_WERROR=ON (-Wall -Wextra -Werror), runs the drivers, and plays a game of each kind with
# the extension it built. A new compiler's warnings show here before a user's sdist build meets them.
#   CXX=clang++ tools/compiler_check.sh [BUILD_DIR]
# Needs cmake, ninja and a Python with pybind11 and numpy ($PYTHON, default python3).
# CI runs it with the newest GCC and Clang (Debian testing): .github/workflows/tests.yml, compilers.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
cxx=${CXX:-c++}
build=${1:-build/compiler-check-$(basename "$cxx")}
"$cxx" --version | sed -n 1p
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DMEEPLE_WERROR=ON -DMEEPLE_BUILD_CPP_TESTS=ON \
  -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$(command -v "$py")" >/dev/null
cmake --build "$build"
"$build/meeple_cpp_tests"
"$build/meeple_thread_pool_tests"
# The extension beside a copy of the package (the checkout's python/meeple stays as it is).
pkg="$build/package"
rm -rf "$pkg" && mkdir -p "$pkg" && cp -r python/meeple "$pkg/"
find "$pkg/meeple" \( -name '_core*.so' -o -name '__pycache__' \) -prune -exec rm -rf {} +
cp "$build"/_core*.so "$pkg/meeple/"
PYTHONPATH="$pkg" "$py" - <<'PY'
import meeple
for name in meeple.list_games():
    returns, lengths = meeple.random_playouts(name, 20, seed=1)
    print(f"{name}: 20 random games, {int(lengths.sum())} plies, mean returns {returns.mean(axis=0).round(2)}")
PY
echo "compiler check passed: $cxx"
