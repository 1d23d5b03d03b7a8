#include <malloc.h>

// Fixes the size from which glibc maps a block on its own (and unmaps it when freed); setting
// it turns off glibc's raising of that size each time such a block is freed. 1 when done.
static inline int imgview_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
