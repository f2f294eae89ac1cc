// The web page's files, compiled into the binary (server/embed_assets.cmake turns web/ into
// assets.cpp), so that `trainbudget serve` works offline and from any directory.
#pragma once

#include <string_view>

namespace tb::server {

struct Asset {
  std::string_view path;          // "/", "/app.js", "/style.css"
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view body;
};

// The asset served at `path`, or nullptr.
[[nodiscard]] const Asset* find_asset(std::string_view path);

}  // namespace tb::server
