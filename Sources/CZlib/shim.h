#include <zlib.h>

// deflateInit2 is a macro; Swift sees only the underscore function behind it.
static inline int imgview_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

// inflateInit is a macro too.
static inline int imgview_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}
