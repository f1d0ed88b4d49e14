// Compiles src/aot/aot_pch.h once for every AOT library (cmake/KilnTargets.cmake).
