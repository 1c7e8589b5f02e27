// host/type_table.h - the one table of the element types of tdist's typed API families, and of
// the sets of them each family takes. Read by the build-time generators only:
//   host/c_api/generate_c_api.cpp               aclshmem.h's typed families and their shims;
//                                               shmem.h's type lists (TDIST_SHMEM_*_TYPES), which
//                                               declare and define OpenSHMEM's typed routines;
//                                               the host layer's instantiation lists
//                                               (TDIST_HOST_*_TYPES, host/type_lists.h)
//   host/template_library/generate_symbols.cpp  the template library's entry points
// A type or a set changes here, and every family follows (the committed headers after
// `cmake --build <build> --target tdist_update_c_api_header`; the build fails until then).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace tdist::host::type_table {

struct Row {
  std::string_view name;  // in symbols: shmem_<name>_put, aclshmem_<name>_p, ..._float_...
  std::string_view c;     // the C spelling (empty: no C type; the template library's only)
  std::string_view cpp;   // the C++ spelling
  // How the template library receives a scalar of it. LLVM passes an i8 or i16 in a register
  // without extending it, and a callee built by another compiler may assume the caller did: a
  // narrow integer is taken as 32 bits and truncated, which is right either way.
  std::string_view argument;
  bool scalar_abi;  // passed and returned by value portably: not the 16-bit floating types
};

constexpr Row kRows[] = {
    {"float", "float", "float", "float", true},
    {"double", "double", "double", "double", true},
    {"longdouble", "long double", "long double", "long double", true},
    {"char", "char", "char", "char", true},
    {"schar", "signed char", "signed char", "signed char", true},
    {"short", "short", "short", "short", true},
    {"int", "int", "int", "int", true},
    {"long", "long", "long", "long", true},
    {"longlong", "long long", "long long", "long long", true},
    {"uchar", "unsigned char", "unsigned char", "unsigned char", true},
    {"ushort", "unsigned short", "unsigned short", "unsigned short", true},
    {"uint", "unsigned int", "unsigned int", "unsigned int", true},
    {"ulong", "unsigned long", "unsigned long", "unsigned long", true},
    {"ulonglong", "unsigned long long", "unsigned long long", "unsigned long long", true},
    {"int8", "int8_t", "std::int8_t", "std::int32_t", true},
    {"int16", "int16_t", "std::int16_t", "std::int32_t", true},
    {"int32", "int32_t", "std::int32_t", "std::int32_t", true},
    {"int64", "int64_t", "std::int64_t", "std::int64_t", true},
    {"uint8", "uint8_t", "std::uint8_t", "std::uint32_t", true},
    {"uint16", "uint16_t", "std::uint16_t", "std::uint32_t", true},
    {"uint32", "uint32_t", "std::uint32_t", "std::uint32_t", true},
    {"uint64", "uint64_t", "std::uint64_t", "std::uint64_t", true},
    {"size", "size_t", "std::size_t", "std::size_t", true},
    {"ptrdiff", "ptrdiff_t", "std::ptrdiff_t", "std::ptrdiff_t", true},
    {"complexf", "tdist_shmem_complexf", "tdist_shmem_complexf", "tdist_shmem_complexf", false},
    {"complexd", "tdist_shmem_complexd", "tdist_shmem_complexd", "tdist_shmem_complexd", false},
    {"bfloat16", "", "bfloat16", "bfloat16", false},
    {"half", "", "half", "half", false},
};

// Where a set's lists go.
enum class Audience {
  OpenShmem,        // shmem.h: TDIST_SHMEM_<NAME>_TYPES (and _GENERIC_ when it has a generic form)
  Host,             // host/type_lists.h: TDIST_HOST_<NAME>_TYPES, for explicit instantiations
  TemplateLibrary,  // generate_symbols.cpp
};

// A set: its rows by name, in order. `generic` are those a C11 generic selection can tell apart
// (the set's generic form: TDIST_SHMEM_GENERIC_<NAME>_TYPES); `more` follow them in the full set.
// A generic selection lists each C type once, and the fixed-width types are other names of the
// basic ones, so a generic form keeps a fixed-width row only where its basic type is not a row of
// its own (int32 and int64 among the bitwise AMO types: int and long are not).
struct Set {
  std::string_view name;
  Audience audience;
  std::string_view doc;
  std::string_view generic;  // empty: the set has no generic form
  std::string_view more;
};

constexpr Set kSets[] = {
    {"RMA", Audience::OpenShmem, "Standard RMA types: those a generic selection tells apart, then the fixed-width ones.",
     "float double longdouble char schar short int long longlong uchar ushort uint ulong ulonglong",
     "int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff"},
    // aclshmem.h's typed families take these two sets too: the integer ones AMO, the others
    // EXTENDED_AMO.
    {"AMO", Audience::OpenShmem, "Standard AMO types.", "int long longlong uint ulong ulonglong",
     "int32 int64 uint32 uint64 size ptrdiff"},
    {"EXTENDED_AMO", Audience::OpenShmem, "Extended AMO types (fetch, set, swap): the standard ones and float, double.",
     "int long longlong uint ulong ulonglong float double", "int32 int64 uint32 uint64 size ptrdiff"},
    {"BITWISE_AMO", Audience::OpenShmem, "Bitwise AMO types (and, or, xor).", "uint ulong ulonglong int32 int64",
     "uint32 uint64"},
    {"P2P", Audience::OpenShmem,
     "Point-to-point synchronization types: the standard AMO types, and short and unsigned short "
     "(deprecated in 1.5, still part of it).",
     "short ushort int long longlong uint ulong ulonglong", "int32 int64 uint32 uint64 size ptrdiff"},
    {"BITWISE_REDUCE", Audience::OpenShmem, "Reduction types: bitwise (and, or, xor).",
     "uchar ushort uint ulong ulonglong int8 int16 int32 int64", "uint8 uint16 uint32 uint64 size"},
    {"MINMAX_REDUCE", Audience::OpenShmem, "Reduction types: comparison (max, min).",
     "char schar short int long longlong uchar ushort uint ulong ulonglong float double longdouble",
     "ptrdiff int8 int16 int32 int64 uint8 uint16 uint32 uint64 size"},
    {"ARITH_REDUCE", Audience::OpenShmem, "Reduction types: arithmetic (sum, prod).",
     "char schar short int long longlong uchar ushort uint ulong ulonglong float double longdouble complexf complexd",
     "ptrdiff int8 int16 int32 int64 uint8 uint16 uint32 uint64 size"},
    {"BITWISE_TO_ALL", Audience::OpenShmem, "The deprecated active-set reductions (*_to_all): bitwise.", "",
     "short int long longlong"},
    {"MINMAX_TO_ALL", Audience::OpenShmem, "The deprecated active-set reductions: comparison.", "",
     "short int long longlong float double longdouble"},
    {"ARITH_TO_ALL", Audience::OpenShmem, "The deprecated active-set reductions: arithmetic.", "",
     "short int long longlong float double longdouble complexf complexd"},
    // The host layer's own: tdist::shmem's waits and atomics instantiate the generic forms of
    // P2P, AMO and EXTENDED_AMO (each C type once); these two have no OpenSHMEM counterpart.
    {"POINT", Audience::Host, "Point put and get (tdist::shmem::p, g).", "",
     "char schar short int long longlong uchar ushort uint ulong ulonglong float double"},
    // Signal words: tdist::shmem's signals, tdist::dl's waits and notifications.
    {"SIGNAL", Audience::Host, "Signal words (tdist::shmem signals, tdist::dl).", "", "int32 int64 uint64"},
    {"ELEMENT", Audience::TemplateLibrary, "The template library's element types.", "",
     "bfloat16 half float double int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
};

// ---- lookups (a name that is not in the tables ends the generator with a message) -----------

inline const Row &row(std::string_view name) {
  for (const Row &r : kRows) {
    if (r.name == name) return r;
  }
  std::fprintf(stderr, "type_table: no row named \"%.*s\"\n", static_cast<int>(name.size()), name.data());
  std::exit(1);
}

inline const Set &set(std::string_view name) {
  for (const Set &s : kSets) {
    if (s.name == name) return s;
  }
  std::fprintf(stderr, "type_table: no set named \"%.*s\"\n", static_cast<int>(name.size()), name.data());
  std::exit(1);
}

// The rows of a space-separated list of names, in order.
inline std::vector<const Row *> rows(std::string_view names) {
  std::vector<const Row *> out;
  while (!names.empty()) {
    const std::size_t space = names.find(' ');
    const std::string_view name = names.substr(0, space);
    if (!name.empty()) out.push_back(&row(name));
    names = space == std::string_view::npos ? std::string_view() : names.substr(space + 1);
  }
  return out;
}

// Every row of a set: its generic form, then the rest.
inline std::vector<const Row *> rows(const Set &s) {
  std::vector<const Row *> out = rows(s.generic);
  for (const Row *r : rows(s.more)) out.push_back(r);
  return out;
}

}  // namespace tdist::host::type_table
