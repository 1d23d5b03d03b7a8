#define _GNU_SOURCE
#include "imgview_library_messages.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

// One thread's capture: nested captures on the thread share it.
struct capture {
    int depth;
    size_t length;   // bytes kept, at most IMGVIEW_LIBRARY_MESSAGES_CAPACITY
    size_t printed;  // bytes printed, kept or not
    char bytes[IMGVIEW_LIBRARY_MESSAGES_CAPACITY];
};

static __thread struct capture *this_thread;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
// Made once and never closed: a thread that read `stderr` before it was given back may still
// write through it, and must find it there.
static FILE *router;
// `stderr` as it was when the captures began: where writes from threads not capturing go, and
// what `stderr` is again when the last capture ends.
static FILE *original;
// Where writes from threads not capturing go instead of `original`, when set (tests).
static FILE *forward;
// Captures running, on every thread (under `lock`).
static long active;

static ssize_t route(void *cookie, const char *bytes, size_t count) {
    (void)cookie;
    struct capture *capture = this_thread;
    if (capture) {
        size_t room = IMGVIEW_LIBRARY_MESSAGES_CAPACITY - capture->length;
        size_t kept = count < room ? count : room;
        memcpy(capture->bytes + capture->length, bytes, kept);
        capture->length += kept;
        capture->printed += count;
        // All of it taken: a library told of a short write may print its complaint about that.
        return (ssize_t)count;
    }
    FILE *target = __atomic_load_n(&forward, __ATOMIC_ACQUIRE);
    if (!target) target = __atomic_load_n(&original, __ATOMIC_ACQUIRE);
    if (!target || target == router) return (ssize_t)count;
    size_t written = fwrite(bytes, 1, count, target);
    fflush(target);
    return written > 0 ? (ssize_t)written : -1;
}

long imgview_library_messages_begin(void) {
    struct capture *capture = this_thread;
    if (!capture) {
        capture = calloc(1, sizeof *capture);
        if (!capture) return -1;
    }
    pthread_mutex_lock(&lock);
    if (!router) {
        cookie_io_functions_t functions = {.read = NULL, .write = route, .seek = NULL, .close = NULL};
        router = fopencookie(NULL, "w", functions);
        // Unbuffered: each write reaches `route` on the thread that made it, at once.
        if (router) setvbuf(router, NULL, _IONBF, 0);
    }
    if (!router) {
        pthread_mutex_unlock(&lock);
        if (!this_thread) free(capture);
        return -1;
    }
    this_thread = capture;
    capture->depth += 1;
    if (active == 0) {
        FILE *current = __atomic_load_n(&stderr, __ATOMIC_ACQUIRE);
        if (current != router) {
            fflush(current);
            __atomic_store_n(&original, current, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&stderr, router, __ATOMIC_RELEASE);
    }
    active += 1;
    pthread_mutex_unlock(&lock);
    return (long)capture->length;
}

size_t imgview_library_messages_end(long start, char *buffer, size_t capacity, size_t *printed) {
    struct capture *capture = this_thread;
    size_t copied = 0;
    *printed = 0;
    if (capture) {
        size_t from = start < 0 ? 0 : (size_t)start;
        if (from < capture->length) {
            copied = capture->length - from;
            if (copied > capacity) copied = capacity;
            memcpy(buffer, capture->bytes + from, copied);
        }
        // Bytes printed past the capacity belong to whichever capture is open; counted for all.
        *printed = capture->printed > from ? capture->printed - from : 0;
        capture->depth -= 1;
        if (capture->depth == 0) {
            this_thread = NULL;
            free(capture);
        }
    }
    pthread_mutex_lock(&lock);
    if (active > 0) {
        active -= 1;
        if (active == 0) __atomic_store_n(&stderr, __atomic_load_n(&original, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return copied;
}

FILE *imgview_library_messages_stderr(void) { return __atomic_load_n(&stderr, __ATOMIC_ACQUIRE); }

void imgview_library_messages_set_forward(FILE *stream) { __atomic_store_n(&forward, stream, __ATOMIC_RELEASE); }
