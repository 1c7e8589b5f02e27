"""What the cuda pipeline's tests need besides tdist-opt: the device library's bitcode (built
where clang++-22 is) and a CUDA toolkit with ptxas (found by CMake). Without either a test is
skipped (ctest's SKIP_RETURN_CODE 77), never passed."""
import os
import sys

SKIP = 77


def require_device_library_and_ptxas(library, toolkit):
    if not library or not os.path.isfile(library):
        print(f"skipped: no device library bitcode ({library or 'not built: no clang++-22'})")
        sys.exit(SKIP)
    if not toolkit or not os.access(os.path.join(toolkit, "bin", "ptxas"), os.X_OK):
        print(f"skipped: no CUDA toolkit with ptxas ({toolkit or 'CMake found none'})")
        sys.exit(SKIP)
