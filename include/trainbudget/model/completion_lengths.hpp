// How long a batch's completions run when only their mean and their cap are known (docs/rl.md,
// "Which length prices what"): the maximum-entropy distribution on [0, cap] with that mean, a
// truncated exponential (Jaynes 1957, "Information Theory and Statistical Mechanics": the
// density of greatest entropy under a mean constraint on a bounded interval is exp(-lambda x)
// normalised there). It falls from 0 when the mean is below cap / 2, is flat at cap / 2 and
// rises toward the cap above it, as GRPO's long-reasoning runs do when many completions hit
// max_completion_length. No run's lengths set it: it is what the two published figures allow.
#pragma once

#include <cstdint>

namespace tb {

class CompletionLengths {
 public:
  // `mean` and `cap` in tokens; a mean at or past the cap puts every completion at the cap.
  CompletionLengths(double mean, double cap);

  [[nodiscard]] double mean() const noexcept { return mean_; }
  [[nodiscard]] double cap() const noexcept { return cap_; }
  // The rate of the exponential (per token; negative when the density rises toward the cap).
  [[nodiscard]] double rate() const noexcept { return rate_; }
  // P(length > t), for t in [0, cap].
  [[nodiscard]] double survival(double t) const noexcept;
  // The most tokens a batch of `batch` completions holds at once when each keeps its prompt and
  // what it has generated until it ends: max over t of batch x P(length > t) x (prompt + t).
  [[nodiscard]] double peak_held(std::int64_t batch, double prompt) const noexcept;

 private:
  double mean_;
  double cap_;
  double rate_{0.0};
  bool at_cap_{false};
};

}  // namespace tb
