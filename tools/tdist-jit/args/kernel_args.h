// tools/tdist-jit/args/kernel_args.h - the kernel-argument language of tdist-jit.
//
// Every PE allocates a kernel's arguments from short descriptions, fills them, runs the kernel
// and checks buffers against references computed on the host. Every PE can recompute any
// other PE's initial contents, so a reference needs no communication.
//
// Argument description, one per kernel parameter:
//   argument := DTYPE '=' EXPR                        a scalar: i32=1, index=1024/npes
//             | DTYPE '[' DIMS ']' [ '=' INIT ]       a buffer: f32[npes*256]=iota, i32[64]
//   DIMS     := empty | EXPR { ',' EXPR }             each an integer >= 1; f32[] is 0-d
//   INIT     := 'random:' EXPR | EXPR                 zeros when absent
//   DTYPE    := i8 i16 i32 i64 ui8 ui16 ui32 ui64 index f32 f64     (index is a signed i64)
//
// Expressions:
//   EXPR := TERM { ('+' | '-') TERM }      TERM := UNARY { ('*' | '/' | '%') UNARY }
//   UNARY := ('-' | '+') UNARY | NUMBER | NAME | NAME '(' EXPR { ',' EXPR } ')' | '(' EXPR ')'
// A number with '.' or an exponent is real, any other integer. An operation on two integers is
// exact in int64 (C's truncating / and %, an overflow is an error), any other is real (double;
// % is fmod). Division by zero is an error either way, and so is a real result that is not
// finite. Whitespace may separate tokens.
//
// Names, by where they appear:
//   dimension, scalar value, SEED, R of at(), J of arg():  rank npes
//   INIT (element-wise): also i (the flat row-major index), d0 d1 ... (the index along each
//     dimension), random(SEED), and zeros = 0, ones = 1, iota = i.
//   reference: everything INIT allows, plus the tensor functions below.
// random(SEED) is uniform in [-1, 1) and depends on SEED, the rank and i only:
//   h = splitmix64(splitmix64(splitmix64(SEED) ^ rank) ^ i),  random = (h >> 40) * 2^-23 - 1
// so its values are multiples of 2^-23, exact in f32 and equal in f32 and f64 buffers.
// 'random:SEED' is the whole initializer random(SEED).
//
// An initial value becomes an element as follows: an integer dtype takes a real value rounded
// toward zero; a value outside the dtype's range is an error (ui64 holds 0 .. 2^63-1 here, the
// integers of the language). f32 and f64 take the nearest value; beyond f32's range is an error.
//
// Reference, for a check 'K=REF' of buffer argument K:
//   arg(J)        argument J's initial contents on the context rank, recomputed from its
//                 description (a scalar argument gives its value)
//   sum(X)        element-wise sum of X over the context ranks 0 .. npes-1
//   gather(X)     X at ranks 0 .. npes-1 concatenated along dimension 0
//   shard(X)      the context rank's part of X when dimension 0 is cut into npes equal parts
//   at(X, R)      X with context rank R
//   matmul(X, Y)  the product of [m,k] and [k,n] matrices
//   X op Y        any of + - * / %, element-wise on equal shapes or with a scalar; also -X
//   element-wise  an expression as INIT takes its shape from where it stands: the checked
//                 argument's at the top, the other operand's in a binary operation, X's inside
//                 sum and at, a 1/npes slice of dimension 0 inside gather, npes times dimension 0
//                 inside shard. Without i, dK or
//                 random it may also stand alone as a scalar.
// The context rank starts as the checking PE's. The result must have the checked buffer's
// shape, or be a scalar, which stands for every element.
//
// Values stay exact integers while every operand is an integer (arg of an integer buffer
// included), so integer references are exact over all of int64 (an overflow is an error);
// real ones, matmul included, are computed in double.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tdist::jit {

// Any error in a description, a reference or an evaluation; the message quotes the text and
// gives the column.
struct ArgumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class DType { I8, I16, I32, I64, U8, U16, U32, U64, Index, F32, F64 };

std::string_view dtypeName(DType dtype);  // "f32", "ui8", "index", ...
std::optional<DType> dtypeFromName(std::string_view name);
std::size_t dtypeSize(DType dtype);
bool isFloat(DType dtype);

// A number of the language: an exact 64-bit integer or a double.
class Value {
 public:
  constexpr Value() = default;
  static constexpr Value ofInteger(std::int64_t v) { return Value(true, v, 0); }
  static constexpr Value ofReal(double v) { return Value(false, 0, v); }

  constexpr bool isInteger() const { return integer_; }
  constexpr std::int64_t integer() const { return int_; }  // meaningful when isInteger()
  constexpr double real() const { return integer_ ? static_cast<double>(int_) : real_; }
  // "42" or the shortest text that reads back as the same double ("0.1", "2.5e-07").
  std::string toString() const;

  friend constexpr bool operator==(const Value &, const Value &) = default;

 private:
  constexpr Value(bool integer, std::int64_t i, double r) : integer_(integer), int_(i), real_(r) {}
  bool integer_ = true;
  std::int64_t int_ = 0;
  double real_ = 0;
};

namespace detail {
struct Node;
}
// A parsed expression; immutable, so specs and checks copy cheaply.
using Expression = std::shared_ptr<const detail::Node>;

struct ArgumentSpec {
  std::string text;  // as written, for messages
  DType dtype = DType::I32;
  bool buffer = false;
  std::vector<Expression> dims;  // buffer only
  Expression value;              // a scalar's value, a buffer's initializer
};

// Throws ArgumentError.
ArgumentSpec parseArgument(std::string_view text);

struct Context {
  int rank = 0;
  int npes = 1;
};

// A description evaluated on one PE.
struct ResolvedArgument {
  DType dtype = DType::I32;
  bool buffer = false;
  std::vector<std::int64_t> shape;  // buffer only; row-major
  std::int64_t int_value = 0;       // scalar of an integer dtype
  double float_value = 0;           // scalar of f32 (already rounded to float) or f64

  std::size_t elements() const;  // 1 for a scalar or a 0-d buffer
  std::size_t bytes() const;
};

ResolvedArgument resolve(const ArgumentSpec &spec, Context context);

// Writes the argument's initial elements (a scalar's value), of spec.dtype, at data
// (argument.bytes() of them).
void fillInitial(const ArgumentSpec &spec, const ResolvedArgument &argument, Context context,
                 void *data);

// A shaped array of values, row-major; shape {} is a scalar.
struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<Value> values;
};

struct Check {
  int argument = 0;  // K: the 0-based index of the checked buffer
  std::string text;  // "K=REF" as written
  Expression reference;
};

// Parses "K=REF". Throws ArgumentError.
Check parseCheck(std::string_view text);

// The values argument check.argument must hold on the PE of context, with its shape (a scalar
// reference is expanded to it). Throws ArgumentError, e.g. when the shapes differ.
Tensor expectedValues(const Check &check, std::span<const ArgumentSpec> arguments,
                      Context context);

// Floats match when |actual - expected| <= atol + rtol * |expected|; integers must be equal.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  // f32: rtol 1e-4, atol 1e-4 (a K = 4096 GEMM of random inputs, summed in order, stays
  // within); f64: rtol 1e-10, atol 1e-12; integers: exact.
  static Tolerance defaultFor(DType dtype);
};

struct CheckReport {
  std::size_t elements = 0;
  std::size_t mismatches = 0;
  std::string details;  // a summary line, then a line for each of the first 8 mismatches
  bool ok() const { return mismatches == 0; }
};

// Compares the buffer at actual with expected (whose size must be argument.elements()).
// NaN never matches; for an integer buffer, neither does a real expected value that is not
// exactly the element's value.
CheckReport compare(const ResolvedArgument &argument, const void *actual, const Tensor &expected,
                    Tolerance tolerance);

// "f32[2,3]" and the contents, numpy-style; when there are more than limit elements, only the
// first and last 3 items of each dimension are shown.
std::string formatBuffer(const ResolvedArgument &argument, const void *data,
                         std::size_t limit = 64);

}  // namespace tdist::jit
