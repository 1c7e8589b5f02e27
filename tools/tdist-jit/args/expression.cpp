// The parser of the argument language: a recursive descent over one description or check,
// which resolves every name as it reads it, so that a misplaced one is reported at its column.
#include "tools/tdist-jit/args/expression.h"

#include <cctype>
#include <charconv>

namespace tdist::jit::detail {

struct Parser::Rules {
  Scope scope;
  std::string_view what;  // "a dimension", "an initializer", ...
  int buffer_rank;        // Element scope: dK needs K < buffer_rank

  std::string allowed() const {
    switch (scope) {
      case Scope::Scalar:
        return "numbers, rank and npes";
      case Scope::Element: {
        std::string dims = buffer_rank == 0   ? ""
                           : buffer_rank == 1 ? "d0, "
                                              : "d0..d" + std::to_string(buffer_rank - 1) + ", ";
        return "numbers, rank, npes, i, " + dims + "zeros, ones, iota and random(SEED)";
      }
      case Scope::Reference:
        return "numbers, rank, npes, i, dK, zeros, ones, iota, random(SEED), arg(J), sum(X), "
               "gather(X), shard(X), at(X, R) and matmul(X, Y)";
    }
    return {};
  }
};

namespace {

bool isIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentifierChar(char c) {
  return isIdentifierStart(c) || std::isdigit(static_cast<unsigned char>(c));
}
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

Node makeNode(Op op, std::size_t offset, std::vector<Node> operands = {}) {
  Node node;
  node.op = op;
  node.offset = offset;
  node.operands = std::move(operands);
  return node;
}

Node makeNumber(Value value, std::size_t offset) {
  Node node = makeNode(Op::Number, offset);
  node.number = value;
  return node;
}

// A function: its operator, where it may appear, and the scope of each of its arguments.
struct Function {
  std::string_view name;
  Op op;
  Scope least_scope;
  std::vector<Scope> parameters;
  std::string_view usage;
};

const std::vector<Function> &functions() {
  static const std::vector<Function> table = {
      {"random", Op::Random, Scope::Element, {Scope::Scalar}, "random(SEED)"},
      {"arg", Op::Arg, Scope::Reference, {Scope::Scalar}, "arg(J)"},
      {"sum", Op::Sum, Scope::Reference, {Scope::Reference}, "sum(X)"},
      {"gather", Op::Gather, Scope::Reference, {Scope::Reference}, "gather(X)"},
      {"shard", Op::Shard, Scope::Reference, {Scope::Reference}, "shard(X)"},
      {"at", Op::At, Scope::Reference, {Scope::Reference, Scope::Scalar}, "at(X, R)"},
      {"matmul", Op::Matmul, Scope::Reference, {Scope::Reference, Scope::Reference},
       "matmul(X, Y)"},
  };
  return table;
}

const Function *findFunction(std::string_view name) {
  for (const Function &function : functions())
    if (function.name == name) return &function;
  return nullptr;
}

}  // namespace

void fail(std::string_view source, std::size_t offset, const std::string &message,
          const std::string &suffix) {
  std::string text = "\"" + std::string(source) + "\": " + message + " at column " +
                     std::to_string(offset + 1);
  if (!suffix.empty()) text += " " + suffix;
  throw ArgumentError(text);
}

void Parser::skipSpace() {
  while (pos_ < source_.size() && std::isspace(static_cast<unsigned char>(source_[pos_]))) ++pos_;
}

bool Parser::atEnd() {
  skipSpace();
  return pos_ == source_.size();
}

bool Parser::consume(char c) {
  skipSpace();
  if (pos_ < source_.size() && source_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool Parser::consume(std::string_view word) {
  skipSpace();
  if (source_.substr(pos_).starts_with(word)) {
    pos_ += word.size();
    return true;
  }
  return false;
}

void Parser::failHere(const std::string &message) { fail(source_, pos_, message); }

std::string Parser::describeNext() {
  skipSpace();
  return pos_ < source_.size() ? "'" + std::string(1, source_[pos_]) + "'" : "the end";
}

void Parser::expect(char c, std::string_view expected_what) {
  if (consume(c)) return;
  failHere("expected " + std::string(expected_what) + ", found " + describeNext());
}

std::string_view Parser::identifier() {
  skipSpace();
  std::size_t start = pos_;
  if (pos_ < source_.size() && isIdentifierStart(source_[pos_])) {
    while (pos_ < source_.size() && isIdentifierChar(source_[pos_])) ++pos_;
  }
  return source_.substr(start, pos_ - start);
}

bool Parser::digits(std::int64_t &value) {
  skipSpace();
  std::size_t start = pos_;
  while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
  if (start == pos_) return false;
  auto [stop, error] = std::from_chars(source_.data() + start, source_.data() + pos_, value);
  if (error != std::errc()) fail(source_, start, "the number is too large");
  return true;
}

Node Parser::parseExpression(Scope scope, std::string_view what, int buffer_rank) {
  return parseSum(Rules{scope, what, buffer_rank});
}

Node Parser::parseSum(const Rules &rules) {
  Node left = parseTerm(rules);
  while (true) {
    skipSpace();
    std::size_t at = pos_;
    Op op;
    if (consume('+')) op = Op::Add;
    else if (consume('-')) op = Op::Subtract;
    else return left;
    Node right = parseTerm(rules);
    left = makeNode(op, at, {std::move(left), std::move(right)});
  }
}

Node Parser::parseTerm(const Rules &rules) {
  Node left = parseUnary(rules);
  while (true) {
    skipSpace();
    std::size_t at = pos_;
    Op op;
    if (consume('*')) op = Op::Multiply;
    else if (consume('/')) op = Op::Divide;
    else if (consume('%')) op = Op::Remainder;
    else return left;
    Node right = parseUnary(rules);
    left = makeNode(op, at, {std::move(left), std::move(right)});
  }
}

Node Parser::parseUnary(const Rules &rules) {
  skipSpace();
  std::size_t at = pos_;
  if (consume('-')) return makeNode(Op::Negate, at, {parseUnary(rules)});
  if (consume('+')) return parseUnary(rules);
  return parsePrimary(rules);
}

Node Parser::parsePrimary(const Rules &rules) {
  skipSpace();
  std::size_t start = pos_;
  if (consume('(')) {
    Node inner = parseSum(rules);
    expect(')', "')'");
    return inner;
  }
  if (pos_ < source_.size() &&
      (isDigit(source_[pos_]) ||
       (source_[pos_] == '.' && pos_ + 1 < source_.size() && isDigit(source_[pos_ + 1]))))
    return parseNumber();
  std::string_view name = identifier();
  if (name.empty()) failHere("expected a number, a variable or '(', found " + describeNext());
  if (consume('(')) return parseCall(rules, name, start);
  return parseName(rules, name, start);
}

Node Parser::parseNumber() {
  std::size_t start = pos_;
  bool real = false;
  while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
  if (pos_ < source_.size() && source_[pos_] == '.') {
    real = true;
    ++pos_;
    while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
  }
  if (pos_ < source_.size() && (source_[pos_] == 'e' || source_[pos_] == 'E')) {
    std::size_t exponent = pos_ + 1;
    if (exponent < source_.size() && (source_[exponent] == '+' || source_[exponent] == '-'))
      ++exponent;
    if (exponent < source_.size() && isDigit(source_[exponent])) {
      real = true;
      pos_ = exponent;
      while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
    }
  }
  const char *first = source_.data() + start;
  const char *last = source_.data() + pos_;
  std::string text(first, last);
  if (real) {
    double value = 0;
    auto [stop, error] = std::from_chars(first, last, value);
    if (error != std::errc() || stop != last)
      fail(source_, start, "the number " + text + " is out of range of a double");
    return makeNumber(Value::ofReal(value), start);
  }
  std::int64_t value = 0;
  auto [stop, error] = std::from_chars(first, last, value);
  if (error != std::errc() || stop != last)
    fail(source_, start, "the integer " + text + " does not fit int64");
  return makeNumber(Value::ofInteger(value), start);
}

Node Parser::parseName(const Rules &rules, std::string_view name, std::size_t start) {
  std::string quoted = "'" + std::string(name) + "'";
  if (name == "rank") return makeNode(Op::Rank, start);
  if (name == "npes") return makeNode(Op::Npes, start);
  bool element_name = name == "i" || name == "iota" || name == "zeros" || name == "ones" ||
                      (name.size() > 1 && name[0] == 'd' &&
                       name.find_first_not_of("0123456789", 1) == std::string_view::npos);
  if (element_name) {
    if (rules.scope == Scope::Scalar)
      fail(source_, start, quoted + " cannot appear in " + std::string(rules.what) +
                               ", which may use " + rules.allowed());
    if (name == "i" || name == "iota") return makeNode(Op::Flat, start);
    if (name == "zeros") return makeNumber(Value::ofInteger(0), start);
    if (name == "ones") return makeNumber(Value::ofInteger(1), start);
    std::int64_t dim = 0;
    auto [stop, error] = std::from_chars(name.data() + 1, name.data() + name.size(), dim);
    bool beyond = error != std::errc() ||
                  (rules.scope == Scope::Element && dim >= rules.buffer_rank);
    if (beyond)
      fail(source_, start, quoted + " is beyond the buffer's " +
                               std::to_string(rules.buffer_rank) + " dimensions; " +
                               std::string(rules.what) + " may use " + rules.allowed());
    Node node = makeNode(Op::Dim, start);
    node.dim = dim;
    return node;
  }
  if (const Function *function = findFunction(name))
    fail(source_, start, quoted + " is a function: " + std::string(function->usage));
  fail(source_, start, "unknown name " + quoted + "; " + std::string(rules.what) + " may use " +
                           rules.allowed());
}

Node Parser::parseCall(const Rules &rules, std::string_view name, std::size_t start) {
  std::string quoted = "'" + std::string(name) + "'";
  const Function *function = findFunction(name);
  if (function == nullptr) {
    if (name == "rank" || name == "npes" || name == "i")
      fail(source_, start, quoted + " is not a function");
    fail(source_, start, "unknown function " + quoted + "; " + std::string(rules.what) +
                             " may use " + rules.allowed());
  }
  if (rules.scope < function->least_scope)
    fail(source_, start, quoted + " cannot appear in " + std::string(rules.what) +
                             ", which may use " + rules.allowed());
  std::string arity = std::string(function->name) + " takes " +
                      std::to_string(function->parameters.size()) +
                      (function->parameters.size() == 1 ? " argument: " : " arguments: ") +
                      std::string(function->usage);
  std::string what = "an argument of " + std::string(function->usage);
  std::vector<Node> operands;
  for (std::size_t k = 0; k < function->parameters.size(); ++k) {
    if (k > 0 && !consume(',')) {
      skipSpace();
      failHere(arity);
    }
    skipSpace();
    if (pos_ < source_.size() && source_[pos_] == ')') failHere(arity);
    operands.push_back(parseSum(Rules{function->parameters[k], what, rules.buffer_rank}));
  }
  skipSpace();
  if (pos_ < source_.size() && source_[pos_] == ',') failHere(arity);
  expect(')', "')'");
  return makeNode(function->op, start, std::move(operands));
}

}  // namespace tdist::jit::detail
