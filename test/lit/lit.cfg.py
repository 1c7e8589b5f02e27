# lit configuration of tdist's compiler tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TDIST"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tdist_obj_root, "test", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [os.path.join(config.tdist_obj_root, "bin"), config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tdist-opt", "mlir-opt"], tool_dirs)
config.substitutions.append(("%tdist_libs", config.tdist_lib_dir))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(os.path.dirname(config.test_source_root)), "examples")))

# The cuda pipeline links the device library's bitcode (built where clang++-22 is) and makes a
# cubin with the CUDA toolkit's ptxas (found by CMake); tests that need them say so (REQUIRES).
if config.tdist_device_bitcode and os.path.isfile(config.tdist_device_bitcode):
    config.available_features.add("tdist-device-bitcode")
    config.substitutions.append(("%tdist_device_bc", config.tdist_device_bitcode))
if config.cuda_toolkit:
    config.available_features.add("ptxas")
    config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit))
