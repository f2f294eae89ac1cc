// The HTTP/1.1 server around the Api (docs/serve.md): one event loop (poll) reads every
// connection, whole requests go to a worker lane, answers are written by the worker, kept-alive
// connections come back to the loop. Limits as http_server.hpp lists them.
#include "trainbudget/server/http_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "trainbudget/server/http_request.hpp"

namespace tb::server {
namespace {

using Clock = std::chrono::steady_clock;

std::string_view reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Status";
  }
}

std::string serialize(const HttpResponse& r, bool keep_alive) {
  std::string out = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: {}\r\n"
      // The page and the API are one origin; nothing is to be sniffed or cached.
      "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n",
      r.status, reason(r.status), r.content_type, r.body.size(),
      keep_alive ? "keep-alive" : "close");
  for (const auto& [key, value] : r.headers) out += key + ": " + value + "\r\n";
  out += "\r\n";
  out += r.body;
  return out;
}

std::string_view kind_of(int status) {
  switch (status) {
    case 408:
      return "request_timeout";
    case 411:
      return "length_required";
    case 413:
      return "too_large";
    case 431:
      return "header_too_large";
    case 501:
      return "not_implemented";
    case 503:
      return "busy";
    case 505:
      return "version_not_supported";
    default:
      return "bad_request";
  }
}

// Sends all of `bytes` on a non-blocking socket, waiting for room until `deadline`.
bool send_all(int fd, std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, static_cast<int>(left)) < 0 && errno != EINTR) return false;
      continue;
    }
    return false;
  }
  return true;
}

// A client that closed its end while its request waited for a worker is not answered.
bool gone(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

struct Connection {
  int fd{-1};
  std::string in;  // the request being read and whatever followed it
  std::optional<RequestHead> head;
  std::size_t head_bytes{0};  // the head and its blank line
  std::size_t body_bytes{0};  // by Content-Length
  bool chunked{false};
  std::size_t reserved{0};  // counted against max_buffered_bytes
  bool reading{false};      // a request has begun
  bool draining{false};     // answered with an error: what the client still sends is discarded
  std::size_t drained{0};
  Clock::time_point deadline;
};

struct Job {
  Connection connection;
  RequestHead head;
  std::string body;
};

// Workers over a bounded queue; push() says false when the queue is full.
class Lane {
 public:
  Lane(std::size_t workers, std::size_t max_queued, std::function<void(Job&&)> work)
      : max_queued_{max_queued}, work_{std::move(work)} {
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
  }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;
  ~Lane() {
    {
      const std::lock_guard lock{mutex_};
      stop_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  bool push(Job&& job) {
    {
      const std::lock_guard lock{mutex_};
      if (queue_.size() >= max_queued_) return false;
      queue_.push_back(std::move(job));
    }
    ready_.notify_one();
    return true;
  }

 private:
  void loop() {
    for (;;) {
      std::unique_lock lock{mutex_};
      ready_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      work_(std::move(job));
    }
  }

  std::size_t max_queued_;
  std::function<void(Job&&)> work_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool stop_{false};
  std::vector<std::thread> threads_;
};

class Server {
 public:
  Server(const Api& api, const ServeOptions& options, int listener, int port)
      : api_{api},
        options_{options},
        listener_{listener},
        port_{port},
        light_{options.light_workers, options.max_queued, [this](Job&& j) { work(std::move(j)); }},
        compute_{options.compute_workers, options.max_queued,
                 [this](Job&& j) { work(std::move(j)); }},
        heavy_{options.heavy_workers, options.max_queued, [this](Job&& j) { work(std::move(j)); }} {
  }

  bool start() { return ::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) == 0; }
  [[noreturn]] void run();

 private:
  void accept_all();
  void read_from(int fd);
  void advance(Connection& c);
  void dispatch(Connection& c, std::string body, std::size_t consumed);
  void reject(Connection& c, const HttpResponse& r);
  void reject(Connection& c, int status, std::string message) {
    reject(c, problem_response(status, kind_of(status), {{"", std::move(message), ""}}));
  }
  // An error answered while the client may still be sending its body: the answer, then the
  // sending side shut and the rest read and discarded until the client closes (or 2 s, or 8 MiB),
  // so the client reads the answer instead of a reset (RFC 9112 sec. 9.6, "tear-down").
  void reject_lingering(Connection& c, const HttpResponse& r);
  void reject_lingering(Connection& c, int status, std::string message) {
    reject_lingering(c, problem_response(status, kind_of(status), {{"", std::move(message), ""}}));
  }
  void close_connection(Connection& c);
  void work(Job&& job);
  void take_back();

  const Api& api_;
  ServeOptions options_;
  int listener_;
  int port_;
  int wake_[2]{-1, -1};
  std::unordered_map<int, Connection> reading_;  // the loop's own
  std::atomic<std::size_t> open_{0};             // every connection, reading or at a worker
  std::atomic<std::size_t> buffered_{0};
  std::mutex back_mutex_;
  std::vector<Connection> back_;  // kept-alive connections a worker gives back
  Lane light_;
  Lane compute_;
  Lane heavy_;
};

void Server::close_connection(Connection& c) {
  if (c.fd < 0) return;
  ::close(c.fd);
  c.fd = -1;
  buffered_ -= c.reserved;
  c.reserved = 0;
  --open_;
}

void Server::reject(Connection& c, const HttpResponse& r) {
  // Best effort: an error fits the socket's buffer; a client that does not read it loses it.
  const std::string bytes = serialize(r, false);
  (void)::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  close_connection(c);
}

void Server::reject_lingering(Connection& c, const HttpResponse& r) {
  const std::string bytes = serialize(r, false);
  (void)::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(c.fd, SHUT_WR);
  buffered_ -= c.reserved;
  c.reserved = 0;
  c.in.clear();
  c.head.reset();
  c.draining = true;
  c.deadline = Clock::now() + std::chrono::seconds{2};
}

void Server::accept_all() {
  for (;;) {
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    ++open_;
    Connection c;
    c.fd = fd;
    if (open_ > options_.max_connections) {
      reject(
          c, 503,
          fmt::format("the server holds its {} connections; try again", options_.max_connections));
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c.deadline = Clock::now() + std::chrono::seconds{options_.idle_seconds};
    reading_.emplace(fd, std::move(c));
  }
}

void Server::read_from(int fd) {
  const auto it = reading_.find(fd);
  if (it == reading_.end()) return;
  Connection& c = it->second;
  char chunk[16384];
  for (int round = 0; round < 8; ++round) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0 && c.draining) {
      c.drained += static_cast<std::size_t>(n);
      if (c.drained > (8U << 20)) break;
      continue;
    }
    if (n > 0) {
      c.in.append(chunk, static_cast<std::size_t>(n));
      // Never much more than one whole request and one head beyond it.
      const std::size_t body = c.chunked ? 2 * kMaxBodyBytes : c.body_bytes;
      if (c.in.size() > c.head_bytes + body + kMaxHeadBytes + 4) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    close_connection(c);  // closed by the client, or broken
    reading_.erase(it);
    return;
  }
  if (c.draining) {
    if (c.drained > (8U << 20)) {
      close_connection(c);
      reading_.erase(it);
    }
    return;
  }
  advance(c);
  if (c.fd < 0) reading_.erase(fd);
}

// Reads as much of the request as has arrived: the head once its blank line is there (checked
// before any body is kept), then the body up to its length; a whole request is dispatched.
void Server::advance(Connection& c) {
  if (!c.head) {
    while (c.in.starts_with("\r\n")) c.in.erase(0, 2);  // RFC 9112 sec. 2.2
    if (c.in.empty()) return;
    if (!c.reading) {
      c.reading = true;
      c.deadline = Clock::now() + std::chrono::seconds{options_.request_seconds};
    }
    const std::size_t end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (c.in.size() > kMaxHeadBytes + 4) {
        reject_lingering(
            c, 431,
            fmt::format("the request head is larger than the {} KiB a request may send",
                        kMaxHeadBytes / 1024));
      }
      return;
    }
    auto parsed = parse_request_head(std::string_view{c.in}.substr(0, end));
    if (auto* e = std::get_if<HeadError>(&parsed)) {
      return reject_lingering(c, e->status, e->message);
    }
    RequestHead head = std::move(std::get<RequestHead>(parsed));
    if (const auto no =
            refuse(head.method,
                   {head.field("host"), head.field("content-type"), head.field("content-encoding")},
                   options_.host, port_)) {
      return reject_lingering(c, *no);
    }
    const auto framing = body_framing(head, kMaxBodyBytes);
    if (const auto* e = std::get_if<HeadError>(&framing)) {
      return reject_lingering(c, e->status, e->message);
    }
    c.head_bytes = end + 4;
    c.chunked = std::get<BodyFraming>(framing).chunked;
    c.body_bytes = std::get<BodyFraming>(framing).length;
    c.reserved = c.head_bytes + (c.chunked ? kMaxBodyBytes : c.body_bytes);
    if ((buffered_ += c.reserved) > options_.max_buffered_bytes) {
      return reject_lingering(c, 503,
                              "the server holds as many request bodies as it may; try again");
    }
    const bool body_pending = c.chunked || c.in.size() < c.head_bytes + c.body_bytes;
    if (body_pending && head.field("expect") == "100-continue") {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      (void)::send(c.fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    c.head = std::move(head);
  }
  if (c.chunked) {
    auto read = read_chunked(std::string_view{c.in}.substr(c.head_bytes), kMaxBodyBytes);
    if (const auto* e = std::get_if<HeadError>(&read)) {
      return reject_lingering(c, e->status, e->message);
    }
    ChunkedBody& body = std::get<ChunkedBody>(read);
    if (body.whole) dispatch(c, std::move(body.body), c.head_bytes + body.consumed);
  } else if (c.in.size() >= c.head_bytes + c.body_bytes) {
    dispatch(c, c.in.substr(c.head_bytes, c.body_bytes), c.head_bytes + c.body_bytes);
  }
}

void Server::dispatch(Connection& c, std::string body, std::size_t consumed) {
  Job job;
  job.head = std::move(*c.head);
  job.body = std::move(body);
  c.in.erase(0, consumed);
  c.head.reset();
  c.head_bytes = c.body_bytes = 0;
  c.chunked = false;
  c.reading = false;
  const bool post = job.head.method == "POST";
  const bool heavy = post && (job.head.path == "/api/plan" || job.head.path == "/api/compare");
  Lane& lane = heavy ? heavy_ : post ? compute_ : light_;
  job.connection = std::move(c);
  c.fd = -1;
  // push() leaves the job as it was when the lane is full.
  if (!lane.push(std::move(job))) {
    reject(job.connection, 503,
           fmt::format("{} requests wait already; try again", options_.max_queued));
  }
}

void Server::work(Job&& job) {
  Connection& c = job.connection;
  if (gone(c.fd)) return close_connection(c);
  HttpResponse r;
  // A plan stops between chunks of layouts when its client has gone or its time is up.
  const Clock::time_point until = Clock::now() + std::chrono::seconds{options_.work_seconds};
  const int fd = c.fd;
  const plan::Stop stop = [fd, until] { return gone(fd) || Clock::now() > until; };
  try {
    r = api_.handle(job.head.method, job.head.path, job.head.query, job.body, stop);
    if (r.status == 503 && gone(fd)) return close_connection(c);
  } catch (...) {
    r = problem_response(500, "internal_error", {{"", "the handler failed", ""}});
  }
  const bool keep = job.head.keep_alive();
  const bool sent = send_all(c.fd, serialize(r, keep),
                             Clock::now() + std::chrono::seconds{options_.write_timeout_seconds});
  buffered_ -= c.reserved;
  c.reserved = 0;
  if (!sent || !keep) return close_connection(c);
  {
    const std::lock_guard lock{back_mutex_};
    back_.push_back(std::move(c));
  }
  const char one = 1;
  (void)::write(wake_[1], &one, 1);
}

void Server::take_back() {
  char drain[64];
  while (::read(wake_[0], drain, sizeof drain) > 0) {
  }
  std::vector<Connection> back;
  {
    const std::lock_guard lock{back_mutex_};
    back.swap(back_);
  }
  for (Connection& c : back) {
    c.deadline = Clock::now() + std::chrono::seconds{options_.idle_seconds};
    const int fd = c.fd;
    Connection& kept = reading_.emplace(fd, std::move(c)).first->second;
    advance(kept);  // a pipelined request may be whole already
    if (kept.fd < 0) reading_.erase(fd);
  }
}

void Server::run() {
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    fds.push_back({listener_, POLLIN, 0});
    fds.push_back({wake_[0], POLLIN, 0});
    auto next = Clock::now() + std::chrono::seconds{1};
    for (const auto& [fd, c] : reading_) {
      fds.push_back({fd, POLLIN, 0});
      next = std::min(next, c.deadline);
    }
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(wait, 0) + 1)) < 0 &&
        errno != EINTR) {
      continue;
    }
    if (fds[1].revents != 0) take_back();
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents != 0) read_from(fds[i].fd);
    }
    if (fds[0].revents != 0) accept_all();
    const auto now = Clock::now();
    for (auto it = reading_.begin(); it != reading_.end();) {
      Connection& c = it->second;
      if (c.deadline > now) {
        ++it;
        continue;
      }
      if (c.reading) {
        reject(
            c, 408,
            fmt::format("the request did not arrive whole within {} s", options_.request_seconds));
      } else {
        close_connection(c);  // an idle kept-alive connection
      }
      it = reading_.erase(it);
    }
  }
}

// A listening socket on host:port (port 0: any free one); -1 when it cannot be bound.
int listen_on(const std::string& host, int& port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0) {
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 512) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) return -1;
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size) == 0) {
    port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  return fd;
}

}  // namespace

bool serve(const Api& api, const ServeOptions& options,
           const std::function<void(int port)>& on_listen) {
  int port = options.port;
  const int listener = listen_on(options.host, port);
  if (listener < 0) return false;
  Server server{api, options, listener, port};
  if (!server.start()) return false;
  on_listen(port);
  server.run();
}

}  // namespace tb::server
