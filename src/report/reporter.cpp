// The four reporters behind make_reporter().
#include "trainbudget/report/reporter.hpp"

#include "trainbudget/report/document.hpp"
#include "trainbudget/report/json_output.hpp"

namespace tb::report {
namespace {

class TableReporter final : public Reporter {
 public:
  void estimate(const Estimate& e, std::ostream& out) const override {
    render_text(estimate_document(e), out);
  }
  void devices(const std::vector<Device>& d, std::ostream& out) const override {
    render_text(devices_document(d), out);
  }
  void device(const Device& d, std::ostream& out) const override {
    render_text(device_document(d), out);
  }
  void recipes(double params, std::ostream& out) const override {
    render_text(recipes_document(params), out);
  }
};

class MarkdownReporter final : public Reporter {
 public:
  void estimate(const Estimate& e, std::ostream& out) const override {
    render_markdown(estimate_document(e), out);
  }
  void devices(const std::vector<Device>& d, std::ostream& out) const override {
    render_markdown(devices_document(d), out);
  }
  void device(const Device& d, std::ostream& out) const override {
    render_markdown(device_document(d), out);
  }
  void recipes(double params, std::ostream& out) const override {
    render_markdown(recipes_document(params), out);
  }
};

class JsonReporter final : public Reporter {
 public:
  void estimate(const Estimate& e, std::ostream& out) const override { out << estimate_json(e); }
  void devices(const std::vector<Device>& d, std::ostream& out) const override {
    out << devices_json(d);
  }
  void device(const Device& d, std::ostream& out) const override { out << device_json(d); }
  void recipes(double params, std::ostream& out) const override { out << recipes_json(params); }
};

class CsvReporter final : public Reporter {
 public:
  void estimate(const Estimate& e, std::ostream& out) const override {
    estimate_rows(e).render_csv(out);
  }
  void devices(const std::vector<Device>& d, std::ostream& out) const override {
    device_rows(d).render_csv(out);
  }
  void device(const Device& d, std::ostream& out) const override {
    device_rows({d}).render_csv(out);
  }
  void recipes(double params, std::ostream& out) const override {
    recipe_rows(params).render_csv(out);
  }
};

}  // namespace

std::unique_ptr<Reporter> make_reporter(Format format) {
  switch (format) {
    case Format::kTable:
      return std::make_unique<TableReporter>();
    case Format::kJson:
      return std::make_unique<JsonReporter>();
    case Format::kCsv:
      return std::make_unique<CsvReporter>();
    case Format::kMarkdown:
      return std::make_unique<MarkdownReporter>();
  }
  return std::make_unique<TableReporter>();
}

}  // namespace tb::report
