#include "parallel/process_start.hpp"

#include <gnu/libc-version.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>

namespace cyclocc::par {

namespace {

constexpr const char* kHugeTunable = "glibc.malloc.hugetlb";
// Set to the pid by start_again_with: the process started again never
// starts again (a loader or a security mode may drop what it set).
constexpr const char* kStartedAgain = "CYCLOCC_STARTED_AGAIN";

bool same_file(const std::string& path, const struct stat& file) {
  struct stat s {};
  return !path.empty() && stat(path.c_str(), &s) == 0 && s.st_dev == file.st_dev && s.st_ino == file.st_ino;
}

// The path that starts the program's file again (start_again_with), or ""
// when it cannot be known. The path the kernel ran (AT_EXECFN) when it still
// names the same file: the process's name comes from it, a link's name
// included (ps, pkill -x). Else the file /proc/self/exe links to.
std::string path_to_self() {
  char target[4096];
  const ssize_t n = readlink("/proc/self/exe", target, sizeof target - 1);
  if (n <= 0) return "";
  target[n] = '\0';
  struct stat self {};
  if (stat(target, &self) != 0) return "";
  const char* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
  const std::string ran = execfn ? execfn : "";
  // A descriptor's path (fexecve: /dev/fd/3) would name the process "3".
  const bool descriptor = ran.rfind("/dev/fd/", 0) == 0 || ran.rfind("/proc/", 0) == 0;
  return !descriptor && same_file(ran, self) ? ran : target;
}

// Cases where an exec would not run the same program the same way.
bool must_not_start_again() {
  // Run by the dynamic loader (ld.so PROGRAM: /proc/self/exe is the loader,
  // and argv would lose the program's name): no interpreter was loaded for it.
  if (getauxval(AT_BASE) == 0) return true;
  // Raised privileges (setuid, file capabilities): glibc drops GLIBC_TUNABLES.
  if (getauxval(AT_SECURE) != 0) return true;
  // Valgrind runs a program through its preloaded core, and an exec would
  // leave it (unless it traces children).
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload && std::string(preload).find("vgpreload") != std::string::npos) return true;
  const char* again = std::getenv(kStartedAgain);
  return again && std::to_string(getpid()) == again;
}

// glibc 2.35 and later know glibc.malloc.hugetlb.
bool glibc_has_hugetlb() {
  int major = 0, minor = 0;
  return std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) == 2 && (major > 2 || (major == 2 && minor >= 35));
}

std::string thp_mode() {
  std::string mode;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
  return mode;
}

// Whether the kernel's mode (thp_mode) is `m`, e.g. "madvise".
bool mode_is(const std::string& mode, const std::string& m) { return mode.find("[" + m + "]") != std::string::npos; }

// Whether this process may have transparent huge pages (prctl
// PR_SET_THP_DISABLE, inherited, says no: /proc/self/status THP_enabled 0).
bool thp_allowed_here() {
  std::ifstream status("/proc/self/status");
  if (!status) return false;  // unreadable (no /proc): not known to be allowed
  for (std::string line; std::getline(status, line);)
    if (line.rfind("THP_enabled:", 0) == 0) return line.find('1') != std::string::npos;
  return true;  // a kernel without the field
}

// Whether malloc that asks can have huge pages in this process at all.
bool huge_pages_possible() { return glibc_has_hugetlb() && thp_allowed_here(); }

}  // namespace

std::optional<std::string> hugetlb_setting(const char* tunables) {
  std::optional<std::string> value;
  const std::string all = tunables ? tunables : "";
  const std::string name = std::string(kHugeTunable) + "=";
  for (std::size_t at = 0; at <= all.size();) {
    const std::size_t end = std::min(all.find(':', at), all.size());
    const std::string entry = all.substr(at, end - at);
    if (entry.rfind(name, 0) == 0) value = entry.substr(name.size());  // the last one counts
    at = end + 1;
  }
  return value;
}

void start_again_with(char** argv, const EnvSettings& settings, const std::function<void()>& before_restart) {
  if (settings.empty() || must_not_start_again()) return;
  const std::string self = path_to_self();
  if (self.empty()) return;
  EnvSettings all = settings;
  all.emplace_back(kStartedAgain, std::to_string(getpid()));
  std::vector<std::optional<std::string>> was;
  for (const auto& [name, value] : all) {
    const char* old = std::getenv(name.c_str());
    was.push_back(old ? std::optional<std::string>(old) : std::nullopt);
  }
  bool set = true;
  for (const auto& [name, value] : all) set = set && setenv(name.c_str(), value.c_str(), 1) == 0;
  if (set) {
    if (before_restart) before_restart();
    execv(self.c_str(), argv);
  }
  // Not started again: go on in the environment as it was.
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (was[i]) setenv(all[i].first.c_str(), was[i]->c_str(), 1);
    else unsetenv(all[i].first.c_str());
  }
}

std::string huge_page_tunables(const char* tunables, const std::string& thp_enabled) {
  if (!mode_is(thp_enabled, "madvise") || hugetlb_setting(tunables)) return "";
  const std::string now = tunables ? tunables : "";
  return (now.empty() ? "" : now + ":") + kHugeTunable + "=1";
}

EnvSettings huge_page_settings() {
  if (!huge_pages_possible()) return {};
  const std::string value = huge_page_tunables(std::getenv("GLIBC_TUNABLES"), thp_mode());
  if (value.empty()) return {};
  return {{"GLIBC_TUNABLES", value}};
}

std::string huge_pages_note() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const auto value = hugetlb_setting(tunables);
  if (!value || *value != "1" || !huge_pages_possible()) return "";
  const std::string mode = thp_mode();
  if (!mode_is(mode, "madvise") && !mode_is(mode, "always")) return "";
  return "memory: malloc on transparent huge pages (GLIBC_TUNABLES=" + std::string(tunables) + ")";
}

}  // namespace cyclocc::par
