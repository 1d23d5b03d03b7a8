// The libjpeg API of libjpeg-turbo (libjpeg62-turbo-dev), with what Swift cannot do itself:
// libjpeg reports a fatal error by calling `error_exit`, which must not return, so each call
// that can fail goes through a wrapper here that sets a jump point first and returns -1
// when the error handler jumps back to it. Swift never sees setjmp/longjmp.
#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dlfcn.h>
#include <jpeglib.h>
#include <jerror.h>

// The libjpeg functions imgview calls, as pointers filled from the library opened at run time
// (`JPEGLibrary`), typed from libjpeg's own declarations. The helpers below call libjpeg only
// through the copy of this table that `imgview_jpeg_create` keeps in the error manager, so the
// callbacks libjpeg makes reach it too. To call another function, add it to the list.
#define IMGVIEW_JPEG_FUNCTIONS(X) \
    X(jpeg_std_error) \
    X(jpeg_CreateDecompress) \
    X(jpeg_destroy_decompress) \
    X(jpeg_mem_src) \
    X(jpeg_read_header) \
    X(jpeg_calc_output_dimensions) \
    X(jpeg_start_decompress) \
    X(jpeg_read_scanlines) \
    X(jpeg_finish_decompress) \
    X(jpeg_start_output) \
    X(jpeg_finish_output) \
    X(jpeg_consume_input) \
    X(jpeg_input_complete) \
    X(jpeg_resync_to_restart)

#define IMGVIEW_JPEG_POINTER(name) __typeof__(name) * _Nonnull name;
struct imgview_jpeg {
    IMGVIEW_JPEG_FUNCTIONS(IMGVIEW_JPEG_POINTER)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function not
// found, and the table must not be used then.
static inline struct imgview_jpeg imgview_jpeg_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_jpeg table;
    *missing = 0;
#define IMGVIEW_JPEG_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
    IMGVIEW_JPEG_FUNCTIONS(IMGVIEW_JPEG_RESOLVE)
#undef IMGVIEW_JPEG_RESOLVE
    return table;
}

/// The error manager: libjpeg's, a jump point, the first fatal message and the first warning,
/// and the functions of libjpeg this decompressor calls.
typedef struct imgview_jpeg_errors {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    char warning[JMSG_LENGTH_MAX];
    int warnings;
    struct imgview_jpeg jpeg;
} imgview_jpeg_errors;

/// The functions of libjpeg, from the decompressor's error manager.
static inline const struct imgview_jpeg *imgview_jpeg_functions(j_decompress_ptr info) {
    return &((imgview_jpeg_errors *)info->err)->jpeg;
}

static void imgview_jpeg_error_exit(j_common_ptr info) {
    imgview_jpeg_errors *errors = (imgview_jpeg_errors *)info->err;
    (*info->err->format_message)(info, errors->message);
    longjmp(errors->jump, 1);
}

static void imgview_jpeg_emit_message(j_common_ptr info, int level) {
    // Negative levels are warnings (corrupt or missing data); others are trace messages.
    if (level >= 0) return;
    imgview_jpeg_errors *errors = (imgview_jpeg_errors *)info->err;
    if (errors->warnings == 0) (*info->err->format_message)(info, errors->warning);
    errors->warnings += 1;
}

static void imgview_jpeg_output_message(j_common_ptr info) {
    // libjpeg would print to stderr; messages are kept in `imgview_jpeg_errors` instead.
    (void)info;
}

/// Creates a decompressor reporting into `errors` (which this fills, a copy of `jpeg` included);
/// -1 if libjpeg could not start.
static inline int imgview_jpeg_create(j_decompress_ptr info, imgview_jpeg_errors *errors, const struct imgview_jpeg *jpeg) {
    memset(errors, 0, sizeof(*errors));
    errors->jpeg = *jpeg;
    info->err = jpeg->jpeg_std_error(&errors->manager);
    errors->manager.error_exit = imgview_jpeg_error_exit;
    errors->manager.emit_message = imgview_jpeg_emit_message;
    errors->manager.output_message = imgview_jpeg_output_message;
    if (setjmp(errors->jump)) return -1;
    jpeg->jpeg_CreateDecompress(info, JPEG_LIB_VERSION, sizeof(struct jpeg_decompress_struct));
    return 0;
}

static inline int imgview_jpeg_mem_src(j_decompress_ptr info, const unsigned char *buffer, unsigned long size) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    imgview_jpeg_functions(info)->jpeg_mem_src(info, buffer, size);
    return 0;
}

static inline int imgview_jpeg_read_header(j_decompress_ptr info) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return imgview_jpeg_functions(info)->jpeg_read_header(info, TRUE);
}

static inline int imgview_jpeg_calc_output_dimensions(j_decompress_ptr info) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    imgview_jpeg_functions(info)->jpeg_calc_output_dimensions(info);
    return 0;
}

static inline int imgview_jpeg_start_decompress(j_decompress_ptr info) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return imgview_jpeg_functions(info)->jpeg_start_decompress(info);
}

/// Reads up to `count` rows into `rows`; the number read, or -1.
static inline int imgview_jpeg_read_scanlines(j_decompress_ptr info, JSAMPARRAY rows, unsigned int count) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return (int)imgview_jpeg_functions(info)->jpeg_read_scanlines(info, rows, count);
}

static inline int imgview_jpeg_finish_decompress(j_decompress_ptr info) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return imgview_jpeg_functions(info)->jpeg_finish_decompress(info);
}

static inline int imgview_jpeg_start_output(j_decompress_ptr info, int scan) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return imgview_jpeg_functions(info)->jpeg_start_output(info, scan);
}

static inline int imgview_jpeg_finish_output(j_decompress_ptr info) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return imgview_jpeg_functions(info)->jpeg_finish_output(info);
}

static inline int imgview_jpeg_consume_input(j_decompress_ptr info) {
    if (setjmp(((imgview_jpeg_errors *)info->err)->jump)) return -1;
    return imgview_jpeg_functions(info)->jpeg_consume_input(info);
}

/// Whether, in a progressive YCbCr or greyscale file read so far, every coefficient has arrived
/// except for the lowest bit of some of luma's AC coefficients: then all the scans still to come
/// can add is that bit. libjpeg's `coef_bits` holds, per component and coefficient, -1 before
/// the coefficient's first scan and then the number of bits still missing.
static inline int imgview_jpeg_only_lowest_luma_bits_missing(j_decompress_ptr info) {
    if (!info->progressive_mode || info->coef_bits == NULL) return 0;
    if (info->jpeg_color_space != JCS_YCbCr && info->jpeg_color_space != JCS_GRAYSCALE) return 0;
    for (int component = 0; component < info->num_components; component++) {
        // Chroma's quantisation is coarse: its lowest bit moves pixels several levels, so it must be there.
        int allowed = component == 0 ? 1 : 0;
        if (info->coef_bits[component][0] != 0) return 0;
        for (int k = 1; k < DCTSIZE2; k++) {
            int missing = info->coef_bits[component][k];
            if (missing < 0 || missing > allowed) return 0;
        }
    }
    return 1;
}

/// For a decode that stops before reading the rest of a whole file held in memory: records
/// libjpeg's own "premature end" warning, as reading the rest would, unless the bytes not yet
/// read hold an end-of-image marker. In entropy-coded data an FF byte is always followed by 00 or
/// a restart marker, so FF D9 there is the file's end.
static inline void imgview_jpeg_warn_unless_rest_ends(j_decompress_ptr info) {
    const JOCTET *bytes = info->src->next_input_byte;
    size_t count = info->src->bytes_in_buffer;
    for (size_t index = 0; index + 1 < count; index++) {
        if (bytes[index] == 0xFF && bytes[index + 1] == JPEG_EOI) return;
    }
    WARNMS(info, JWRN_JPEG_EOF);
}

static inline void imgview_jpeg_destroy(j_decompress_ptr info) {
    imgview_jpeg_functions(info)->jpeg_destroy_decompress(info);
}

/// A data source over bytes that are still arriving: libjpeg reads what has arrived and
/// suspends (its calls return "suspended") when it needs more. The bytes so far are handed
/// over again before each round of calls (`imgview_jpeg_source_update`), possibly at a new
/// address; the source remembers only the position reached.
typedef struct imgview_jpeg_source {
    struct jpeg_source_mgr manager;
    const JOCTET *base;
    size_t length;
    /// Bytes libjpeg asked to skip beyond what has arrived.
    size_t pending_skip;
} imgview_jpeg_source;

static void imgview_source_init(j_decompress_ptr info) { (void)info; }

static boolean imgview_source_fill(j_decompress_ptr info) {
    (void)info;
    return FALSE;  // suspend: more bytes will come
}

static void imgview_source_skip(j_decompress_ptr info, long count) {
    imgview_jpeg_source *source = (imgview_jpeg_source *)info->src;
    if (count <= 0) return;
    if ((size_t)count <= source->manager.bytes_in_buffer) {
        source->manager.next_input_byte += count;
        source->manager.bytes_in_buffer -= (size_t)count;
    } else {
        source->pending_skip += (size_t)count - source->manager.bytes_in_buffer;
        source->manager.next_input_byte += source->manager.bytes_in_buffer;
        source->manager.bytes_in_buffer = 0;
    }
}

static void imgview_source_term(j_decompress_ptr info) { (void)info; }

/// Installs `source` as the decompressor's data source, with no bytes yet.
static inline void imgview_jpeg_source_install(j_decompress_ptr info, imgview_jpeg_source *source) {
    memset(source, 0, sizeof(*source));
    source->manager.init_source = imgview_source_init;
    source->manager.fill_input_buffer = imgview_source_fill;
    source->manager.skip_input_data = imgview_source_skip;
    source->manager.resync_to_restart = imgview_jpeg_functions(info)->jpeg_resync_to_restart;
    source->manager.term_source = imgview_source_term;
    info->src = &source->manager;
}

/// Hands the source every byte received so far (the old ones included), at `base`.
static inline void imgview_jpeg_source_update(imgview_jpeg_source *source, const JOCTET *base, size_t length) {
    size_t position = source->length + source->pending_skip;
    if (source->base != NULL && source->pending_skip == 0)
        position = (size_t)(source->manager.next_input_byte - source->base);
    source->base = base;
    source->length = length;
    if (position > length) {
        source->pending_skip = position - length;
        source->manager.next_input_byte = base + length;
        source->manager.bytes_in_buffer = 0;
    } else {
        source->pending_skip = 0;
        source->manager.next_input_byte = base + position;
        source->manager.bytes_in_buffer = length - position;
    }
}

// MARK: Backing store

/// libjpeg's `backing_store_info` (jmemsys.h, which Debian does not install): where a virtual
/// array too large for `max_memory_to_use` keeps the rows it does not hold. The file descriptor
/// of an unnamed temporary file stands in the `temp_file` slot, plus one.
typedef struct imgview_jpeg_backing_store {
    void (*read_backing_store)(j_common_ptr, struct imgview_jpeg_backing_store *, void *, long, long);
    void (*write_backing_store)(j_common_ptr, struct imgview_jpeg_backing_store *, void *, long, long);
    void (*close_backing_store)(j_common_ptr, struct imgview_jpeg_backing_store *);
    FILE *temp_file;
    char temp_name[64];
} imgview_jpeg_backing_store;

static inline int imgview_backing_descriptor(imgview_jpeg_backing_store *store) {
    return (int)(intptr_t)store->temp_file - 1;
}

static void imgview_backing_read(j_common_ptr info, imgview_jpeg_backing_store *store, void *buffer, long offset, long count) {
    char *at = (char *)buffer;
    while (count > 0) {
        ssize_t got = pread(imgview_backing_descriptor(store), at, (size_t)count, (off_t)offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) ERREXIT(info, JERR_TFILE_READ);
        at += got;
        offset += got;
        count -= got;
    }
}

static void imgview_backing_write(j_common_ptr info, imgview_jpeg_backing_store *store, void *buffer, long offset, long count) {
    const char *at = (const char *)buffer;
    while (count > 0) {
        ssize_t put = pwrite(imgview_backing_descriptor(store), at, (size_t)count, (off_t)offset);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) ERREXIT(info, JERR_TFILE_WRITE);
        at += put;
        offset += put;
        count -= put;
    }
}

static void imgview_backing_close(j_common_ptr info, imgview_jpeg_backing_store *store) {
    (void)info;
    close(imgview_backing_descriptor(store));
    store->temp_file = NULL;
}

/// An unnamed file in `$TMPDIR` (else /tmp) that goes when it is closed; -1 if none can be made.
static inline int imgview_jpeg_temporary_file(void) {
    const char *folder = getenv("TMPDIR");
    if (folder == NULL || folder[0] == 0) folder = "/tmp";
    int descriptor = open(folder, 020000000 | O_DIRECTORY | O_RDWR | O_CLOEXEC, 0600);  // O_TMPFILE
    if (descriptor >= 0) return descriptor;
    char name[4096];
    if (snprintf(name, sizeof(name), "%s/imgview-jpeg-XXXXXX", folder) >= (int)sizeof(name)) return -1;
    descriptor = mkostemp(name, O_CLOEXEC);
    if (descriptor >= 0) unlink(name);
    return descriptor;
}

/// libjpeg's `jpeg_open_backing_store`, for the executable's definition to call.
static inline void imgview_jpeg_open_backing_store(j_common_ptr info, imgview_jpeg_backing_store *store) {
    int descriptor = imgview_jpeg_temporary_file();
    if (descriptor < 0) ERREXITS(info, JERR_TFILE_CREATE, "");
    store->temp_file = (FILE *)(intptr_t)(descriptor + 1);
    store->read_backing_store = imgview_backing_read;
    store->write_backing_store = imgview_backing_write;
    store->close_backing_store = imgview_backing_close;
}
