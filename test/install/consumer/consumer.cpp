// Ring of signalled puts through the installed headers and library; exits 0 when correct.
#include <aclshmem.h>

#include <cstdio>

int main() {
  if (aclshmem_init() != ACLSHMEM_SUCCESS) return 1;
  const int me = aclshmem_my_pe();
  const int n = aclshmem_n_pes();
  auto *sig = static_cast<int32_t *>(aclshmem_calloc(1, sizeof(int32_t)));
  auto *box = static_cast<int *>(aclshmem_malloc(sizeof(int)));
  int value = 100 + me;
  aclshmem_putmem_signal(box, &value, sizeof value, sig, 1, ACLSHMEM_SIGNAL_SET, (me + 1) % n);
  aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_EQ, 1);
  const int ok = *box == 100 + (me + n - 1) % n;
  std::printf("PE %d got %d: %s\n", me, *box, ok ? "ok" : "WRONG");
  aclshmem_barrier_all();
  aclshmem_free(box);
  aclshmem_free(sig);
  aclshmem_finalize();
  return ok ? 0 : 1;
}
