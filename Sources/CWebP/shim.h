#include <dlfcn.h>
#include <webp/decode.h>
#include <webp/demux.h>

// The libwebp and libwebpdemux functions imgview calls, as pointers filled from the libraries
// opened at run time. The types come from libwebp's own declarations (`__typeof__`), so a header
// and a table cannot disagree. To call another function, add it to its library's list.
//
// The header's inline wrappers (WebPInitDecoderConfig, WebPGetFeatures, WebPDemuxPartial,
// WebPAnimDecoderOptionsInit, WebPAnimDecoderNew) would call the library directly: the tables
// hold the `…Internal` functions they wrap, and `WebPLibrary.swift` wraps those the same way.
#define IMGVIEW_WEBP_FUNCTIONS(X) \
    X(WebPInitDecoderConfigInternal) \
    X(WebPGetFeaturesInternal) \
    X(WebPDecode) \
    X(WebPIDecode) \
    X(WebPIUpdate) \
    X(WebPIDecGetRGB) \
    X(WebPIDelete)

#define IMGVIEW_WEBP_DEMUX_FUNCTIONS(X) \
    X(WebPDemuxInternal) \
    X(WebPDemuxDelete) \
    X(WebPDemuxGetI) \
    X(WebPDemuxGetFrame) \
    X(WebPDemuxNextFrame) \
    X(WebPDemuxReleaseIterator) \
    X(WebPAnimDecoderOptionsInitInternal) \
    X(WebPAnimDecoderNewInternal) \
    X(WebPAnimDecoderGetInfo) \
    X(WebPAnimDecoderHasMoreFrames) \
    X(WebPAnimDecoderGetNext) \
    X(WebPAnimDecoderDelete)

#define IMGVIEW_WEBP_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_webp {
    IMGVIEW_WEBP_FUNCTIONS(IMGVIEW_WEBP_POINTER)
};
struct imgview_webp_demux {
    IMGVIEW_WEBP_DEMUX_FUNCTIONS(IMGVIEW_WEBP_POINTER)
};

#define IMGVIEW_WEBP_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;

// Fill a table from `library` (a dlopen handle); `*missing` names the first function not found,
// and the table must not be used then.
static inline struct imgview_webp imgview_webp_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_webp table;
    *missing = 0;
    IMGVIEW_WEBP_FUNCTIONS(IMGVIEW_WEBP_RESOLVE)
    return table;
}

static inline struct imgview_webp_demux imgview_webp_demux_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_webp_demux table;
    *missing = 0;
    IMGVIEW_WEBP_DEMUX_FUNCTIONS(IMGVIEW_WEBP_RESOLVE)
    return table;
}

#undef IMGVIEW_WEBP_RESOLVE
