// Human log on stdout, printed by rank 0 only.
#pragma once

#include <cstdarg>
#include <cstdio>

namespace cyclocc::par {

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
};

}  // namespace cyclocc::par
