// A malloc shim for the real-step harness (tests/realstep): loaded with LD_PRELOAD into a
// Python process running PyTorch on the CPU, it counts the bytes the C heap has handed out and
// not yet taken back, and their high-water mark: the CPU analogue of CUDA's
// torch.cuda.max_memory_allocated(). PyTorch's CPU allocator (c10/core/impl/alloc_cpu.cpp)
// takes every tensor's storage from posix_memalign and returns it with free at once, with no
// cache of its own, so the live bytes here are the tensors alive plus a small, steady
// interpreter overhead the harness subtracts as its baseline.
//
// Each block is counted at malloc_usable_size(), what glibc reserved for it. The calls forward
// to glibc's __libc_* entry points, so the shim needs no dlsym and no bootstrap buffer.
// Python reads the counters through ctypes: tb_heap_live(), tb_heap_peak(),
// tb_heap_reset_peak().
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* ptr, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void* ptr);

static atomic_llong live_bytes;
static atomic_llong peak_bytes;

static void count_in(void* ptr) {
  if (ptr == NULL) return;
  const long long now =
      atomic_fetch_add_explicit(&live_bytes, (long long)malloc_usable_size(ptr),
                                memory_order_relaxed) +
      (long long)malloc_usable_size(ptr);
  long long seen = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
  while (now > seen && !atomic_compare_exchange_weak_explicit(&peak_bytes, &seen, now,
                                                              memory_order_relaxed,
                                                              memory_order_relaxed)) {
  }
}

static void count_out(void* ptr) {
  if (ptr == NULL) return;
  atomic_fetch_sub_explicit(&live_bytes, (long long)malloc_usable_size(ptr),
                            memory_order_relaxed);
}

long long tb_heap_live(void) { return atomic_load(&live_bytes); }
long long tb_heap_peak(void) { return atomic_load(&peak_bytes); }
void tb_heap_reset_peak(void) { atomic_store(&peak_bytes, atomic_load(&live_bytes)); }

void* malloc(size_t size) {
  void* p = __libc_malloc(size);
  count_in(p);
  return p;
}

void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  count_in(p);
  return p;
}

void* realloc(void* ptr, size_t size) {
  const size_t before = ptr != NULL ? malloc_usable_size(ptr) : 0;
  void* p = __libc_realloc(ptr, size);
  if (p == NULL) return NULL;  // the old block is untouched (or size 0 freed it: rare, ignored)
  atomic_fetch_sub_explicit(&live_bytes, (long long)before, memory_order_relaxed);
  count_in(p);
  return p;
}

void free(void* ptr) {
  count_out(ptr);
  __libc_free(ptr);
}

void* memalign(size_t alignment, size_t size) {
  void* p = __libc_memalign(alignment, size);
  count_in(p);
  return p;
}

void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = memalign(alignment, size);
  if (p == NULL && size != 0) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t size) { return memalign((size_t)sysconf(_SC_PAGESIZE), size); }

void* pvalloc(size_t size) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return memalign(page, (size + page - 1) / page * page);
}
