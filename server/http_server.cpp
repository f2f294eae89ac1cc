// cpp-httplib around the Api (docs/serve.md): one handler for every GET and POST, limits on the
// body and the time a client may take, JSON for every error httplib itself answers.
#include "trainbudget/server/http_server.hpp"

#include <httplib.h>

namespace tb::server {
namespace {

void reply(const HttpResponse& from, httplib::Response& to) {
  to.status = from.status;
  for (const auto& [key, value] : from.headers) to.set_header(key, value);
  // The page and the API are one origin; nothing is to be framed or sniffed.
  to.set_header("X-Content-Type-Options", "nosniff");
  to.set_header("Cache-Control", "no-store");
  to.set_content(from.body, from.content_type);
}

}  // namespace

bool serve(const Api& api, const ServeOptions& options,
           const std::function<void(int port)>& on_listen) {
  httplib::Server http;
  http.set_payload_max_length(kMaxBodyBytes);
  http.set_read_timeout(options.read_timeout_seconds, 0);
  http.set_write_timeout(options.write_timeout_seconds, 0);
  http.set_keep_alive_timeout(options.read_timeout_seconds);
  int port = options.port;
  const auto handler = [&api, &options, &port](const httplib::Request& req,
                                               httplib::Response& res) {
    const std::string host = req.get_header_value("Host");
    const std::string type = req.get_header_value("Content-Type");
    const std::string encoding = req.get_header_value("Content-Encoding");
    if (const auto no = refuse(req.method, {host, type, encoding}, options.host, port)) {
      reply(*no, res);
      return;
    }
    std::string query;
    for (const auto& [key, value] : req.params) {
      query += (query.empty() ? "" : "&") + key + "=" + value;
    }
    reply(api.handle(req.method, req.path, query, req.body), res);
  };
  http.Get(".*", handler);
  http.Post(".*", handler);
  http.Put(".*", handler);
  http.Delete(".*", handler);
  http.Patch(".*", handler);
  http.Options(".*", handler);
  // What httplib answers on its own (413 past the body cap, 400 for a malformed request line)
  // gets a JSON body too.
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* kind = res.status == 413 ? "too_large" : "bad_request";
    const std::string text = res.status == 413
                                 ? "the body is larger than the 1 MiB a request may be"
                                 : "the request could not be read";
    reply(problem_response(res.status, kind, {{"", text, ""}}), res);
  });
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        reply(problem_response(500, "internal_error", {{"", "the handler failed", ""}}), res);
      });
  if (port == 0) {
    port = http.bind_to_any_port(options.host);
    if (port < 0) return false;
  } else if (!http.bind_to_port(options.host, port)) {
    return false;
  }
  on_listen(port);
  return http.listen_after_bind();
}

}  // namespace tb::server
