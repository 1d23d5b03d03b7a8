#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>

// The libtiff functions imgview calls, as pointers filled from the library opened at run time.
// The types come from libtiff's own declarations (`__typeof__`), so a header and a table cannot
// disagree. To call another function, add it to the list.
#define IMGVIEW_TIFF_FUNCTIONS(X) \
    X(TIFFSetErrorHandler) \
    X(TIFFSetWarningHandler) \
    X(TIFFOpenOptionsAlloc) \
    X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) \
    X(TIFFClientOpenExt) \
    X(TIFFClose) \
    X(TIFFGetField) \
    X(TIFFGetFieldDefaulted) \
    X(TIFFSetDirectory) \
    X(TIFFIsTiled) \
    X(TIFFRGBAImageOK) \
    X(TIFFRGBAImageBegin) \
    X(TIFFRGBAImageGet) \
    X(TIFFRGBAImageEnd)

#define IMGVIEW_TIFF_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_tiff {
    IMGVIEW_TIFF_FUNCTIONS(IMGVIEW_TIFF_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then. libtiff's process-wide handlers, which print, are
// turned off once here: each open captures its own messages (`imgview_tiff_open`).
static inline struct imgview_tiff imgview_tiff_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_tiff table;
    *missing = 0;
#define IMGVIEW_TIFF_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_TIFF_FUNCTIONS(IMGVIEW_TIFF_RESOLVE)
#undef IMGVIEW_TIFF_RESOLVE
    if (!*missing) {
        table.TIFFSetErrorHandler(NULL);
        table.TIFFSetWarningHandler(NULL);
    }
    return table;
}

// A file in memory, read through libtiff's client procedures; the bytes must outlive the TIFF.
typedef struct imgview_tiff_source {
    const unsigned char * _Nullable bytes;
    uint64_t size;
    uint64_t position;
    // The first error and warning libtiff reported, and how many; never printed.
    char first_error[240];
    char first_warning[240];
    int errors;
    int warnings;
} imgview_tiff_source;

static inline tmsize_t imgview_tiff_read(thandle_t handle, void *buffer, tmsize_t size) {
    imgview_tiff_source *source = (imgview_tiff_source *)handle;
    if (size <= 0 || source->position >= source->size) return 0;
    uint64_t left = source->size - source->position;
    uint64_t count = (uint64_t)size < left ? (uint64_t)size : left;
    memcpy(buffer, source->bytes + source->position, (size_t)count);
    source->position += count;
    return (tmsize_t)count;
}
static inline tmsize_t imgview_tiff_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return -1;
}
static inline toff_t imgview_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    imgview_tiff_source *source = (imgview_tiff_source *)handle;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? source->position : source->size;
    source->position = base + offset;
    return source->position;
}
static inline int imgview_tiff_close(thandle_t handle) { (void)handle; return 0; }
static inline toff_t imgview_tiff_size(thandle_t handle) { return ((imgview_tiff_source *)handle)->size; }
// Mapping hands libtiff the buffer itself: strips are read in place, without a copy.
static inline int imgview_tiff_map(thandle_t handle, void **base, toff_t *size) {
    imgview_tiff_source *source = (imgview_tiff_source *)handle;
    *base = (void *)source->bytes;
    *size = source->size;
    return 1;
}
static inline void imgview_tiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static inline int imgview_tiff_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)module;
    imgview_tiff_source *source = (imgview_tiff_source *)user;
    if (source->errors++ == 0) vsnprintf(source->first_error, sizeof source->first_error, format, arguments);
    return 1;
}
static inline int imgview_tiff_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)module;
    imgview_tiff_source *source = (imgview_tiff_source *)user;
    if (source->warnings++ == 0) vsnprintf(source->first_warning, sizeof source->first_warning, format, arguments);
    return 1;
}

// Opens the TIFF in `source` read-only ("rm": mapped), every allocation libtiff makes capped at
// `max_allocation` bytes, its messages kept in `source`.
static inline TIFF * _Nullable imgview_tiff_open(const struct imgview_tiff * _Nonnull api, imgview_tiff_source * _Nonnull source, tmsize_t max_allocation) {
    TIFFOpenOptions *options = api->TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    api->TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_allocation);
    api->TIFFOpenOptionsSetErrorHandlerExtR(options, imgview_tiff_on_error, source);
    api->TIFFOpenOptionsSetWarningHandlerExtR(options, imgview_tiff_on_warning, source);
    TIFF *tif = api->TIFFClientOpenExt("TIFF", "rm", (thandle_t)source, imgview_tiff_read, imgview_tiff_write, imgview_tiff_seek,
                                       imgview_tiff_close, imgview_tiff_size, imgview_tiff_map, imgview_tiff_unmap, options);
    api->TIFFOpenOptionsFree(options);
    return tif;
}

// TIFFGetField is variadic, which Swift cannot call: one wrapper per shape of value.
static inline int imgview_tiff_get_u32(const struct imgview_tiff * _Nonnull api, TIFF * _Nonnull tif, uint32_t tag, uint32_t * _Nonnull value) {
    return api->TIFFGetField(tif, tag, value);
}
static inline int imgview_tiff_get_u16_defaulted(const struct imgview_tiff * _Nonnull api, TIFF * _Nonnull tif, uint32_t tag, uint16_t * _Nonnull value) {
    return api->TIFFGetFieldDefaulted(tif, tag, value);
}
static inline int imgview_tiff_get_u32_defaulted(const struct imgview_tiff * _Nonnull api, TIFF * _Nonnull tif, uint32_t tag, uint32_t * _Nonnull value) {
    return api->TIFFGetFieldDefaulted(tif, tag, value);
}
static inline int imgview_tiff_get_icc(const struct imgview_tiff * _Nonnull api, TIFF * _Nonnull tif, uint32_t * _Nonnull length, const void * _Nullable * _Nonnull data) {
    return api->TIFFGetField(tif, TIFFTAG_ICCPROFILE, length, data);
}
