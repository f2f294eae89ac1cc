// The presets to suggest for a model name that is none (io::load_model's "closest presets").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tb::io {

// At most three preset ids to suggest for `spec`: those of its family and size first ("llama-3-70b"
// -> llama-3.1-70b, llama-3.3-70b), then the closest spellings.
[[nodiscard]] std::vector<std::string> closest_presets(std::string_view spec,
                                                       const std::vector<std::string>& ids);

}  // namespace tb::io
