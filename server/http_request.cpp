// An HTTP/1.1 request head read as RFC 9112 writes it (sec. 3 request line, sec. 5 field lines,
// sec. 6.3 message body length), with the server's limits checked before anything is kept.
#include "trainbudget/server/http_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "trainbudget/spec/excerpt.hpp"

namespace tb::server {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// RFC 9110 sec. 5.6.2: a field name is a token.
bool token(std::string_view text) {
  static constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || kExtra.find(c) != kExtra.npos;
  });
}

// A field value holds visible characters, spaces and tabs (obs-text allowed); no controls.
bool field_value(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

HeadError bad(int status, std::string message) { return HeadError{status, std::move(message)}; }

}  // namespace

std::string_view RequestHead::field(std::string_view name) const {
  for (const auto& [key, value] : fields) {
    if (key == name) return value;
  }
  return {};
}

bool RequestHead::keep_alive() const {
  const std::string connection = lower(field("connection"));
  if (minor_version == 0) return connection == "keep-alive";
  return connection != "close";
}

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 &&
               hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::variant<RequestHead, HeadError> parse_request_head(std::string_view head) {
  if (head.size() > kMaxHeadBytes) {
    return bad(431, fmt::format("the request head is larger than the {} KiB a request may send",
                                kMaxHeadBytes / 1024));
  }
  RequestHead out;
  std::size_t at = head.find("\r\n");
  const std::string_view line = head.substr(0, at);
  // request-line = method SP request-target SP HTTP-version
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == line.npos ? line.npos : line.find(' ', sp1 + 1);
  if (sp2 == line.npos || line.find(' ', sp2 + 1) != line.npos) {
    return bad(400, fmt::format("the request line '{}' is not 'METHOD TARGET HTTP/1.1'",
                                excerpt(line, 60)));
  }
  out.method = std::string{line.substr(0, sp1)};
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!token(out.method)) {
    return bad(400, fmt::format("the method '{}' is not a token", excerpt(out.method, 20)));
  }
  if (target.empty() || target.front() != '/' || !field_value(target) ||
      target.find(' ') != target.npos) {
    return bad(400, fmt::format("the target '{}' is not a path", excerpt(target, 60)));
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return bad(505,
               fmt::format("the version '{}' is not HTTP/1.1 or HTTP/1.0", excerpt(version, 20)));
  }
  out.minor_version = version.back() - '0';
  const std::size_t q = target.find('?');
  out.path = std::string{target.substr(0, q)};
  if (q != target.npos) out.query = percent_decode(target.substr(q + 1));
  while (at != head.npos) {
    const std::size_t start = at + 2;
    at = head.find("\r\n", start);
    const std::string_view field = head.substr(start, at == head.npos ? head.npos : at - start);
    if (out.fields.size() == kMaxHeaderFields) {
      return bad(431, fmt::format("a request may send at most {} header fields", kMaxHeaderFields));
    }
    const std::size_t colon = field.find(':');
    if (colon == field.npos || !token(field.substr(0, colon))) {
      return bad(400, fmt::format("the header line '{}' is not 'Name: value'", excerpt(field, 60)));
    }
    const std::string_view value = trim(field.substr(colon + 1));
    if (!field_value(value)) {
      return bad(400, fmt::format("the header '{}' holds a control character",
                                  excerpt(field.substr(0, colon), 40)));
    }
    out.fields.emplace_back(lower(field.substr(0, colon)), std::string{value});
  }
  return out;
}

std::variant<BodyFraming, HeadError> body_framing(const RequestHead& head, std::size_t max_body) {
  const std::string encoding = lower(head.field("transfer-encoding"));
  const bool has_length = std::any_of(head.fields.begin(), head.fields.end(),
                                      [](const auto& f) { return f.first == "content-length"; });
  if (!encoding.empty()) {
    if (encoding != "chunked") {
      return bad(501, fmt::format("the transfer coding '{}' is not read (only chunked)",
                                  excerpt(encoding, 40)));
    }
    if (has_length) return bad(400, "a Content-Length beside a Transfer-Encoding");
    return BodyFraming{true, 0};
  }
  std::optional<std::size_t> length;
  for (const auto& [key, value] : head.fields) {
    if (key != "content-length") continue;
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc::result_out_of_range)
      n = max_body + 1;
    else if (ec != std::errc{} || end != value.data() + value.size() || value.empty()) {
      return bad(400,
                 fmt::format("Content-Length '{}' is not a number of bytes", excerpt(value, 40)));
    }
    if (length && *length != n) return bad(400, "two different Content-Length fields");
    length = n;
  }
  if (length.value_or(0) > max_body) {
    return bad(413, fmt::format("the body is larger than the {} bytes a request may be", max_body));
  }
  return BodyFraming{false, length.value_or(0)};
}

std::variant<ChunkedBody, HeadError> read_chunked(std::string_view raw, std::size_t max_body) {
  ChunkedBody out;
  std::size_t at = 0;
  const auto too_large = [&] {
    return bad(413, fmt::format("the body is larger than the {} bytes a request may be", max_body));
  };
  for (;;) {
    // chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
    const std::size_t eol = raw.find("\r\n", at);
    if (eol == raw.npos) {
      if (raw.size() - at > 1024) return bad(400, "a chunk-size line longer than 1 KiB");
      break;
    }
    const std::string_view line = raw.substr(at, eol - at);
    const std::string_view digits = line.substr(0, line.find(';'));
    std::size_t size = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
    if (ec == std::errc::result_out_of_range) return too_large();
    if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
      return bad(400, fmt::format("the chunk size '{}' is not hexadecimal", excerpt(line, 20)));
    }
    if (size > max_body || out.body.size() + size > max_body) return too_large();
    if (size == 0) {
      // The trailer section: fields up to an empty line.
      const std::size_t start = eol + 2;
      if (raw.substr(start).starts_with("\r\n")) {
        out.whole = true;
        out.consumed = start + 2;
        return out;
      }
      const std::size_t blank = raw.find("\r\n\r\n", start);
      if (blank == raw.npos) break;
      out.whole = true;
      out.consumed = blank + 4;
      return out;
    }
    if (raw.size() < eol + 2 + size + 2) break;
    if (raw.substr(eol + 2 + size, 2) != "\r\n") return bad(400, "a chunk not ended by CRLF");
    out.body.append(raw.substr(eol + 2, size));
    at = eol + 2 + size + 2;
  }
  if (raw.size() > 2 * max_body + 65536) return too_large();
  return out;
}

}  // namespace tb::server
