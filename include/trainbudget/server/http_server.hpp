// `trainbudget serve`: the Api behind cpp-httplib on one address. Loopback by default; bodies
// capped at kMaxBodyBytes (413), reads and writes time out, every handler's exception becomes a
// JSON 500, never a crash (docs/serve.md).
#pragma once

#include <functional>
#include <string>

#include "trainbudget/server/routes.hpp"

namespace tb::server {

struct ServeOptions {
  std::string host{"127.0.0.1"};
  int port{8080};  // 0: any free port (the tests)
  int read_timeout_seconds{5};
  int write_timeout_seconds{5};
};

// Serves until the process is stopped; `on_listen(port)` runs once the socket is bound. Returns
// false when the address cannot be bound.
bool serve(const Api& api, const ServeOptions& options,
           const std::function<void(int port)>& on_listen);

}  // namespace tb::server
