// Parsing of the LoRA target list.
#include "trainbudget/spec/lora_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/spec/error.hpp"

namespace tb {

std::vector<std::string> parse_lora_targets(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    if (item.empty()) {
      throw InvalidArgument(fmt::format(
          "--lora-targets: empty entry in '{}'; accepted: q,k,v,o,gate,up,down, all-linear or "
          "module names such as q_proj",
          text));
    }
    out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace tb
