// host/c_api/generate_c_api.cpp - the typed families of the C headers, from the one type table
// (host/type_table.h) and the table of aclshmem.h's families below. Built and run at build time
// (host/CMakeLists.txt).
//
//   usage: generate_c_api source OUTPUT.cpp       writes aclshmem.h's extern "C" shims
//          generate_c_api lists OUTPUT.h          writes the host layer's instantiation lists
//          generate_c_api check HEADER...         fails unless each HEADER's generated sections
//                                                 are exactly what the tables give
//          generate_c_api update HEADER...        rewrites each HEADER's generated sections
//
// A header's generated sections are committed, so that a reader and grep find every prototype
// and every type list; the build checks them against the tables before it compiles anything that
// includes them, and the target tdist_update_c_api_header rewrites them after a table changes.
// aclshmem.h has one section (its typed families), shmem.h one (its type lists,
// TDIST_SHMEM_*_TYPES, which declare and define OpenSHMEM's typed routines).
//
// A family of aclshmem.h is a name suffix, a C signature and the host call that implements it,
// for the integer types or for all of them. In the strings, {T} is the C type and {call} the
// quoted name of the symbol, which the host call puts in its error messages. Each symbol becomes
//   R aclshmem_<type>_<suffix>(P...) { return guardedValue<R>(0, [&] { return CALLEE; }); }
// (guarded(...) when R is void).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "host/type_table.h"

namespace {

namespace tt = tdist::host::type_table;

// OpenSHMEM's standard atomic types (Integer), and with them the extended ones (All).
enum class Types { Integer, All };
std::vector<const tt::Row *> rowsOf(Types types) { return tt::rows(tt::set(types == Types::Integer ? "AMO" : "EXTENDED_AMO")); }

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

// A generated section of a header: its markers and its text.
struct Section {
  std::string_view begin;
  std::string_view end;
  std::string (*text)();  // between the markers
};

// ---- expansion ----------------------------------------------------------------------------

struct Symbol {
  std::string name;
  std::string result;
  std::string params;
  std::string callee;
};

std::string substitute(std::string_view text, const tt::Row &type, const std::string &name) {
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
  for (const tt::Row *row : rowsOf(family.types)) {
    const tt::Row &type = *row;
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

// The typed families of aclshmem.h.
std::string familiesText() {
  std::ostringstream out;
  for (const Family &family : kFamilies) {
    if (&family != &kFamilies[0]) out << "\n";
    out << "/* " << family.doc << " */\n";
    for (const Symbol &symbol : expand(family)) out << declaration(symbol) << ";\n";
  }
  return out.str();
}

// One list: "#define NAME(X, A) ITEMS", wrapped as C macros are, continuation marks in column 100.
std::string macro(const std::string &name, const std::vector<std::string> &items) {
  constexpr std::size_t kColumn = 99;
  std::vector<std::string> lines{"#define " + name + "(X, A)"};
  std::string current = " ";
  for (const std::string &item : items) {
    if (current.size() > 1 && current.size() + 1 + item.size() > kColumn - 1) {
      lines.push_back(current);
      current = " ";
    }
    current += " " + item;
  }
  if (current.size() > 1) lines.push_back(current);
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size()) out += std::string(lines[i].size() < kColumn ? kColumn - lines[i].size() : 1, ' ') + "\\";
    out += "\n";
  }
  return out;
}

// A C comment of text, wrapped at 100 columns.
std::string comment(std::string_view text) {
  std::string out = "/*";
  std::size_t line_start = 0;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    if (out.size() - line_start + 1 + word.size() > 96) {
      out += "\n *";
      line_start = out.size() - 2;
    }
    out += " ";
    out += word;
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
  }
  return out + " */\n";
}

std::vector<std::string> items(const std::vector<const tt::Row *> &rows, bool cpp) {
  std::vector<std::string> out;
  for (const tt::Row *row : rows) {
    out.push_back("X(" + std::string(row->name) + ", " + std::string(cpp ? row->cpp : row->c) + ", A)");
  }
  return out;
}

// The lists of one audience: X(TYPENAME, TYPE, A) for each row, A passed through.
std::string lists(tt::Audience audience, const std::string &prefix, bool cpp) {
  std::ostringstream out;
  bool first = true;
  for (const tt::Set &set : tt::kSets) {
    if (set.audience != audience) continue;
    if (!first) out << "\n";
    first = false;
    out << comment(set.doc);
    const std::string name = prefix + std::string(set.name) + "_TYPES";
    if (set.generic.empty()) {
      out << macro(name, items(tt::rows(set.more), cpp));
      continue;
    }
    const std::string generic = prefix + "GENERIC_" + std::string(set.name) + "_TYPES";
    out << macro(generic, items(tt::rows(set.generic), cpp));
    std::vector<std::string> full{generic + "(X, A)"};
    for (const std::string &item : items(tt::rows(set.more), cpp)) full.push_back(item);
    out << macro(name, full);
  }
  return out.str();
}

std::string shmemListsText() { return lists(tt::Audience::OpenShmem, "TDIST_SHMEM_", false); }

constexpr Section kSections[] = {
    {"/* BEGIN typed families: generated from host/c_api/generate_c_api.cpp */\n", "/* END typed families */\n",
     familiesText},
    {"/* BEGIN type lists: generated from host/type_table.h */\n", "/* END type lists */\n", shmemListsText},
};

std::string sectionText(const Section &section) {
  return std::string(section.begin) + section.text() + std::string(section.end);
}

std::string hostLists() {
  return "// Generated by host/c_api/generate_c_api.cpp from host/type_table.h: the host layer's\n"
         "// instantiation lists, X(TYPENAME, TYPE, A) for each row (A is passed through).\n"
         "#pragma once\n\n" +
         lists(tt::Audience::Host, "TDIST_HOST_", true);
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

// Finds section in header: [begin, end) covers both markers.
bool findSection(const std::string &header, const Section &section, std::size_t &begin, std::size_t &end) {
  begin = header.find(section.begin);
  if (begin == std::string::npos) return false;
  const std::size_t end_marker = header.find(section.end, begin);
  if (end_marker == std::string::npos) return false;
  end = end_marker + section.end.size();
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

// Checks (or rewrites) every generated section of the header at path; a header with none is an
// error.
int checkHeader(const char *path, bool rewrite) {
  std::string header;
  if (!readFile(path, header)) {
    std::fprintf(stderr, "generate_c_api: cannot read %s\n", path);
    return 1;
  }
  const std::string original = header;
  int found = 0;
  for (const Section &section : kSections) {
    std::size_t begin, end;
    if (!findSection(header, section, begin, end)) continue;
    ++found;
    const std::string expected = sectionText(section);
    const std::string actual = header.substr(begin, end - begin);
    if (actual == expected) continue;
    if (rewrite) {
      header = header.substr(0, begin) + expected + header.substr(end);
      continue;
    }
    std::size_t at = 0;
    while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) ++at;
    std::fprintf(stderr,
                 "generate_c_api: %s:%d: the generated section differs from the tables in host/type_table.h "
                 "and host/c_api/generate_c_api.cpp\n  header: %s\n  table:  %s\n"
                 "Run `cmake --build <build> --target tdist_update_c_api_header` to rewrite the headers.\n",
                 path, line(header, begin + at), lineAt(actual, at).c_str(), lineAt(expected, at).c_str());
    return 1;
  }
  if (found == 0) {
    std::fprintf(stderr, "generate_c_api: %s has no generated section (none of the BEGIN markers)\n", path);
    return 1;
  }
  if (rewrite && header != original && !writeFile(path, header)) {
    std::fprintf(stderr, "generate_c_api: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string_view mode = argc >= 3 ? argv[1] : "";
  if ((mode == "source" || mode == "lists") && argc == 3) {
    if (writeFile(argv[2], mode == "source" ? source() : hostLists())) return 0;
    std::fprintf(stderr, "generate_c_api: cannot write %s\n", argv[2]);
    return 1;
  }
  if (mode == "check" || mode == "update") {
    int status = 0;
    for (int i = 2; i < argc; ++i) status |= checkHeader(argv[i], mode == "update");
    return status;
  }
  std::fprintf(stderr, "usage: generate_c_api source OUTPUT.cpp | lists OUTPUT.h | check HEADER... | update HEADER...\n");
  return 2;
}
