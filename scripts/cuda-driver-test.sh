#!/usr/bin/env bash
# numba-cuda and Triton, unmodified, on ptxc's libcuda.so.1 (no GPU): installs numba-cuda and
# Triton from PyPI into a virtual environment (once), points LD_LIBRARY_PATH at the library and
# runs scripts/cuda-driver/numba_kernels.py (numba's normal API) and
# scripts/cuda-driver/triton_kernels.py (Triton's own launcher), which check against numpy.
#
#   scripts/cuda-driver-test.sh [numba|triton ...]
#
# LIBCUDA_DIR       the folder holding libcuda.so.1 (default: `cargo build -p
#                   ptxc-cuda-driver`, target/debug)
# PTXC_PTXAS        ptxc's ptxas-compatible binary Triton runs (default: $LIBCUDA_DIR/ptxc-ptxas)
# PTXC_TRITON_VENV  the virtual environment (default: target/triton-venv, shared with
#                   scripts/triton-test.sh; numba-cuda, libNVVM, the CUDA runtime and NVRTC add
#                   about 190 MB to Triton)
# PTXC_CUDA_WORK    Triton's cache and scratch files (default: target/cuda-driver-work)
# PYTHON            the Python that makes the environment (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${PTXC_TRITON_VENV:-$PWD/target/triton-venv}"
work="${PTXC_CUDA_WORK:-$PWD/target/cuda-driver-work}"
if [ -z "${LIBCUDA_DIR:-}" ]; then
  cargo build -p ptxc-cuda-driver
  LIBCUDA_DIR="$PWD/target/debug"
fi
# Every package is pinned (scripts/cuda-driver/requirements.txt); pip's cache and the
# environment itself keep later runs off the network.
requirements=scripts/cuda-driver/requirements.txt
if ! "$venv/bin/python" - "$requirements" 2>/dev/null <<'PY'
import re, sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    m = re.match(r"([A-Za-z0-9_.-]+)(\[[^]]*\])?==(\S+)", line)
    if m and version(m[1]) != m[3]:
        sys.exit(1)
PY
then
  echo "installing $requirements into $venv"
  [ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
fi
export LD_LIBRARY_PATH="$LIBCUDA_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TRITON_DEFAULT_FP_FUSION="${TRITON_DEFAULT_FP_FUSION:-1}"
export NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
status=0
for client in "${@:-numba triton}"; do
  for c in $client; do
    case "$c" in
      numba) "$venv/bin/python" -W ignore scripts/cuda-driver/numba_kernels.py || status=1 ;;
      triton) "$venv/bin/python" scripts/cuda-driver/triton_kernels.py "${PTXC_PTXAS:-$LIBCUDA_DIR/ptxc-ptxas}" "$work" || status=1 ;;
      *) echo "unknown client $c (numba or triton)"; exit 2 ;;
    esac
  done
done
exit $status
