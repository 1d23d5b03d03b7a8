#include <spng.h>
#include <dlfcn.h>

// The libspng functions imgview calls, as pointers filled from the library opened at run time
// (`PNGLibrary`), typed from libspng's own declarations. To call another function, add it to
// the list.
#define IMGVIEW_SPNG_FUNCTIONS(X) \
    X(spng_ctx_new) \
    X(spng_ctx_free) \
    X(spng_set_png_buffer) \
    X(spng_set_chunk_limits) \
    X(spng_set_image_limits) \
    X(spng_get_ihdr) \
    X(spng_set_ihdr) \
    X(spng_get_text) \
    X(spng_set_text) \
    X(spng_set_option) \
    X(spng_decoded_image_size) \
    X(spng_decode_image) \
    X(spng_get_row_info) \
    X(spng_decode_row) \
    X(spng_encode_image) \
    X(spng_get_png_buffer) \
    X(spng_strerror)

#define IMGVIEW_SPNG_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_spng {
    IMGVIEW_SPNG_FUNCTIONS(IMGVIEW_SPNG_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_spng imgview_spng_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_spng table;
    *missing = 0;
#define IMGVIEW_SPNG_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_SPNG_FUNCTIONS(IMGVIEW_SPNG_RESOLVE)
#undef IMGVIEW_SPNG_RESOLVE
    return table;
}
