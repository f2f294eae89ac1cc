// Catalog entries by id, each read from its text on first use: the compiled-in catalog's
// devices, systems and kernel classes, of which a run touches a few (start-up, README "Speed").
// Safe for const use from several threads: an entry is read once under its own std::once_flag,
// and lookups read only the ids and the keys, never an entry another thread may be writing.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

template <class T>
struct LazySource {
  std::string id;
  std::string_view text;  // static storage
  std::string origin;     // as messages name it: data/hardware/h100-sxm.toml
  T (*read)(std::string_view text, const std::string& origin){nullptr};
  // What lookups match without reading the entry: a system's device, a kernel class's devices
  // (keys) and categories (also). The reader checks they are what the text says.
  std::vector<std::string> keys;
  std::vector<std::string> also;
};

template <class T>
class LazyList {
 public:
  LazyList() = default;
  explicit LazyList(std::vector<LazySource<T>> sources) {
    std::sort(sources.begin(), sources.end(),
              [](const LazySource<T>& a, const LazySource<T>& b) { return a.id < b.id; });
    for (LazySource<T>& s : sources) {
      T placeholder;
      placeholder.id = s.id;
      ids_.push_back(s.id);
      keys_.push_back(s.keys);
      also_.push_back(s.also);
      items_.push_back(std::move(placeholder));
      auto p = std::make_unique<Pending>();
      p->source = std::move(s);
      pending_.push_back(std::move(p));
    }
  }
  // A copy reads every entry first (it shares no reading in progress).
  LazyList(const LazyList& other)
      : ids_(other.ids_), keys_(other.keys_), also_(other.also_), items_(other.all()) {
    pending_.resize(ids_.size());
  }
  LazyList& operator=(const LazyList& other) {
    if (this != &other) *this = LazyList(other);
    return *this;
  }
  LazyList(LazyList&&) noexcept = default;
  LazyList& operator=(LazyList&&) noexcept = default;
  ~LazyList() = default;

  // Adds or replaces (same id) an entry that is already read.
  void put(T item, std::vector<std::string> keys = {}, std::vector<std::string> also = {}) {
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), item.id);
    const auto i = it - ids_.begin();
    if (it != ids_.end() && *it == item.id) {
      const auto u = static_cast<std::size_t>(i);
      items_[u] = std::move(item);
      keys_[u] = std::move(keys);
      also_[u] = std::move(also);
      pending_[u].reset();
    } else {
      ids_.insert(it, item.id);
      keys_.insert(keys_.begin() + i, std::move(keys));
      also_.insert(also_.begin() + i, std::move(also));
      items_.insert(items_.begin() + i, std::move(item));
      pending_.insert(pending_.begin() + i, nullptr);
    }
  }

  [[nodiscard]] std::size_t size() const { return ids_.size(); }
  [[nodiscard]] const std::vector<std::string>& ids() const { return ids_; }  // sorted
  [[nodiscard]] const std::vector<std::string>& keys(std::size_t i) const { return keys_[i]; }
  [[nodiscard]] const std::vector<std::string>& also(std::size_t i) const { return also_[i]; }
  // The index of `id`, or size() when unknown.
  [[nodiscard]] std::size_t slot(std::string_view id) const {
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    return it != ids_.end() && *it == id ? static_cast<std::size_t>(it - ids_.begin())
                                         : ids_.size();
  }
  // The entry at `i`, read now if it was pending. A reading that throws leaves it pending: the
  // next use reads (and throws) again.
  [[nodiscard]] const T& at(std::size_t i) const {
    if (pending_[i] != nullptr) {
      Pending& p = *pending_[i];
      std::call_once(p.once, [&] { items_[i] = p.source.read(p.source.text, p.source.origin); });
    }
    return items_[i];
  }
  [[nodiscard]] const T* find(std::string_view id) const {
    const std::size_t i = slot(id);
    return i < ids_.size() ? &at(i) : nullptr;
  }
  // Every entry, each read.
  [[nodiscard]] const std::vector<T>& all() const {
    for (std::size_t i = 0; i < ids_.size(); ++i) (void)at(i);
    return items_;
  }

 private:
  struct Pending {
    LazySource<T> source;
    std::once_flag once;
  };
  std::vector<std::string> ids_;
  std::vector<std::vector<std::string>> keys_;
  std::vector<std::vector<std::string>> also_;
  mutable std::vector<T> items_;                   // beside ids_; a pending one holds only its id
  std::vector<std::unique_ptr<Pending>> pending_;  // beside ids_; null once read or put
};

}  // namespace tb
