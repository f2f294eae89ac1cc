"""GRPO completions of varied lengths for realstep.py: each row's quantile of the maximum-entropy
lengths on [1, cap] with a given mean (a truncated exponential, as trainbudget's
CompletionLengths takes them, src/model/completion_lengths.cpp)."""
import math


def mean_fraction(u):
    """The mean of exp(-u x) on [0, 1]: 1/u - 1/(e^u - 1), 1/2 at u = 0."""
    if abs(u) < 1e-6:
        return 0.5 - u / 12.0
    if u > 700.0:
        return 1.0 / u
    return 1.0 / u - 1.0 / math.expm1(u)


def completion_lengths(rows, mean, cap):
    """The (i + 1/2) / rows quantiles of the lengths, or every row at the cap when mean is 0 or
    reaches it."""
    if mean <= 0 or mean >= cap:
        return [cap] * rows
    lo, hi = (-1e3, 0.0) if mean / cap > 0.5 else (1e-9, 1e6)
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if mean_fraction(mid) > mean / cap else (lo, mid)
    u = (lo + hi) / 2.0
    lengths = []
    for i in range(rows):
        # P(length <= x cap) = (1 - e^{-u x}) / (1 - e^{-u}), inverted at (i + 1/2) / rows.
        q = (i + 0.5) / rows
        x = -math.log1p(q * math.expm1(-u)) / u if abs(u) > 1e-9 else q
        lengths.append(max(1, min(cap, round(x * cap))))
    return lengths
