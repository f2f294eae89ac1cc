// The Python module's native part (_trainbudget): a request as JSON text in, the document
// `--format json` prints out, through the same Session every front end calls. The package
// (python/trainbudget/__init__.py) turns keyword arguments into that JSON and the answer into
// a dict, and InvalidRequest's problems into trainbudget.InvalidRequest (docs/python.md).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/error.hpp"

namespace py = pybind11;

namespace {

// One catalog for the process: loaded at the first call, as the server loads it at start.
const tb::api::Session& session() {
  static const tb::api::Session s{tb::api::Sources{tb::io::data_dir(), std::nullopt, true}};
  return s;
}

// The problems of an InvalidRequest as a JSON list (field, message, accepted), which the package
// raises as trainbudget.InvalidRequest.
std::string problems_json(const tb::InvalidRequest& e) {
  nlohmann::json list = nlohmann::json::array();
  for (const tb::Problem& p : e.problems()) {
    list.push_back({{"field", tb::plain_refs(p.field)},
                    {"message", tb::plain_refs(p.message)},
                    {"accepted", tb::plain_refs(p.accepted)}});
  }
  return list.dump();
}

template <class Result, class View>
std::string answer(const Result& result, const View& view) {
  nlohmann::json doc = nlohmann::json::parse(tb::report::json_of(view));
  nlohmann::json warnings = nlohmann::json::array();
  for (const tb::Problem& p : result.warnings) {
    warnings.push_back(
        {{"field", tb::plain_refs(p.field)}, {"message", tb::plain_refs(p.message)}});
  }
  nlohmann::json notes = nlohmann::json::array();
  for (const tb::Problem& p : result.notes) {
    notes.push_back({{"field", tb::plain_refs(p.field)}, {"message", tb::plain_refs(p.message)}});
  }
  doc["warnings"] = warnings;
  doc["notes"] = notes;
  return doc.dump();
}

// Runs one command on a JSON request; throws ValueError("invalid_request:<problems json>") for
// a bad request, RuntimeError for any other failure (the package maps both).
std::string run(const std::string& command, const std::string& request_json) {
  try {
    // config="path": a training config's fields under the keyword arguments (docs/configs.md).
    nlohmann::json request = nlohmann::json::parse(request_json);
    tb::api::FieldMap values;
    if (request.is_object() && request.contains("config")) {
      const tb::api::TrainingConfig config =
          tb::api::read_training_config(request["config"].get<std::string>());
      values = config.values;
      request.erase("config");
    }
    for (auto& [key, value] : tb::api::field_map_from_json(request.dump())) values[key] = value;
    if (command == "estimate") {
      const tb::api::EstimateResult r = session().estimate(tb::api::parse_estimate_request(values));
      return answer(r, r.estimate);
    }
    if (command == "plan") {
      const tb::api::PlanResult r = session().plan(tb::api::parse_plan_request(values));
      return answer(r, r.report);
    }
    if (command == "infer") {
      const tb::api::InferResult r = session().infer(tb::api::parse_infer_request(values));
      return answer(r, r.estimate);
    }
    if (command == "compare") {
      const tb::api::CompareResult r = session().compare(tb::api::parse_compare_request(values));
      return answer(r, r.comparison);
    }
    throw py::value_error("invalid_request:" +
                          nlohmann::json::array({{{"field", "command"},
                                                  {"message", "unknown command '" + command + "'"},
                                                  {"accepted", "estimate|plan|infer|compare"}}})
                              .dump());
  } catch (const tb::InvalidRequest& e) {
    throw py::value_error("invalid_request:" + problems_json(e));
  } catch (const tb::Error& e) {
    throw std::runtime_error(e.what());
  }
}

std::span<const tb::api::Field> table_of(const std::string& command) {
  if (command == "plan") return tb::api::plan_fields();
  if (command == "infer") return tb::api::infer_fields();
  if (command == "compare") return tb::api::compare_fields();
  return tb::api::estimate_fields();
}

// The field table of a command: key, type, default, accepted values, help.
std::string fields(const std::string& command) {
  nlohmann::json out = nlohmann::json::array();
  for (const tb::api::Field& f : table_of(command)) {
    out.push_back({{"key", f.key},
                   {"type", tb::enum_name(f.type)},
                   {"default", f.default_value},
                   {"accepted", f.accepted()},
                   {"help", f.help},
                   {"group", f.group}});
  }
  return out.dump();
}

}  // namespace

PYBIND11_MODULE(_trainbudget, m) {
  m.doc() = "trainbudget's engine: estimate, plan, infer, compare (docs/python.md)";
  m.def("run", &run, py::arg("command"), py::arg("request_json"),
        "Run a command on a JSON request; returns the --format json document as text");
  m.def("fields", &fields, py::arg("command") = "estimate",
        "The field table of a command as JSON text");
}
