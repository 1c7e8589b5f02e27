// tool_main.h - the main of the measuring tools (tdist-bench, tdist-tune): every PE parses the
// same arguments and PE 0 speaks for all of them, then init with the heap the tool needs, the
// tool's run, finalize; a failure on any PE ends the job with its message.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {

// parse throws std::invalid_argument naming the bad flag; Options has show_help. prepare adjusts
// the init attributes (the heap size, the backend) from the options.
template <class Options>
int toolMain(const char *tool, int argc, char **argv, Options (*parse)(int, char **),
             std::string (*usage)(const char *), const std::function<void(InitAttr &, const Options &)> &prepare,
             const std::function<void(const Options &)> &run) {
  const char *pe = std::getenv("TDIST_PE");
  const bool speaks = pe == nullptr || std::string_view(pe) == "0";
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::invalid_argument &error) {
    if (!speaks) {
      // Leaving quietly: the launcher ends the job at its first failing PE, and were that one of
      // these, PE 0 could be stopped before its message is out.
      return 0;
    }
    std::fprintf(stderr, "%s: %s\n%s", tool, error.what(), usage(argv[0]).c_str());
    return 2;
  }
  if (options.show_help) {
    if (speaks) std::fputs(usage(argv[0]).c_str(), stdout);
    return 0;
  }
  try {
    InitAttr attr = attrFromEnvironment();
    prepare(attr, options);
    init(attr);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "%s: init failed: %s\n", tool, error.what());
    return 1;
  }
  try {
    run(options);
    finalize();
  } catch (const std::exception &error) {
    std::fprintf(stderr, "%s: PE %d: %s\n", tool, myPe(), error.what());
    shmem::global_exit(1);
  }
  return 0;
}

}  // namespace tdist::bench
