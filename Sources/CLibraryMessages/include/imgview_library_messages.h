#ifndef IMGVIEW_LIBRARY_MESSAGES_H
#define IMGVIEW_LIBRARY_MESSAGES_H

#include <stddef.h>
#include <stdio.h>

// What a C library prints on C's `stderr` while this thread runs it, kept instead of reaching the
// terminal (LibraryMessages.swift says why). File descriptor 2 is never touched: while any thread
// captures, C's `stderr` is a stream that hands each write to the capture of the thread making it,
// or, from a thread that is not capturing, to the stream `stderr` was before.

// The most bytes one capture keeps; what is printed past them is counted, not kept.
#define IMGVIEW_LIBRARY_MESSAGES_CAPACITY 2048

// Starts capturing what this thread prints on C's `stderr`. Returns where this capture's bytes
// begin (captures on one thread nest), or -1 when the stream could not be made (then nothing is
// captured and `imgview_library_messages_end` must not be called).
long imgview_library_messages_begin(void);

// Ends the capture `begin` started: copies what this thread printed since `start`, at most
// `capacity` bytes, into `buffer`; returns the count copied and sets `*printed` to how many bytes
// were printed in all. The last capture to end, on any thread, gives `stderr` its stream back.
size_t imgview_library_messages_end(long start, char *buffer, size_t capacity, size_t *printed);

// The stream C's `stderr` is now (tests).
FILE *imgview_library_messages_stderr(void);
// Sends writes from threads not capturing to `stream` instead of the stream `stderr` was; NULL
// undoes it (tests: a stream they read).
void imgview_library_messages_set_forward(FILE *stream);

#endif
