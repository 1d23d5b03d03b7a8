#include "imgview_html.h"

#include <dlfcn.h>
#include <libxml/HTMLparser.h>
#include <stdlib.h>
#include <string.h>

static struct {
    void (*init)(void);
    htmlParserCtxtPtr (*create)(htmlSAXHandlerPtr, void *, const char *, int, const char *, xmlCharEncoding);
    int (*options)(htmlParserCtxtPtr, int);
    int (*chunk)(htmlParserCtxtPtr, const char *, int, int);
    void (*stop)(xmlParserCtxtPtr);
    void (*free_context)(htmlParserCtxtPtr);
} xml;

const char *imgview_html_load(void *library) {
#define RESOLVE(field, name) \
    *(void **)(&xml.field) = dlsym(library, name); \
    if (!xml.field) return name;
    RESOLVE(init, "xmlInitParser")
    RESOLVE(create, "htmlCreatePushParserCtxt")
    RESOLVE(options, "htmlCtxtUseOptions")
    RESOLVE(chunk, "htmlParseChunk")
    RESOLVE(stop, "xmlStopParser")
    RESOLVE(free_context, "htmlFreeParserCtxt")
#undef RESOLVE
    xml.init();
    return NULL;
}

struct imgview_html_parser {
    htmlParserCtxtPtr context;
    imgview_html_start start;
    imgview_html_end end;
    imgview_html_text text;
    void *owner;
    int stopped;
};

// With no user data given, libxml2 passes its parser context to the callbacks; ours is in `_private`.
static struct imgview_html_parser *parser_of(void *context) {
    return ((htmlParserCtxtPtr)context)->_private;
}

static void on_start(void *context, const xmlChar *name, const xmlChar **attributes) {
    struct imgview_html_parser *parser = parser_of(context);
    if (!parser->stopped) parser->start(parser->owner, (const char *)name, (const char *const *)attributes);
}

static void on_end(void *context, const xmlChar *name) {
    struct imgview_html_parser *parser = parser_of(context);
    if (!parser->stopped) parser->end(parser->owner, (const char *)name);
}

static void on_characters(void *context, const xmlChar *text, int length) {
    struct imgview_html_parser *parser = parser_of(context);
    if (!parser->stopped) parser->text(parser->owner, (const char *)text, length);
}

imgview_html_parser *imgview_html_parser_new(
    imgview_html_start start, imgview_html_end end, imgview_html_text text, void *owner) {
    struct imgview_html_parser *parser = calloc(1, sizeof *parser);
    if (!parser) return NULL;
    htmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.startElement = on_start;
    sax.endElement = on_end;
    sax.characters = on_characters;
    parser->context = xml.create(&sax, NULL, NULL, 0, NULL, XML_CHAR_ENCODING_NONE);
    if (!parser->context) {
        free(parser);
        return NULL;
    }
    parser->context->_private = parser;
    parser->start = start;
    parser->end = end;
    parser->text = text;
    parser->owner = owner;
    xml.options(parser->context, HTML_PARSE_RECOVER | HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    return parser;
}

void imgview_html_parser_feed(imgview_html_parser *parser, const char *bytes, int count, int last) {
    if (parser->stopped) return;
    xml.chunk(parser->context, bytes, count, last);
}

void imgview_html_parser_stop(imgview_html_parser *parser) {
    if (parser->stopped) return;
    parser->stopped = 1;
    xml.stop((xmlParserCtxtPtr)parser->context);
}

void imgview_html_parser_free(imgview_html_parser *parser) {
    if (!parser) return;
    xml.free_context(parser->context);
    free(parser);
}
