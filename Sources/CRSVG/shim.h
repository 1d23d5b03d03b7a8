#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

// librsvg, cairo and GObject, declared here rather than by including rsvg.h: its include paths
// come only from pkg-config (whose flags in Package.swift would link the library), and the calls
// below are ABI-stable (librsvg 2.52 and later, cairo 1.x, GLib 2.x). Each declaration follows
// the library's header word for word, with its own types spelled as plain C.
typedef struct imgview_gerror { uint32_t domain; int code; char *message; } imgview_gerror;  // GError
typedef struct imgview_rsvg_rectangle { double x, y, width, height; } imgview_rsvg_rectangle; // RsvgRectangle
typedef struct imgview_rsvg_length { double length; int unit; } imgview_rsvg_length;         // RsvgLength
enum { IMGVIEW_CAIRO_FORMAT_ARGB32 = 0, IMGVIEW_CAIRO_STATUS_SUCCESS = 0 };

typedef struct imgview_rsvg {
    void * _Nullable (* _Nonnull rsvg_handle_new_from_data)(const uint8_t * _Nonnull data, size_t length, imgview_gerror * _Nullable * _Nullable error);
    void (* _Nonnull rsvg_handle_get_intrinsic_dimensions)(void * _Nonnull handle, int * _Nullable has_width, imgview_rsvg_length * _Nullable width,
                                                           int * _Nullable has_height, imgview_rsvg_length * _Nullable height,
                                                           int * _Nullable has_viewbox, imgview_rsvg_rectangle * _Nullable viewbox);
    int (* _Nonnull rsvg_handle_get_intrinsic_size_in_pixels)(void * _Nonnull handle, double * _Nullable width, double * _Nullable height);
    int (* _Nonnull rsvg_handle_render_document)(void * _Nonnull handle, void * _Nonnull cairo, const imgview_rsvg_rectangle * _Nonnull viewport,
                                                 imgview_gerror * _Nullable * _Nullable error);
    void (* _Nonnull g_object_unref)(void * _Nonnull object);
    void (* _Nonnull g_error_free)(imgview_gerror * _Nonnull error);
    int (* _Nonnull cairo_format_stride_for_width)(int format, int width);
    void * _Nullable (* _Nonnull cairo_image_surface_create_for_data)(unsigned char * _Nonnull data, int format, int width, int height, int stride);
    int (* _Nonnull cairo_surface_status)(void * _Nonnull surface);
    void * _Nullable (* _Nonnull cairo_create)(void * _Nonnull surface);
    int (* _Nonnull cairo_status)(void * _Nonnull cairo);
    void (* _Nonnull cairo_destroy)(void * _Nonnull cairo);
    void (* _Nonnull cairo_surface_flush)(void * _Nonnull surface);
    void (* _Nonnull cairo_surface_destroy)(void * _Nonnull surface);
} imgview_rsvg;

// Fills the table from `library` (librsvg's dlopen handle, through which its dependencies cairo
// and GObject are found too); `*missing` names the first function not found, and the table must
// not be used then.
static inline imgview_rsvg imgview_rsvg_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    imgview_rsvg table;
    *missing = 0;
#define IMGVIEW_RSVG_RESOLVE(name) \
    *(void **)&table.name = dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_RSVG_RESOLVE(rsvg_handle_new_from_data)
    IMGVIEW_RSVG_RESOLVE(rsvg_handle_get_intrinsic_dimensions)
    IMGVIEW_RSVG_RESOLVE(rsvg_handle_get_intrinsic_size_in_pixels)
    IMGVIEW_RSVG_RESOLVE(rsvg_handle_render_document)
    IMGVIEW_RSVG_RESOLVE(g_object_unref)
    IMGVIEW_RSVG_RESOLVE(g_error_free)
    IMGVIEW_RSVG_RESOLVE(cairo_format_stride_for_width)
    IMGVIEW_RSVG_RESOLVE(cairo_image_surface_create_for_data)
    IMGVIEW_RSVG_RESOLVE(cairo_surface_status)
    IMGVIEW_RSVG_RESOLVE(cairo_create)
    IMGVIEW_RSVG_RESOLVE(cairo_status)
    IMGVIEW_RSVG_RESOLVE(cairo_destroy)
    IMGVIEW_RSVG_RESOLVE(cairo_surface_flush)
    IMGVIEW_RSVG_RESOLVE(cairo_surface_destroy)
#undef IMGVIEW_RSVG_RESOLVE
    return table;
}
