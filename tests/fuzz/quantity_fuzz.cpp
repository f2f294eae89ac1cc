// libFuzzer target: the field parsers every request value goes through. The first byte picks
// the parser, the rest is the text: parse_count, parse_number_in over (0, 1] and [1, 65536],
// parse_machine_list against a three-device catalog, split_comma_list, parse_lora_targets and
// the enum parsers (method, attention, recompute, activation dtype). A tb::Error is the answer
// to bad input; anything else is a bug. Accepted values are checked against what each parser
// promises: counts positive and finite, numbers inside their range, list items non-empty,
// trimmed and inside the text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/lora_spec.hpp"
#include "trainbudget/spec/quantity_parse.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace {

const tb::HardwareCatalog& catalog() {
  static const tb::HardwareCatalog c = [] {
    std::vector<tb::Device> devices(3);
    devices[0].id = "h100-sxm";
    devices[1].id = "m3-ultra";
    devices[2].id = "a100-sxm-80gb";
    return tb::HardwareCatalog(std::move(devices));
  }();
  return c;
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void parse(std::uint8_t which, std::string_view text) {
  switch (which % 9) {
    case 0: {
      const double v = tb::parse_count(text, "params", tb::kParamsRange);
      check(std::isfinite(v) && tb::kParamsRange.contains(v));
      break;
    }
    case 1: {
      const double v = tb::parse_number_in(text, "utilization", 0.0, 1.0, false);
      check(v > 0.0 && v <= 1.0);
      break;
    }
    case 2: {
      const double v = tb::parse_number_in(text, "lora_rank", 1.0, 65536.0, true);
      check(v >= 1.0 && v <= 65536.0);
      break;
    }
    case 3:
      for (const tb::MachineChoice& m : tb::parse_machine_list(text, catalog())) {
        check(m.device != nullptr);
      }
      break;
    case 4:
      for (const std::string_view item : tb::split_comma_list(text, "machine", "IDs")) {
        check(!item.empty() && item.front() != ' ' && item.front() != '\t' && item.back() != ' ' &&
              item.back() != '\t' && item.data() >= text.data() &&
              item.data() + item.size() <= text.data() + text.size());
      }
      break;
    case 5:
      for (const std::string& t : tb::parse_lora_targets(text)) check(!t.empty());
      break;
    case 6:
      (void)tb::parse_method(text);
      break;
    case 7:
      (void)tb::parse_attention(text);
      (void)tb::parse_recompute(text);
      break;
    default:
      (void)tb::parse_activation_dtype(text);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    parse(data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  } catch (const tb::Error&) {
  }
  return 0;
}
