// `trainbudget serve`: one Session for the process, the Api over it, our HTTP server in front.
#include "serve_command.hpp"

#include <fmt/format.h>

#include <iostream>

#include "trainbudget/api/session.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/server/http_server.hpp"

namespace tb::cli {
namespace {

bool loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.starts_with("127.");
}

}  // namespace

CLI::App* setup_serve(CLI::App& app, ServeCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "A local web page (memory bars, hours on a log axis, verdicts, serving and the verdict by "
      "task) and its JSON API: POST /api/estimate, /api/plan, /api/infer, /api/compare; GET "
      "/api/fields, /api/hardware, /api/models (docs/serve.md)");
  cmd->add_option("--host", o.host,
                  "Address to listen on; default 127.0.0.1 (loopback). Another address serves "
                  "everyone who can reach it, with a warning")
      ->type_name("ADDRESS");
  cmd->add_option("--port", o.port, "TCP port; 0 picks a free one (printed)")
      ->check(CLI::Range(0, 65535))
      ->type_name("PORT");
  cmd->add_option("--hardware-dir", o.hardware_dir, "Extra folder of device TOML files")
      ->type_name("DIR");
  return cmd;
}

int run_serve(const ServeCommandOptions& o) {
  if (!loopback(o.host)) {
    std::cerr << fmt::format(
        "trainbudget: warning: --host {}: the page and its API are open to every machine that "
        "can reach this address (no authentication)\n",
        o.host);
  }
  const api::Session session{api::Sources{io::data_dir(), o.hardware_dir, true, false}};
  const server::Api api{session, io::data_dir() / "models"};
  server::ServeOptions options;
  options.host = o.host;
  options.port = o.port;
  const bool ok = server::serve(api, options, [&](int port) {
    std::cerr << fmt::format("trainbudget: serving http://{}:{}/ (Ctrl-C stops)\n",
                             o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host,
                             port)
              << std::flush;
  });
  if (!ok) {
    std::cerr << fmt::format("trainbudget: error: --port: cannot listen on {}:{}\n", o.host,
                             o.port);
    return 1;
  }
  return 0;
}

}  // namespace tb::cli
