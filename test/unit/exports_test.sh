#!/usr/bin/env bash
# libtdist_runtime.so exports its public API only: the C API, the template library's symbols and
# the C++ API declared in include/. Usage: exports_test.sh LIBRARY
set -euo pipefail
library=$1
symbols=$(nm -D --defined-only --format=posix "$library" | awk '{print $1}')
demangled=$(c++filt <<<"$symbols")

# C names: the C API and the template library.
c_names=$(grep -v '^_Z' <<<"$symbols" || true)
bad_c=$(grep -Ev '^(aclshmem|aclshmemx|shmem|shmemx|tdist)_|^_mlir_ciface_|^_(init|fini)$' <<<"$c_names" || true)
# C++ names: in namespace tdist, outside the internal namespaces, or tdist's own typeinfo/vtables.
cxx_names=$(paste <(printf '%s\n' "$symbols") <(printf '%s\n' "$demangled") | awk -F'\t' '$1 ~ /^_Z/ {print $2}')
# (Function templates demangle with their return type first.)
bad_cxx=$(grep -Ev '^((typeinfo|typeinfo name|vtable) for )?tdist::|^[^(<]*[A-Za-z0-9_] tdist::' <<<"$cxx_names" || true)
internal=$(grep -E '(^|[ (<,])tdist::(runtime|host|cpu|backend)::' <<<"$cxx_names" || true)

status=0
report() {
  if [ -n "$2" ]; then
    echo "exports_test: $1:"
    sed 's/^/  /' <<<"$2" | head -n 40
    status=1
  fi
}
report "C symbols outside the public API" "$bad_c"
report "C++ symbols outside namespace tdist" "$bad_cxx"
report "internal C++ symbols" "$internal"

# The public API is there.
for expected in aclshmem_init aclshmem_malloc aclshmem_barrier_all _mlir_ciface_aclshmem_barrier_all; do
  grep -qx "$expected" <<<"$c_names" || { echo "exports_test: $expected is not exported"; status=1; }
done
for expected in 'tdist::init(tdist::InitAttr const&)' 'tdist::shmem::quiet()' 'typeinfo for tdist::Error'; do
  grep -qxF "$expected" <<<"$cxx_names" || { echo "exports_test: $expected is not exported"; status=1; }
done
[ $status = 0 ] && echo "exports_test: $(wc -l <<<"$symbols") symbols, all public"
exit $status
