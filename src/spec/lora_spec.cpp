// Parsing of the LoRA target list.
#include "trainbudget/spec/lora_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {

std::vector<std::string> parse_lora_targets(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string_view item :
       split_comma_list(text, "lora_targets",
                        "q,k,v,o,gate,up,down, all-linear or module names such as q_proj")) {
    out.emplace_back(item);
  }
  return out;
}

}  // namespace tb
