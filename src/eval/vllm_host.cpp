// The share of vLLM's host work a decode step waits for (src/eval/vllm_host.hpp).
#include "vllm_host.hpp"

namespace tb {

HostSplit host_split(const RolloutSpec& rl) noexcept {
  const std::optional<std::array<int, 2>>& version = rl.vllm_version;
  const bool async_output = rl.vllm_async_engine || (version && (*version)[0] == 0 &&
                                                     (*version)[1] >= 6 && (*version)[1] < 8);
  if (!async_output) return {};
  const double all = kHostScheduleMs + kHostInputsMs + kHostOutputsMs;
  return {(kHostScheduleMs + kHostInputsMs) / all, kHostOutputsMs / all};
}

}  // namespace tb
