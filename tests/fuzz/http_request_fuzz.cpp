// libFuzzer target: bytes as they arrive on a connection -> the server's HTTP/1.1 reading
// (include/trainbudget/server/http_request.hpp): the head up to the blank line, its body framing,
// a chunked body, and percent-decoding. A HeadError is the answer to bad input; its status must be
// one the server sends, and what is read must stay inside what was given.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "trainbudget/server/http_request.hpp"

namespace {

constexpr std::size_t kMaxBody = 1 << 20;

void check(const tb::server::HeadError& e) {
  const int s = e.status;
  if (s != 400 && s != 413 && s != 431 && s != 501 && s != 505) __builtin_trap();
  if (e.message.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  const std::size_t blank = raw.find("\r\n\r\n");
  const std::string_view head = raw.substr(0, blank);
  const std::string_view rest = blank == std::string_view::npos ? "" : raw.substr(blank + 4);
  (void)tb::server::percent_decode(raw);
  const auto parsed = tb::server::parse_request_head(head);
  if (const auto* e = std::get_if<tb::server::HeadError>(&parsed)) {
    check(*e);
  } else {
    const auto& h = std::get<tb::server::RequestHead>(parsed);
    if (h.fields.size() > tb::server::kMaxHeaderFields) __builtin_trap();
    (void)h.keep_alive();
    const auto framing = tb::server::body_framing(h, kMaxBody);
    if (const auto* f = std::get_if<tb::server::BodyFraming>(&framing)) {
      if (!f->chunked && f->length > kMaxBody) __builtin_trap();
    } else {
      check(std::get<tb::server::HeadError>(framing));
    }
  }
  // The rest as a chunked body, whatever the head said.
  const auto chunked = tb::server::read_chunked(rest, kMaxBody);
  if (const auto* c = std::get_if<tb::server::ChunkedBody>(&chunked)) {
    if (c->consumed > rest.size() || c->body.size() > kMaxBody) __builtin_trap();
  } else {
    check(std::get<tb::server::HeadError>(chunked));
  }
  return 0;
}
