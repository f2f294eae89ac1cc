// The web API as a pure function: a method, a path, a query and a body in, a status, a content
// type and a body out. No sockets here (server/http_server.cpp wires it to cpp-httplib), so
// every route is tested in-process (tests/unit/server_routes_test.cpp). The bodies are exactly
// what the CLI prints with --format json for the same request (docs/serve.md).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trainbudget/api/session.hpp"

namespace tb::server {

struct HttpResponse {
  int status{200};
  std::string content_type{"application/json"};
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// The largest request body the API reads (a request has at most 256 keys; a pasted config.json
// is a few KB).
inline constexpr std::size_t kMaxBodyBytes = 1U << 20;

class Api {
 public:
  // The session answers the requests; presets are listed once from data/models.
  Api(const api::Session& session, const std::filesystem::path& models_dir);

  [[nodiscard]] HttpResponse handle(std::string_view method, std::string_view path,
                                    std::string_view query, std::string_view body) const;

 private:
  [[nodiscard]] HttpResponse post(std::string_view path, std::string_view body) const;
  const api::Session& session_;
  std::string models_json_;
  std::string hardware_json_;
};

// A response for problems: {"error": kind, "problems": [{"field", "message", "accepted"}]}.
[[nodiscard]] HttpResponse problem_response(int status, std::string_view kind,
                                            const std::vector<Problem>& problems);

}  // namespace tb::server
