// tdist/shmem.h - device functions of the symmetric-memory runtime (C++).
//
// Callable from PE code and from program instances of tdist::launch. Semantics are OpenSHMEM's
// as aclshmem implements them: blocking puts are complete (and visible after fence/quiet or a
// signal) on return; put-with-signal delivers its data before its signal; signal SET is a
// release store and ADD an atomic add; waits are acquire loads with a deadline.
#pragma once

#include <cstddef>
#include <cstdint>

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

// Function templates are explicitly instantiated in the library; their instantiations need
// the attribute itself (the pragma does not reach them).
#ifndef TDIST_EXPORT
#define TDIST_EXPORT [[gnu::visibility("default")]]
#endif

namespace tdist::shmem {

enum class SignalOp : int { Set = 0, Add = 1 };
enum class Cmp : int { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };

using Team = int;
constexpr Team kTeamInvalid = -1;
constexpr Team kTeamWorld = 0;

int my_pe();
int n_pes();
void *ptr(const void *ptr, int pe);

void putmem(void *dest, const void *source, std::size_t nbytes, int pe);
void getmem(void *dest, const void *source, std::size_t nbytes, int pe);
void putmem_nbi(void *dest, const void *source, std::size_t nbytes, int pe);
void getmem_nbi(void *dest, const void *source, std::size_t nbytes, int pe);

template <class T> TDIST_EXPORT void p(T *dest, T value, int pe);
template <class T> TDIST_EXPORT T g(const T *source, int pe);

// Signals: S is int32_t, int64_t or uint64_t.
template <class S>
TDIST_EXPORT void putmem_signal(void *dest, const void *source, std::size_t nbytes, S *sig_addr,
                                S signal, SignalOp op, int pe);
template <class S>
TDIST_EXPORT void putmem_signal_nbi(void *dest, const void *source, std::size_t nbytes,
                                    S *sig_addr, S signal, SignalOp op, int pe);
template <class S> TDIST_EXPORT void signal_op(S *sig_addr, S signal, SignalOp op, int pe);
template <class S> TDIST_EXPORT S signal_wait_until(S *sig_addr, Cmp cmp, S value);

// Point-to-point synchronization on a local symmetric variable.
template <class T> TDIST_EXPORT void wait_until(T *ivar, Cmp cmp, T value);
template <class T> TDIST_EXPORT bool test(T *ivar, Cmp cmp, T value);

// Atomics on pe's copy of dest.
template <class T> TDIST_EXPORT T atomic_fetch(const T *source, int pe);
template <class T> TDIST_EXPORT void atomic_set(T *dest, T value, int pe);
template <class T> TDIST_EXPORT T atomic_swap(T *dest, T value, int pe);
template <class T> TDIST_EXPORT T atomic_compare_swap(T *dest, T cond, T value, int pe);
template <class T> TDIST_EXPORT void atomic_add(T *dest, T value, int pe);
template <class T> TDIST_EXPORT void atomic_inc(T *dest, int pe);
template <class T> TDIST_EXPORT T atomic_fetch_add(T *dest, T value, int pe);
template <class T> TDIST_EXPORT T atomic_fetch_inc(T *dest, int pe);

void quiet();
void fence();
void barrier_all();   // quiet + centralized pull barrier over the world team
void sync_all();      // the barrier without the quiet
void barrier(Team team);
void sync(Team team);

// Collective over parent; returns kTeamInvalid on PEs that are not members.
Team team_split_strided(Team parent, int start, int stride, int size);
int team_translate_pe(Team src_team, int src_pe, Team dest_team);
int team_my_pe(Team team);
int team_n_pes(Team team);
void team_destroy(Team team);

// Reductions on a team, host calls (OpenSHMEM 1.5's shmem_TYPE_OP_reduce): on every member,
// dest[k] = source[k] of team PE 0 op source[k] of team PE 1 op ..., in team order; dest and
// source symmetric, the same array or apart. And, Or and Xor on the integer types only. Every
// member must make the same call: one whose type, count or operation differs fails every member.
// T: int32_t, int64_t, uint32_t, uint64_t, float, double.
enum class ReduceOp : int { And, Or, Xor, Max, Min, Sum, Prod };
template <class T>
TDIST_EXPORT void reduce(Team team, T *dest, const T *source, std::size_t nreduce, ReduceOp op);
// Every member's nbytes of source, concatenated in team order into dest (n_pes x nbytes) on every
// member, a host call (OpenSHMEM 1.5's shmem_fcollectmem); dest and source symmetric, apart. Every
// member must make the same call: one whose size differs fails every member.
void fcollectmem(Team team, void *dest, const void *source, std::size_t nbytes);

// Ends the whole job with status: every PE's next wait, and tdist-run, see it.
[[noreturn]] void global_exit(int status);

}  // namespace tdist::shmem

#pragma GCC visibility pop
