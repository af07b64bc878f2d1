#!/usr/bin/env bash
# The smoke test at the lowest supported versions: a fresh virtual environment (in a temporary
# folder, removed afterwards) with every dependency pinned to its floor (floor-constraints.txt),
# then tests/smoke/floor_smoke.py, the course's lightest notebook (its checked outputs, by nbval) and
# `svmteach lab` serving the course (JupyterLab at its floor).
# Exit status: 0 only when the environment installed and every check passed.  .ci/run runs this.
set -euo pipefail
cd "$(dirname "$0")/../.."

# It works on a copy of the checkout, so that it can run beside the README's test command (.ci/run runs the
# two at once): its editable install and its files never touch the checkout's.
work="$(mktemp -d "${TMPDIR:-/tmp}/svmteach-floor.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tar --exclude=./.git --exclude=./build --exclude=./docs/_build --exclude='*.egg-info' --exclude=__pycache__ \
  --exclude=./test-artifacts -cf - . | (mkdir "$work/src" && tar -xf - -C "$work/src")
cd "$work/src"
venv="$work/venv"
"${PYTHON:-python3}" -m venv "$venv"
. "$venv/bin/activate"
export NUMBA_CACHE_DIR="$venv/numba-cache"  # the floor's numba keeps out of the checkout's own cache

python -m pip install -q -c tests/smoke/floor-constraints.txt -e ".[dask]" pytest nbval pandas  # pip's cache is reused
python -m pip check
python -m pytest -p no:cacheprovider --disable-warnings tests/smoke/floor_smoke.py notebooks/02_lagrangian_dual_kkt.ipynb \
  tests/test_cli.py::test_lab_serves_the_course_as_the_current_user
