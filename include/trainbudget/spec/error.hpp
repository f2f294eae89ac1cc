// The one error path: exceptions for failures that stop an operation (docs/architecture.md,
// "Errors").
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tb {

// Base of every error trainbudget reports to a user; main() maps it to exit code 1.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A user-supplied value is out of range or malformed; the message names the field and the
// accepted values.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// One thing wrong with a request, as data: the field's key as the field tables spell it
// ("micro_batch"), what is wrong, and the accepted values. Each front end renders the key its
// own way (the CLI as --micro-batch, JSON as micro_batch). A message may name other fields as
// {key}; render_problem() replaces them the same way.
struct Problem {
  std::string field;
  std::string message;
  std::string accepted;  // may be empty
};

// Every problem of a request at once (DuckDB's Exception(type, message, extra_info) shape).
// what() renders the keys bare; front ends render problems() themselves.
class InvalidRequest : public InvalidArgument {
 public:
  explicit InvalidRequest(std::vector<Problem> problems);
  InvalidRequest(std::string field, std::string message, std::string accepted = {});
  // At most ten problems and, past them, one saying how many more.
  [[nodiscard]] const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

// `text` with every field reference {key} (a key: lower-case letters, digits and '_') replaced by
// name(key), e.g. a CLI's key -> flag; {{ and }} (a user's own braces, quoted by excerpt()) are
// one brace; any other brace is kept as it is.
template <class Name>
[[nodiscard]] std::string render_refs(std::string_view text, Name&& name) {
  const auto is_key = [](std::string_view k) {
    if (k.empty() || k.size() > 64 || k.front() < 'a' || k.front() > 'z') return false;
    for (const char c : k) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    const std::size_t close = c == '{' ? text.find('}', i) : std::string_view::npos;
    if (close != std::string_view::npos && is_key(text.substr(i + 1, close - i - 1))) {
      out += name(std::string{text.substr(i + 1, close - i - 1)});
      i = close;
    } else {
      out += c;
    }
  }
  return out;
}

// `text` with its references as bare keys and quoted braces as one: what JSON and what() show.
[[nodiscard]] inline std::string plain_refs(std::string_view text) {
  return render_refs(text, [](const std::string& key) { return key; });
}

// "field: message; accepted: A" with every key (the field and each {key} in the message) passed
// through `name`.
template <class Name>
[[nodiscard]] std::string render_problem(const Problem& p, Name&& name) {
  const std::string message = render_refs(p.message, name);
  std::string out = p.field.empty() ? message : name(p.field) + ": " + message;
  if (!p.accepted.empty()) out += "; accepted: " + render_refs(p.accepted, name);
  return out;
}

// A data file (catalog entry, config.json, safetensors header) is malformed or incomplete.
// All problems found in the file are listed at once.
class DataError : public Error {
 public:
  DataError(std::string file, std::vector<std::string> problems);
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::string file_;
  std::vector<std::string> problems_;
};

}  // namespace tb
