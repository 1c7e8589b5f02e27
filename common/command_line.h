// common/command_line.h - what tdist-run, tdist-bench and tdist-jit build on CLI11: options whose values
// common/value_parser.h reads, flags that take no value, and a help page that opens with the
// usage lines.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>

#include "common/value_parser.h"

namespace tdist::command_line {

// Adds the option `name` ("-n", "--heap": one name, the one errors quote) with the value name
// shown in help and errors. parse reads the text (a function of std::string_view returning
// values::Parsed<T>); its value lands in target, its message becomes "name: message".
template <class Target, class Parse>
CLI::Option *addParsedOption(CLI::App &app, const std::string &name, const std::string &value_name,
                             Target &target, Parse parse, const std::string &description) {
  auto store = [&target, parse, name](const std::string &text) {
    auto parsed = parse(text);
    if (!parsed) throw CLI::ValidationError(name, parsed.error);
    target = *parsed.value;
  };
  return app.add_option_function<std::string>(name, store, description)->type_name(value_name);
}

// A flag as getopt_long has them: "--tag-output=yes" is an error, where CLI11 would read a
// boolean out of it.
inline CLI::Option *addFlag(CLI::App &app, const std::string &names, bool &target,
                            const std::string &description) {
  // CLI11 hands a flag given without a value on as "true".
  auto no_value = [](std::string &value) -> std::string {
    return value == "true" ? "" : "takes no value, got '" + value + "'";
  };
  return app.add_flag(names, target, description)->check(CLI::Validator(no_value, ""));
}

// CLI11's help page, but with the usage lines first and the description after them, as man
// pages have it.
class UsageFirstFormatter : public CLI::Formatter {
 public:
  explicit UsageFirstFormatter(std::string usage) : usage_(std::move(usage)) {}

  std::string make_help(const CLI::App *app, std::string, CLI::AppFormatMode mode) const override {
    return usage_ + "\n" + make_description(app) + make_groups(app, mode) + "\n" +
           make_footer(app);
  }

 private:
  std::string usage_;
};

}  // namespace tdist::command_line
