#!/usr/bin/env bash
# The project's one test command (README "Run the tests", and .ci/run):
# the Rust tests of every crate, then the Python package crates/ream-py
# installed the way a user installs it (pip, maturin through build
# isolation) into a virtual environment kept in .venv-test/ (git-ignored,
# reused between runs), then its pytest suite.
# Environment: PYTHON (default python3) makes the virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace

venv=.venv-test
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv" || {
    echo "could not create $venv: install the venv module (Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$venv/bin/python" -m pip install -q -r crates/ream-py/requirements-test.txt
# Always rebuilt from the working tree (cargo's target/ keeps it incremental).
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps ./crates/ream-py

# pytest exits 5 when it collected no test: that is a failure here too.
"$venv/bin/python" -m pytest -q -p no:cacheprovider crates/ream-py/tests
