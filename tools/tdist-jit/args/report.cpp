// Checking a buffer against its reference, and printing a buffer.
#include <algorithm>
#include <cmath>
#include <string>

#include "tools/tdist-jit/args/element.h"
#include "tools/tdist-jit/args/expression.h"

namespace tdist::jit {
namespace {

constexpr std::size_t kListedMismatches = 8;
constexpr std::size_t kEdgeItems = 3;    // items shown at each end of a summarized dimension
constexpr std::size_t kLineWidth = 80;

std::vector<std::int64_t> unflatten(std::size_t flat, const std::vector<std::int64_t> &shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = static_cast<std::int64_t>(flat % shape[d]);
    flat /= shape[d];
  }
  return index;
}

// For an integer buffer: equal as numbers, without rounding either side.
bool exactlyEqual(Value actual, Value expected) {
  if (actual.isInteger() && expected.isInteger()) return actual.integer() == expected.integer();
  if (actual.isInteger()) {
    double e = expected.real();
    return e == std::trunc(e) && e >= -0x1p63 && e < 0x1p63 &&
           static_cast<std::int64_t>(e) == actual.integer();
  }
  return actual.real() == expected.real();  // a ui64 beyond int64
}

std::string number(double v) { return Value::ofReal(v).toString(); }

// An expected value of an f32 buffer that a float holds prints as that float: 0.1, not the
// double 0.10000000149011612 of arg(J).
std::string formatExpected(DType dtype, Value expected) {
  if (dtype == DType::F32 && !expected.isInteger() &&
      static_cast<double>(static_cast<float>(expected.real())) == expected.real()) {
    float element = static_cast<float>(expected.real());
    return detail::formatElement(DType::F32, &element, 0);
  }
  return expected.toString();
}

// Prints as numpy's repr does: nested brackets, one innermost row per line, a blank line
// between blocks of 3-D and beyond, and "..." for the middle of summarized dimensions.
class BufferPrinter {
 public:
  BufferPrinter(const ResolvedArgument &argument, const void *data, std::size_t limit)
      : argument_(argument), data_(data), summarize_(argument.elements() > limit),
        strides_(argument.shape.size(), 1) {
    for (std::size_t d = strides_.size(); d-- > 1;)
      strides_[d - 1] = strides_[d] * static_cast<std::size_t>(argument.shape[d]);
  }

  std::string print() {
    std::string out =
        std::string(dtypeName(argument_.dtype)) + detail::formatList(argument_.shape) + "\n";
    if (argument_.shape.empty()) return out + element(0);
    measure(0, 0);
    render(0, 0, out);
    return out;
  }

 private:
  static constexpr std::size_t kElided = static_cast<std::size_t>(-1);

  std::vector<std::size_t> shown(std::size_t dim) const {
    std::size_t n = static_cast<std::size_t>(argument_.shape[dim]);
    std::vector<std::size_t> items;
    bool elide = summarize_ && n > 2 * kEdgeItems;
    for (std::size_t k = 0; k < n; ++k) {
      if (elide && k == kEdgeItems) {
        items.push_back(kElided);
        k = n - kEdgeItems;
      }
      items.push_back(k);
    }
    return items;
  }

  std::string element(std::size_t flat) const {
    return detail::formatElement(argument_.dtype, data_, flat);
  }

  void measure(std::size_t dim, std::size_t offset) {
    for (std::size_t k : shown(dim)) {
      if (k == kElided) continue;
      if (dim + 1 == strides_.size()) width_ = std::max(width_, element(offset + k).size());
      else measure(dim + 1, offset + k * strides_[dim]);
    }
  }

  void render(std::size_t dim, std::size_t offset, std::string &out) const {
    out += '[';
    bool innermost = dim + 1 == strides_.size();
    std::vector<std::size_t> items = shown(dim);
    for (std::size_t n = 0; n < items.size(); ++n) {
      std::string text;
      if (innermost) {
        text = items[n] == kElided ? "..." : element(offset + items[n]);
        text.insert(0, width_ - std::min(width_, text.size()), ' ');
      }
      if (n > 0) {
        out += ',';
        if (innermost) {
          std::size_t line = out.size() - (out.rfind('\n') + 1);
          if (line + 1 + text.size() + 1 > kLineWidth) out += "\n" + std::string(dim + 1, ' ');
          else out += ' ';
        } else {
          out += std::string(strides_.size() - dim - 1, '\n') + std::string(dim + 1, ' ');
        }
      }
      if (innermost) out += text;
      else if (items[n] == kElided) out += "...";
      else render(dim + 1, offset + items[n] * strides_[dim], out);
    }
    out += ']';
  }

  const ResolvedArgument &argument_;
  const void *data_;
  bool summarize_;
  std::vector<std::size_t> strides_;
  std::size_t width_ = 0;
};

}  // namespace

Tolerance Tolerance::defaultFor(DType dtype) {
  switch (dtype) {
    case DType::F32: return Tolerance{.rtol = 1e-4, .atol = 1e-4};
    case DType::F64: return Tolerance{.rtol = 1e-10, .atol = 1e-12};
    default: return Tolerance{};
  }
}

CheckReport compare(const ResolvedArgument &argument, const void *actual, const Tensor &expected,
                    Tolerance tolerance) {
  CheckReport report;
  report.elements = argument.elements();
  if (expected.values.size() != report.elements)
    throw ArgumentError("compare: " + std::to_string(expected.values.size()) +
                        " expected values for a buffer of " + std::to_string(report.elements) +
                        " elements");
  const bool floating = isFloat(argument.dtype);
  double largest = 0;  // |actual - expected|, NaN once one is NaN
  std::size_t largest_at = 0;
  std::string listed;
  for (std::size_t flat = 0; flat < report.elements; ++flat) {
    Value a = detail::loadElement(argument.dtype, actual, flat);
    Value e = expected.values[flat];
    bool match;
    if (floating) {
      double difference = std::fabs(a.real() - e.real());
      match = difference <= tolerance.atol + tolerance.rtol * std::fabs(e.real());
      if (!std::isnan(largest) && (std::isnan(difference) || difference > largest)) {
        largest = difference;
        largest_at = flat;
      }
    } else {
      match = exactlyEqual(a, e);
    }
    if (match) continue;
    if (++report.mismatches <= kListedMismatches)
      listed += "\n  " + detail::formatList(unflatten(flat, argument.shape)) + ": actual " +
                detail::formatElement(argument.dtype, actual, flat) + ", expected " +
                formatExpected(argument.dtype, e);
  }
  std::string how =
      std::string(dtypeName(argument.dtype)) +
      (floating ? ", rtol " + number(tolerance.rtol) + ", atol " + number(tolerance.atol)
                : ", exact");
  if (floating && report.elements > 0)
    how += "; largest |actual - expected| " + number(largest) + " at " +
           detail::formatList(unflatten(largest_at, argument.shape));
  if (report.ok()) {
    report.details = "all " + std::to_string(report.elements) + " elements match (" + how + ")";
  } else {
    report.details = std::to_string(report.mismatches) + " of " + std::to_string(report.elements) +
                     " elements differ (" + how + ")";
    if (report.mismatches > kListedMismatches)
      report.details += "; the first " + std::to_string(kListedMismatches);
    report.details += ":" + listed;
  }
  return report;
}

std::string formatBuffer(const ResolvedArgument &argument, const void *data, std::size_t limit) {
  if (!argument.buffer) {
    Value value = isFloat(argument.dtype) ? Value::ofReal(argument.float_value)
                                          : Value::ofInteger(argument.int_value);
    alignas(8) std::byte element[8];
    detail::storeElement(argument.dtype, element, 0, value);
    return std::string(dtypeName(argument.dtype)) + "=" +
           detail::formatElement(argument.dtype, element, 0);
  }
  return BufferPrinter(argument, data, limit).print();
}

}  // namespace tdist::jit
