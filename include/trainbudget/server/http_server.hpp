// `trainbudget serve`: the Api on one address, over an HTTP/1.1 server of our own (POSIX sockets,
// no HTTP library: nothing in the CLI loads one). One thread reads every connection without
// blocking, so a slow client holds no worker: a request reaches a worker only when it is whole.
// Everything is bounded before it is kept (docs/serve.md, "Limits"): the head (16 KiB, 64
// fields), the body (kMaxBodyBytes, by its Content-Length; no compressed or chunked bodies), the
// time a whole request may take to arrive, the connections held, the bytes buffered, and the
// requests queued per lane (plans and comparisons apart from the cheap queries). Past a bound
// the answer is a JSON 4xx or 503, never a crash.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "trainbudget/server/routes.hpp"

namespace tb::server {

struct ServeOptions {
  std::string host{"127.0.0.1"};
  int port{8080};                // 0: any free port (the tests)
  int request_seconds{5};        // a whole request (head and body) must arrive within this
  int idle_seconds{5};           // a kept-alive connection with no request is closed after this
  int write_timeout_seconds{5};  // an answer the client does not read is dropped after this
  // A plan still searching after this is stopped and answered 503 (the largest the page asks
  // for, 70B on 1,024 devices, takes about 0.1 s); one whose client left is stopped at once.
  int work_seconds{60};
  std::size_t max_connections{256};
  std::size_t max_buffered_bytes{64U << 20};  // bodies announced and not yet answered, in all
  std::size_t max_queued{64};                 // per lane, waiting for a worker
  // Three lanes, so that no request waits behind heavier ones: GETs (the page, fields, models,
  // hardware: answered from memory), estimate and infer (bounded by the model's 4,096 layers:
  // under a second each), plan and compare (under work_seconds).
  std::size_t light_workers{2};    // every GET
  std::size_t compute_workers{4};  // estimate, infer
  std::size_t heavy_workers{2};    // plan and compare
};

// Serves until the process is stopped; `on_listen(port)` runs once the socket is bound. Returns
// false when the address cannot be bound.
bool serve(const Api& api, const ServeOptions& options,
           const std::function<void(int port)>& on_listen);

}  // namespace tb::server
