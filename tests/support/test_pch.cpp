// Compiles tests/support/test_pch.h once for every test target (cmake/KilnTargets.cmake).
