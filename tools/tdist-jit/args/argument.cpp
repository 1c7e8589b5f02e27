// Argument descriptions: parsing, resolving on a PE, and the initial contents.
#include <string>

#include "tools/tdist-jit/args/element.h"
#include "tools/tdist-jit/args/expression.h"
#include "tools/tdist-jit/args/initial_values.h"

namespace tdist::jit {
namespace {

using detail::fail;
using detail::Node;
using detail::Op;
using detail::Scope;
using detail::Site;

std::string supportedDTypes() {
  return "i8 i16 i32 i64 ui8 ui16 ui32 ui64 index f32 f64";
}

Expression share(Node node) { return std::make_shared<const Node>(std::move(node)); }

// The initializer after '=': 'random:SEED' or an element-wise expression.
Node parseInitializer(detail::Parser &parser, int buffer_rank) {
  std::size_t start = parser.position();
  if (parser.consume(std::string_view("random:"))) {
    Node random;
    random.op = Op::Random;
    random.offset = start;
    random.operands.push_back(parser.parseExpression(Scope::Scalar, "the seed of random:"));
    return random;
  }
  return parser.parseExpression(Scope::Element, "an initializer", buffer_rank);
}

Value convertOrFail(const ArgumentSpec &spec, const Site &site, Value value) {
  try {
    return detail::convertTo(spec.dtype, value);
  } catch (const detail::ArithmeticError &e) {
    fail(spec.text, detail::startOf(*spec.value), e.what(), describeSite(site));
  }
}

// Calls visit(flat, value) with every initial value, converted to the dtype.
template <class Visit>
void visitInitialValues(const ArgumentSpec &spec, const ResolvedArgument &argument,
                        Context context, Visit &&visit) {
  const Node &init = *spec.value;
  if (!argument.buffer || !detail::isElementWise(init)) {
    // One value for all: evaluated once, so that zeros fills a large buffer quickly.
    Site site = Site::scalar(spec.text, context);
    Value value = convertOrFail(spec, site, detail::evaluate(init, site));
    for (std::size_t flat = 0; flat < argument.elements(); ++flat) visit(flat, value);
    return;
  }
  detail::forEachElement(argument.shape, [&](std::int64_t flat,
                                             std::span<const std::int64_t> index) {
    Site site = Site::at(spec.text, context, flat, index);
    visit(static_cast<std::size_t>(flat), convertOrFail(spec, site, detail::evaluate(init, site)));
  });
}

}  // namespace

ArgumentSpec parseArgument(std::string_view text) {
  ArgumentSpec spec;
  spec.text = std::string(text);
  detail::Parser parser(spec.text);
  std::size_t start = parser.position();
  std::string_view name = parser.identifier();
  if (name.empty())
    parser.failHere("expected a dtype (" + supportedDTypes() + ")");
  std::optional<DType> dtype = dtypeFromName(name);
  if (!dtype)
    fail(spec.text, start, "unknown dtype '" + std::string(name) + "'; supported: " +
                               supportedDTypes());
  spec.dtype = *dtype;
  if (parser.consume('[')) {
    spec.buffer = true;
    if (!parser.consume(']')) {
      do {
        spec.dims.push_back(share(parser.parseExpression(Scope::Scalar, "a dimension")));
      } while (parser.consume(','));
      parser.expect(']', "',' or ']'");
    }
    if (parser.consume('=')) {
      spec.value = share(parseInitializer(parser, static_cast<int>(spec.dims.size())));
    } else {
      Node zeros;
      zeros.offset = parser.position();
      zeros.number = Value::ofInteger(0);
      spec.value = share(std::move(zeros));
    }
  } else if (parser.consume('=')) {
    spec.value = share(parser.parseExpression(Scope::Scalar, "a scalar value"));
  } else {
    parser.expect('[', "'[' and the dimensions of a buffer, or '=' and a scalar's value");
  }
  if (!parser.atEnd())
    parser.failHere("unexpected " + parser.describeNext() + " after the description");
  return spec;
}

std::size_t ResolvedArgument::elements() const {
  std::size_t count = 1;
  for (std::int64_t extent : shape) count *= static_cast<std::size_t>(extent);
  return count;
}

std::size_t ResolvedArgument::bytes() const { return elements() * dtypeSize(dtype); }

ResolvedArgument resolve(const ArgumentSpec &spec, Context context) {
  ResolvedArgument argument;
  argument.dtype = spec.dtype;
  argument.buffer = spec.buffer;
  Site site = Site::scalar(spec.text, context);
  if (!spec.buffer) {
    Value value = convertOrFail(spec, site, detail::evaluate(*spec.value, site));
    if (isFloat(spec.dtype)) argument.float_value = value.real();
    else argument.int_value = value.integer();
    return argument;
  }
  std::size_t bytes = dtypeSize(spec.dtype);
  for (std::size_t k = 0; k < spec.dims.size(); ++k) {
    const Node &dim = *spec.dims[k];
    std::int64_t extent = detail::evaluateInteger(dim, spec.text, context, "a dimension");
    if (extent < 1)
      fail(spec.text, dim.offset,
           "dimension " + std::to_string(k) + " is " + std::to_string(extent) +
               ", and must be at least 1",
           describeSite(site));
    if (__builtin_mul_overflow(bytes, static_cast<std::size_t>(extent), &bytes) ||
        bytes > (std::size_t{1} << 48))
      fail(spec.text, dim.offset, "the buffer is larger than 2^48 bytes", describeSite(site));
    argument.shape.push_back(extent);
  }
  return argument;
}

void fillInitial(const ArgumentSpec &spec, const ResolvedArgument &argument, Context context,
                 void *data) {
  visitInitialValues(spec, argument, context, [&](std::size_t flat, Value value) {
    detail::storeElement(argument.dtype, data, flat, value);
  });
}

namespace detail {

std::vector<Value> initialValues(const ArgumentSpec &spec, const ResolvedArgument &argument,
                                 Context context) {
  std::vector<Value> values(argument.elements());
  visitInitialValues(spec, argument, context,
                     [&](std::size_t flat, Value value) { values[flat] = value; });
  return values;
}

}  // namespace detail
}  // namespace tdist::jit
