#include <curl/curl.h>
#include <dlfcn.h>

// The libcurl functions imgview calls, as pointers filled from the library opened at run time
// (`SharedLibrary`, as for libavif). The types come from libcurl's own declarations.
#define IMGVIEW_CURL_FUNCTIONS(X) \
    X(curl_global_init) \
    X(curl_easy_init) \
    X(curl_easy_cleanup) \
    X(curl_easy_reset) \
    X(curl_easy_strerror) \
    X(curl_easy_setopt) \
    X(curl_easy_getinfo) \
    X(curl_multi_init) \
    X(curl_multi_cleanup) \
    X(curl_multi_add_handle) \
    X(curl_multi_remove_handle) \
    X(curl_multi_perform) \
    X(curl_multi_poll) \
    X(curl_multi_wakeup) \
    X(curl_multi_setopt) \
    X(curl_multi_strerror) \
    X(curl_multi_info_read) \
    X(curl_slist_append) \
    X(curl_slist_free_all)

#define IMGVIEW_CURL_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_curl {
    IMGVIEW_CURL_FUNCTIONS(IMGVIEW_CURL_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_curl imgview_curl_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_curl table;
    *missing = 0;
#define IMGVIEW_CURL_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_CURL_FUNCTIONS(IMGVIEW_CURL_RESOLVE)
#undef IMGVIEW_CURL_RESOLVE
    return table;
}

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call: one typed wrapper per kind of argument imgview passes, through the table.

typedef size_t (*imgview_curl_data_callback)(char *bytes, size_t size, size_t count, void *context);

static inline CURLcode imgview_curl_set_long(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLoption option, long value) {
    return curl->curl_easy_setopt(handle, option, value);
}

static inline CURLcode imgview_curl_set_string(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLoption option, const char *value) {
    return curl->curl_easy_setopt(handle, option, value);
}

static inline CURLcode imgview_curl_set_pointer(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLoption option, void *value) {
    return curl->curl_easy_setopt(handle, option, value);
}

static inline CURLcode imgview_curl_set_data_callback(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLoption option, imgview_curl_data_callback callback) {
    return curl->curl_easy_setopt(handle, option, callback);
}

static inline CURLcode imgview_curl_get_long(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLINFO info, long *value) {
    return curl->curl_easy_getinfo(handle, info, value);
}

static inline CURLcode imgview_curl_get_off_t(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl->curl_easy_getinfo(handle, info, value);
}

static inline CURLcode imgview_curl_get_string(const struct imgview_curl * _Nonnull curl, CURL *handle, CURLINFO info, char **value) {
    return curl->curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode imgview_curl_multi_set_long(const struct imgview_curl * _Nonnull curl, CURLM *multi, CURLMoption option, long value) {
    return curl->curl_multi_setopt(multi, option, value);
}

// CURLMsg keeps the result in a union; this returns 1, the easy handle and its result when a
// transfer is done, 0 when no transfer finished since the last call.
static inline int imgview_curl_multi_next_done(const struct imgview_curl * _Nonnull curl, CURLM *multi, CURL **easy, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl->curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
