// The one comma-list syntax of every list field: machine, lora_targets and measure's sizes,
// dtype and backend all split with split_comma_list().
#pragma once

#include <string_view>
#include <vector>

namespace tb {

// The items of "h100-sxm, a100-sxm-80gb": split at every comma, spaces and tabs around each item
// trimmed. An empty item (",a", "a,,b", "a, ,b", "a,", "" or " ") throws InvalidRequest naming
// `field`, "empty entry in 'TEXT'", accepted EXPECTED. The views point into `text`.
[[nodiscard]] std::vector<std::string_view> split_comma_list(std::string_view text,
                                                             std::string_view field,
                                                             std::string_view expected);

}  // namespace tb
