# Cross-compiling for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu
# and the arm64 builds of Debian's -dev packages installed beside the host's
# (multiarch: /usr/lib/aarch64-linux-gnu, scripts/install-cross-aarch64.sh).
# The programs run under qemu-aarch64-static: CMake prefixes the emulator to
# the tests that run a built program, so ctest runs them as on the device.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries and packages come from the cross toolchain's own root and from
# the arm64 multiarch directories under /, never from the host's
# (/usr/lib/x86_64-linux-gnu is not searched once the architecture is set);
# programs (flatc) are the host's.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (pkg_check_modules) reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# -L: the dynamic loader of the cross toolchain's root, and LD_LIBRARY_PATH
# its libc and libstdc++ too: the loader would otherwise take libc from the
# multiarch /lib/aarch64-linux-gnu (libc6:arm64, another build, which the
# arm64 -dev packages bring), and a program hangs at its first new thread.
# Libraries only multiarch has (minizip) are found there.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu
    -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
