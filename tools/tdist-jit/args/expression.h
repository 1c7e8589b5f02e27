// tools/tdist-jit/args/expression.h - expressions of the argument language: the tree, the
// parser shared by descriptions and references, and element-wise evaluation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tools/tdist-jit/args/kernel_args.h"

namespace tdist::jit::detail {

enum class Op {
  Number, Rank, Npes, Flat, Dim, Random,                  // element-wise leaves and random()
  Negate, Add, Subtract, Multiply, Divide, Remainder,     // arithmetic
  Arg, Sum, Gather, Shard, At, Matmul,                    // tensor functions of references
};

struct Node {
  Op op = Op::Number;
  std::size_t offset = 0;  // of its first character in the source, for messages
  Value number;            // Number
  std::int64_t dim = 0;    // Dim: K of dK
  std::vector<Node> operands;
};

// What an expression may name; each scope allows all that the one before it does.
enum class Scope {
  Scalar,     // numbers, rank, npes
  Element,    // also i, dK, random(), zeros, ones, iota
  Reference,  // also arg, sum, gather, shard, at, matmul
};

// Throws ArgumentError: "SOURCE": MESSAGE at column N[ SUFFIX].
[[noreturn]] void fail(std::string_view source, std::size_t offset, const std::string &message,
                       const std::string &suffix = {});

// A cursor over one description or check; every parse error names the source and a column.
class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  // what names the expression in messages ("a dimension"); buffer_rank bounds dK in an
  // Element scope (a reference learns its shapes only when evaluated).
  Node parseExpression(Scope scope, std::string_view what, int buffer_rank = 0);

  std::string_view source() const { return source_; }
  std::size_t position() const { return pos_; }
  bool atEnd();
  bool consume(char c);                                 // skips whitespace first
  bool consume(std::string_view word);                  // a literal prefix, e.g. "random:"
  void expect(char c, std::string_view expected_what);  // fails naming expected_what
  std::string_view identifier();                        // empty when none is here
  bool digits(std::int64_t &value);                     // a non-negative integer literal
  [[noreturn]] void failHere(const std::string &message);
  std::string describeNext();  // the next character quoted, or "the end"

 private:
  struct Rules;
  Node parseSum(const Rules &rules);
  Node parseTerm(const Rules &rules);
  Node parseUnary(const Rules &rules);
  Node parsePrimary(const Rules &rules);
  Node parseNumber();
  Node parseName(const Rules &rules, std::string_view name, std::size_t start);
  Node parseCall(const Rules &rules, std::string_view name, std::size_t start);
  void skipSpace();

  std::string_view source_;
  std::size_t pos_ = 0;
};

// Where an element-wise expression is evaluated.
struct Site {
  std::string_view source;
  Context context;
  std::int64_t flat = 0;                  // i
  std::span<const std::int64_t> index;    // d0, d1, ...
  bool element = false;                   // whether flat and index mean anything

  static Site scalar(std::string_view source, Context context) {
    return Site{source, context, 0, {}, false};
  }
  static Site at(std::string_view source, Context context, std::int64_t flat,
                 std::span<const std::int64_t> index) {
    return Site{source, context, flat, index, true};
  }
};

// "(element [1,2], rank 0 of 4)" or "(rank 0 of 4)", for messages.
std::string describeSite(const Site &site);

// Evaluates an expression without tensor functions.
Value evaluate(const Node &node, const Site &site);
// Evaluates a Scalar-scope expression that must give an integer.
std::int64_t evaluateInteger(const Node &node, std::string_view source, Context context,
                             std::string_view what);
// Where the expression's text begins (a binary operation's offset is its operator's).
std::size_t startOf(const Node &node);
// Whether the value depends on the element: uses i, dK or random().
bool isElementWise(const Node &node);
// Whether it contains a tensor function.
bool hasTensorFunction(const Node &node);

// Arithmetic of the language; errors are thrown as ArithmeticError, which the evaluator turns
// into an ArgumentError with the source position.
struct ArithmeticError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
Value applyBinary(Op op, Value a, Value b);
Value applyNegate(Value a);

// splitmix64 of (seed, rank, i), mapped onto [-1, 1) in steps of 2^-23.
double randomValue(std::int64_t seed, std::int64_t rank, std::int64_t flat);

// A shape or a multi-index as the descriptions write it: "[4,8]".
std::string formatList(std::span<const std::int64_t> list);

// Calls visit(flat, index) for every element of shape in row-major order (once for {}).
template <class Visit>
void forEachElement(std::span<const std::int64_t> shape, Visit &&visit) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t flat = 0; flat < count; ++flat) {
    visit(flat, std::span<const std::int64_t>(index));
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace tdist::jit::detail
