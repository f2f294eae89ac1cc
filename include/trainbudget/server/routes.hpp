// The web API as a pure function: a method, a path, a query and a body in, a status, a content
// type and a body out. No sockets here (server/http_server.cpp serves it over HTTP), so
// every route is tested in-process (tests/unit/server_routes_test.cpp). The bodies are exactly
// what the CLI prints with --format json for the same request (docs/serve.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trainbudget/api/session.hpp"
#include "trainbudget/io/file_read.hpp"

namespace tb::server {

struct HttpResponse {
  int status{200};
  std::string content_type{"application/json"};
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// The largest request body the API reads: the CLI's request-file cap, one figure for both (a
// request has at most 256 keys; a pasted config.json is a few KB).
inline constexpr std::size_t kMaxBodyBytes = io::kMaxRequestBytes;

class Api {
 public:
  // The session answers the requests; presets are listed once from data/models.
  Api(const api::Session& session, const std::filesystem::path& models_dir);

  // `stop` is asked while a plan searches: true abandons it (503, "stopped").
  [[nodiscard]] HttpResponse handle(std::string_view method, std::string_view path,
                                    std::string_view query, std::string_view body,
                                    const plan::Stop& stop = {}) const;

 private:
  [[nodiscard]] HttpResponse post(std::string_view path, std::string_view body,
                                  const plan::Stop& stop) const;
  const api::Session& session_;
  std::string models_json_;
  std::string hardware_json_;
};

// What a request says about itself beyond its method, path and body.
struct RequestMeta {
  std::string_view host;              // the Host header ("" when absent)
  std::string_view content_type;      // the Content-Type header
  std::string_view content_encoding;  // the Content-Encoding header
};

// The local server answers only its own user (docs/serve.md, "Who may call it"): a request whose
// Host is not the address the server is bound to (127.0.0.1, localhost, [::1], or the --host
// given), with or without the port, is refused with 403, so a web page reached through DNS
// rebinding cannot drive it; a POST whose body is not application/json (a form or text/plain,
// which a page may send without a CORS preflight) gets 415; a compressed body gets 415.
// nullopt: the request may go on.
[[nodiscard]] std::optional<HttpResponse> refuse(std::string_view method, const RequestMeta& meta,
                                                 std::string_view bound_host, int port);

// A response for problems: {"error": kind, "problems": [{"field", "message", "accepted"}]}.
[[nodiscard]] HttpResponse problem_response(int status, std::string_view kind,
                                            const std::vector<Problem>& problems);

}  // namespace tb::server
