#!/usr/bin/env bash
# Triton through ptxc: installs Triton from PyPI into a virtual environment (once), compiles
# Triton kernels for a target (sm_75 unless --arch says otherwise) with ptxc posing as ptxas
# (TRITON_PTXAS_PATH -> a symlink named ptxas), runs the cubins on ptxc's simulator and
# compares the outputs with numpy. sm_75 runs vector_add, softmax, matmul and histogram;
# sm_80, sm_86, sm_89 and sm_90 (Triton compiles for sm_90a: tl.dot is wgmma) add
# matmul_fp16, matmul_bf16 (tl.dot) and attention.
#
#   scripts/triton-test.sh [--arch sm_75|sm_80|sm_86|sm_89|sm_90] [KERNEL ...]
#
# PTXC               the ptxc executable (default: `cargo build --bin ptxc`, target/debug/ptxc)
# PTXC_TRITON_VENV   the virtual environment (default: target/triton-venv; about 1.1 GB,
#                    16 s to install without a pip cache)
# PTXC_TRITON_WORK   cubins, PTX, launch specs and outputs (default: target/triton-work)
# PYTHON             the Python that makes the environment (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
triton_version=3.9.0
venv="${PTXC_TRITON_VENV:-$PWD/target/triton-venv}"
work="${PTXC_TRITON_WORK:-$PWD/target/triton-work}"
if [ -z "${PTXC:-}" ]; then
  cargo build --bin ptxc
  PTXC="$PWD/target/debug/ptxc"
fi
if ! "$venv/bin/python" -c "import numpy, triton; assert triton.__version__ == '$triton_version'" 2>/dev/null; then
  echo "installing Triton $triton_version into $venv"
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "triton==$triton_version" numpy==2.4.6
fi
# Triton 3.9 warns when this is unset; 1 is its current default (multiply-add contraction on).
export TRITON_DEFAULT_FP_FUSION="${TRITON_DEFAULT_FP_FUSION:-1}"
exec "$venv/bin/python" scripts/triton/kernels.py "$PTXC" "$work" "$@"
