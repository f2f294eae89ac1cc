// A local dataset file's text, counted without a tokenizer (docs/configs.md, "Dataset tokens"):
// every string value of every record, in Unicode code points. JSON (an array of records, or any
// value) and JSON Lines (one value per line) are read as a stream, so a file of gigabytes needs
// no more memory than its longest line.
#pragma once

#include <cstdint>
#include <filesystem>

namespace tb::io {

struct DatasetText {
  std::int64_t records{0};     // JSON Lines: non-blank lines; JSON: the top array's items (or 1)
  std::int64_t characters{0};  // code points in every string value
  std::int64_t bytes{0};       // the file's size
};

// Characters per token when no tokenizer counts them: OpenAI's rule of thumb for English text
// ("one token generally corresponds to ~4 characters of text", help.openai.com, "What are tokens
// and how to count them?"). Code and other languages run fewer characters per token.
inline constexpr double kCharactersPerToken = 4.0;

// Reads `file` (.json or .jsonl / .ndjson by its extension). Throws InvalidRequest naming
// dataset_file for a missing file, another extension, or text that is not JSON (with the line).
[[nodiscard]] DatasetText count_dataset_text(const std::filesystem::path& file);

}  // namespace tb::io
