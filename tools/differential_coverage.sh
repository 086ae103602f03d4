#!/usr/bin/env bash
# What the differential tests never reach: a rule that no compared game executes is not tested by
# them, however many games they play. Runs the differential tests (random games per variant, the
# policy and endgame games, Imperial Harvest part 2) and reports
#  - the reference implementations' lines and branches they never execute (coverage.py), and
#  - with --cpp, the C++ engine's lines they never execute (a --coverage build in build/coverage,
#    reported by gcovr; template functions are listed per instantiation).
# What is left should be input validation, text parsing and defensive branches only.
#   pip install coverage gcovr
#   tools/differential_coverage.sh [--cpp] [extra pytest arguments, e.g. -k harmonies]
# MEEPLE_DIFFERENTIAL_GAMES (default here 300) sets the random games per variant.
set -euo pipefail
cd "$(dirname "$0")/.."
cpp=0
if [ "${1:-}" = --cpp ]; then cpp=1; shift; fi
export OPENBLAS_NUM_THREADS=1 MEEPLE_DIFFERENTIAL_GAMES=${MEEPLE_DIFFERENTIAL_GAMES:-300}
tests=(tests/test_differential.py tests/test_imperial_harvest_part2_differential.py
       tests/test_imperial_harvest_endgame_differential.py)
mkdir -p build
data=build/differential.coverage
PYTHONPATH=python python -m coverage run --branch --data-file="$data" --include='python/meeple/reference/*' \
  -m pytest "${tests[@]}" -p no:cacheprovider -q "$@"
python -m coverage report --data-file="$data" -m
if [ "$cpp" = 1 ]; then
  dir=build/coverage
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="--coverage -O1" \
    -DCMAKE_MODULE_LINKER_FLAGS=--coverage -Dpybind11_DIR="$(python -m pybind11 --cmakedir)" \
    -DPython_EXECUTABLE="$(command -v python)" >/dev/null
  cmake --build "$dir" -j2
  find "$dir" -name '*.gcda' -delete
  rm -rf "$dir/package" && mkdir -p "$dir/package"
  cp -r python/meeple "$dir/package/" && rm -f "$dir"/package/meeple/_core*.so
  cp "$dir"/_core*.so "$dir/package/meeple/"
  PYTHONPATH="$dir/package" python -m pytest "${tests[@]}" -p no:cacheprovider -q "$@"
  python -m gcovr -r . --gcov-ignore-errors=no_working_dir_found "$dir" \
    --filter 'cpp/(abacuachego|harmonies|imperial_harvest)/'
fi
