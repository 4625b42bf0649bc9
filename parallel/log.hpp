// Human log on stdout, printed by rank 0 only.
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cyclocc::par {

// "1 iteration", "3 iterations".
inline std::string count_of(long n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

class Log {
 public:
  Log(bool enabled, bool verbose) : enabled_(enabled), verbose_(verbose) {}
  bool enabled() const { return enabled_; }
  bool verbose() const { return verbose_ && enabled_; }
  // printf-style; a newline is not added.
  void print(const char* fmt, ...) const __attribute__((format(printf, 2, 3))) {
    if (!enabled_) return;
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stdout, fmt, args);
    va_end(args);
    std::fflush(stdout);
  }
  // printf-style text of one line, printed as "warning: TEXT" and kept
  // (without its newline) for the results file's extras.warnings.
  void warning(const char* fmt, ...) const __attribute__((format(printf, 2, 3))) {
    if (!enabled_) return;
    va_list args;
    va_start(args, fmt);
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, fmt, args);
    std::string text(static_cast<std::size_t>(std::max(length, 0)), '\0');
    if (length > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, again);
    va_end(again);
    va_end(args);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    std::fprintf(stdout, "warning: %s\n", text.c_str());
    std::fflush(stdout);
    warnings_.push_back(std::move(text));
    if (on_warning_) on_warning_();
  }
  // Called after each warning is kept (where the log prints: rank 0). It
  // must not throw, and must not wait on the other ranks.
  void on_warning(std::function<void()> f) { on_warning_ = std::move(f); }
  // The warnings printed so far, in order (rank 0; none on the others).
  const std::vector<std::string>& warnings() const { return warnings_; }
  void detail(const char* fmt, ...) const __attribute__((format(printf, 2, 3))) {
    if (!verbose()) return;
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stdout, fmt, args);
    va_end(args);
    std::fflush(stdout);
  }

 private:
  bool enabled_;
  bool verbose_;
  // What was printed, like the stream itself: a const Log still prints.
  mutable std::vector<std::string> warnings_;
  std::function<void()> on_warning_;
};

}  // namespace cyclocc::par
