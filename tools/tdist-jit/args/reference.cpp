// References: parsing "K=REF" and computing the values a checked buffer must hold. Every
// rank's contribution is recomputed from the descriptions, so no PE needs another's memory.
#include <algorithm>
#include <string>

#include "tools/tdist-jit/args/expression.h"
#include "tools/tdist-jit/args/initial_values.h"

namespace tdist::jit {
namespace {

using detail::ArithmeticError;
using detail::fail;
using detail::formatList;
using detail::Node;
using detail::Op;
using detail::Site;

using Shape = std::vector<std::int64_t>;

class ReferenceEvaluator {
 public:
  ReferenceEvaluator(const Check &check, std::span<const ArgumentSpec> arguments, int npes)
      : source_(check.text), arguments_(arguments), npes_(npes) {}

  // shape: what an element-wise expression here takes, when known.
  Tensor evaluate(const Node &node, int rank, const Shape *shape) {
    if (!detail::hasTensorFunction(node)) return elementWise(node, rank, shape);
    switch (node.op) {
      case Op::Arg: return arg(node, rank);
      case Op::Sum: return sum(node, rank, shape);
      case Op::Gather: return gather(node, rank, shape);
      case Op::Shard: return shard(node, rank, shape);
      case Op::At: return at(node, rank, shape);
      case Op::Matmul: return matmul(node, rank);
      case Op::Negate: {
        Tensor t = evaluate(node.operands[0], rank, shape);
        for (Value &v : t.values) v = guarded(node, rank, [&] { return detail::applyNegate(v); });
        return t;
      }
      default: return binary(node, rank, shape);
    }
  }

 private:
  Context context(int rank) const { return Context{.rank = rank, .npes = npes_}; }

  std::string where(int rank) const {
    return detail::describeSite(Site::scalar(source_, context(rank)));
  }

  template <class Operation>
  Value guarded(const Node &node, int rank, Operation &&operation) {
    try {
      return operation();
    } catch (const ArithmeticError &e) {
      fail(source_, node.offset, e.what(), where(rank));
    }
  }

  Tensor elementWise(const Node &node, int rank, const Shape *shape) {
    if (!detail::isElementWise(node)) {
      Site site = Site::scalar(source_, context(rank));
      return Tensor{.shape = {}, .values = {detail::evaluate(node, site)}};
    }
    if (shape == nullptr)
      fail(source_, detail::startOf(node),
           "an expression of i, dK or random() has no shape here; it takes one from the checked "
           "argument, the other operand, or X of sum, at, gather (a 1/npes slice) or shard (npes "
           "times as many rows)");
    Tensor t{.shape = *shape, .values = {}};
    detail::forEachElement(*shape, [&](std::int64_t flat, std::span<const std::int64_t> index) {
      Site site = Site::at(source_, context(rank), flat, index);
      t.values.push_back(detail::evaluate(node, site));
    });
    return t;
  }

  Tensor arg(const Node &node, int rank) {
    std::int64_t j =
        detail::evaluateInteger(node.operands[0], source_, context(rank), "the J of arg(J)");
    if (j < 0 || j >= static_cast<std::int64_t>(arguments_.size()))
      fail(source_, node.operands[0].offset,
           "arg(" + std::to_string(j) + ") names no argument; there are " +
               std::to_string(arguments_.size()));
    const ArgumentSpec &spec = arguments_[j];
    ResolvedArgument argument = resolve(spec, context(rank));
    return Tensor{.shape = argument.shape,
                  .values = detail::initialValues(spec, argument, context(rank))};
  }

  Tensor sum(const Node &node, int rank, const Shape *shape) {
    Tensor total = evaluate(node.operands[0], 0, shape);
    for (int r = 1; r < npes_; ++r) {
      Tensor next = evaluate(node.operands[0], r, shape);
      if (next.shape != total.shape)
        fail(source_, node.offset,
             "sum(X): X has shape " + formatList(total.shape) + " on rank 0 but " +
                 formatList(next.shape) + " on rank " + std::to_string(r));
      for (std::size_t k = 0; k < total.values.size(); ++k)
        total.values[k] = guarded(node, r, [&] {
          return detail::applyBinary(Op::Add, total.values[k], next.values[k]);
        });
    }
    return total;
  }

  Tensor gather(const Node &node, int rank, const Shape *shape) {
    Shape slice;
    const Shape *slice_shape = nullptr;
    if (shape != nullptr && !shape->empty() && (*shape)[0] % npes_ == 0) {
      slice = *shape;
      slice[0] /= npes_;
      slice_shape = &slice;
    }
    Tensor whole;
    for (int r = 0; r < npes_; ++r) {
      Tensor part = evaluate(node.operands[0], r, slice_shape);
      if (part.shape.empty())
        fail(source_, node.offset, "gather(X) needs X with at least one dimension; X is a scalar");
      if (r == 0) {
        whole.shape = part.shape;
        whole.shape[0] = 0;
      } else if (!std::equal(part.shape.begin() + 1, part.shape.end(), whole.shape.begin() + 1,
                             whole.shape.end())) {
        fail(source_, node.offset,
             "gather(X): X has shape " + formatList(part.shape) + " on rank " +
                 std::to_string(r) + ", which differs from rank 0's beyond dimension 0",
             where(r));
      }
      whole.shape[0] += part.shape[0];
      whole.values.insert(whole.values.end(), part.values.begin(), part.values.end());
    }
    return whole;
  }

  // The context rank's share of X: dimension 0 cut into npes equal parts (ReduceScatter's output
  // is shard(sum(...))).
  Tensor shard(const Node &node, int rank, const Shape *shape) {
    Shape whole_shape;
    const Shape *whole_hint = nullptr;
    if (shape != nullptr && !shape->empty()) {
      whole_shape = *shape;
      whole_shape[0] *= npes_;
      whole_hint = &whole_shape;
    }
    Tensor whole = evaluate(node.operands[0], rank, whole_hint);
    if (whole.shape.empty())
      fail(source_, node.offset, "shard(X) needs X with at least one dimension; X is a scalar");
    if (whole.shape[0] % npes_ != 0)
      fail(source_, node.offset,
           "shard(X): dimension 0 of X, " + std::to_string(whole.shape[0]) +
               ", is not a multiple of npes = " + std::to_string(npes_),
           where(rank));
    const std::int64_t rows = whole.shape[0] / npes_;
    const std::size_t row_size = whole.values.size() / static_cast<std::size_t>(whole.shape[0]);
    Tensor part{.shape = whole.shape, .values = {}};
    part.shape[0] = rows;
    auto first = whole.values.begin() + static_cast<std::ptrdiff_t>(rank * rows * row_size);
    part.values.assign(first, first + static_cast<std::ptrdiff_t>(rows * row_size));
    return part;
  }

  Tensor at(const Node &node, int rank, const Shape *shape) {
    const Node &r = node.operands[1];
    std::int64_t target =
        detail::evaluateInteger(r, source_, context(rank), "the R of at(X, R)");
    if (target < 0 || target >= npes_)
      fail(source_, r.offset,
           "at(X, R): rank " + std::to_string(target) + " is not in 0.." +
               std::to_string(npes_ - 1),
           where(rank));
    return evaluate(node.operands[0], static_cast<int>(target), shape);
  }

  Tensor matmul(const Node &node, int rank) {
    Tensor x = evaluate(node.operands[0], rank, nullptr);
    Tensor y = evaluate(node.operands[1], rank, nullptr);
    if (x.shape.size() != 2 || y.shape.size() != 2 || x.shape[1] != y.shape[0])
      fail(source_, node.offset,
           "matmul(X, Y) needs X of shape [m,k] and Y of shape [k,n]; got " +
               formatList(x.shape) + " and " + formatList(y.shape),
           where(rank));
    const std::size_t m = x.shape[0], k = x.shape[1], n = y.shape[1];
    Tensor product{.shape = {x.shape[0], y.shape[1]}, .values = {}};
    auto integers = [](const Tensor &t) {
      return std::all_of(t.values.begin(), t.values.end(), [](Value v) { return v.isInteger(); });
    };
    if (integers(x) && integers(y)) {
      std::vector<std::int64_t> c(m * n, 0);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t p = 0; p < k; ++p)
          for (std::size_t j = 0; j < n; ++j) {
            std::int64_t &acc = c[i * n + j];
            std::int64_t term = 0;
            if (__builtin_mul_overflow(x.values[i * k + p].integer(), y.values[p * n + j].integer(),
                                       &term) ||
                __builtin_add_overflow(acc, term, &acc))
              fail(source_, node.offset, "integer overflow in matmul(X, Y) at " +
                                             formatList(Shape{std::int64_t(i), std::int64_t(j)}),
                   where(rank));
          }
      for (std::int64_t v : c) product.values.push_back(Value::ofInteger(v));
    } else {
      std::vector<double> c(m * n, 0.0);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t p = 0; p < k; ++p) {
          double a = x.values[i * k + p].real();
          for (std::size_t j = 0; j < n; ++j) c[i * n + j] += a * y.values[p * n + j].real();
        }
      for (double v : c) product.values.push_back(Value::ofReal(v));
    }
    return product;
  }

  // The operand with a tensor function goes first; the other takes its shape.
  Tensor binary(const Node &node, int rank, const Shape *shape) {
    const Node &left = node.operands[0];
    const Node &right = node.operands[1];
    Tensor a, b;
    if (detail::hasTensorFunction(left)) {
      a = evaluate(left, rank, shape);
      b = evaluate(right, rank, a.shape.empty() ? shape : &a.shape);
    } else {
      b = evaluate(right, rank, shape);
      a = evaluate(left, rank, b.shape.empty() ? shape : &b.shape);
    }
    if (!a.shape.empty() && !b.shape.empty() && a.shape != b.shape)
      fail(source_, node.offset,
           "the operands have shapes " + formatList(a.shape) + " and " + formatList(b.shape) +
               "; they must be equal, or one a scalar",
           where(rank));
    Tensor result{.shape = a.shape.empty() ? b.shape : a.shape, .values = {}};
    std::size_t count = std::max(a.values.size(), b.values.size());
    result.values.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
      Value u = a.values[a.shape.empty() ? 0 : k];
      Value v = b.values[b.shape.empty() ? 0 : k];
      result.values.push_back(
          guarded(node, rank, [&] { return detail::applyBinary(node.op, u, v); }));
    }
    return result;
  }

  std::string_view source_;
  std::span<const ArgumentSpec> arguments_;
  int npes_;
};

}  // namespace

Check parseCheck(std::string_view text) {
  Check check;
  check.text = std::string(text);
  detail::Parser parser(check.text);
  std::int64_t index = 0;
  if (!parser.digits(index))
    parser.failHere("expected the index of the checked argument, as in 0=sum(arg(0))");
  if (index > 1'000'000)
    fail(check.text, 0, "argument index " + std::to_string(index) + " is too large");
  check.argument = static_cast<int>(index);
  parser.expect('=', "'=' after the argument index");
  std::size_t start = parser.position();
  Node reference;
  if (parser.consume(std::string_view("random:"))) {
    reference.op = Op::Random;
    reference.offset = start;
    reference.operands.push_back(
        parser.parseExpression(detail::Scope::Scalar, "the seed of random:"));
  } else {
    reference = parser.parseExpression(detail::Scope::Reference, "a reference");
  }
  if (!parser.atEnd())
    parser.failHere("unexpected " + parser.describeNext() + " after the reference");
  check.reference = std::make_shared<const Node>(std::move(reference));
  return check;
}

Tensor expectedValues(const Check &check, std::span<const ArgumentSpec> arguments,
                      Context context) {
  std::string where = detail::describeSite(Site::scalar(check.text, context));
  if (check.argument >= static_cast<int>(arguments.size()))
    fail(check.text, 0, "argument " + std::to_string(check.argument) +
                            " does not exist; there are " + std::to_string(arguments.size()));
  const ArgumentSpec &spec = arguments[check.argument];
  if (!spec.buffer)
    fail(check.text, 0, "argument " + std::to_string(check.argument) + " (" + spec.text +
                            ") is a scalar; only buffers can be checked");
  ResolvedArgument target = resolve(spec, context);
  ReferenceEvaluator evaluator(check, arguments, context.npes);
  const Node &root = *check.reference;
  Tensor expected = evaluator.evaluate(root, context.rank, &target.shape);
  if (expected.shape.empty()) {
    expected.values.assign(target.elements(), expected.values.front());
    expected.shape = target.shape;
  }
  if (expected.shape != target.shape)
    fail(check.text, detail::startOf(root),
         "the reference has shape " + formatList(expected.shape) + ", but argument " +
             std::to_string(check.argument) + " (" + spec.text + ") has shape " +
             formatList(target.shape),
         where);
  return expected;
}

}  // namespace tdist::jit
