// Every typed family of aclshmem.h, for every type, called by its C name across PEs: each symbol
// reaches the implementation, and each names itself in its errors.
#include <gtest/gtest.h>

#include <string>

#include "aclshmem.h"
#include "test/integration/pe/heap_access.h"
#include "test/integration/pe/ring.h"

namespace tdist {
namespace {

using testing::heapRead;
using testing::next;
using testing::prev;

// The symbols of one type, in the order of aclshmem.h; the integer-only ones are null for float
// and double.
template <class T>
struct TypedSymbols {
  const char *type;
  void (*p)(T *, T, int);
  T (*g)(const T *, int);
  void (*wait_until)(T *, int, T);
  int (*test)(T *, int, T);
  T (*atomic_fetch)(const T *, int);
  void (*atomic_set)(T *, T, int);
  T (*atomic_swap)(T *, T, int);
  T (*atomic_compare_swap)(T *, T, T, int);
  void (*atomic_add)(T *, T, int);
  void (*atomic_inc)(T *, int);
  T (*atomic_fetch_add)(T *, T, int);
  T (*atomic_fetch_inc)(T *, int);

  bool integer() const { return wait_until != nullptr; }
  std::string name(const char *suffix) const { return std::string("aclshmem_") + type + "_" + suffix; }
};

template <class T>
void expectNamedError(const TypedSymbols<T> &symbols, const char *suffix, const char *detail) {
  const std::string message = aclshmemx_last_error();
  const std::string name = symbols.name(suffix);
  EXPECT_EQ(message.rfind(name + ": ", 0), 0u) << "expected " << name << ", got: " << message;
  EXPECT_NE(message.find(detail), std::string::npos) << message;
}

// Slots of the test, one per word so that atomics never share one.
enum Slot { kPut, kSwap, kCounter, kElection, kFlag, kSlots };

template <class T>
void pointAndSwap(const TypedSymbols<T> &s, T *words) {
  const int me = aclshmem_my_pe();
  s.p(words + kPut, static_cast<T>(10 + me), next(me));
  s.atomic_set(words + kSwap, static_cast<T>(7), next(me));
  aclshmem_barrier_all();
  EXPECT_EQ(heapRead(words + kPut), static_cast<T>(10 + prev(me))) << s.name("p");
  EXPECT_EQ(s.g(words + kPut, next(me)), static_cast<T>(10 + me)) << s.name("g");
  EXPECT_EQ(s.atomic_fetch(words + kSwap, prev(me)), static_cast<T>(7)) << s.name("atomic_fetch");
  aclshmem_barrier_all();
  // Each PE's word is swapped by its previous PE only.
  EXPECT_EQ(s.atomic_swap(words + kSwap, static_cast<T>(20 + me), next(me)), static_cast<T>(7))
      << s.name("atomic_swap");
  aclshmem_barrier_all();
  EXPECT_EQ(heapRead(words + kSwap), static_cast<T>(20 + prev(me))) << s.name("atomic_swap");
}

template <class T>
void countersAndWaits(const TypedSymbols<T> &s, T *words) {
  const int me = aclshmem_my_pe();
  const int n = aclshmem_n_pes();
  // Five per PE on PE 0's counter, by four symbols.
  s.atomic_fetch_add(words + kCounter, static_cast<T>(1), 0);
  s.atomic_add(words + kCounter, static_cast<T>(2), 0);
  s.atomic_inc(words + kCounter, 0);
  s.atomic_fetch_inc(words + kCounter, 0);
  // Exactly one PE swaps 0 for its number + 1 on PE 0.
  const T old = s.atomic_compare_swap(words + kElection, static_cast<T>(0), static_cast<T>(me + 1), 0);
  aclshmem_barrier_all();
  EXPECT_EQ(s.atomic_fetch(words + kCounter, 0), static_cast<T>(5 * n)) << s.name("atomic_fetch_add");
  const T winner = s.g(words + kElection, 0);
  EXPECT_EQ(old == static_cast<T>(0), winner == static_cast<T>(me + 1)) << s.name("atomic_compare_swap");
  if (old != static_cast<T>(0)) {
    EXPECT_EQ(old, winner) << s.name("atomic_compare_swap");
  }
  // A flag from the previous PE, waited for and tested.
  s.p(words + kFlag, static_cast<T>(3), next(me));
  s.wait_until(words + kFlag, ACLSHMEM_CMP_EQ, static_cast<T>(3));
  EXPECT_EQ(s.test(words + kFlag, ACLSHMEM_CMP_GE, static_cast<T>(3)), 1) << s.name("test");
  EXPECT_EQ(s.test(words + kFlag, ACLSHMEM_CMP_LT, static_cast<T>(3)), 0) << s.name("test");
  aclshmem_barrier_all();
}

// Every symbol with a PE past the last one (or a comparison that does not exist): the error
// names the symbol, and nothing moves.
template <class T>
void errorsNameTheSymbol(const TypedSymbols<T> &s, T *words) {
  const int bad = aclshmem_n_pes();
  const char *range = "is out of range";
  const T before = heapRead(words + kPut);
  s.p(words + kPut, static_cast<T>(99), bad);
  expectNamedError(s, "p", range);
  s.g(words + kPut, bad);
  expectNamedError(s, "g", range);
  s.atomic_fetch(words + kPut, bad);
  expectNamedError(s, "atomic_fetch", range);
  s.atomic_set(words + kPut, static_cast<T>(99), bad);
  expectNamedError(s, "atomic_set", range);
  s.atomic_swap(words + kPut, static_cast<T>(99), bad);
  expectNamedError(s, "atomic_swap", range);
  if (s.integer()) {
    s.wait_until(words + kPut, 99, before);
    expectNamedError(s, "wait_until", "comparison 99");
    s.test(words + kPut, 99, before);
    expectNamedError(s, "test", "comparison 99");
    s.atomic_compare_swap(words + kPut, before, static_cast<T>(99), bad);
    expectNamedError(s, "atomic_compare_swap", range);
    s.atomic_add(words + kPut, static_cast<T>(99), bad);
    expectNamedError(s, "atomic_add", range);
    s.atomic_inc(words + kPut, bad);
    expectNamedError(s, "atomic_inc", range);
    s.atomic_fetch_add(words + kPut, static_cast<T>(99), bad);
    expectNamedError(s, "atomic_fetch_add", range);
    s.atomic_fetch_inc(words + kPut, bad);
    expectNamedError(s, "atomic_fetch_inc", range);
  }
  aclshmem_barrier_all();
  EXPECT_EQ(heapRead(words + kPut), before) << s.type;
}

template <class T>
void checkType(const TypedSymbols<T> &symbols) {
  SCOPED_TRACE(symbols.type);
  auto *words = static_cast<T *>(aclshmem_calloc(kSlots, sizeof(T)));
  ASSERT_NE(words, nullptr);
  pointAndSwap(symbols, words);
  if (symbols.integer()) countersAndWaits(symbols, words);
  errorsNameTheSymbol(symbols, words);
  aclshmem_free(words);
}

TEST(CApi, EveryTypedSymbolOfEveryType) {
  checkType<int>({"int", aclshmem_int_p, aclshmem_int_g, aclshmem_int_wait_until, aclshmem_int_test,
                  aclshmem_int_atomic_fetch, aclshmem_int_atomic_set, aclshmem_int_atomic_swap,
                  aclshmem_int_atomic_compare_swap, aclshmem_int_atomic_add, aclshmem_int_atomic_inc,
                  aclshmem_int_atomic_fetch_add, aclshmem_int_atomic_fetch_inc});
  checkType<long>({"long", aclshmem_long_p, aclshmem_long_g, aclshmem_long_wait_until, aclshmem_long_test,
                   aclshmem_long_atomic_fetch, aclshmem_long_atomic_set, aclshmem_long_atomic_swap,
                   aclshmem_long_atomic_compare_swap, aclshmem_long_atomic_add, aclshmem_long_atomic_inc,
                   aclshmem_long_atomic_fetch_add, aclshmem_long_atomic_fetch_inc});
  checkType<long long>({"longlong", aclshmem_longlong_p, aclshmem_longlong_g, aclshmem_longlong_wait_until,
                        aclshmem_longlong_test, aclshmem_longlong_atomic_fetch, aclshmem_longlong_atomic_set,
                        aclshmem_longlong_atomic_swap, aclshmem_longlong_atomic_compare_swap,
                        aclshmem_longlong_atomic_add, aclshmem_longlong_atomic_inc,
                        aclshmem_longlong_atomic_fetch_add, aclshmem_longlong_atomic_fetch_inc});
  checkType<unsigned int>({"uint", aclshmem_uint_p, aclshmem_uint_g, aclshmem_uint_wait_until, aclshmem_uint_test,
                           aclshmem_uint_atomic_fetch, aclshmem_uint_atomic_set, aclshmem_uint_atomic_swap,
                           aclshmem_uint_atomic_compare_swap, aclshmem_uint_atomic_add, aclshmem_uint_atomic_inc,
                           aclshmem_uint_atomic_fetch_add, aclshmem_uint_atomic_fetch_inc});
  checkType<unsigned long>({"ulong", aclshmem_ulong_p, aclshmem_ulong_g, aclshmem_ulong_wait_until,
                            aclshmem_ulong_test, aclshmem_ulong_atomic_fetch, aclshmem_ulong_atomic_set,
                            aclshmem_ulong_atomic_swap, aclshmem_ulong_atomic_compare_swap,
                            aclshmem_ulong_atomic_add, aclshmem_ulong_atomic_inc, aclshmem_ulong_atomic_fetch_add,
                            aclshmem_ulong_atomic_fetch_inc});
  checkType<unsigned long long>({"ulonglong", aclshmem_ulonglong_p, aclshmem_ulonglong_g,
                                 aclshmem_ulonglong_wait_until, aclshmem_ulonglong_test,
                                 aclshmem_ulonglong_atomic_fetch, aclshmem_ulonglong_atomic_set,
                                 aclshmem_ulonglong_atomic_swap, aclshmem_ulonglong_atomic_compare_swap,
                                 aclshmem_ulonglong_atomic_add, aclshmem_ulonglong_atomic_inc,
                                 aclshmem_ulonglong_atomic_fetch_add, aclshmem_ulonglong_atomic_fetch_inc});
  checkType<int32_t>({"int32", aclshmem_int32_p, aclshmem_int32_g, aclshmem_int32_wait_until, aclshmem_int32_test,
                      aclshmem_int32_atomic_fetch, aclshmem_int32_atomic_set, aclshmem_int32_atomic_swap,
                      aclshmem_int32_atomic_compare_swap, aclshmem_int32_atomic_add, aclshmem_int32_atomic_inc,
                      aclshmem_int32_atomic_fetch_add, aclshmem_int32_atomic_fetch_inc});
  checkType<int64_t>({"int64", aclshmem_int64_p, aclshmem_int64_g, aclshmem_int64_wait_until, aclshmem_int64_test,
                      aclshmem_int64_atomic_fetch, aclshmem_int64_atomic_set, aclshmem_int64_atomic_swap,
                      aclshmem_int64_atomic_compare_swap, aclshmem_int64_atomic_add, aclshmem_int64_atomic_inc,
                      aclshmem_int64_atomic_fetch_add, aclshmem_int64_atomic_fetch_inc});
  checkType<uint32_t>({"uint32", aclshmem_uint32_p, aclshmem_uint32_g, aclshmem_uint32_wait_until,
                       aclshmem_uint32_test, aclshmem_uint32_atomic_fetch, aclshmem_uint32_atomic_set,
                       aclshmem_uint32_atomic_swap, aclshmem_uint32_atomic_compare_swap, aclshmem_uint32_atomic_add,
                       aclshmem_uint32_atomic_inc, aclshmem_uint32_atomic_fetch_add,
                       aclshmem_uint32_atomic_fetch_inc});
  checkType<uint64_t>({"uint64", aclshmem_uint64_p, aclshmem_uint64_g, aclshmem_uint64_wait_until,
                       aclshmem_uint64_test, aclshmem_uint64_atomic_fetch, aclshmem_uint64_atomic_set,
                       aclshmem_uint64_atomic_swap, aclshmem_uint64_atomic_compare_swap, aclshmem_uint64_atomic_add,
                       aclshmem_uint64_atomic_inc, aclshmem_uint64_atomic_fetch_add,
                       aclshmem_uint64_atomic_fetch_inc});
  checkType<size_t>({"size", aclshmem_size_p, aclshmem_size_g, aclshmem_size_wait_until, aclshmem_size_test,
                     aclshmem_size_atomic_fetch, aclshmem_size_atomic_set, aclshmem_size_atomic_swap,
                     aclshmem_size_atomic_compare_swap, aclshmem_size_atomic_add, aclshmem_size_atomic_inc,
                     aclshmem_size_atomic_fetch_add, aclshmem_size_atomic_fetch_inc});
  checkType<ptrdiff_t>({"ptrdiff", aclshmem_ptrdiff_p, aclshmem_ptrdiff_g, aclshmem_ptrdiff_wait_until,
                        aclshmem_ptrdiff_test, aclshmem_ptrdiff_atomic_fetch, aclshmem_ptrdiff_atomic_set,
                        aclshmem_ptrdiff_atomic_swap, aclshmem_ptrdiff_atomic_compare_swap,
                        aclshmem_ptrdiff_atomic_add, aclshmem_ptrdiff_atomic_inc, aclshmem_ptrdiff_atomic_fetch_add,
                        aclshmem_ptrdiff_atomic_fetch_inc});
  checkType<float>({"float", aclshmem_float_p, aclshmem_float_g, nullptr, nullptr, aclshmem_float_atomic_fetch,
                    aclshmem_float_atomic_set, aclshmem_float_atomic_swap, nullptr, nullptr, nullptr, nullptr,
                    nullptr});
  checkType<double>({"double", aclshmem_double_p, aclshmem_double_g, nullptr, nullptr,
                     aclshmem_double_atomic_fetch, aclshmem_double_atomic_set, aclshmem_double_atomic_swap, nullptr,
                     nullptr, nullptr, nullptr, nullptr});
}

}  // namespace
}  // namespace tdist
