#include <dlfcn.h>
#include <lcms2.h>

// The Little CMS functions imgview calls, as pointers filled from the library opened at run
// time. The types come from lcms2.h (`__typeof__`), so a header and a table cannot disagree.
#define IMGVIEW_LCMS_FUNCTIONS(X) \
    X(cmsSetLogErrorHandler) \
    X(cmsOpenProfileFromMem) \
    X(cmsCloseProfile) \
    X(cmsCreate_sRGBProfile) \
    X(cmsCreateRGBProfile) \
    X(cmsBuildParametricToneCurve) \
    X(cmsFreeToneCurve) \
    X(cmsGetColorSpace) \
    X(cmsCreateTransform) \
    X(cmsDeleteTransform) \
    X(cmsDoTransform)

#define IMGVIEW_LCMS_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_lcms {
    IMGVIEW_LCMS_FUNCTIONS(IMGVIEW_LCMS_POINTER)
};

// lcms reports a damaged profile through this handler; the default prints nothing, and a
// transform that cannot be made is told by its NULL, so the text is not needed.
static void imgview_lcms_quiet(cmsContext context, cmsUInt32Number code, const char * text) {
    (void)context; (void)code; (void)text;
}

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_lcms imgview_lcms_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_lcms table;
    *missing = 0;
#define IMGVIEW_LCMS_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_LCMS_FUNCTIONS(IMGVIEW_LCMS_RESOLVE)
#undef IMGVIEW_LCMS_RESOLVE
    if (!*missing) table.cmsSetLogErrorHandler(imgview_lcms_quiet);
    return table;
}

// lcms's pixel formats and flags are macros Swift cannot import.
static const cmsUInt32Number imgview_lcms_rgba8 = TYPE_RGBA_8;
static const cmsUInt32Number imgview_lcms_cmyk8_inverted = TYPE_CMYK_8_REV;
static const cmsUInt32Number imgview_lcms_cmyk8 = TYPE_CMYK_8;
static const cmsUInt32Number imgview_lcms_gray8 = TYPE_GRAY_8;
static const cmsUInt32Number imgview_lcms_rgb8 = TYPE_RGB_8;
static const cmsUInt32Number imgview_lcms_flags = cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE;
static const cmsUInt32Number imgview_lcms_no_cache = cmsFLAGS_NOCACHE;
static const cmsUInt32Number imgview_lcms_rgb_space = cmsSigRgbData;
static const cmsUInt32Number imgview_lcms_gray_space = cmsSigGrayData;
static const cmsUInt32Number imgview_lcms_cmyk_space = cmsSigCmykData;
