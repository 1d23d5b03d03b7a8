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
    X(de265_peek_next_picture) \
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
    X(heif_init) \
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

// The most pixels a picture may have on this thread (`imgview_de265_set_limit`); 0: no limit.
static _Thread_local uint64_t pixelLimit;

void imgview_de265_set_limit(uint64_t pixels) { pixelLimit = pixels; }

// Bits most significant first, over a NAL unit's payload with its emulation prevention bytes
// (00 00 03 stands for 00 00) skipped as they are met.
struct bits {
    const uint8_t *bytes;
    size_t count, at, zeros;
    int bit;
};

static int next_bit(struct bits *reader) {
    if (reader->bit == 0) {
        if (reader->zeros >= 2 && reader->at < reader->count && reader->bytes[reader->at] == 3) {
            reader->at++;
            reader->zeros = 0;
        }
        if (reader->at >= reader->count) return -1;
        reader->zeros = reader->bytes[reader->at] == 0 ? reader->zeros + 1 : 0;
    }
    int value = reader->bytes[reader->at] >> (7 - reader->bit) & 1;
    if (++reader->bit == 8) {
        reader->bit = 0;
        reader->at++;
    }
    return value;
}

static int skip_bits(struct bits *reader, int count) {
    for (int i = 0; i < count; i++) {
        if (next_bit(reader) < 0) return 0;
    }
    return 1;
}

// ue(v); -1 when the unit ends first or the value passes 32 bits.
static int64_t exp_golomb(struct bits *reader) {
    int zeros = 0;
    int bit;
    while ((bit = next_bit(reader)) == 0) {
        if (++zeros > 31) return -1;
    }
    if (bit < 0) return -1;
    int64_t rest = 0;
    for (int i = 0; i < zeros; i++) {
        int b = next_bit(reader);
        if (b < 0) return -1;
        rest = rest << 1 | b;
    }
    return ((int64_t)1 << zeros) - 1 + rest;
}

// The pixels an SPS unit declares (ITU-T H.265, 7.3.2.2); 0 when it does not read so far.
static uint64_t sps_pixels(const uint8_t *unit, size_t length) {
    struct bits reader = {unit + 2, length < 2 ? 0 : length - 2, 0, 0, 0};
    if (!skip_bits(&reader, 4)) return 0;
    int layers = 0;
    for (int i = 0; i < 3; i++) {
        int b = next_bit(&reader);
        if (b < 0) return 0;
        layers = layers << 1 | b;
    }
    // Temporal nesting, then profile_tier_level: the general profile (88 bits) and level (8).
    if (!skip_bits(&reader, 1 + 96)) return 0;
    int profile[8] = {0}, level[8] = {0};
    for (int i = 0; i < layers; i++) {
        profile[i] = next_bit(&reader);
        level[i] = next_bit(&reader);
        if (profile[i] < 0 || level[i] < 0) return 0;
    }
    if (layers > 0 && !skip_bits(&reader, 2 * (8 - layers))) return 0;
    for (int i = 0; i < layers; i++) {
        if (!skip_bits(&reader, (profile[i] ? 88 : 0) + (level[i] ? 8 : 0))) return 0;
    }
    int64_t id = exp_golomb(&reader), chroma = exp_golomb(&reader);
    if (id < 0 || chroma < 0 || (chroma == 3 && !skip_bits(&reader, 1))) return 0;
    int64_t width = exp_golomb(&reader), height = exp_golomb(&reader);
    if (width <= 0 || height <= 0) return 0;
    return (uint64_t)width * (uint64_t)height;
}

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
        // Every sequence parameter set, the configuration's and any in the data, is checked
        // before libde265 allocates the picture it declares.
        if (length >= 2 && (bytes[at] >> 1 & 0x3F) == 33 && pixelLimit > 0 && sps_pixels(bytes + at, length) > pixelLimit) {
            return plugin_error(heif_suberror_Security_limit_exceeded, "an HEVC stream past the pixel limit");
        }
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
        // A picture may be queued by the call that then fails: it is looked for either way.
        de265_error status = lib.de265_decode(decoder, &more);
        const struct de265_image *picture = lib.de265_peek_next_picture(decoder);
        if (picture) {
            struct heif_error error = convert(picture, out);
            lib.de265_release_next_picture(decoder);
            return error;
        }
        if (status != DE265_OK) break;
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
    // libheif's count of users held for good: a last `heif_deinit` elsewhere in the process (a
    // gdk-pixbuf loader, say) would otherwise drop every plugin, ours with them.
    lib.heif_init(NULL);
    return &plugin;
}
