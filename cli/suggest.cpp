// Turning CLI11's left-over arguments into "did you mean" messages.
#include "suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "trainbudget/spec/closest.hpp"

namespace tb::cli {
namespace {

// The parsed commands from the root down: root, then its parsed subcommand, and so on.
std::vector<const CLI::App*> parsed_chain(const CLI::App& root) {
  std::vector<const CLI::App*> chain{&root};
  while (true) {
    const std::vector<CLI::App*> subs = chain.back()->get_subcommands();
    if (subs.empty()) break;
    chain.push_back(subs.front());
  }
  return chain;
}

std::string command_path(const std::vector<const CLI::App*>& chain, std::size_t depth) {
  std::string path = "trainbudget";
  for (std::size_t i = 1; i <= depth && i < chain.size(); ++i) path += " " + chain[i]->get_name();
  return path;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// Close enough to be what was meant: a third of the word's letters, at least 2.
std::size_t max_distance(std::string_view word) {
  return std::max<std::size_t>(2, word.size() / 3);
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates,
                       const std::string& help_path) {
  const std::vector<std::string> near = closest_names(word, candidates, 1, max_distance(word));
  if (near.empty()) return fmt::format(" (see '{} --help')", help_path);
  return fmt::format("; did you mean {}?", near.front());
}

}  // namespace

std::string usage_error_message(const CLI::App& root, const CLI::ParseError& error,
                                bool implicit_estimate) {
  const std::vector<const CLI::App*> chain = parsed_chain(root);
  struct Leftover {
    std::size_t depth;
    std::string word;
  };
  std::optional<Leftover> option;
  std::optional<Leftover> plain;
  for (std::size_t depth = 0; depth < chain.size(); ++depth) {
    for (const std::string& word : chain[depth]->remaining()) {
      if (word.size() > 1 && word.front() == '-') {
        if (!option) option = Leftover{depth, word};
      } else if (!plain) {
        plain = Leftover{depth, word};
      }
    }
  }
  if (option) {
    // "--parms=8B" is the option --parms with a value.
    const std::string name = option->word.substr(0, option->word.find('='));
    std::vector<std::string> candidates = option_names(*chain[option->depth]);
    if (implicit_estimate && option->depth > 0) {
      const std::vector<std::string> top = option_names(root);
      candidates.insert(candidates.end(), top.begin(), top.end());
    }
    return fmt::format("unknown option {}{}", name,
                       suggestion(name, candidates, command_path(chain, option->depth)));
  }
  if (plain) {
    const CLI::App& app = *chain[plain->depth];
    const std::string path = command_path(chain, plain->depth);
    const std::vector<std::string> subs = subcommand_names(app);
    if (subs.empty()) {
      return fmt::format("unexpected argument {} (see '{} --help')", plain->word, path);
    }
    return fmt::format("unknown subcommand {}{}", plain->word, suggestion(plain->word, subs, path));
  }
  return error.what();
}

}  // namespace tb::cli
