"""What the tests of the device library and the cuda pipeline share: the device library's bitcode
(built where clang++-22 is) and a CUDA toolkit with ptxas (found by CMake), without either of
which a test is skipped (ctest's SKIP_RETURN_CODE 77), never passed; checks collected and
reported together; a function of a PTX text."""
import os
import re
import sys

SKIP = 77


def require_device_library_and_ptxas(library, toolkit):
    if not library or not os.path.isfile(library):
        print(f"skipped: no device library bitcode ({library or 'not built: no clang++-22'})")
        sys.exit(SKIP)
    if not toolkit or not os.access(os.path.join(toolkit, "bin", "ptxas"), os.X_OK):
        print(f"skipped: no CUDA toolkit with ptxas ({toolkit or 'CMake found none'})")
        sys.exit(SKIP)


failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


def report(success):
    """Prints every failed check and exits 1, or prints `success`."""
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    print(success)


def ptx_function(ptx, name):
    """The definition of function `name` in the PTX, up to the closing brace at column 0."""
    match = re.search(r"^(?:\.visible )?\.(?:func|entry)[^\n]*\b" + re.escape(name) + r"\(.*?^\}", ptx,
                      flags=re.DOTALL | re.MULTILINE)
    return match.group(0) if match else ""
