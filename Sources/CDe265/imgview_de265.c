#include "imgview_de265.h"

#include <dlfcn.h>
#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The functions called, as pointers typed by the libraries' own declarations (`__typeof__`).
#define DE265_FUNCTIONS(X) \
    X(de265_init) \
    X(de265_free) \
    X(de265_new_decoder) \
    X(de265_free_decoder) \
    X(de265_push_NAL) \
    X(de265_flush_data) \
    X(de265_decode) \
    X(de265_get_next_picture) \
    X(de265_release_next_picture) \
    X(de265_get_chroma_format) \
    X(de265_get_image_width) \
    X(de265_get_image_height) \
    X(de265_get_bits_per_pixel) \
    X(de265_get_image_plane) \
    X(de265_get_image_colour_primaries) \
    X(de265_get_image_transfer_characteristics) \
    X(de265_get_image_matrix_coefficients) \
    X(de265_get_image_full_range_flag)

#define HEIF_FUNCTIONS(X) \
    X(heif_image_create) \
    X(heif_image_add_plane) \
    X(heif_image_get_plane) \
    X(heif_image_release) \
    X(heif_nclx_color_profile_alloc) \
    X(heif_nclx_color_profile_free) \
    X(heif_nclx_color_profile_set_color_primaries) \
    X(heif_nclx_color_profile_set_transfer_characteristics) \
    X(heif_nclx_color_profile_set_matrix_coefficients) \
    X(heif_image_set_nclx_color_profile)

#define POINTER(name) __typeof__(name) *name;
static struct {
    DE265_FUNCTIONS(POINTER)
    HEIF_FUNCTIONS(POINTER)
} lib;
#undef POINTER

static const struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error plugin_error(enum heif_suberror_code subcode, const char *message) {
    struct heif_error error = {heif_error_Decoder_plugin_error, subcode, message};
    return error;
}

static const char *plugin_name(void) { return "imgview: libde265 on the calling thread"; }

static void init_plugin(void) { lib.de265_init(); }

static void deinit_plugin(void) { lib.de265_free(); }

static int supports(enum heif_compression_format format) {
    // libheif's own libde265 plugin ranks 100; the higher rank is used.
    return format == heif_compression_HEVC ? 200 : 0;
}

static struct heif_error new_decoder(void **decoder) {
    // No `de265_start_worker_threads`: the slices and the filters run in `decode_image`'s thread.
    de265_decoder_context *context = lib.de265_new_decoder();
    if (!context) return plugin_error(heif_suberror_Unspecified, "libde265 could not start");
    *decoder = context;
    return ok;
}

static void free_decoder(void *decoder) { lib.de265_free_decoder(decoder); }

// The item's data: NAL units, each after a 4-byte big-endian length (libheif writes the
// configuration's parameter sets this way too).
static struct heif_error push_data(void *decoder, const void *data, size_t size) {
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) return plugin_error(heif_suberror_End_of_data, "a NAL unit's length cut short");
        uint32_t length = (uint32_t)bytes[at] << 24 | (uint32_t)bytes[at + 1] << 16 | (uint32_t)bytes[at + 2] << 8 | bytes[at + 3];
        at += 4;
        if (length > size - at || length > INT32_MAX) return plugin_error(heif_suberror_End_of_data, "a NAL unit past the end of the data");
        if (lib.de265_push_NAL(decoder, bytes + at, (int)length, 0, NULL) != DE265_OK) {
            return plugin_error(heif_suberror_Unspecified, "libde265 could not take a NAL unit");
        }
        at += length;
    }
    return ok;
}

// Copies the picture's planes into a new libheif image, with the colour description its stream carries.
static struct heif_error convert(const struct de265_image *picture, struct heif_image **out) {
    enum de265_chroma chroma = lib.de265_get_chroma_format(picture);
    int planes = chroma == de265_chroma_mono ? 1 : 3;
    // libde265's chroma formats are numbered as libheif's (monochrome 0, then 4:2:0, 4:2:2, 4:4:4).
    struct heif_error error = lib.heif_image_create(
        lib.de265_get_image_width(picture, 0), lib.de265_get_image_height(picture, 0),
        planes == 1 ? heif_colorspace_monochrome : heif_colorspace_YCbCr, (enum heif_chroma)chroma, out);
    if (error.code != heif_error_Ok) return error;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int depth = lib.de265_get_bits_per_pixel(picture, 0);
    for (int plane = 0; plane < planes; plane++) {
        int width = lib.de265_get_image_width(picture, plane);
        int height = lib.de265_get_image_height(picture, plane);
        int stride = 0;
        const uint8_t *source = lib.de265_get_image_plane(picture, plane, &stride);
        if (lib.de265_get_bits_per_pixel(picture, plane) != depth) {
            error.code = heif_error_Unsupported_feature;
            error.subcode = heif_suberror_Unsupported_color_conversion;
            error.message = "planes of different bit depths";
        } else if (width <= 0 || height <= 0 || !source) {
            error = plugin_error(heif_suberror_Invalid_image_size, "a plane without pixels");
        } else {
            error = lib.heif_image_add_plane(*out, channels[plane], width, height, depth);
        }
        if (error.code != heif_error_Ok) {
            lib.heif_image_release(*out);
            *out = NULL;
            return error;
        }
        int targetStride = 0;
        uint8_t *target = lib.heif_image_get_plane(*out, channels[plane], &targetStride);
        size_t rowBytes = (size_t)width * (size_t)((depth + 7) / 8);
        for (int y = 0; y < height; y++) {
            memcpy(target + (size_t)y * (size_t)targetStride, source + (size_t)y * (size_t)stride, rowBytes);
        }
    }
    struct heif_color_profile_nclx *nclx = lib.heif_nclx_color_profile_alloc();
    if (nclx) {
        // A code point libheif does not know is left at its default, as libheif's plugin does when not strict.
        lib.heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)lib.de265_get_image_colour_primaries(picture));
        lib.heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t)lib.de265_get_image_transfer_characteristics(picture));
        lib.heif_nclx_color_profile_set_matrix_coefficients(nclx, (uint16_t)lib.de265_get_image_matrix_coefficients(picture));
        nclx->full_range_flag = lib.de265_get_image_full_range_flag(picture) != 0;
        lib.heif_image_set_nclx_color_profile(*out, nclx);
        lib.heif_nclx_color_profile_free(nclx);
    }
    return ok;
}

// Decodes until the first picture comes out: an image item holds one, and a stream of many
// (a damaged or hostile one) is not decoded to its end.
static struct heif_error decode_image(void *decoder, struct heif_image **out) {
    *out = NULL;
    if (lib.de265_flush_data(decoder) != DE265_OK) return plugin_error(heif_suberror_Unspecified, "libde265 could not end the stream");
    int more = 1;
    while (more) {
        more = 0;
        if (lib.de265_decode(decoder, &more) != DE265_OK) break;
        const struct de265_image *picture = lib.de265_get_next_picture(decoder);
        if (picture) {
            struct heif_error error = convert(picture, out);
            lib.de265_release_next_picture(decoder);
            return error;
        }
    }
    return plugin_error(heif_suberror_Unspecified, "the HEVC stream holds no picture");
}

static const struct heif_decoder_plugin plugin = {
    .plugin_api_version = 3,
    .get_plugin_name = plugin_name,
    .init_plugin = init_plugin,
    .deinit_plugin = deinit_plugin,
    .does_support_format = supports,
    .new_decoder = new_decoder,
    .free_decoder = free_decoder,
    .push_data = push_data,
    .decode_image = decode_image,
    // No `set_strict_decoding` (libheif checks for NULL): there is nothing stricter to be.
    .id_name = "imgview-libde265",
};

const struct heif_decoder_plugin *imgview_de265_plugin(void *heif, void *de265, const char **missing) {
#define RESOLVE(library, name) \
    *(void **)(&lib.name) = dlsym(library, #name); \
    if (!lib.name) { \
        *missing = #name; \
        return NULL; \
    }
#define RESOLVE_DE265(name) RESOLVE(de265, name)
#define RESOLVE_HEIF(name) RESOLVE(heif, name)
    DE265_FUNCTIONS(RESOLVE_DE265)
    HEIF_FUNCTIONS(RESOLVE_HEIF)
#undef RESOLVE_HEIF
#undef RESOLVE_DE265
#undef RESOLVE
    *missing = NULL;
    return &plugin;
}
