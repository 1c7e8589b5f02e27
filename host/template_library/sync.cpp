// host/template_library/sync.cpp - barriers and ordering, by their shmem implementations.
#include "host/template_library/sync.h"

#include "host/template_library/entry.h"
#include "tdist/shmem.h"

namespace tdist::host::template_library {

void barrierAll(const char *symbol) { runOrExit(symbol, [] { shmem::barrier_all(); }); }
void syncAll(const char *symbol) { runOrExit(symbol, [] { shmem::sync_all(); }); }
void quiet(const char *symbol) { runOrExit(symbol, [] { shmem::quiet(); }); }
void fence(const char *symbol) { runOrExit(symbol, [] { shmem::fence(); }); }

}  // namespace tdist::host::template_library
