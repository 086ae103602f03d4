#!/usr/bin/env bash
# Fast in-place development build: compiles meeple._core into python/meeple/ so that
# `PYTHONPATH=python python -m pytest` runs against the working tree. Not used by CI or wheels.
#   tools/dev_build.sh            optimised build
#   tools/dev_build.sh sanitize   ASan+UBSan build in build/dev-sanitize
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-release}
dir=build/dev
extra=()
if [ "$mode" = sanitize ]; then dir=build/dev-sanitize; extra=(-DMEEPLE_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo); fi
# A build directory copied with the tree (cp -r) still names the old source in its CMake cache,
# which cmake refuses: start that one afresh.
cache="$dir/CMakeCache.txt"
if [ -f "$cache" ] && ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$PWD" "$cache"; then
  echo "dev_build: $dir was configured for another source tree; removing it"
  rm -rf "$dir"
fi
python -c 'import pybind11' 2>/dev/null && command -v cmake >/dev/null ||
  { echo "dev_build: needs pybind11 and cmake in this environment: pip install pybind11 cmake ninja" >&2; exit 1; }
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B "$dir" "${gen[@]}" -DMEEPLE_WERROR=ON -DMEEPLE_BUILD_CPP_TESTS=ON \
  -Dpybind11_DIR="$(python -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$(command -v python)" "${extra[@]}" >/dev/null
cmake --build "$dir" -j2
# Replace the module by rename, never in place: running processes keep the old file mapped.
if [ "$mode" != sanitize ]; then
  for so in "$dir"/_core*.so; do
    cp "$so" "python/meeple/.$(basename "$so").new" && mv -f "python/meeple/.$(basename "$so").new" "python/meeple/$(basename "$so")"
  done
fi
