#!/usr/bin/env bash
# Installs oneDNN 3.2 (v3 API; headers, libdnnl.so.3, CMake config under
# lib/cmake/dnnl) into PREFIX from PyPI's onednn-cpu-gomp and
# onednn-devel-cpu-gomp 2023.2.0 wheels: Debian's libdnnl-dev is 2.6 (v2 API)
# and the newest onednn wheel is a SYCL build that cannot create a CPU engine.
# pip only downloads and unpacks here (--no-deps --prefix); nothing is
# installed into any Python environment. Safe to run again.
#
#   scripts/install-onednn.sh PREFIX
set -euo pipefail

prefix=${1:?usage: install-onednn.sh PREFIX}
version=2023.2.0
stamp="$prefix/.kiln-onednn-$version"

if [ -f "$stamp" ] && [ -f "$prefix/lib/cmake/dnnl/dnnl-config.cmake" ]; then
  exit 0
fi

python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -m pip --version >/dev/null 2>&1; then
  echo "install-onednn: python3 with pip is needed to fetch oneDNN from PyPI; installing python3-pip" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3 python3-pip
  python=$(command -v python3)
fi

echo "install-onednn: oneDNN $version (onednn-cpu-gomp, onednn-devel-cpu-gomp) into $prefix"
rm -rf "$prefix"
mkdir -p "$prefix"
# --prefix keeps the files out of every Python environment; Debian's pip
# wants the externally-managed override even so.
PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --no-deps \
  --prefix "$prefix" "onednn-cpu-gomp==$version" "onednn-devel-cpu-gomp==$version"
# Only the library, its headers and CMake config are used.
rm -rf "$prefix/lib/python3"* "$prefix/share"
if [ ! -f "$prefix/lib/cmake/dnnl/dnnl-config.cmake" ] || [ ! -e "$prefix/lib/libdnnl.so.3" ]; then
  echo "install-onednn: the wheels did not give lib/cmake/dnnl/dnnl-config.cmake and lib/libdnnl.so.3 in $prefix" >&2
  exit 1
fi
touch "$stamp"
