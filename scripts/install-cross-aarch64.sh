#!/usr/bin/env bash
# Installs what `make cross-aarch64` and `make test-aarch64` need, if missing:
# Debian's aarch64 cross compiler, qemu's user-mode emulator, and the arm64
# builds of the libraries the runtime-only tree links, from Debian's arm64
# archive (multiarch: the arm64 architecture is added to dpkg). The host's
# own tools (cmake, ninja, flatc, ccache) come from scripts/install-deps.sh.
# With everything present it only checks, and touches no package list.
set -euo pipefail

host_packages=(
  g++-aarch64-linux-gnu
  qemu-user-static
)
arm64_packages=(
  libgtest-dev:arm64     # the unit tests (GoogleTest and GoogleMock, static)
  libgmock-dev:arm64
  libminizip-dev:arm64   # the tests' .npz reader (tests/support/npz_reader)
  libpcre2-dev:arm64     # the LLM runner's tokenizer (src/llm), for when it builds without the compiler
  libutf8proc-dev:arm64
)

missing=()
for package in "${host_packages[@]}" "${arm64_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-cross-aarch64: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    sudo="sudo"
  else
    echo "install-cross-aarch64: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
fi
export DEBIAN_FRONTEND=noninteractive
# A list fetched before arm64 was added has no arm64 packages: always update.
$sudo apt-get update -qq
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  echo "install-cross-aarch64: apt-get could not install ${missing[*]}; the arm64 packages need an" \
       "apt source that serves arm64 (Debian's archive does)" >&2
  exit 1
fi
