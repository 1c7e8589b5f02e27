// tdist_across_hosts_program: a PE of a job across hosts; across_hosts_test.cpp runs one
// tdist-run per node on this host. Every PE checks its number and the job's size against what
// tdist-run told it, puts its number into the next PE's word (the ring crosses from node to node,
// through the network), and after a barrier checks the word that the PE before it put.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "aclshmem.h"

namespace {

int told(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : -1;
}

}  // namespace

int main() {
  if (aclshmem_init() != ACLSHMEM_SUCCESS) {
    std::fprintf(stderr, "across hosts: init failed\n");
    return 1;
  }
  const int me = aclshmem_my_pe();
  const int n = aclshmem_n_pes();
  if (me != told("TDIST_PE") || n != told("TDIST_N_PES")) {
    std::fprintf(stderr, "across hosts: the runtime says PE %d of %d, tdist-run said %d of %d\n", me, n,
                 told("TDIST_PE"), told("TDIST_N_PES"));
    return 1;
  }
  auto *word = static_cast<std::int32_t *>(aclshmem_calloc(1, sizeof(std::int32_t)));
  aclshmem_barrier_all();
  aclshmem_int32_p(word, 1000 + me, (me + 1) % n);
  aclshmem_barrier_all();  // completes every put before it
  const int before = (me + n - 1) % n;
  if (*word != 1000 + before) {
    std::fprintf(stderr, "across hosts: PE %d holds %d, expected PE %d's put of %d\n", me, static_cast<int>(*word),
                 before, 1000 + before);
    return 1;
  }
  std::printf("PE %d of %d on node %d: got PE %d's put\n", me, n, told("TDIST_NODE"), before);
  std::fflush(stdout);
  aclshmem_free(word);
  aclshmem_finalize();
  return 0;
}
