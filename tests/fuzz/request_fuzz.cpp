// libFuzzer target: the request boundary. A JSON request's text -> field_map_from_json ->
// parse_estimate_request (and parse_infer_request), which check every field of the table in
// src/api/field.cpp and their combinations. A tb::Error (InvalidRequest) is the answer to bad
// input; anything else is a bug. An accepted request records as given exactly the keys of the map
// it came from (flags set to false aside).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tb::api::FieldMap map = tb::api::field_map_from_json(text);
    const tb::api::EstimateRequest request = tb::api::parse_estimate_request(map);
    for (const std::string& key : request.given) {
      if (!map.contains(key)) __builtin_trap();
    }
  } catch (const tb::Error&) {
  }
  // The infer table's rows and checks, on the same text.
  try {
    const tb::api::FieldMap map = tb::api::field_map_from_json(text);
    const tb::api::EstimateRequest request = tb::api::parse_infer_request(map);
    for (const std::string& key : request.given) {
      if (!map.contains(key)) __builtin_trap();
    }
  } catch (const tb::Error&) {
  }
  return 0;
}
