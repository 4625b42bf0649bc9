#include "parallel/process_start.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

namespace cyclocc::par {

namespace {

constexpr const char* kHugeTunable = "glibc.malloc.hugetlb";

bool is_loader(const std::string& path) {
  const std::string base = path.substr(path.find_last_of('/') + 1);
  return base.rfind("ld-", 0) == 0 || base.rfind("ld.so", 0) == 0 || base.rfind("ld64.so", 0) == 0;
}

bool same_file(const std::string& path, const struct stat& file) {
  struct stat s {};
  return stat(path.c_str(), &s) == 0 && s.st_dev == file.st_dev && s.st_ino == file.st_ino;
}

// The path that starts the program's file again (start_again_with), or ""
// when it cannot be known or this process is the dynamic loader running it
// (/proc/self/exe is then ld.so).
std::string path_to_self(const char* argv0) {
  char target[4096];
  const ssize_t n = readlink("/proc/self/exe", target, sizeof target - 1);
  if (n <= 0) return "";
  target[n] = '\0';
  struct stat self {};
  if (is_loader(target) || stat(target, &self) != 0) return "";
  const std::string name = argv0 ? argv0 : "";
  if (name.find('/') != std::string::npos) return same_file(name, self) ? name : target;
  const char* path = name.empty() ? nullptr : std::getenv("PATH");
  for (std::string dirs = path ? path : ""; !dirs.empty();) {
    const std::size_t colon = std::min(dirs.find(':'), dirs.size());
    const std::string dir = colon == 0 ? "." : dirs.substr(0, colon);
    dirs.erase(0, colon + 1);
    if (same_file(dir + "/" + name, self)) return dir + "/" + name;
  }
  return target;
}

// Valgrind runs a program through its preloaded core, and an exec would
// leave it (unless it traces children): the program runs on as it is.
bool under_valgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload && std::string(preload).find("vgpreload") != std::string::npos;
}

}  // namespace

void start_again_with(char** argv, const EnvSettings& settings, const std::function<void()>& before_restart) {
  if (settings.empty() || under_valgrind()) return;
  const std::string self = path_to_self(argv[0]);
  if (self.empty()) return;
  std::vector<std::optional<std::string>> was;
  for (const auto& [name, value] : settings) {
    const char* old = std::getenv(name.c_str());
    was.push_back(old ? std::optional<std::string>(old) : std::nullopt);
  }
  bool set = true;
  for (const auto& [name, value] : settings) set = set && setenv(name.c_str(), value.c_str(), 1) == 0;
  if (set) {
    if (before_restart) before_restart();
    execv(self.c_str(), argv);
  }
  // Not started again: go on in the environment as it was.
  for (std::size_t i = 0; i < settings.size(); ++i) {
    if (was[i]) setenv(settings[i].first.c_str(), was[i]->c_str(), 1);
    else unsetenv(settings[i].first.c_str());
  }
}

std::string huge_page_tunables(const char* tunables, const std::string& thp_enabled) {
  if (thp_enabled.find("[madvise]") == std::string::npos) return "";
  const std::string now = tunables ? tunables : "";
  if (now.find(kHugeTunable) != std::string::npos) return "";
  return (now.empty() ? "" : now + ":") + kHugeTunable + "=1";
}

EnvSettings huge_page_settings() {
  std::string mode;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
  const std::string value = huge_page_tunables(std::getenv("GLIBC_TUNABLES"), mode);
  if (value.empty()) return {};
  return {{"GLIBC_TUNABLES", value}};
}

std::string huge_pages_note() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!tunables || std::string(tunables).find(std::string(kHugeTunable) + "=1") == std::string::npos) return "";
  return "memory: malloc on transparent huge pages (GLIBC_TUNABLES=" + std::string(tunables) + ")";
}

}  // namespace cyclocc::par
