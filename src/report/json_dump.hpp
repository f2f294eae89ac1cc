// The one way JSON leaves trainbudget: every number is checked finite (nlohmann would print
// NaN or infinity as null, a silent hole where a number belongs) and every string is made valid
// UTF-8 (a file name is bytes; non-UTF-8 bytes are written as the text \xNN, as messages do).
// Private to the report library.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::report {

// Our own documents nest a handful of levels, so the walk's recursion is bounded by us, not by
// user data.
template <class Json>
void make_reportable(Json& j, const std::string& path) {
  if (j.is_number_float() && !std::isfinite(j.template get<double>())) {
    throw Error(
        fmt::format("the result's {} is not a finite number; the inputs are past what "
                    "trainbudget can model (please report the command line)",
                    path.empty() ? "value" : path));
  }
  if (j.is_string()) {
    const auto& s = j.template get_ref<const std::string&>();
    if (printable(s) != s) j = printable(s);
    return;
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      make_reportable(it.value(), path.empty() ? it.key() : path + "." + it.key());
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      make_reportable(j[i], fmt::format("{}[{}]", path, i));
    }
  }
}

template <class Json>
std::string dump_json(Json j) {
  make_reportable(j, "");
  return j.dump(2) + "\n";
}

}  // namespace tb::report
