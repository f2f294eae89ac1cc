// The web API's routes (docs/serve.md): the page's files, the field tables, the catalog, the
// presets, and one POST per query, each answering what `--format json` prints.
#include "trainbudget/server/routes.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/server/assets.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::server {
namespace {

using nlohmann::ordered_json;

HttpResponse json_response(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse message(int status, std::string_view kind, std::string_view text) {
  return problem_response(status, kind, {{"", std::string{text}, ""}});
}

std::span<const api::Field> table_of(std::string_view command) {
  if (command == "plan") return api::plan_fields();
  if (command == "infer") return api::infer_fields();
  if (command == "compare") return api::compare_fields();
  return api::estimate_fields();
}

std::string fields_json(std::string_view command) {
  ordered_json out = ordered_json::array();
  for (const api::Field& f : table_of(command)) {
    out.push_back({{"key", f.key},
                   {"type", enum_name(f.type)},
                   {"value_name", f.value_name},
                   {"unit", f.unit},
                   {"default", f.default_value},
                   {"help", f.help},
                   {"accepted", f.accepted()},
                   {"group", f.group}});
  }
  return out.dump(2) + "\n";
}

// "command=infer" -> "infer"; the one query parameter the API reads.
std::string query_value(std::string_view query, std::string_view key) {
  std::size_t at = 0;
  while (at <= query.size()) {
    const std::size_t end = std::min(query.find('&', at), query.size());
    const std::string_view part = query.substr(at, end - at);
    if (part.starts_with(key) && part.size() > key.size() && part[key.size()] == '=') {
      return std::string{part.substr(key.size() + 1)};
    }
    at = end + 1;
  }
  return {};
}

// Warnings and notes ride in one header, as JSON, so that the body stays the CLI's document.
void add_problems_header(HttpResponse& r, const std::vector<Problem>& warnings,
                         const std::vector<Problem>& notes) {
  ordered_json out = ordered_json::array();
  for (const Problem& p : warnings)
    out.push_back(
        {{"kind", "warning"}, {"field", plain_refs(p.field)}, {"message", plain_refs(p.message)}});
  for (const Problem& p : notes)
    out.push_back(
        {{"kind", "note"}, {"field", plain_refs(p.field)}, {"message", plain_refs(p.message)}});
  if (!out.empty()) r.headers.emplace_back("X-Trainbudget-Problems", out.dump());
}

// The view of a query's result in the request's format, its warnings and notes in the header.
template <class Result, class View>
HttpResponse answer(const Result& result, const View& view, const api::EstimateRequest& request) {
  std::ostringstream text;
  const report::Format format = report::parse_format(request.format);
  report::write(view, format, text);
  HttpResponse r = json_response(200, text.str());
  if (format != report::Format::kJson) r.content_type = "text/plain; charset=utf-8";
  add_problems_header(r, result.warnings, result.notes);
  return r;
}

}  // namespace

HttpResponse problem_response(int status, std::string_view kind,
                              const std::vector<Problem>& problems) {
  ordered_json list = ordered_json::array();
  for (const Problem& p : problems) {
    list.push_back({{"field", printable(plain_refs(p.field))},
                    {"message", printable(plain_refs(p.message))},
                    {"accepted", printable(plain_refs(p.accepted))}});
  }
  ordered_json body{{"error", kind}, {"problems", list}};
  return json_response(status, body.dump(2) + "\n");
}

Api::Api(const api::Session& session, const std::filesystem::path& models_dir) : session_{session} {
  ordered_json models = ordered_json::array();
  for (const io::ModelPreset& p : io::load_model_presets(models_dir)) {
    models.push_back({{"id", p.id},
                      {"name", p.name},
                      {"hf_repo", p.hf_repo},
                      {"published_params", p.published_params}});
  }
  models_json_ = models.dump(2) + "\n";
  report::DeviceList list;
  list.devices = session_.catalog().devices();
  hardware_json_ = report::json_of(list);
}

HttpResponse Api::handle(std::string_view method, std::string_view path, std::string_view query,
                         std::string_view body, const plan::Stop& stop) const {
  try {
    if (method == "GET") {
      if (const Asset* a = find_asset(path)) {
        HttpResponse r;
        r.content_type = std::string{a->content_type};
        r.body = std::string{a->body};
        return r;
      }
      if (path == "/api/fields") {
        const std::string command = query_value(query, "command");
        if (!command.empty() && command != "estimate" && command != "plan" && command != "infer" &&
            command != "compare") {
          return problem_response(400, "invalid_request",
                                  {{"command", "unknown command '" + excerpt(command, 40) + "'",
                                    "estimate|plan|infer|compare"}});
        }
        return json_response(200, fields_json(command));
      }
      if (path == "/api/models") return json_response(200, models_json_);
      if (path == "/api/hardware") return json_response(200, hardware_json_);
    } else if (method == "POST") {
      if (path.starts_with("/api/")) return post(path, body, stop);
    } else {
      return message(405, "method_not_allowed", "only GET and POST are served");
    }
    return message(404, "not_found", "no such route: " + excerpt(path, 80));
  } catch (const InvalidRequest& e) {
    return problem_response(400, "invalid_request", e.problems());
  } catch (const plan::SearchCancelled&) {
    return message(503, "stopped",
                   "the plan ran past the server's time for one request; narrow it (fewer "
                   "methods, recipes or device counts) or run it with the CLI");
  } catch (const Error& e) {
    // A catalog or model file the request named is broken: the request is fine, the data not.
    return message(422, "data_error", one_line(e.what()));
  } catch (const std::exception& e) {
    return message(500, "internal_error", one_line(e.what()));
  }
}

HttpResponse Api::post(std::string_view path, std::string_view body, const plan::Stop& stop) const {
  if (body.size() > kMaxBodyBytes) {
    return message(
        413, "too_large",
        fmt::format("the body is larger than the {} bytes a request may be", kMaxBodyBytes));
  }
  api::FieldMap values = api::field_map_from_json(body);
  if (values.contains("hardware_dir")) {
    return problem_response(400, "invalid_request",
                            {{"hardware_dir",
                              "the server reads no folder a request names; start it with "
                              "trainbudget serve --hardware-dir DIR",
                              "no hardware_dir in a request"}});
  }
  if (values.contains("dataset_file")) {
    return problem_response(400, "invalid_request",
                            {{"dataset_file",
                              "the server reads no file a request names; count it with the CLI "
                              "or give dataset_tokens",
                              "no dataset_file in a request"}});
  }
  // The API answers in JSON unless the request asks for another format.
  if (!values.contains("format")) values["format"] = "json";
  if (path == "/api/estimate") {
    const api::EstimateRequest request = api::parse_estimate_request(values);
    if (request.machines.find("local") != std::string::npos) {
      return problem_response(400, "invalid_request",
                              {{"machine",
                                "'local' measures the machine; run trainbudget "
                                "measure --save NAME first and name it",
                                "a device id"}});
    }
    const api::EstimateResult result = session_.estimate(request);
    return answer(result, result.estimate, request);
  }
  if (path == "/api/plan") {
    const api::EstimateRequest request = api::parse_plan_request(values);
    const api::PlanResult result = session_.plan(request, {}, stop);
    return answer(result, result.report, request);
  }
  if (path == "/api/infer") {
    const api::EstimateRequest request = api::parse_infer_request(values);
    const api::InferResult result = session_.infer(request);
    return answer(result, result.estimate, request);
  }
  if (path == "/api/compare") {
    const api::EstimateRequest request = api::parse_compare_request(values);
    const api::CompareResult result = session_.compare(request);
    return answer(result, result.comparison, request);
  }
  return message(404, "not_found", "no such route: " + excerpt(path, 80));
}

std::optional<HttpResponse> refuse(std::string_view method, const RequestMeta& meta,
                                   std::string_view bound_host, int port) {
  const auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string host = lower(meta.host);
  const std::string with_port = ":" + std::to_string(port);
  const auto is = [&](std::string_view name) {
    const std::string n = lower(name);
    return host == n || host == n + with_port;
  };
  const bool ipv6 = bound_host.find(':') != std::string_view::npos;
  const std::string bound = ipv6 ? "[" + std::string{bound_host} + "]" : std::string{bound_host};
  if (!(is("127.0.0.1") || is("localhost") || is("[::1]") ||
        (!bound_host.empty() && bound_host != "0.0.0.0" && bound_host != "::" && is(bound)))) {
    return problem_response(
        403, "forbidden_host",
        {{"", fmt::format("the Host '{}' is not this server's address", excerpt(meta.host)),
          fmt::format("127.0.0.1:{}, localhost:{}, [::1]:{} or the --host given", port, port,
                      port)}});
  }
  if (!meta.content_encoding.empty() && lower(meta.content_encoding) != "identity") {
    return problem_response(415, "unsupported_media_type",
                            {{"", "compressed bodies are not accepted", "an uncompressed body"}});
  }
  if (method == "POST") {
    const std::string type = lower(meta.content_type.substr(0, meta.content_type.find(';')));
    std::string_view trimmed = type;
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
    if (trimmed != "application/json") {
      return problem_response(
          415, "unsupported_media_type",
          {{"", fmt::format("a POST body must be JSON, not '{}'", excerpt(meta.content_type)),
            "Content-Type: application/json"}});
    }
  }
  return std::nullopt;
}

}  // namespace tb::server
