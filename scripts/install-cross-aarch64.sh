#!/usr/bin/env bash
# Installs what `make test-kernels-aarch64` needs, if missing: Debian's
# aarch64 cross compiler and qemu's user-mode emulator (GoogleTest's sources
# come with the googletest package of install-deps.sh).
set -euo pipefail

packages=(g++-aarch64-linux-gnu qemu-user-static googletest)
missing=()
for package in "${packages[@]}"; do
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
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
