#include <zlib.h>

// deflateInit2 is a macro; Swift sees only the underscore function behind it. windowBits picks
// the wrapper: 15 + 16 gzip, 15 zlib, -15 none.
static inline int imgview_deflate_init(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

// inflateInit2 is a macro too: gzip (15 + 16), zlib (15) or raw deflate (-15) streams.
static inline int imgview_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

// inflateInit is a macro too.
static inline int imgview_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}
