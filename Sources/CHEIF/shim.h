#include <dlfcn.h>
#include <libheif/heif.h>

// The libheif functions imgview calls, as pointers filled from the library opened at run time.
// The types come from libheif's own declarations (`__typeof__`), so a header and a table cannot
// disagree. To call another function, add it to the list.
#define IMGVIEW_HEIF_FUNCTIONS(X) \
    X(heif_get_version_number_major) \
    X(heif_get_version_number_minor) \
    X(heif_register_decoder_plugin) \
    X(heif_get_decoder_descriptors) \
    X(heif_decoder_descriptor_get_id_name) \
    X(heif_context_alloc) \
    X(heif_context_free) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_get_number_of_top_level_images) \
    X(heif_context_get_list_of_top_level_image_IDs) \
    X(heif_context_get_primary_image_ID) \
    X(heif_context_get_image_handle) \
    X(heif_image_handle_release) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_chroma_bits_per_pixel) \
    X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_get_color_profile_type) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_nclx_color_profile) \
    X(heif_nclx_color_profile_free) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_decode_image) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_get_height) \
    X(heif_image_get_decoding_warnings) \
    X(heif_image_release)

#define IMGVIEW_HEIF_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_heif {
    IMGVIEW_HEIF_FUNCTIONS(IMGVIEW_HEIF_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_heif imgview_heif_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_heif table;
    *missing = 0;
#define IMGVIEW_HEIF_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_HEIF_FUNCTIONS(IMGVIEW_HEIF_RESOLVE)
#undef IMGVIEW_HEIF_RESOLVE
    return table;
}
