// host/template_library/symbols.cpp - looking a symbol up in the generated, sorted table.
#include <algorithm>

#include "tdist/template_library.h"

namespace tdist::template_library {

const Symbol *find(std::string_view name) {
  const std::span<const Symbol> all = symbols();
  auto found = std::lower_bound(all.begin(), all.end(), name,
                                [](const Symbol &symbol, std::string_view key) { return symbol.name < key; });
  return found != all.end() && found->name == name ? &*found : nullptr;
}

}  // namespace tdist::template_library
