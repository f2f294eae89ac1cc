// Aligned text, Markdown and CSV rendering of a string table.
#include "trainbudget/report/text_table.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace tb::report {

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  assert(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

std::vector<std::string> wrap_line(const std::string& line, std::size_t width) {
  if (width == 0 || display_width(line) <= width) return {line};
  const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
  // Continuation lines hang under the value of a "key   value" line, else two in.
  std::size_t hang = lead + 2;
  if (const std::size_t gap = line.find("  ", lead); gap != std::string::npos) {
    const std::size_t value = line.find_first_not_of(' ', gap);
    if (value != std::string::npos && value < width / 2) hang = value;
  }
  // Words with the spaces before each, so that a line keeps its own spacing.
  std::vector<std::pair<std::string, std::string>> words;  // (spaces before, word)
  std::size_t at = lead;
  while (at < line.size()) {
    const std::size_t start = line.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    std::size_t end = line.find(' ', start);
    if (end == std::string::npos) end = line.size();
    const std::string word = line.substr(start, end - start);
    if (width > hang && display_width(word) > width - hang && word.find('|') != std::string::npos) {
      // A list of values joined by '|' wider than a line: broken after each '|'.
      std::string spaces = line.substr(at, start - at);
      for (std::size_t from = 0; from < word.size();) {
        const std::size_t bar = word.find('|', from);
        const std::size_t to = bar == std::string::npos ? word.size() : bar + 1;
        words.emplace_back(spaces, word.substr(from, to - from));
        spaces.clear();
        from = to;
      }
    } else {
      words.emplace_back(line.substr(at, start - at), word);
    }
    at = end;
  }
  std::vector<std::string> out;
  std::string current = line.substr(0, lead);
  bool empty = true;
  for (const auto& [spaces, word] : words) {
    if (!empty && display_width(current) + spaces.size() + display_width(word) > width) {
      out.push_back(current);
      current = std::string(hang, ' ');
      empty = true;
    }
    if (!empty) current += spaces;
    current += word;
    empty = false;
  }
  out.push_back(current);
  return out;
}

void TextTable::render_text(std::ostream& out, const std::string& indent, std::size_t width) const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::size_t total = indent.size();
  for (std::size_t c = 0; c < widths.size(); ++c) total += widths[c] + (c > 0 ? 2 : 0);
  if (width > 0 && total > width && columns_.size() > 1) {
    // Stacked: the first cell, then "header value" pairs packed to the width.
    for (const auto& row : rows_) {
      for (const std::string& l : wrap_line(indent + row[0], width)) out << l << '\n';
      const std::string inner = indent + "    ";
      std::string current = inner;
      for (std::size_t c = 1; c < row.size(); ++c) {
        if (row[c].empty() || row[c] == "-") continue;
        const std::string pair =
            columns_[c].header.empty() ? row[c] : columns_[c].header + " " + row[c];
        if (current.size() > inner.size() &&
            display_width(current) + 3 + display_width(pair) > width) {
          for (const std::string& l : wrap_line(current, width)) out << l << '\n';
          current = inner;
        }
        if (current.size() > inner.size()) current += " | ";
        current += pair;
      }
      if (current.size() > inner.size()) {
        for (const std::string& l : wrap_line(current, width)) out << l << '\n';
      }
    }
    return;
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::size_t pad = widths[c] - display_width(cells[c]);
      const bool last = c + 1 == cells.size();
      if (columns_[c].align == Align::kRight) {
        text.append(pad, ' ');
        text += cells[c];
      } else {
        text += cells[c];
        if (!last) text.append(pad, ' ');
      }
      if (!last) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  std::vector<std::string> headers;
  for (const Column& col : columns_) headers.push_back(col.header);
  line(headers);
  for (const auto& row : rows_) line(row);
}

std::string markdown_text(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  std::string out;
  for (const char ch : text.substr(start)) {
    if (ch == '\\' || ch == '`' || ch == '*' || ch == '_' || ch == '<' || ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

void TextTable::map_cells(const std::function<std::string(const std::string&)>& f) {
  for (auto& row : rows_) {
    for (std::string& cell : row) cell = f(cell);
  }
}

void TextTable::render_markdown(std::ostream& out) const {
  out << '|';
  for (const Column& col : columns_) out << ' ' << markdown_text(col.header) << " |";
  out << "\n|";
  for (const Column& col : columns_) out << (col.align == Align::kRight ? "---:|" : "---|");
  out << '\n';
  for (const auto& row : rows_) {
    out << '|';
    for (const std::string& cell : row) out << ' ' << markdown_text(cell) << " |";
    out << '\n';
  }
}

std::string csv_field(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char ch : field) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + '"';
}

void TextTable::render_csv(std::ostream& out) const {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    out << (c ? "," : "") << csv_field(columns_[c].header);
  }
  out << '\n';
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_field(row[c]);
    out << '\n';
  }
}

}  // namespace tb::report
