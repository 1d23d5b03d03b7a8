#include <dlfcn.h>
#include <gif_lib.h>

// The giflib functions imgview calls, as pointers filled from the library opened at run time.
// The types come from giflib's own declarations (`__typeof__`), so a header and a table cannot
// disagree. To call another function, add it to the list.
#define IMGVIEW_GIF_FUNCTIONS(X) \
    X(DGifOpen) \
    X(DGifCloseFile) \
    X(DGifGetRecordType) \
    X(DGifGetImageDesc) \
    X(DGifGetLine) \
    X(DGifGetExtension) \
    X(DGifGetExtensionNext) \
    X(DGifExtensionToGCB) \
    X(GifErrorString)

#define IMGVIEW_GIF_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_gif {
    IMGVIEW_GIF_FUNCTIONS(IMGVIEW_GIF_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_gif imgview_gif_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_gif table;
    *missing = 0;
#define IMGVIEW_GIF_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_GIF_FUNCTIONS(IMGVIEW_GIF_RESOLVE)
#undef IMGVIEW_GIF_RESOLVE
    return table;
}
