// Reporters: one interface, picked by --format (table, json, csv, markdown).
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/spec/hardware.hpp"

namespace tb::report {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void estimate(const Estimate& estimate, std::ostream& out) const = 0;
  virtual void devices(const std::vector<Device>& devices, std::ostream& out) const = 0;
  virtual void device(const Device& device, std::ostream& out) const = 0;
  // Every recipe side by side, with the model-state bytes for `params` parameters.
  virtual void recipes(double params, std::ostream& out) const = 0;
};

[[nodiscard]] std::unique_ptr<Reporter> make_reporter(Format format);

// JSON schema version of every JSON document we print (docs/json.md).
inline constexpr int kJsonSchemaVersion = 1;

}  // namespace tb::report
