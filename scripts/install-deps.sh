#!/usr/bin/env bash
# Installs the Debian packages that building and testing Kiln need, if any are
# missing. Safe to run again: with everything present it only checks.
set -euo pipefail

packages=(
  cmake
  ninja-build
  ccache           # shared objects between build directories (CI's configurations)
  g++
  make
  googletest
  libgtest-dev
  libgmock-dev
  clang            # the sanitizer suite and fuzz targets
  libclang-rt-14-dev
  libminizip-dev   # .pt2 archives (zip)
  nlohmann-json3-dev
  flatbuffers-compiler  # flatc: the .pte schema
  libflatbuffers-dev
  libeigen3-dev    # Eigen's FFT: the portable FFT kernels
  libpcre2-dev     # the tokenizer's pre-tokenizer patterns (Unicode classes)
  libutf8proc-dev  # the tokenizer's Unicode normalizers (NFC, NFKC, ...)
  pkg-config
  python3-dev      # the Python package's extension (nanobind) builds on its headers
  python3-venv     # the venvs that build and test it (scripts/setup-python-test-venv.sh)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    sudo="sudo"
  else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
