// tools/tdist-jit/kernel_cache.cpp - compiled GPU kernels kept on disk (kernel_cache.h).
//
// An entry: a text header, then the cubin's bytes.
//   tdist-kernel 1 <tdist version>
//   parameters <count>
//   memref <element> <rank> <size>... <the parameter's MLIR type>     (a size of -1: dynamic)
//   scalar <element> 0 <the parameter's MLIR type>
//   cubin <bytes>
//   <bytes of the cubin>
#include "tools/tdist-jit/kernel_cache.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#ifndef TDIST_JIT_VERSION
#define TDIST_JIT_VERSION "unknown"
#endif

namespace tdist::jit {

namespace {

constexpr const char *kMagic = "tdist-kernel";
constexpr int kFormat = 1;

// FNV-1a, 64 bits: a stable name for the kernel's inputs (not a defence against anyone).
struct Hash {
  std::uint64_t value = 0xcbf29ce484222325ull;
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) value = (value ^ c) * 0x100000001b3ull;
    add_separator();
  }
  void add_separator() { value = (value ^ 0xff) * 0x100000001b3ull; }
};

// The device library the kernel links, as its portable IR (lib/libtdist_device.ll beside bin/:
// the file a GPU host without clang is given, byte for byte the one built here): a kernel
// compiled against another library may read its state global with another layout, so the
// library's text is part of the key. Empty where there is none.
std::string deviceLibraryText() {
  std::error_code error;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "";
  std::ifstream in(program.parent_path().parent_path() / "lib" / "libtdist_device.ll", std::ios::binary);
  if (!in) return "";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

[[noreturn]] void unreadable(const std::string &path, const std::string &why) {
  throw CompileError("the kernel cache's entry " + path + " cannot be used: " + why +
                     " (remove it, and the kernel is compiled again where the compiler is)");
}

}  // namespace

std::unique_ptr<CompiledKernel> CompiledKernel::prebuilt(std::vector<KernelParameter> parameters, std::string cubin) {
  std::unique_ptr<CompiledKernel> kernel(new CompiledKernel());
  kernel->parameters_ = std::move(parameters);
  kernel->cubin_ = std::move(cubin);
  return kernel;
}

std::string kernelCacheDirectory() {
  const auto variable = [](const char *name) -> std::string {
    const char *value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  if (std::string dir = variable("TDIST_KERNEL_CACHE"); !dir.empty()) return dir;
  if (std::string dir = variable("XDG_CACHE_HOME"); !dir.empty()) return dir + "/tdist/kernels";
  if (std::string dir = variable("HOME"); !dir.empty()) return dir + "/.cache/tdist/kernels";
  return "";
}

std::string kernelCacheKey(const CompileOptions &options, std::string_view source) {
  Hash hash;
  hash.add(kMagic);
  hash.add(std::to_string(kFormat));
  hash.add(TDIST_JIT_VERSION);
  static const std::string library = deviceLibraryText();
  hash.add(library);
  hash.add(source);
  hash.add(options.entry);
  hash.add(options.backend == Backend::Cuda ? "cuda" : "cpu");
  hash.add(options.inject_barrier_all ? "barriers" : "");
  hash.add(std::to_string(options.opt_level));
  hash.add(options.trace_spans ? "spans" : "");
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash.value));
  return text;
}

std::unique_ptr<CompiledKernel> loadCachedKernel(const std::string &directory, const std::string &key) {
  const std::string path = directory + "/" + key + ".tdk";
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  std::string magic, version;
  int format = 0;
  if (!(in >> magic >> format) || magic != kMagic) unreadable(path, "not a tdist kernel");
  if (format != kFormat) unreadable(path, "format " + std::to_string(format) + ", this tdist-jit reads " + std::to_string(kFormat));
  in >> version;
  if (version != TDIST_JIT_VERSION) {
    unreadable(path, "written by tdist " + version + ", this is tdist " + TDIST_JIT_VERSION);
  }
  std::string word;
  std::size_t count = 0;
  if (!(in >> word >> count) || word != "parameters" || count > 4096) unreadable(path, "no parameter list");
  std::vector<KernelParameter> parameters(count);
  for (KernelParameter &parameter : parameters) {
    std::size_t rank = 0;
    if (!(in >> word >> parameter.element >> rank) || (word != "memref" && word != "scalar") || rank > 64) {
      unreadable(path, "a parameter is cut short");
    }
    parameter.kind = word == "memref" ? KernelParameter::Kind::MemRef : KernelParameter::Kind::Scalar;
    parameter.shape.resize(rank);
    for (std::int64_t &size : parameter.shape) {
      if (!(in >> size)) unreadable(path, "a parameter's shape is cut short");
    }
    in.get();  // the space before the type
    std::getline(in, parameter.type);
  }
  std::size_t bytes = 0;
  if (!(in >> word >> bytes) || word != "cubin" || bytes == 0) unreadable(path, "no cubin");
  in.get();  // the newline
  std::string cubin(bytes, '\0');
  if (!in.read(cubin.data(), static_cast<std::streamsize>(bytes))) unreadable(path, "the cubin is cut short");
  return CompiledKernel::prebuilt(std::move(parameters), std::move(cubin));
}

std::string storeCachedKernel(const std::string &directory, const std::string &key, const CompiledKernel &kernel) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw CompileError("the kernel cache " + directory + " cannot be made: " + error.message());
  std::ostringstream header;
  header << kMagic << ' ' << kFormat << ' ' << TDIST_JIT_VERSION << '\n';
  header << "parameters " << kernel.parameters().size() << '\n';
  for (const KernelParameter &parameter : kernel.parameters()) {
    header << (parameter.kind == KernelParameter::Kind::MemRef ? "memref " : "scalar ") << parameter.element << ' '
           << parameter.shape.size();
    for (std::int64_t size : parameter.shape) header << ' ' << size;
    header << ' ' << parameter.type << '\n';
  }
  header << "cubin " << kernel.cubin().size() << '\n';
  const std::string path = directory + "/" + key + ".tdk";
  // Written whole under a name of this process's, then renamed: a PE that reads the entry while
  // another writes it sees the whole of one or nothing.
  const std::string partial = path + ".part" + std::to_string(::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << header.str();
    out.write(kernel.cubin().data(), static_cast<std::streamsize>(kernel.cubin().size()));
    if (!out.flush()) {
      std::filesystem::remove(partial, error);
      throw CompileError("the kernel cache's entry " + path + " cannot be written: " + std::strerror(errno));
    }
  }
  std::filesystem::rename(partial, path, error);
  if (error) {
    const std::string why = error.message();
    std::filesystem::remove(partial, error);
    throw CompileError("the kernel cache's entry " + path + " cannot be written: " + why);
  }
  return path;
}

}  // namespace tdist::jit
