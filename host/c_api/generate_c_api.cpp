// host/c_api/generate_c_api.cpp - the typed families of aclshmem.h: the table below is
// the one list of them. Built and run at build time (host/CMakeLists.txt).
//
//   usage: generate_c_api source OUTPUT.cpp   writes the extern "C" shims
//          generate_c_api check HEADER        fails unless HEADER declares exactly the table
//          generate_c_api update HEADER       rewrites HEADER's generated section from the table
//
// The header's declarations are committed, so that a reader and grep find every prototype; the
// build checks them against the table before it compiles the shims, and the target
// tdist_update_c_api_header rewrites them after the table changes.
//
// A family is a name suffix, a C signature and the host call that implements it, for the
// integer types or for all of them. In the strings, {T} is the C type and {call} the quoted
// name of the symbol, which the host call puts in its error messages. Each symbol becomes
//   R aclshmem_<type>_<suffix>(P...) { return guardedValue<R>(0, [&] { return CALLEE; }); }
// (guarded(...) when R is void).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct CType {
  std::string_view name;  // in the symbol: aclshmem_<name>_p
  std::string_view c;     // in the signature
  bool integer;
};

// OpenSHMEM's standard atomic types, then the extended ones.
constexpr CType kTypes[] = {
    {"int", "int", true},
    {"long", "long", true},
    {"longlong", "long long", true},
    {"uint", "unsigned int", true},
    {"ulong", "unsigned long", true},
    {"ulonglong", "unsigned long long", true},
    {"int32", "int32_t", true},
    {"int64", "int64_t", true},
    {"uint32", "uint32_t", true},
    {"uint64", "uint64_t", true},
    {"size", "size_t", true},
    {"ptrdiff", "ptrdiff_t", true},
    {"float", "float", false},
    {"double", "double", false},
};

enum class Types { Integer, All };

struct Family {
  std::string_view suffix;
  std::string_view result;
  std::string_view params;
  std::string_view callee;  // host is tdist::host
  Types types;
  std::string_view doc;     // a comment above the family in the header
};

constexpr Family kFamilies[] = {
    {"p", "void", "{T} *dest, {T} value, int pe", "host::pointPut<{T}>(dest, value, pe, {call})", Types::All,
     "Point put: a release store of value to dest on pe."},
    {"g", "{T}", "const {T} *source, int pe", "host::pointGet<{T}>(source, pe, {call})", Types::All,
     "Point get: an acquire load of source on pe."},
    {"wait_until", "void", "{T} *ivar, int cmp, {T} value",
     "host::waitUntil<{T}>(ivar, toCmp(cmp), value, {call})", Types::Integer,
     "Waits until this PE's *ivar satisfies cmp (ACLSHMEM_CMP_*) value, within the wait deadline."},
    {"test", "int", "{T} *ivar, int cmp, {T} value",
     "host::test<{T}>(ivar, toCmp(cmp), value, {call}) ? 1 : 0", Types::Integer,
     "1 when this PE's *ivar satisfies cmp (ACLSHMEM_CMP_*) value now, else 0."},
    {"atomic_fetch", "{T}", "const {T} *source, int pe", "host::atomicFetch<{T}>(source, pe, {call})",
     Types::All, "Atomic load (acquire) of source on pe."},
    {"atomic_set", "void", "{T} *dest, {T} value, int pe", "host::atomicSet<{T}>(dest, value, pe, {call})",
     Types::All, "Atomic store (release) of value to dest on pe."},
    {"atomic_swap", "{T}", "{T} *dest, {T} value, int pe", "host::atomicSwap<{T}>(dest, value, pe, {call})",
     Types::All, "Stores value to dest on pe; returns the old value."},
    {"atomic_compare_swap", "{T}", "{T} *dest, {T} cond, {T} value, int pe",
     "host::atomicCompareSwap<{T}>(dest, cond, value, pe, {call})", Types::Integer,
     "Stores value to dest on pe if it holds cond; returns the old value either way."},
    {"atomic_add", "void", "{T} *dest, {T} value, int pe", "host::atomicAdd<{T}>(dest, value, pe, {call})",
     Types::Integer, "Adds value to dest on pe."},
    {"atomic_inc", "void", "{T} *dest, int pe", "host::atomicInc<{T}>(dest, pe, {call})", Types::Integer,
     "Adds 1 to dest on pe."},
    {"atomic_fetch_add", "{T}", "{T} *dest, {T} value, int pe",
     "host::atomicFetchAdd<{T}>(dest, value, pe, {call})", Types::Integer,
     "Adds value to dest on pe; returns the old value."},
    {"atomic_fetch_inc", "{T}", "{T} *dest, int pe", "host::atomicFetchInc<{T}>(dest, pe, {call})",
     Types::Integer, "Adds 1 to dest on pe; returns the old value."},
};

constexpr std::string_view kBegin =
    "/* BEGIN typed families: generated from host/c_api/generate_c_api.cpp */\n";
constexpr std::string_view kEnd = "/* END typed families */\n";

// ---- expansion ----------------------------------------------------------------------------

struct Symbol {
  std::string name;
  std::string result;
  std::string params;
  std::string callee;
};

std::string substitute(std::string_view text, const CType &type, const std::string &name) {
  std::string out(text);
  auto replace = [&out](std::string_view key, std::string_view value) {
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size())) {
      out.replace(at, key.size(), value);
    }
  };
  replace("{T}", type.c);
  replace("{call}", "\"" + name + "\"");
  return out;
}

std::vector<Symbol> expand(const Family &family) {
  std::vector<Symbol> symbols;
  for (const CType &type : kTypes) {
    if (family.types == Types::Integer && !type.integer) continue;
    std::string name = "aclshmem_" + std::string(type.name) + "_" + std::string(family.suffix);
    symbols.push_back({name, substitute(family.result, type, name), substitute(family.params, type, name),
                       substitute(family.callee, type, name)});
  }
  return symbols;
}

std::string declaration(const Symbol &symbol) {
  return symbol.result + " " + symbol.name + "(" + symbol.params + ")";
}

// ---- output -------------------------------------------------------------------------------

// The generated section of aclshmem.h, markers included.
std::string headerSection() {
  std::ostringstream out;
  out << kBegin;
  for (const Family &family : kFamilies) {
    if (&family != &kFamilies[0]) out << "\n";
    out << "/* " << family.doc << " */\n";
    for (const Symbol &symbol : expand(family)) out << declaration(symbol) << ";\n";
  }
  out << kEnd;
  return out.str();
}

std::string source() {
  std::ostringstream out;
  std::size_t count = 0;
  std::ostringstream shims;
  for (const Family &family : kFamilies) {
    shims << "\n// aclshmem_<type>_" << family.suffix << ": " << family.doc << "\n";
    for (const Symbol &symbol : expand(family)) {
      ++count;
      shims << declaration(symbol) << " {\n";
      if (symbol.result == "void") {
        shims << "  guarded([&] { " << symbol.callee << "; });\n";
      } else {
        shims << "  return guardedValue<" << symbol.result << ">(0, [&] { return " << symbol.callee << "; });\n";
      }
      shims << "}\n";
    }
  }
  out << "// Generated by host/c_api/generate_c_api.cpp from its table of families.\n"
         "// " << count << " typed entry points of aclshmem.h, each naming itself in its errors.\n"
         "#include <cstddef>\n#include <cstdint>\n\n"
         "#include \"aclshmem.h\"\n"
         "#include \"host/calls.h\"\n"
         "#include \"runtime/c_api_support.h\"\n\n"
         "using tdist::capi::guarded;\n"
         "using tdist::capi::guardedValue;\n"
         "namespace host = tdist::host;\n\n"
         "namespace {\n\n"
         "tdist::shmem::Cmp toCmp(int cmp) { return static_cast<tdist::shmem::Cmp>(cmp); }\n\n"
         "}  // namespace\n\n"
         "// At global scope, so that they keep the default visibility of their declarations.\n"
         "extern \"C\" {\n"
      << shims.str()
      << "\n}  // extern \"C\"\n";
  return out.str();
}

bool readFile(const char *path, std::string &text) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  text = buffer.str();
  return true;
}

bool writeFile(const char *path, const std::string &text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  return static_cast<bool>(file.flush());
}

// Finds the generated section of header: [begin, end) covers both markers.
bool findSection(const std::string &header, std::size_t &begin, std::size_t &end) {
  begin = header.find(kBegin);
  std::size_t end_marker = header.find(kEnd, begin == std::string::npos ? 0 : begin);
  if (begin == std::string::npos || end_marker == std::string::npos) return false;
  end = end_marker + kEnd.size();
  return true;
}

int line(const std::string &text, std::size_t offset) {
  int number = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) number += text[i] == '\n';
  return number;
}

std::string lineAt(const std::string &text, std::size_t offset) {
  std::size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = start == std::string::npos || offset == 0 ? 0 : start + 1;
  return text.substr(start, text.find('\n', start) - start);
}

int check(const char *path) {
  std::string header;
  std::size_t begin, end;
  if (!readFile(path, header) || !findSection(header, begin, end)) {
    std::fprintf(stderr, "generate_c_api: %s has no section between \"%.*s\" and \"%.*s\"\n", path,
                 static_cast<int>(kBegin.size() - 1), kBegin.data(), static_cast<int>(kEnd.size() - 1), kEnd.data());
    return 1;
  }
  const std::string expected = headerSection();
  const std::string actual = header.substr(begin, end - begin);
  if (actual == expected) return 0;
  std::size_t at = 0;
  while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) ++at;
  std::fprintf(stderr,
               "generate_c_api: %s:%d: the typed families differ from the table in "
               "host/c_api/generate_c_api.cpp\n  header: %s\n  table:  %s\n"
               "Run `cmake --build <build> --target tdist_update_c_api_header` to rewrite the header.\n",
               path, line(header, begin + at), lineAt(actual, at).c_str(), lineAt(expected, at).c_str());
  return 1;
}

int update(const char *path) {
  std::string header;
  std::size_t begin, end;
  if (!readFile(path, header) || !findSection(header, begin, end)) {
    std::fprintf(stderr, "generate_c_api: %s has no generated section to rewrite\n", path);
    return 1;
  }
  const std::string updated = header.substr(0, begin) + headerSection() + header.substr(end);
  if (updated != header && !writeFile(path, updated)) {
    std::fprintf(stderr, "generate_c_api: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string_view mode = argc == 3 ? argv[1] : "";
  if (mode == "source") {
    if (writeFile(argv[2], source())) return 0;
    std::fprintf(stderr, "generate_c_api: cannot write %s\n", argv[2]);
    return 1;
  }
  if (mode == "check") return check(argv[2]);
  if (mode == "update") return update(argv[2]);
  std::fprintf(stderr, "usage: generate_c_api source OUTPUT.cpp | check HEADER | update HEADER\n");
  return 2;
}
