// tools/tdist-jit/kernel_cache.h - compiled GPU kernels kept on disk.
//
// Compiling a kernel for the GPU (tdist-cuda-pipeline, ptxas) needs MLIR, which a GPU host may
// not have; running it needs only the cubin and the kernel's parameters. So tdist-jit keeps what
// it compiled for the cuda backend in a cache directory, keyed by the module's text, the entry
// and the options that change the code, and takes it from there the next time: on the same host,
// or on another one the directory was copied to, where a tdist-jit built without the compiler
// runs kernels from the cache only.
//
// The directory is TDIST_KERNEL_CACHE, else $XDG_CACHE_HOME/tdist/kernels, else
// $HOME/.cache/tdist/kernels. An entry is one file, <key>.tdk, written whole under another name
// and renamed into place (the PEs of a job compile at once); an entry of another tdist version is
// not used, and one compiled against another device library is another key.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tools/tdist-jit/kernel_compiler.h"

namespace tdist::jit {

// The cache directory (not created here); empty where no variable names one.
std::string kernelCacheDirectory();

// The key of a kernel: 16 hex digits of a hash of the source text, the entry, the options that
// change the compiled code and the device library's portable IR beside bin/ (not the path: a
// copied file is the same kernel; a rebuilt device library makes every kernel another).
std::string kernelCacheKey(const CompileOptions &options, std::string_view source);

// The kernel of <directory>/<key>.tdk, or nothing where there is none; an entry that cannot be
// read (cut short, another format or tdist version) is a CompileError naming the file.
std::unique_ptr<CompiledKernel> loadCachedKernel(const std::string &directory, const std::string &key);

// Writes the kernel (its cubin and parameters) as <directory>/<key>.tdk, making the directory;
// returns the entry's path. Throws CompileError naming what could not be written.
std::string storeCachedKernel(const std::string &directory, const std::string &key, const CompiledKernel &kernel);

}  // namespace tdist::jit
