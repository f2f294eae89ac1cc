// Field rows as CLI11 options.
#include "fields.hpp"

#include <fmt/format.h>

namespace tb::cli {

std::string flag_of(std::string_view key) {
  if (key.find(' ') != std::string_view::npos) return std::string{key};
  std::string flag = "--";
  for (const char c : key) flag += c == '_' ? '-' : c;
  return flag;
}

std::string render_for_cli(const Problem& problem) {
  // An unknown key comes from a request file (the command line refuses unknown flags first):
  // named as the file spells it, its suggestion too.
  if (problem.message.starts_with("is not a field of")) {
    return fmt::format("request key '{}' {}", plain_refs(problem.field),
                       plain_refs(problem.message));
  }
  return render_problem(problem, flag_of);
}

CLI::Validator non_empty_path() {
  return CLI::Validator{[](std::string& v) {
                          return v.empty() ? std::string{"an empty path names no file"}
                                           : std::string{};
                        },
                        "FILE"};
}

namespace {

const std::set<std::string, std::less<>>* g_only = nullptr;

}  // namespace

void register_only(const std::set<std::string, std::less<>>* flags) { g_only = flags; }

void add_field_options(CLI::App& cmd, std::span<const api::Field> fields, FieldSlots& slots) {
  for (const api::Field& f : fields) {
    const std::string key{f.key};
    if (g_only != nullptr && !g_only->contains(flag_of(key))) continue;
    std::string help = render_refs(f.help, flag_of);
    if (f.type == api::FieldType::kFlag) {
      slots.options[key] = cmd.add_flag(flag_of(key), slots.flags[key], help);
      continue;
    }
    help += "; accepted: " + render_refs(f.accepted(), flag_of);
    CLI::Option* o = cmd.add_option(flag_of(key), slots.values[key], help);
    o->type_name(std::string{f.value_name});
    if (!f.default_value.empty()) o->default_str(std::string{f.default_value});
    slots.options[key] = o;
  }
}

api::FieldMap given_fields(const FieldSlots& slots) {
  api::FieldMap out;
  for (const auto& [key, option] : slots.options) {
    if (option->count() == 0) continue;
    const auto flag = slots.flags.find(key);
    out[key] = flag != slots.flags.end() ? (flag->second ? "true" : "false") : slots.values.at(key);
  }
  return out;
}

}  // namespace tb::cli
