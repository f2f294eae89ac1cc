// Aligned text, Markdown and CSV rendering of a string table.
#include "trainbudget/report/text_table.hpp"

#include <algorithm>
#include <cassert>

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

void TextTable::render_text(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
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
