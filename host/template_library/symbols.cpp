// host/template_library/symbols.cpp - looking a symbol up in the generated, sorted table.
#include <algorithm>

#include "tdist/template_library.h"

namespace tdist::device {

const TemplateSymbol *findTemplateSymbol(std::string_view name) {
  const std::span<const TemplateSymbol> symbols = templateLibrarySymbols();
  auto found = std::lower_bound(symbols.begin(), symbols.end(), name,
                                [](const TemplateSymbol &symbol, std::string_view key) { return symbol.name < key; });
  return found != symbols.end() && found->name == name ? &*found : nullptr;
}

}  // namespace tdist::device
