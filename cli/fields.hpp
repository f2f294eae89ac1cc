// The CLI's spelling of the api field tables: each key becomes a flag (--micro-batch), each row
// an option with its help, default and accepted values, and problems are rendered with flags.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "trainbudget/api/field.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::cli {

// "micro_batch" -> "--micro-batch"; a key with a space ("hardware show") stays as it is.
[[nodiscard]] std::string flag_of(std::string_view key);

// One line per problem: "--micro-batch: 0 is out of range; accepted: 1..1048576".
[[nodiscard]] std::string render_for_cli(const Problem& problem);

// Where the parsed values land: one string (or flag) slot per field.
struct FieldSlots {
  std::map<std::string, std::string, std::less<>> values;
  std::map<std::string, bool, std::less<>> flags;
  std::map<std::string, CLI::Option*, std::less<>> options;
};

// Adds one option per field to `cmd`; after register_only(flags), only the fields whose flag is
// in `flags` (null: every field). Start-up: a run builds the options its command line names.
void add_field_options(CLI::App& cmd, std::span<const api::Field> fields, FieldSlots& slots);
void register_only(const std::set<std::string, std::less<>>* flags);

// A file option's check: an empty path is refused (it would read as "no file given").
[[nodiscard]] CLI::Validator non_empty_path();

// The values the command line gave, by key (flags as "true").
[[nodiscard]] api::FieldMap given_fields(const FieldSlots& slots);

}  // namespace tb::cli
