#include <brotli/decode.h>
#include <dlfcn.h>

// The libbrotlidec functions imgview calls, as pointers filled from the library opened at run time
// (`SharedLibrary`, as for libcurl and libavif): only a body sent in brotli pays for it.
#define IMGVIEW_BROTLI_FUNCTIONS(X) \
    X(BrotliDecoderCreateInstance) \
    X(BrotliDecoderDestroyInstance) \
    X(BrotliDecoderDecompressStream) \
    X(BrotliDecoderGetErrorCode) \
    X(BrotliDecoderErrorString)

#define IMGVIEW_BROTLI_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_brotli {
    IMGVIEW_BROTLI_FUNCTIONS(IMGVIEW_BROTLI_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_brotli imgview_brotli_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_brotli table;
    *missing = 0;
#define IMGVIEW_BROTLI_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_BROTLI_FUNCTIONS(IMGVIEW_BROTLI_RESOLVE)
#undef IMGVIEW_BROTLI_RESOLVE
    return table;
}
