// host/template_library/sync.h - barriers and ordering.
//
// barrier_all and sync_all may be called by every program of a launch: the programs meet first,
// then one of them does the PE barrier (host/barrier.cpp). Every program of the grid must
// then call them the same number of times.
#pragma once

namespace tdist::host::template_library {

void barrierAll(const char *symbol);  // also aclshmemx_barrier_all_vec: the same on the cpu
void syncAll(const char *symbol);
void quiet(const char *symbol);
void fence(const char *symbol);

}  // namespace tdist::host::template_library
