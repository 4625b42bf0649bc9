// Buffers whose new elements are left uninitialized: storage that is written
// whole before it is read (message buffers, tensor data) skips the zeroing
// that std::vector<double>(n) does.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace cyclocc::par {

// std::allocator, except that construct() without arguments
// default-initializes (leaves a double as it is) instead of value-initializing.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A vector whose resize(n) and Buffer<T>(n) leave the new elements unset.
template <class T>
using Buffer = std::vector<T, UninitializedAllocator<T>>;

}  // namespace cyclocc::par
