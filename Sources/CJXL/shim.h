#include <dlfcn.h>
#include <jxl/decode.h>

// The libjxl functions imgview calls, as pointers filled from the library opened at run time.
// The types come from libjxl's own declarations (`__typeof__`), so a header and a table cannot
// disagree. To call another function, add it to the list.
//
// libjxl 0.7 prints to stderr when it is misused (input closed on cut data, bytes that are not
// JPEG XL), with no way to turn that off: `JXLDecoder` checks the signature first and never
// closes its input.
#define IMGVIEW_JXL_FUNCTIONS(X) \
    X(JxlDecoderVersion) \
    X(JxlSignatureCheck) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderReset) \
    X(JxlDecoderSubscribeEvents) \
    X(JxlDecoderSetKeepOrientation) \
    X(JxlDecoderSetUnpremultiplyAlpha) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetFrameHeader) \
    X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderSetPreferredColorProfile) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderFlushImage) \
    X(JxlDecoderSetJPEGBuffer) \
    X(JxlDecoderReleaseJPEGBuffer)

#define IMGVIEW_JXL_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_jxl {
    IMGVIEW_JXL_FUNCTIONS(IMGVIEW_JXL_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_jxl imgview_jxl_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_jxl table;
    *missing = 0;
#define IMGVIEW_JXL_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_JXL_FUNCTIONS(IMGVIEW_JXL_RESOLVE)
#undef IMGVIEW_JXL_RESOLVE
    return table;
}
