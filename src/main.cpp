// The rfdb executable: hands argv to the CLI and exits with its code.
#include "cli/app.hpp"

#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr std::size_t k_mib = std::size_t{1} << 20;
constexpr std::size_t k_huge_page = 2 * k_mib;
constexpr std::size_t k_heap_reserve = 64 * k_mib;

// Page faults are what a large read costs most here (a history of 10⁵
// attempts touches tens of MiB once). The main heap gets its first 64 MiB
// in one piece, allocations up to 32 MiB are served from it (freed memory is
// reused, not unmapped and faulted in again), and the kernel may back it
// with transparent huge pages: one fault per 2 MiB instead of per 4 KiB.
// Untouched memory stays unallocated; if any step fails nothing changes but speed.
void tune_heap()
{
  (void)mallopt(M_MMAP_THRESHOLD, static_cast<int>(32 * k_mib));
  (void)mallopt(M_TRIM_THRESHOLD, static_cast<int>(256 * k_mib));
  (void)mallopt(M_TOP_PAD, static_cast<int>(k_heap_reserve));
  auto* const before = static_cast<char*>(sbrk(0));
  void* volatile probe = std::malloc(k_huge_page); // grows the heap by the top pad (volatile: kept)
  std::free(probe);
  auto* const after = static_cast<char*>(sbrk(0));
  // [lo, hi): the whole 2 MiB pages of the new heap.
  const auto offset = [](const char* p) { return reinterpret_cast<std::uintptr_t>(p) % k_huge_page; };
  char* const lo = before + (k_huge_page - offset(before)) % k_huge_page;
  char* const hi = after - offset(after);
  if (hi > lo) {
    (void)madvise(lo, static_cast<std::size_t>(hi - lo), MADV_HUGEPAGE);
  }
}

} // namespace

int main(int argc, char** argv)
{
  tune_heap();
  return rfdb::cli::run(argc, argv);
}
