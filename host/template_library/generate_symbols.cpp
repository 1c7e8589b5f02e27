// host/template_library/generate_symbols.cpp - writes the template library's extern "C"
// entry points and their sorted table: the families below are the one list of what the library
// exports, over the element types of the one type table (host/type_table.h, set ELEMENT). Built and run at build time (runtime/CMakeLists.txt).
//
//   usage: generate_symbols OUTPUT.cpp
//
// A family is a link-name pattern, a C signature and the template that implements it, for a set
// of element types and a set of memref ranks. In the strings, {type} is the element type's name
// in link names (float, int32, ...), {T} its C++ type, {A} the C++ type a scalar parameter of
// it is received as, and {N} the rank. Each symbol becomes
//   extern "C" R _mlir_ciface_<link name>(P0 a0, ...) { return CALLEE("<symbol>", a0, ...); }
// where a memref parameter is a pointer to its descriptor and a memref result the first
// parameter (MLIR's C interface; see docs/COMPILER.md for the link names).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "host/type_table.h"

namespace {

namespace tt = tdist::host::type_table;
using ElementType = tt::Row;  // the rows of the type table's ELEMENT set

enum class Types { None, All, ScalarAbi };

struct Family {
  std::string_view link;
  std::string_view result;
  std::vector<std::string_view> params;
  std::string_view callee;  // in namespace tdist::host::template_library
  Types types = Types::None;
  std::vector<int> ranks = {};  // empty: no {N} in this family
};

// Parameter and result types.
constexpr std::string_view kVoid = "void";
constexpr std::string_view kI32 = "std::int32_t";
constexpr std::string_view kI64 = "std::int64_t";
constexpr std::string_view kElement = "{A}";          // a scalar parameter
constexpr std::string_view kElementResult = "{T}";
constexpr std::string_view kPointer = "{T} *";
constexpr std::string_view kBytes = "void *";
constexpr std::string_view kSignal = "std::int32_t *";
constexpr std::string_view kMemRef = "StridedMemRef<{T}, {N}> *";
constexpr std::string_view kMemRef1 = "StridedMemRef<{T}, 1> *";
constexpr std::string_view kSignalMemRef = "StridedMemRef<std::int32_t, {N}> *";
constexpr std::string_view kSignalMemRef1 = "StridedMemRef<std::int32_t, 1> *";
constexpr std::string_view kName = "const char *";
constexpr std::string_view kNameMemRef = "StridedMemRef<char, 1> *";

// Parameter lists that several families share.
using Params = std::vector<std::string_view>;
const Params kMemRefAndScalar = {kMemRef, kMemRef, kI32};  // result, memref, pe or token
const Params kTransferBytes = {kBytes, kBytes, kI64, kI32};  // dest, source, count, pe
const Params kTransferPointers = {kPointer, kPointer, kI64, kI32};
const Params kTransferMemRefs = {kMemRef1, kMemRef1, kI64, kI32};
// dest, source, count, sig, signal, sig_op, pe
const Params kPutSignalBytes = {kBytes, kBytes, kI64, kSignal, kI32, kI32, kI32};
const Params kPutSignalPointers = {kPointer, kPointer, kI64, kSignal, kI32, kI32, kI32};
const Params kPutSignalMemRefs = {kMemRef1, kMemRef1, kI64, kSignalMemRef1, kI32, kI32, kI32};

const std::vector<int> kRanks0To4 = {0, 1, 2, 3, 4};
const std::vector<int> kRanks1To4 = {1, 2, 3, 4};
const std::vector<int> kSlotRanks = {0, 1};

constexpr Types kNoType = Types::None;
constexpr Types kAll = Types::All;
constexpr Types kScalarAbi = Types::ScalarAbi;

const Family kFamilies[] = {
    // PE and program coordinates.
    {"aclshmem_my_pe", kI32, {}, "myPe"},
    {"aclshmem_n_pes", kI32, {}, "nPes"},
    {"tdist_program_id", kI32, {kI32}, "programId"},
    {"tdist_num_programs", kI32, {kI32}, "numPrograms"},
    // Trace spans (name, m, n, category), as tdist/trace.h's tdist_trace_begin_span and end.
    {"tdist_trace_begin_span", kVoid, {kName, kI32, kI32, kI32}, "traceBeginSpan"},
    {"tdist_trace_begin_span_m1", kVoid, {kNameMemRef, kI32, kI32, kI32}, "traceBeginSpan"},
    {"tdist_trace_end", kVoid, {}, "traceEnd"},
    // symm_at and consume_token.
    {"aclshmem_ptr_{type}_m{N}_m{N}", kVoid, kMemRefAndScalar, "symmAt<{T}, {N}>", kAll, kRanks0To4},
    {"aclshmem_consume_token_{type}_ptr_{N}d_m{N}_m{N}", kVoid, kMemRefAndScalar, "consumeToken<{T}, {N}>",
     kAll, kRanks1To4},
    {"aclshmem_consume_token_{type}_ptr_1d_m0_m0", kVoid, kMemRefAndScalar, "consumeToken<{T}, {N}>", kAll, {0}},
    // wait (slot, n, value) and notify (sig, value, sig_op, pe).
    {"aclshmem_wait_{type}_m{N}", kI64, {kMemRef, kI32, kElement}, "wait<{T}>", kScalarAbi, kSlotRanks},
    {"aclshmem_wait_{type}", kI64, {kPointer, kI32, kElement}, "wait<{T}>", kScalarAbi},
    {"aclshmemx_signal_op_m{N}", kVoid, {kSignalMemRef, kI32, kI32, kI32}, "signalOp", kNoType, kSlotRanks},
    {"aclshmemx_signal_op", kVoid, {kSignal, kI32, kI32, kI32}, "signalOp"},
    // Point put (dest, value, pe) and get (source, pe).
    {"aclshmem_{type}_p_m{N}", kVoid, {kMemRef, kElement, kI32}, "pointPut<{T}>", kScalarAbi, kSlotRanks},
    {"aclshmem_{type}_p", kVoid, {kPointer, kElement, kI32}, "pointPut<{T}>", kScalarAbi},
    {"aclshmem_{type}_g_m{N}", kElementResult, {kMemRef, kI32}, "pointGet<{T}>", kScalarAbi, kSlotRanks},
    {"aclshmem_{type}_g", kElementResult, {kPointer, kI32}, "pointGet<{T}>", kScalarAbi},
    // Barriers and ordering.
    {"aclshmem_barrier_all", kVoid, {}, "barrierAll"},
    {"aclshmemx_barrier_all_vec", kVoid, {}, "barrierAll"},
    {"aclshmem_sync_all", kVoid, {}, "syncAll"},
    {"aclshmem_quiet", kVoid, {}, "quiet"},
    {"aclshmem_fence", kVoid, {}, "fence"},
    // Byte transfers.
    {"aclshmem_putmem", kVoid, kTransferBytes, "transfer<std::byte, Transfer::Put>"},
    {"aclshmem_getmem", kVoid, kTransferBytes, "transfer<std::byte, Transfer::Get>"},
    {"aclshmem_putmem_nbi", kVoid, kTransferBytes, "transfer<std::byte, Transfer::PutNbi>"},
    {"aclshmem_getmem_nbi", kVoid, kTransferBytes, "transfer<std::byte, Transfer::GetNbi>"},
    {"aclshmem_putmem_signal", kVoid, kPutSignalBytes, "putSignal<std::byte, Delivery::Blocking>"},
    {"aclshmem_putmem_signal_nbi", kVoid, kPutSignalBytes, "putSignal<std::byte, Delivery::NonBlocking>"},
    // Typed transfers: memref forms, then pointer forms.
    {"aclshmem_{type}_put_m1_m1", kVoid, kTransferMemRefs, "transfer<{T}, Transfer::Put>", kAll},
    {"aclshmem_{type}_get_m1_m1", kVoid, kTransferMemRefs, "transfer<{T}, Transfer::Get>", kAll},
    {"aclshmem_{type}_put_nbi_m1_m1", kVoid, kTransferMemRefs, "transfer<{T}, Transfer::PutNbi>", kAll},
    {"aclshmem_{type}_get_nbi_m1_m1", kVoid, kTransferMemRefs, "transfer<{T}, Transfer::GetNbi>", kAll},
    {"aclshmem_{type}_put_signal_m1_m1_m1", kVoid, kPutSignalMemRefs, "putSignal<{T}, Delivery::Blocking>", kAll},
    {"aclshmem_{type}_put_signal_nbi_m1_m1_m1", kVoid, kPutSignalMemRefs, "putSignal<{T}, Delivery::NonBlocking>",
     kAll},
    {"aclshmem_{type}_put", kVoid, kTransferPointers, "transfer<{T}, Transfer::Put>", kAll},
    {"aclshmem_{type}_get", kVoid, kTransferPointers, "transfer<{T}, Transfer::Get>", kAll},
    {"aclshmem_{type}_put_nbi", kVoid, kTransferPointers, "transfer<{T}, Transfer::PutNbi>", kAll},
    {"aclshmem_{type}_get_nbi", kVoid, kTransferPointers, "transfer<{T}, Transfer::GetNbi>", kAll},
    {"aclshmem_{type}_put_signal", kVoid, kPutSignalPointers, "putSignal<{T}, Delivery::Blocking>", kAll},
    {"aclshmem_{type}_put_signal_nbi", kVoid, kPutSignalPointers, "putSignal<{T}, Delivery::NonBlocking>", kAll},
};

// ---- expansion ----------------------------------------------------------------------------

struct Symbol {
  std::string name;
  std::string result;
  std::vector<std::string> params;
  std::string callee;
};

std::string substitute(std::string_view text, const ElementType *type, int rank) {
  std::string out(text);
  auto replace = [&out](std::string_view key, std::string_view value) {
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size())) {
      out.replace(at, key.size(), value);
    }
  };
  if (type != nullptr) {
    replace("{type}", type->name);
    replace("{T}", type->cpp);
    replace("{A}", type->argument);
  }
  if (rank >= 0) replace("{N}", std::to_string(rank));
  return out;
}

Symbol instantiate(const Family &family, const ElementType *type, int rank) {
  Symbol symbol;
  symbol.name = "_mlir_ciface_" + substitute(family.link, type, rank);
  symbol.result = substitute(family.result, type, rank);
  for (std::string_view param : family.params) symbol.params.push_back(substitute(param, type, rank));
  symbol.callee = substitute(family.callee, type, rank);
  return symbol;
}

std::vector<Symbol> expand() {
  std::vector<Symbol> symbols;
  for (const Family &family : kFamilies) {
    std::vector<const ElementType *> types;
    if (family.types == Types::None) types.push_back(nullptr);
    for (const ElementType *type : tt::rows(tt::set("ELEMENT"))) {
      if (family.types == Types::All || (family.types == Types::ScalarAbi && type->scalar_abi)) {
        types.push_back(type);
      }
    }
    const std::vector<int> ranks = family.ranks.empty() ? std::vector<int>{-1} : family.ranks;
    for (const ElementType *type : types) {
      for (int rank : ranks) symbols.push_back(instantiate(family, type, rank));
    }
  }
  std::sort(symbols.begin(), symbols.end(), [](const Symbol &a, const Symbol &b) { return a.name < b.name; });
  return symbols;
}

// ---- output -------------------------------------------------------------------------------

std::string render(const std::vector<Symbol> &symbols) {
  std::ostringstream out;
  out << "// Generated by host/template_library/generate_symbols.cpp from its table of families.\n"
         "// " << symbols.size() << " entry points of the template library and their sorted table.\n"
         "#include <cstddef>\n#include <cstdint>\n#include <span>\n\n"
         "#include \"host/template_library/memory.h\"\n"
         "#include \"host/template_library/queries.h\"\n"
         "#include \"host/template_library/rma.h\"\n"
         "#include \"host/template_library/signal.h\"\n"
         "#include \"host/template_library/spans.h\"\n"
         "#include \"host/template_library/sync.h\"\n"
         "#include \"tdist/template_library.h\"\n\n"
         "// C linkage gives these their plain names, whatever namespace they are defined in; they\n"
         "// are exported, since compiled IR links to them by name.\n"
         "#pragma GCC visibility push(default)\n"
         "namespace tdist::host::template_library {\n"
         "extern \"C\" {\n";
  for (const Symbol &symbol : symbols) {
    std::string params, args;
    for (std::size_t i = 0; i < symbol.params.size(); ++i) {
      const std::string &type = symbol.params[i];
      params += (i ? ", " : "") + type + (type.back() == '*' ? "a" : " a") + std::to_string(i);
      args += ", a" + std::to_string(i);
    }
    out << symbol.result << " " << symbol.name << "(" << params << ") { return " << symbol.callee
        << "(\"" << symbol.name << "\"" << args << "); }\n";
  }
  out << "}  // extern \"C\"\n"
         "}  // namespace tdist::host::template_library\n"
         "#pragma GCC visibility pop\n\n"
         "// The public table (tdist/template_library.h).\n"
         "std::span<const tdist::template_library::Symbol> tdist::template_library::symbols() {\n"
         "  using namespace tdist::host::template_library;\n"
         "  static const tdist::template_library::Symbol table[] = {\n";
  for (const Symbol &symbol : symbols) {
    out << "      {\"" << symbol.name << "\", reinterpret_cast<void *>(&" << symbol.name << ")},\n";
  }
  out << "  };\n  return table;\n}\n";
  return out.str();
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: generate_symbols OUTPUT.cpp\n");
    return 2;
  }
  const std::vector<Symbol> symbols = expand();
  auto duplicate = std::adjacent_find(symbols.begin(), symbols.end(),
                                      [](const Symbol &a, const Symbol &b) { return a.name == b.name; });
  if (duplicate != symbols.end()) {
    std::fprintf(stderr, "generate_symbols: two families make %s\n", duplicate->name.c_str());
    return 1;
  }
  std::ofstream file(argv[1]);
  file << render(symbols);
  if (!file.flush()) {
    std::fprintf(stderr, "generate_symbols: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
