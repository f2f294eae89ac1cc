// Usage errors in our own words: an unknown option or subcommand names the closest known one,
// taken from the parsed CLI::App, so that CLI11's raw messages never reach a user.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tb::cli {

// One line for a failed parse of `root` (without "trainbudget: error: "):
//   unknown option --parms; did you mean --params?
//   unknown subcommand hardwre; did you mean hardware?
//   unexpected argument 8B (see 'trainbudget estimate --help')
// The unknown word is the first argument a parsed command left over (an option before a plain
// word); the candidates are that command's options or subcommands, plus the root's options when
// `implicit_estimate` (the user typed no subcommand, so `trainbudget --verison` is a top-level
// typo). With nothing left over, CLI11's own message for `error`.
[[nodiscard]] std::string usage_error_message(const CLI::App& root, const CLI::ParseError& error,
                                              bool implicit_estimate);

}  // namespace tb::cli
