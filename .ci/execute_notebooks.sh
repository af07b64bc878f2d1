#!/usr/bin/env bash
# Execute the course's notebooks in place, one at a time (all of them, or those named), after a change to
# the library, so that the committed outputs are the library's again; then check them as CI does, with
# nbval, once natively and once as another machine (.ci/run's settings).  Usage:
#   bash .ci/execute_notebooks.sh [notebooks/04_smo.ipynb ...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then set -- notebooks/*.ipynb; fi
# a cold numba cache would print "svmteach: compiling ..." into the saved outputs of checked cells
export SVMTEACH_COMPILE_NOTICE=0
for nb in "$@"; do
  start=$(date +%s)
  python -m jupyter nbconvert --to notebook --execute --inplace --ExecutePreprocessor.timeout=1800 "$nb"
  echo "$nb executed in $(( $(date +%s) - start )) s"
done
python -m pytest -p no:cacheprovider -q "$@"
NUMBA_CPU_NAME=generic OPENBLAS_CORETYPE=Sandybridge python -m pytest -p no:cacheprovider -q "$@"
