// A verl run script (`python3 -m verl.trainer.main_ppo key=value ...`, as verl's
// examples/*/run_*.sh launch it) read as its Hydra overrides (docs/configs.md, "verl").
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "config_formats.hpp"
#include "shell_variables.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

constexpr std::string_view kEntry = "verl.trainer.main_ppo";
// verl's one-step off-policy trainer (verl/experimental/one_step_off_policy/main_ppo.py at
// b178a3c; recipe/one_step_off_policy before): its own base config, one_step_off_ppo_trainer.yaml
// (or one_step_off_ppo_megatron_trainer.yaml), which adds the rollout's own devices.
constexpr std::string_view kOneStepOffEntry = "one_step_off_policy.main_ppo";
constexpr std::string_view kOneStepOffConfig = "one_step_off_ppo_trainer";
constexpr std::string_view kConfigName = "config-name";  // Hydra's option, after its dashes

// Where the entry point's name ends, or npos without one.
std::size_t entry_end(std::string_view text) {
  if (const std::size_t at = text.find(kEntry); at != std::string_view::npos) {
    return at + kEntry.size();
  }
  const std::size_t at = text.find(kOneStepOffEntry);
  return at == std::string_view::npos ? at : at + kOneStepOffEntry.size();
}

// The shell words after verl's entry point: line continuations joined, quotes removed, a
// comment dropped; stops at the end of that command (;, &&, ||, |, a redirection).
std::vector<std::string> words_after_entry(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = entry_end(text); i < text.size(); ++i) {
    const char c = text[i];
    if (quoting_takes(text, i, quote, word, in_word)) continue;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      if (c == '\n') break;  // an unescaped newline ends the command
      continue;
    }
    // $(( ... )) is one expansion, blanks and all (bash's arithmetic expansion).
    if (text.substr(i, 3) == "$((") {
      const std::size_t close = text.find("))", i + 3);
      if (close != std::string_view::npos &&
          text.substr(i, close - i).find('\n') == std::string_view::npos) {
        word += text.substr(i, close + 2 - i);
        in_word = true;
        i = close + 1;
        continue;
      }
    }
    if (!in_word && c == '#') break;
    if (!in_word && (c == ';' || c == '&' || c == '|' || c == '>' || c == '<')) break;
    word += c;
    in_word = true;
  }
  if (quote != 0) {
    throw InvalidRequest("config", "a quote in the verl command is not closed",
                         "a shell command verl's examples/*/run_*.sh form");
  }
  if (in_word) words.push_back(word);
  return words;
}

// The command's words with each `"${NAME[@]}"` of an array the script sets replaced by its words
// (verl's examples group their overrides so: DATA=( ... ), "${DATA[@]}"); an unknown one stays.
std::vector<std::string> with_arrays(std::vector<std::string> words, const Variables& vars) {
  std::vector<std::string> out;
  for (std::string& word : words) {
    const bool whole = word.starts_with("${") && word.ends_with(std::string{kArraySuffix} + "}");
    const auto it = whole ? vars.find(word.substr(2, word.size() - 3)) : vars.end();
    if (it == vars.end()) {
      out.push_back(std::move(word));
      continue;
    }
    for (std::size_t from = 0; from <= it->second.size();) {
      const std::size_t to = std::min(it->second.find(kArraySeparator, from), it->second.size());
      if (to > from) out.push_back(it->second.substr(from, to - from));
      from = to + 1;
    }
  }
  return out;
}

}  // namespace

bool is_verl_script(std::string_view text) { return entry_end(text) != std::string_view::npos; }

json verl_script_overrides(std::string_view text) {
  json out = json::object();
  const bool one_step_off = text.find(kEntry) == std::string_view::npos;
  if (one_step_off) out["defaults"] = json::array({kOneStepOffConfig});
  const std::string_view head = text.substr(0, text.find(one_step_off ? kOneStepOffEntry : kEntry));
  const Variables vars = shell_variables(head);
  std::optional<Variables> kept;  // unknown roots kept as $NAME: read for a model's path only
  const std::vector<std::string> words = with_arrays(words_after_entry(text), vars);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    // Hydra's --config-name picks the base config (ppo_megatron_trainer: the Megatron actor);
    // passed on as the defaults an overlay YAML would name.
    if (word.starts_with("--") && word.substr(2).starts_with(kConfigName)) {
      const std::string name = word.find('=') != std::string::npos ? word.substr(word.find('=') + 1)
                               : i + 1 < words.size()              ? words[i + 1]
                                                                   : "";
      // one_step_off_ppo_megatron_trainer names both: the trainer and the Megatron actor.
      if (!name.empty()) {
        out["defaults"] = one_step_off && name.find("one_step_off") == std::string::npos
                              ? json::array({kOneStepOffConfig, name})
                              : json::array({name});
      }
      continue;
    }
    const std::string w = expand(word, vars).value_or(word);
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) continue;  // a flag of python's or Hydra's own
    std::string key = w.substr(0, eq);
    while (!key.empty() && key.front() == '+') key.erase(0, 1);  // Hydra's append prefix
    const std::string value = w.substr(eq + 1);
    if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_.") != std::string::npos) {
      continue;
    }
    // A model's path under a root the script leaves to the user ($HOME/models/Qwen2-7B-Instruct,
    // verl's examples' layout): the root kept as $NAME, so the folder's name still names the
    // model (the model loader reads a folder that is not here by its name, and says so).
    if (key.ends_with("model.path") && value.find('$') != std::string::npos) {
      if (!kept) kept = shell_variables(head, true);
      const auto path = expand(word, *kept, true);
      const std::size_t at = path ? path->find('=') : std::string::npos;
      const std::string leaf = at == std::string::npos ? "" : path->substr(path->rfind('/') + 1);
      if (!leaf.empty() && leaf.find('$') == std::string::npos && path->rfind('/') > at) {
        out[key] = path->substr(at + 1);
        continue;
      }
    }
    // A variable the script does not set: verl's default stands (the reader says so).
    if (value.empty() || value.find('$') != std::string::npos) {
      out[key] = fmt::format("${{{}}}", excerpt(value, 60));
      continue;
    }
    json v;
    try {
      v = yaml_as_json(value);
    } catch (const InvalidRequest&) {
      v = value;
    }
    out[key] = v.is_null() && value != "null" ? json(value) : v;
  }
  if (out.empty() || (out.size() == 1 && out.contains("defaults"))) {
    throw InvalidRequest("config",
                         "names verl.trainer.main_ppo but passes it no key=value overrides",
                         "a verl run script (python3 -m verl.trainer.main_ppo key=value ...)");
  }
  return out;
}

}  // namespace tb::api::config_detail
