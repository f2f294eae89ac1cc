// A table of strings rendered as aligned text, Markdown or CSV.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tb::report {

enum class Align { kLeft, kRight };

class TextTable {
 public:
  struct Column {
    std::string header;
    Align align{Align::kLeft};
    bool verdict{false};  // a verdict's words ("fits", "does not fit"): HTML colours the cell
  };

  explicit TextTable(std::vector<Column> columns);
  void add_row(std::vector<std::string> cells);

  // Space-aligned columns, each line prefixed with `indent`. When the table is wider than
  // `width` (0: no limit) each row becomes a block: its first cell on a line, then the other
  // columns as "header value" pairs packed into lines that fit.
  void render_text(std::ostream& out, const std::string& indent = "  ",
                   std::size_t width = 0) const;
  void render_markdown(std::ostream& out) const;
  void render_csv(std::ostream& out) const;
  void render_html(std::ostream& out) const;  // <table> with <th scope="col">, cells escaped

  [[nodiscard]] const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  // Every cell passed through `f` (a front end's field names in the cells).
  void map_cells(const std::function<std::string(const std::string&)>& f);

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// RFC 4180 quoting: quote a field that holds a comma, quote or newline.
[[nodiscard]] std::string csv_field(const std::string& field);

// Text that Markdown shows as written: \ ` * _ < | escaped (CommonMark 0.30, "Backslash
// escapes"), so that formulas such as b*s*h*e are not emphasis and a cell's '|' does not end it;
// leading spaces dropped, since four of them start an indented code block (CommonMark 4.4).
[[nodiscard]] std::string markdown_text(std::string_view text);

// Display width of UTF-8 text (code points; all our glyphs are single-width).
[[nodiscard]] std::size_t display_width(const std::string& text);

// `line` broken at spaces into lines of at most `width` columns (0: no limit); continuation lines
// are indented two more than the line's own leading spaces. A word longer than a line stays whole,
// but a list of values joined by '|' is broken after a '|'.
[[nodiscard]] std::vector<std::string> wrap_line(const std::string& line, std::size_t width);

}  // namespace tb::report
