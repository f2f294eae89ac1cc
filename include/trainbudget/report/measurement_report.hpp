// The parts of a `trainbudget measure` run's views (report/view.hpp: document_of, json_of). Reads
// the plain records of trainbudget/measure/records.hpp (a header-only dependency on the measure
// layer's data).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "trainbudget/measure/records.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {

[[nodiscard]] Document measurement_document(const measure::Measurement& m);
// One CSV-ready row per GEMM run and per bandwidth run.
[[nodiscard]] TextTable measurement_rows(const measure::Measurement& m);
// docs/json.md, section "measure".
[[nodiscard]] std::string measurement_json(const measure::Measurement& m);

// A run's median rate as a fraction of the CPU's theoretical peak for its dtype; nullopt for GPU
// backends (no GPU peak is computed) or when the peak is unknown.
[[nodiscard]] std::optional<double> fraction_of_peak(const measure::Measurement& m,
                                                     const measure::GemmRun& run);

}  // namespace tb::report
