// The one error path: exceptions for failures that stop an operation (STYLE.md, "Errors").
#pragma once

#include <stdexcept>
#include <string>
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
