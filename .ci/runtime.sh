#!/usr/bin/env bash
# The rules' harm on a real SYCL runtime (runtime/, docs/runtime.md): a fresh
# virtual environment with dpctl, dpnp (for its DLPack arrays) and Intel's
# OpenCL CPU runtime from the package registry, the OpenCL loader pointed at
# that runtime, then runtime/test_runtime.py. Needs no GPU.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rt="$(mktemp -d)"
trap 'rm -rf "$rt"' EXIT

python3 -m venv "$rt/venv"
"$rt/venv/bin/python" -m pip install -q dpctl intel-opencl-rt dpnp pytest
"$rt/venv/bin/python" -m pip install -q "$repo"

# intel-opencl-rt puts libintelocl.so in the environment's lib/; its ICD file
# (etc/OpenCL/vendors/intel-cpu.icd) names a path of the build machine, so the
# loader is told the library directly.
lib="$rt/venv/lib"
if [[ ! -e "$lib/libintelocl.so" ]]; then
    echo ".ci/runtime.sh: no $lib/libintelocl.so after installing intel-opencl-rt" >&2
    exit 1
fi
export OCL_ICD_FILENAMES="$lib/libintelocl.so"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset SYCL_DEVICE_FILTER ONEAPI_DEVICE_SELECTOR

"$rt/venv/bin/python" -c 'import dpctl, dpnp; print(".ci/runtime.sh: dpctl", dpctl.__version__, "dpnp", dpnp.__version__); dpctl.lsplatform()'
cd "$repo"
# -c /dev/null: the project's pytest settings are the main suite's (testpaths, asyncio)
"$rt/venv/bin/python" -m pytest -q -p no:cacheprovider -c /dev/null --rootdir runtime runtime
