// Arithmetic and element-wise evaluation of the argument language.
#include <charconv>
#include <cmath>
#include <limits>

#include "tools/tdist-jit/args/expression.h"

namespace tdist::jit {

std::string Value::toString() const {
  if (integer_) return std::to_string(int_);
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, real_);
  return std::string(text, end);
}

namespace detail {
namespace {

char symbol(Op op) {
  switch (op) {
    case Op::Add: return '+';
    case Op::Subtract: return '-';
    case Op::Multiply: return '*';
    case Op::Divide: return '/';
    case Op::Remainder: return '%';
    default: return '?';
  }
}

std::string describe(Op op, Value a, Value b) {
  return a.toString() + " " + symbol(op) + " " + b.toString();
}

Value integerArithmetic(Op op, std::int64_t a, std::int64_t b) {
  std::int64_t result = 0;
  bool overflow = false;
  switch (op) {
    case Op::Add: overflow = __builtin_add_overflow(a, b, &result); break;
    case Op::Subtract: overflow = __builtin_sub_overflow(a, b, &result); break;
    case Op::Multiply: overflow = __builtin_mul_overflow(a, b, &result); break;
    case Op::Divide:
    case Op::Remainder:
      if (b == 0) throw ArithmeticError("division by zero");
      // INT64_MIN / -1 overflows; C leaves INT64_MIN % -1 undefined, though it is 0.
      if (b == -1) {
        overflow = op == Op::Divide && a == std::numeric_limits<std::int64_t>::min();
        result = op == Op::Divide && !overflow ? -a : 0;
      } else {
        result = op == Op::Divide ? a / b : a % b;
      }
      break;
    default: break;
  }
  if (overflow)
    throw ArithmeticError("integer overflow: " +
                          describe(op, Value::ofInteger(a), Value::ofInteger(b)) +
                          " does not fit int64");
  return Value::ofInteger(result);
}

Value realArithmetic(Op op, double a, double b) {
  double result = 0;
  switch (op) {
    case Op::Add: result = a + b; break;
    case Op::Subtract: result = a - b; break;
    case Op::Multiply: result = a * b; break;
    case Op::Divide:
    case Op::Remainder:
      if (b == 0) throw ArithmeticError("division by zero");
      result = op == Op::Divide ? a / b : std::fmod(a, b);
      break;
    default: break;
  }
  if (!std::isfinite(result))
    throw ArithmeticError(describe(op, Value::ofReal(a), Value::ofReal(b)) + " is not finite");
  return Value::ofReal(result);
}

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

}  // namespace

std::string describeSite(const Site &site) {
  std::string rank = "rank " + std::to_string(site.context.rank) + " of " +
                     std::to_string(site.context.npes);
  if (!site.element) return "(" + rank + ")";
  return "(element " + formatList(site.index) + ", " + rank + ")";
}

Value applyBinary(Op op, Value a, Value b) {
  if (a.isInteger() && b.isInteger()) return integerArithmetic(op, a.integer(), b.integer());
  return realArithmetic(op, a.real(), b.real());
}

Value applyNegate(Value a) {
  if (!a.isInteger()) return Value::ofReal(-a.real());
  if (a.integer() == std::numeric_limits<std::int64_t>::min())
    throw ArithmeticError("integer overflow: -(" + a.toString() + ") does not fit int64");
  return Value::ofInteger(-a.integer());
}

double randomValue(std::int64_t seed, std::int64_t rank, std::int64_t flat) {
  std::uint64_t h = splitmix64(static_cast<std::uint64_t>(seed));
  h = splitmix64(h ^ static_cast<std::uint64_t>(rank));
  h = splitmix64(h ^ static_cast<std::uint64_t>(flat));
  return static_cast<double>(h >> 40) * 0x1p-23 - 1.0;
}

Value evaluate(const Node &node, const Site &site) {
  switch (node.op) {
    case Op::Number:
      return node.number;
    case Op::Rank:
      return Value::ofInteger(site.context.rank);
    case Op::Npes:
      return Value::ofInteger(site.context.npes);
    case Op::Flat:
      return Value::ofInteger(site.flat);
    case Op::Dim:
      if (node.dim >= static_cast<std::int64_t>(site.index.size()))
        fail(site.source, node.offset, "'d" + std::to_string(node.dim) + "' is beyond the " +
                                           std::to_string(site.index.size()) +
                                           " dimensions of this expression's shape");
      return Value::ofInteger(site.index[node.dim]);
    case Op::Random: {
      Value seed = evaluate(node.operands[0], site);
      if (!seed.isInteger())
        fail(site.source, node.operands[0].offset,
             "the seed of random() must be an integer, got " + seed.toString());
      return Value::ofReal(randomValue(seed.integer(), site.context.rank, site.flat));
    }
    case Op::Negate:
      try {
        return applyNegate(evaluate(node.operands[0], site));
      } catch (const ArithmeticError &e) {
        fail(site.source, node.offset, e.what(), describeSite(site));
      }
    case Op::Add:
    case Op::Subtract:
    case Op::Multiply:
    case Op::Divide:
    case Op::Remainder: {
      Value a = evaluate(node.operands[0], site);
      Value b = evaluate(node.operands[1], site);
      try {
        return applyBinary(node.op, a, b);
      } catch (const ArithmeticError &e) {
        fail(site.source, node.offset, e.what(), describeSite(site));
      }
    }
    default:
      fail(site.source, node.offset, "a tensor function cannot be evaluated element by element");
  }
}

std::int64_t evaluateInteger(const Node &node, std::string_view source, Context context,
                             std::string_view what) {
  Value value = evaluate(node, Site::scalar(source, context));
  if (!value.isInteger())
    fail(source, node.offset,
         std::string(what) + " must be an integer, got the real " + value.toString());
  return value.integer();
}

std::size_t startOf(const Node &node) {
  switch (node.op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Remainder:
      return startOf(node.operands[0]);
    default:
      return node.offset;
  }
}

bool isElementWise(const Node &node) {
  if (node.op == Op::Flat || node.op == Op::Dim || node.op == Op::Random) return true;
  for (const Node &operand : node.operands)
    if (isElementWise(operand)) return true;
  return false;
}

bool hasTensorFunction(const Node &node) {
  switch (node.op) {
    case Op::Arg: case Op::Sum: case Op::Gather: case Op::Shard: case Op::At: case Op::Matmul:
      return true;
    default:
      break;
  }
  for (const Node &operand : node.operands)
    if (hasTensorFunction(operand)) return true;
  return false;
}

std::string formatList(std::span<const std::int64_t> list) {
  std::string text = "[";
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (k > 0) text += ",";
    text += std::to_string(list[k]);
  }
  return text + "]";
}

}  // namespace detail
}  // namespace tdist::jit
