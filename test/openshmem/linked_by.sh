#!/usr/bin/env bash
# linked_by.sh BIN_DIR SOURCE LINKER PES [FLAG...] - builds SOURCE with tdist's oshcc (BIN_DIR)
# linked by LINKER (bfd, gold, lld: the compiler's -fuse-ld=LINKER), checks that LINKER made the
# program, and runs it on PES PEs. FLAGs go to oshcc (the build's own). Exit 77 (skipped) where
# the compiler finds no such linker, saying so.
set -uo pipefail
bin=$1 source=$2 linker=$3 pes=$4
shift 4
flags=("$@")
compiler=${TDIST_CC:-cc}  # the compiler oshcc runs
if ! command -v "$("$compiler" -print-prog-name="ld.$linker")" >/dev/null 2>&1; then
  echo "linked_by: $compiler finds no ld.$linker here: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
program=$work/$(basename "$source" .c)_$linker
"$bin/oshcc" "${flags[@]}" -fuse-ld="$linker" -o "$program" "$source" ||
  { echo "linked_by: oshcc -fuse-ld=$linker failed"; exit 1; }
# Which linker made it: lld signs .comment, gold adds a note with its version, bfd does neither.
# readelf's whole output is read before it is searched: `readelf | grep -q` under pipefail fails
# whenever grep stops at the match while readelf still writes (SIGPIPE), which is a race.
signed_by_lld=0 signed_by_gold=0
comment=$(readelf -p .comment "$program" 2>/dev/null) || true
sections=$(readelf -SW "$program") || { echo "linked_by: readelf cannot read $program"; exit 1; }
[[ $comment == *LLD* ]] && signed_by_lld=1
[[ $sections == *.note.gnu.gold-version* ]] && signed_by_gold=1
case $linker:$signed_by_lld:$signed_by_gold in
  lld:1:0 | gold:0:1 | bfd:0:0) ;;
  *) echo "linked_by: the program was not linked by $linker (lld's mark $signed_by_lld, gold's $signed_by_gold)"; exit 1 ;;
esac
echo "linked_by: $linker's layout of the writable and read-only-after-relocation data:"
readelf -lW "$program" | grep -E '^ +(LOAD .* RW |GNU_RELRO )'
"$bin/oshrun" -np "$pes" --heap 32M --wait-timeout 30 --timeout 240 "$program"
