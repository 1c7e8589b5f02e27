#!/bin/sh
# kernel_cache_test.sh TDIST_JIT EXAMPLES: tdist-jit's kernel cache for the cuda backend (no GPU
# needed: --compile-only). A kernel is compiled once and kept; the same text from another path is
# taken from the cache; other options or another text are other kernels; an entry cut short is
# an error that names it.
set -u
jit=$1
examples=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export TDIST_BACKEND=cuda TDIST_KERNEL_CACHE="$dir/cache"
fail() {
  printf '%s\n' "$output"
  echo "kernel_cache_test: $1" >&2
  exit 1
}
compile() {
  output=$("$jit" --compile-only --entry ring_allreduce "$@" 2>&1)
  status=$?
}
entries() { ls "$dir/cache" 2>/dev/null | grep -c '\.tdk$'; }

compile "$examples/ring_allreduce.mlir"
[ "$status" -eq 0 ] || fail "the first compilation failed"
printf '%s\n' "$output" | grep -Eq "compiled, kept in the kernel cache: $dir/cache/[0-9a-f]{16}\.tdk" ||
  fail "the first compilation was not kept"
[ "$(entries)" -eq 1 ] || fail "expected 1 entry, found $(entries)"

cp "$examples/ring_allreduce.mlir" "$dir/copy.mlir"
compile "$dir/copy.mlir"
[ "$status" -eq 0 ] || fail "the copy failed"
printf '%s\n' "$output" | grep -q "taken from the kernel cache" || fail "the same text was compiled again"

compile "$dir/copy.mlir" -O1
printf '%s\n' "$output" | grep -q "compiled, kept" || fail "-O1 took the -O2 kernel"
{ cat "$dir/copy.mlir"; echo "// another text"; } > "$dir/other.mlir"
compile "$dir/other.mlir"
printf '%s\n' "$output" | grep -q "compiled, kept" || fail "another text took the kernel of the first"
[ "$(entries)" -eq 3 ] || fail "expected 3 entries, found $(entries)"

# Another device library is another key: tdist-jit with a library of its own beside its bin/.
lib=$(dirname "$(dirname "$jit")")/lib
mkdir -p "$dir/tree/bin" "$dir/tree/lib"
cp "$jit" "$dir/tree/bin/tdist-jit"
cp "$lib/libtdist_device.bc" "$lib/libtdist_device.ll" "$dir/tree/lib/"
jit="$dir/tree/bin/tdist-jit"
compile "$examples/ring_allreduce.mlir"
printf '%s\n' "$output" | grep -q "taken from the kernel cache" || fail "the same library's copy is another kernel"
echo "; rebuilt" >> "$dir/tree/lib/libtdist_device.ll"
compile "$examples/ring_allreduce.mlir"
printf '%s\n' "$output" | grep -q "compiled, kept" || fail "a kernel of the library before was taken"
[ "$(entries)" -eq 4 ] || fail "expected 4 entries, found $(entries)"

first=$(ls "$dir"/cache/*.tdk | head -n 1)
for entry in "$dir"/cache/*.tdk; do
  head -c 200 "$entry" > "$entry.cut" && mv "$entry.cut" "$entry"
done
compile "$examples/ring_allreduce.mlir"
[ "$status" -eq 3 ] || fail "an entry cut short: exit status $status, expected 3"
printf '%s\n' "$output" | grep -q "the kernel cache's entry $dir/cache/.*\.tdk cannot be used" ||
  fail "an entry cut short is not named"
[ -n "$first" ] || fail "no entry"
echo "kernel_cache_test: passed"
