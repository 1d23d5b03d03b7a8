#include <avif/avif.h>
#include <dlfcn.h>

// The libavif functions imgview calls, as pointers filled from the library opened at run time.
// The types come from libavif's own declarations (`__typeof__`), so a header and a table cannot
// disagree. To call another function, add it to the list.
#define IMGVIEW_AVIF_FUNCTIONS(X) \
    X(avifDecoderCreate) \
    X(avifDecoderDestroy) \
    X(avifDecoderSetIOMemory) \
    X(avifDecoderParse) \
    X(avifDecoderNextImage) \
    X(avifDecoderNthImageTiming) \
    X(avifRGBImageSetDefaults) \
    X(avifImageYUVToRGB) \
    X(avifResultToString)

#define IMGVIEW_AVIF_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_avif {
    IMGVIEW_AVIF_FUNCTIONS(IMGVIEW_AVIF_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_avif imgview_avif_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_avif table;
    *missing = 0;
#define IMGVIEW_AVIF_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_AVIF_FUNCTIONS(IMGVIEW_AVIF_RESOLVE)
#undef IMGVIEW_AVIF_RESOLVE
    return table;
}
