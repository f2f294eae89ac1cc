// Reading an HTTP/1.1 request's head (the request line and the header fields, RFC 9112 sec. 2-5)
// as a pure function, so every limit and malformed input is tested in-process
// (tests/unit/http_request_test.cpp). The server (server/http_server.cpp) calls it once the blank
// line that ends the head has arrived, and reads no body before the head is accepted.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tb::server {

// The most a request head may hold: its bytes (request line and header fields) and its fields.
inline constexpr std::size_t kMaxHeadBytes = 16 * 1024;
inline constexpr std::size_t kMaxHeaderFields = 64;

struct RequestHead {
  std::string method;
  std::string path;   // the target before '?'
  std::string query;  // after '?', percent-decoded ('+' is a space)
  int minor_version{1};
  std::vector<std::pair<std::string, std::string>> fields;  // names lower-cased

  // The first field of that (lower-case) name; "" when absent.
  [[nodiscard]] std::string_view field(std::string_view name) const;
  // HTTP/1.1 keeps the connection unless "Connection: close"; HTTP/1.0 only with keep-alive.
  [[nodiscard]] bool keep_alive() const;
};

// Why a head cannot be read: the status to answer and one line saying why.
struct HeadError {
  int status{400};
  std::string message;
};

// Parses `head` (everything before the blank line, without it). Refuses a head over
// kMaxHeadBytes or kMaxHeaderFields (431), a malformed request line or field (400), a version
// other than HTTP/1.0 or 1.1 (505).
[[nodiscard]] std::variant<RequestHead, HeadError> parse_request_head(std::string_view head);

// How the body is framed (RFC 9112 sec. 6.3): a Content-Length, or chunked.
struct BodyFraming {
  bool chunked{false};
  std::size_t length{0};  // when not chunked; 0 without Content-Length
};

// The framing a head announces; an error for a Transfer-Encoding other than chunked (501), both
// a Transfer-Encoding and a Content-Length, an unreadable or repeated length (400), or a length
// over `max_body` (413).
[[nodiscard]] std::variant<BodyFraming, HeadError> body_framing(const RequestHead& head,
                                                                std::size_t max_body);

// A chunked body read so far: whether it is whole, the bytes of `raw` it took (chunks, the last
// chunk and the trailer section), the body. An error (400) for a malformed chunk, 413 once the
// body passes `max_body` or the framing passes twice that.
struct ChunkedBody {
  bool whole{false};
  std::size_t consumed{0};
  std::string body;
};
[[nodiscard]] std::variant<ChunkedBody, HeadError> read_chunked(std::string_view raw,
                                                                std::size_t max_body);

// "%41+b" -> "A b".
[[nodiscard]] std::string percent_decode(std::string_view text);

}  // namespace tb::server
