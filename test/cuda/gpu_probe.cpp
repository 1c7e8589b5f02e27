// tdist_gpu_probe: exits 0 when the cuda backend can run in this process, else says why and
// exits 77, which ctest reports as a skipped test (SKIP_RETURN_CODE). Every cuda test starts
// with it (tdist_backend_command), so that machines without a GPU, such as CI's, skip them.
#include <cstdio>
#include <string>
#include <string_view>

#include "runtime/backend.h"

int main() {
  constexpr int kSkip = 77;
  std::string why = "this build has no cuda backend";
  for (const tdist::runtime::Backend *backend : tdist::runtime::builtBackends()) {
    if (std::string_view(backend->name) != "cuda") continue;
    why.clear();
    if (backend->can_run(&why)) return 0;
    break;
  }
  std::fprintf(stderr, "no GPU can run the cuda backend here: %s\n", why.c_str());
  return kSkip;
}
