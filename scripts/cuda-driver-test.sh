#!/usr/bin/env bash
# numba-cuda and Triton, unmodified, on ptxc's libcuda.so.1 (no GPU): installs numba-cuda and
# Triton from PyPI into a virtual environment (once), points LD_LIBRARY_PATH at the library and
# runs scripts/cuda-driver/numba_kernels.py (numba's normal API) and
# scripts/cuda-driver/triton_kernels.py (Triton's own launcher), which check against numpy.
#
#   scripts/cuda-driver-test.sh [numba|triton ...]
#
# LIBCUDA_DIR       the folder holding libcuda.so.1 and ptxc-ptxas (default: `cargo build -p
#                   ptxc-cuda-driver`, target/debug)
# PTXC_TRITON_VENV  the virtual environment (default: target/triton-venv, shared with
#                   scripts/triton-test.sh; numba-cuda, libNVVM, the CUDA runtime and NVRTC add
#                   about 190 MB)
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
# numba-cuda 0.30.4 compiles with libNVVM (nvidia-nvvm) and asks the CUDA runtime and NVRTC for
# versions and architectures; without nvJitLink it links through the driver (cuLink*), so PTX is
# compiled by ptxc inside libcuda.so.1.
python_packages=("triton==3.9.0" numpy "numba-cuda==0.30.4" "cuda-bindings==13.5.0" "cuda-core==1.2.2"
                 "cuda-toolkit[cudart,nvvm,nvrtc]==13.5.0")
if ! "$venv/bin/python" -c "import numpy, triton, numba_cuda, cuda.bindings, cuda.core
assert triton.__version__ == '3.9.0' and numba_cuda.__version__ == '0.30.4'" 2>/dev/null; then
  echo "installing ${python_packages[*]} into $venv"
  [ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${python_packages[@]}"
fi
export LD_LIBRARY_PATH="$LIBCUDA_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TRITON_DEFAULT_FP_FUSION="${TRITON_DEFAULT_FP_FUSION:-1}"
export NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
status=0
for client in "${@:-numba triton}"; do
  for c in $client; do
    case "$c" in
      numba) "$venv/bin/python" -W ignore scripts/cuda-driver/numba_kernels.py || status=1 ;;
      triton) "$venv/bin/python" scripts/cuda-driver/triton_kernels.py "$LIBCUDA_DIR/ptxc-ptxas" "$work" || status=1 ;;
      *) echo "unknown client $c (numba or triton)"; exit 2 ;;
    esac
  done
done
exit $status
