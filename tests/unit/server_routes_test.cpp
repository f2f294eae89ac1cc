// The web API in-process: each POST answers byte for byte what the CLI's --format json prints
// for the same request (the same views), problems come back as JSON with the field and a 4xx,
// and the page's files and the field tables are served.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trainbudget/report/view.hpp"
#include "trainbudget/server/routes.hpp"

namespace tb::server {
namespace {

const api::Session& session() {
  static const api::Session s{api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}
const Api& api_under_test() {
  static const Api a{session(), std::filesystem::path{TB_TEST_DATA_DIR} / "models"};
  return a;
}

std::string field_of(const HttpResponse& r) {
  return nlohmann::json::parse(r.body)["problems"][0]["field"].get<std::string>();
}

TEST(ServerRoutes, EstimateEqualsTheCliJson) {
  const std::string body =
      R"({"model": "llama-3.1-8b", "method": "lora", "machine": "h100-sxm,rtx-4090"})";
  const HttpResponse r = api_under_test().handle("POST", "/api/estimate", "", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  const api::FieldMap values{
      {"model", "llama-3.1-8b"}, {"method", "lora"}, {"machine", "h100-sxm,rtx-4090"}};
  EXPECT_EQ(r.body, report::json_of(session().estimate(values).estimate));
}

TEST(ServerRoutes, InferAndCompareEqualTheCliJson) {
  const HttpResponse infer = api_under_test().handle(
      "POST", "/api/infer", "",
      R"({"model": "mistral-7b-v0.1", "weights": "q4_k_m", "context": 32768})");
  ASSERT_EQ(infer.status, 200) << infer.body;
  EXPECT_EQ(infer.body, report::json_of(session()
                                            .infer(api::FieldMap{{"model", "mistral-7b-v0.1"},
                                                                 {"weights", "q4_k_m"},
                                                                 {"context", "32768"}})
                                            .estimate));
  const HttpResponse compare =
      api_under_test().handle("POST", "/api/compare", "", R"({"model": "llama-3.1-70b"})");
  ASSERT_EQ(compare.status, 200) << compare.body;
  EXPECT_EQ(
      compare.body,
      report::json_of(session().compare(api::FieldMap{{"model", "llama-3.1-70b"}}).comparison));
}

// A plan whose stop says so (its client left, or it ran past the server's time) ends with 503.
TEST(ServerRoutes, AStoppedPlanIsA503) {
  const std::string body = R"({"model": "llama-3.1-8b", "machine": "h100-sxm", "devices": "8"})";
  const HttpResponse stopped =
      api_under_test().handle("POST", "/api/plan", "", body, [] { return true; });
  EXPECT_EQ(stopped.status, 503);
  EXPECT_NE(stopped.body.find("\"stopped\""), std::string::npos) << stopped.body;
  EXPECT_EQ(api_under_test().handle("POST", "/api/plan", "", body, [] { return false; }).status,
            200);
}

TEST(ServerRoutes, ProblemsNameTheFieldWithA400) {
  HttpResponse r = api_under_test().handle("POST", "/api/estimate", "", R"({"micro_batch": "0"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(field_of(r), "micro_batch");
  r = api_under_test().handle("POST", "/api/estimate", "", R"({"parms": "7B"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("did you mean params?"), std::string::npos) << r.body;
  r = api_under_test().handle("POST", "/api/infer", "",
                              R"({"model": "llama-3.1-8b", "weights": 4})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(field_of(r), "weights");
  r = api_under_test().handle("POST", "/api/estimate", "", "{not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(field_of(r), "request");
  r = api_under_test().handle("POST", "/api/estimate", "", R"({"params": {"nested": 1}})");
  EXPECT_EQ(r.status, 400);
  r = api_under_test().handle("POST", "/api/estimate", "", std::string(kMaxBodyBytes + 1, ' '));
  EXPECT_EQ(r.status, 413);
  r = api_under_test().handle("POST", "/api/nothing", "", "{}");
  EXPECT_EQ(r.status, 404);
  r = api_under_test().handle("DELETE", "/api/estimate", "", "");
  EXPECT_EQ(r.status, 405);
  r = api_under_test().handle("POST", "/api/estimate", "", R"({"machine": "local"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(field_of(r), "machine");
}

// The server reads no path a request names: not a file, not a folder, not whether either exists.
TEST(ServerRoutes, ARequestNamesNoPathOnTheServer) {
  static const api::Session served{
      api::Sources{TB_TEST_DATA_DIR, std::nullopt, false, /*model_paths=*/false}};
  const Api api{served, std::filesystem::path{TB_TEST_DATA_DIR} / "models"};
  for (const char* path : {"/etc/passwd", "/root", "/dev/zero", "./config.json", "../models"}) {
    const HttpResponse r =
        api.handle("POST", "/api/estimate", "", nlohmann::json{{"model", path}}.dump());
    EXPECT_EQ(r.status, 400) << path;
    EXPECT_EQ(field_of(r), "model");
    EXPECT_NE(r.body.find("the server reads no path a request names"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find("config.json in this folder"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find("is a device"), std::string::npos) << r.body;
  }
  const HttpResponse infer = api.handle("POST", "/api/infer", "", R"({"model": "/etc/passwd"})");
  EXPECT_EQ(infer.status, 400);
  // Presets, repo ids and a config.json's text still work.
  EXPECT_EQ(api.handle("POST", "/api/estimate", "", R"({"model": "llama-3.1-8b"})").status, 200);
  EXPECT_EQ(
      api.handle("POST", "/api/estimate", "", R"({"model": "meta-llama/Llama-3.1-8B"})").status,
      200);
  const HttpResponse dir = api.handle("POST", "/api/estimate", "", R"({"hardware_dir": "/etc"})");
  EXPECT_EQ(dir.status, 400);
  EXPECT_EQ(field_of(dir), "hardware_dir");
  // Nor a dataset file to count.
  const HttpResponse data =
      api.handle("POST", "/api/estimate", "", R"({"dataset_file": "/etc/passwd.json"})");
  EXPECT_EQ(data.status, 400);
  EXPECT_EQ(field_of(data), "dataset_file");
}

TEST(ServerRoutes, ServesThePageTheFieldsTheCatalogAndThePresets) {
  HttpResponse r = api_under_test().handle("GET", "/", "", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.content_type.find("text/html"), std::string::npos);
  EXPECT_NE(r.body.find("<script src=\"/app.js\">"), std::string::npos);
  r = api_under_test().handle("GET", "/app.js", "", "");
  EXPECT_NE(r.body.find("/api/fields"), std::string::npos);
  r = api_under_test().handle("GET", "/api/fields", "command=infer", "");
  ASSERT_EQ(r.status, 200);
  const nlohmann::json fields = nlohmann::json::parse(r.body);
  ASSERT_EQ(fields.size(), api::infer_fields().size());
  EXPECT_EQ(fields[0]["key"], "params");
  r = api_under_test().handle("GET", "/api/fields", "command=bogus", "");
  EXPECT_EQ(r.status, 400);
  r = api_under_test().handle("GET", "/api/models", "", "");
  EXPECT_GE(nlohmann::json::parse(r.body).size(), 30U);
  r = api_under_test().handle("GET", "/api/hardware", "", "");
  EXPECT_GE(nlohmann::json::parse(r.body).size(), 40U);
}

// A config.json's text in the model field (the page's paste box) is counted as the file is.
TEST(ServerRoutes, PastedConfigCountsAsTheFile) {
  const std::filesystem::path file =
      std::filesystem::path{TB_TEST_DIR} / "data" / "hf_configs" / "mistral-7b-v0.1.json";
  std::ifstream in{file};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const nlohmann::json request{{"model", text}, {"method", "lora"}};
  const HttpResponse r = api_under_test().handle("POST", "/api/estimate", "", request.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const nlohmann::json pasted = nlohmann::json::parse(r.body);
  const nlohmann::json from_file = nlohmann::json::parse(report::json_of(
      session().estimate(api::FieldMap{{"model", file.string()}, {"method", "lora"}}).estimate));
  EXPECT_EQ(pasted["memory"], from_file["memory"]);
  EXPECT_EQ(pasted["machines"][0]["hours"], from_file["machines"][0]["hours"]);
  EXPECT_EQ(pasted["model"]["params_total"], from_file["model"]["params_total"]);
  const HttpResponse bad =
      api_under_test().handle("POST", "/api/estimate", "", R"({"model": "{\"model_type\": 3}"})");
  EXPECT_EQ(bad.status, 422) << bad.body;
}

TEST(ServerRoutes, AnotherFormatIsRenderedAsAsked) {
  const HttpResponse r =
      api_under_test().handle("POST", "/api/estimate", "", R"({"format": "csv"})");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body.rfind("scenario,method,machine_id", 0), 0U) << r.body.substr(0, 80);
}

}  // namespace
}  // namespace tb::server

namespace tb::server {
namespace {

// docs/serve.md, "Who may call it": only the server's own address as Host, JSON bodies only.
TEST(ServerGuard, RefusesAForeignHostAsDnsRebindingWouldSendIt) {
  EXPECT_FALSE(refuse("GET", {"127.0.0.1:8080", "", ""}, "127.0.0.1", 8080));
  EXPECT_FALSE(refuse("GET", {"LOCALHOST:8080", "", ""}, "127.0.0.1", 8080));
  EXPECT_FALSE(refuse("GET", {"[::1]:8080", "", ""}, "127.0.0.1", 8080));
  EXPECT_FALSE(refuse("GET", {"localhost", "", ""}, "127.0.0.1", 8080));
  EXPECT_FALSE(refuse("GET", {"192.168.1.5:8080", "", ""}, "192.168.1.5", 8080));
  const auto evil = refuse("GET", {"evil.example:8080", "", ""}, "127.0.0.1", 8080);
  ASSERT_TRUE(evil);
  EXPECT_EQ(evil->status, 403);
  EXPECT_NE(evil->body.find("forbidden_host"), std::string::npos);
  // No Host at all, and a wildcard bind that would accept any name.
  EXPECT_EQ(refuse("GET", {"", "", ""}, "127.0.0.1", 8080)->status, 403);
  EXPECT_EQ(refuse("GET", {"evil.example", "", ""}, "0.0.0.0", 8080)->status, 403);
  // The right name on another port is not this server.
  EXPECT_EQ(refuse("GET", {"localhost:9999", "", ""}, "127.0.0.1", 8080)->status, 403);
}

TEST(ServerGuard, APostMustBeUncompressedJson) {
  EXPECT_FALSE(refuse("POST", {"localhost:1", "application/json", ""}, "127.0.0.1", 1));
  EXPECT_FALSE(
      refuse("POST", {"localhost:1", "application/json; charset=utf-8", ""}, "127.0.0.1", 1));
  for (const char* type :
       {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}) {
    const auto no = refuse("POST", {"localhost:1", type, ""}, "127.0.0.1", 1);
    ASSERT_TRUE(no) << type;
    EXPECT_EQ(no->status, 415) << type;
  }
  EXPECT_EQ(refuse("POST", {"localhost:1", "application/json", "gzip"}, "127.0.0.1", 1)->status,
            415);
  // A GET carries no body: its type does not matter.
  EXPECT_FALSE(refuse("GET", {"localhost:1", "", ""}, "127.0.0.1", 1));
}

}  // namespace
}  // namespace tb::server
