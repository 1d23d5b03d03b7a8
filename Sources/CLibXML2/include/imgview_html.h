#pragma once

// libxml2's HTML push parser behind a small interface without libxml2's types, so that only
// this C target needs libxml2's headers and nothing links libxml2: its functions are resolved
// from a handle `SharedLibrary` opened on first use (DECISIONS.md, "A light binary").

/// A start tag: its lower-case name and its attributes as name, value pairs ending with NULL (a
/// value is NULL for an attribute without one).
typedef void (*imgview_html_start)(void *context, const char *name, const char *const *attributes);
typedef void (*imgview_html_end)(void *context, const char *name);
/// Text (UTF-8, `length` bytes), only while the context asked for it.
typedef void (*imgview_html_text)(void *context, const char *text, int length);

typedef struct imgview_html_parser imgview_html_parser;

/// Resolves libxml2's functions from `library` (a dlopen handle) and initialises the library.
/// Returns NULL, or the name of the first function missing. Call once, before any parser.
const char *imgview_html_load(void *library);

/// A parser for one document, reporting to the callbacks with `context`; NULL when it cannot start.
imgview_html_parser *imgview_html_parser_new(
    imgview_html_start start, imgview_html_end end, imgview_html_text text, void *context);
/// Parses the document's next `count` bytes; `last` != 0 ends the document.
void imgview_html_parser_feed(imgview_html_parser *parser, const char *bytes, int count, int last);
/// Stops parsing: nothing more is reported.
void imgview_html_parser_stop(imgview_html_parser *parser);
void imgview_html_parser_free(imgview_html_parser *parser);
