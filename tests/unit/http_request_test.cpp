// The server's request heads (server/http_request.cpp): what is read, and every limit.
#include "trainbudget/server/http_request.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tb::server {
namespace {

RequestHead ok(std::string_view head) {
  auto parsed = parse_request_head(head);
  EXPECT_TRUE(std::holds_alternative<RequestHead>(parsed)) << std::get<HeadError>(parsed).message;
  return std::get<RequestHead>(parsed);
}

HeadError error(std::string_view head) {
  auto parsed = parse_request_head(head);
  EXPECT_TRUE(std::holds_alternative<HeadError>(parsed));
  return std::holds_alternative<HeadError>(parsed) ? std::get<HeadError>(parsed) : HeadError{};
}

TEST(HttpRequest, ReadsTheRequestLineAndFields) {
  const RequestHead h =
      ok("POST /api/estimate?command=in%66er+x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
         "Content-Type:  application/json \r\nContent-Length: 12");
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.path, "/api/estimate");
  EXPECT_EQ(h.query, "command=infer x");
  EXPECT_EQ(h.field("host"), "127.0.0.1:8080");
  EXPECT_EQ(h.field("content-type"), "application/json");
  EXPECT_EQ(h.field("nothing"), "");
  EXPECT_TRUE(h.keep_alive());
  EXPECT_EQ(std::get<BodyFraming>(body_framing(h, 100)).length, 12U);
}

TEST(HttpRequest, KeepAliveFollowsTheVersionAndConnection) {
  EXPECT_FALSE(ok("GET / HTTP/1.1\r\nConnection: Close").keep_alive());
  EXPECT_FALSE(ok("GET / HTTP/1.0").keep_alive());
  EXPECT_TRUE(ok("GET / HTTP/1.0\r\nConnection: keep-alive").keep_alive());
}

TEST(HttpRequest, RefusesMalformedHeads) {
  EXPECT_EQ(error("GET /\r\nHost: x").status, 400);
  EXPECT_EQ(error("GET  / HTTP/1.1").status, 400);
  EXPECT_EQ(error("GET x HTTP/1.1").status, 400);
  EXPECT_EQ(error("G(T / HTTP/1.1").status, 400);
  EXPECT_EQ(error("GET / HTTP/2.0").status, 505);
  EXPECT_EQ(error("GET / HTTP/1.1\r\nno colon").status, 400);
  EXPECT_EQ(error("GET / HTTP/1.1\r\nBad Name: x").status, 400);
  const HeadError control = error(std::string{"GET / HTTP/1.1\r\nX: a\x01"} + "b");
  EXPECT_EQ(control.status, 400);
  EXPECT_EQ(control.message, "the header 'X' holds a control character");
}

TEST(HttpRequest, BoundsTheHeadBeforeKeepingIt) {
  std::string many = "GET / HTTP/1.1";
  for (std::size_t i = 0; i < kMaxHeaderFields; ++i) many += "\r\nX-" + std::to_string(i) + ": 1";
  EXPECT_EQ(ok(many).fields.size(), kMaxHeaderFields);
  const HeadError flood = error(many + "\r\nOne-More: 1");
  EXPECT_EQ(flood.status, 431);
  EXPECT_EQ(flood.message, "a request may send at most 64 header fields");
  EXPECT_EQ(error("GET / HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes, 'a')).status, 431);
}

std::size_t length_of(std::string_view head, std::size_t max) {
  return std::get<BodyFraming>(body_framing(ok(head), max)).length;
}
int refused(std::string_view head, std::size_t max) {
  return std::get<HeadError>(body_framing(ok(head), max)).status;
}

TEST(HttpRequest, BodyFramingIsAContentLengthWithinTheCapOrChunked) {
  EXPECT_EQ(length_of("GET / HTTP/1.1", 10), 0U);
  EXPECT_EQ(length_of("POST / HTTP/1.1\r\nContent-Length: 10", 10), 10U);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: 11", 10), 413);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999", 10), 413);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: -1", 10), 400);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2", 10), 400);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked", 10), 501);
  EXPECT_EQ(refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1", 10), 400);
  EXPECT_TRUE(
      std::get<BodyFraming>(body_framing(ok("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked"), 10))
          .chunked);
}

TEST(HttpRequest, ReadsAChunkedBodyAsItArrives) {
  const std::string whole = "4\r\n{\"a\"\r\n2;ext=1\r\n:1\r\n1\r\n}\r\n0\r\n\r\nGET";
  const auto read = [](std::string_view raw, std::size_t max = 100) {
    return std::get<ChunkedBody>(read_chunked(raw, max));
  };
  const ChunkedBody done = read(whole);
  EXPECT_TRUE(done.whole);
  EXPECT_EQ(done.body, "{\"a\":1}");
  EXPECT_EQ(done.consumed, whole.size() - 3);  // the next request's bytes are left
  for (std::size_t n = 0; n + 3 < whole.size(); ++n) {
    EXPECT_FALSE(read(whole.substr(0, n)).whole) << n;
  }
  EXPECT_TRUE(read("0\r\nX-Trailer: 1\r\n\r\n").whole);
  EXPECT_EQ(std::get<HeadError>(read_chunked("zz\r\n", 100)).status, 400);
  EXPECT_EQ(std::get<HeadError>(read_chunked("2\r\nabc\r\n", 100)).status, 400);
  EXPECT_EQ(std::get<HeadError>(read_chunked("65\r\n", 100)).status, 413);
  EXPECT_EQ(std::get<HeadError>(read_chunked("ffffffffffffffffffffff\r\n", 100)).status, 413);
  EXPECT_EQ(
      std::get<HeadError>(read_chunked("60\r\n" + std::string(96, 'a') + "\r\n8\r\n", 100)).status,
      413);
}

TEST(HttpRequest, PercentDecoding) {
  EXPECT_EQ(percent_decode("a%2Fb+c%zz%4"), "a/b c%zz%4");
  EXPECT_EQ(percent_decode(""), "");
}

}  // namespace
}  // namespace tb::server
