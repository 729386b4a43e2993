#!/usr/bin/env bash
# Creates .venv and installs gatedrag with the offline models and the test tools.
# Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[local,dev,serve]'
echo "installed: $(.venv/bin/python -c 'import dspy, qdrant_client; print("dspy", dspy.__version__)')"
