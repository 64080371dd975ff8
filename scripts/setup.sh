#!/usr/bin/env bash
# Installs what mdh needs on a Debian machine (root), then configures and builds it in build/.
# Idempotent: packages already installed are not fetched again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libboost-dev libboost-program-options-dev nlohmann-json3-dev libgtest-dev libeigen3-dev libclblast-dev clblast-utils
  libopenblas-dev gnuplot-nox python3 clang-format python3-dev pybind11-dev python3-numpy python3-pytest
  libopenmpi-dev openmpi-bin libxgboost-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMDH_BUILD_TESTS=ON >/dev/null
cmake --build build -j "$jobs"
