// Wide-character ncurses, with the macros that Swift cannot reach wrapped in inline functions
// (see ../shared/LINUX-NOTES.md), and the functions and variables imgview uses as pointers
// filled from the library opened at run time.
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <dlfcn.h>
#include <locale.h>
#include <ncursesw/curses.h>

// The functions imgview calls. The types come from ncurses' own declarations (`__typeof__`), so a
// header and a table cannot disagree. To call another function, add it to the list. Some live in
// libtinfo (raw, keypad, nodelay, curs_set, keyok, tigetstr), which libncursesw.so.6 needs: `dlsym`
// on its handle finds them there. getmaxx, getcurx and mvwin_wchnstr are macros as well as
// functions: a name not followed by a parenthesis is the function.
#define IMGVIEW_NCURSES_FUNCTIONS(X) \
    X(newterm) \
    X(set_term) \
    X(endwin) \
    X(raw) \
    X(noecho) \
    X(nonl) \
    X(keypad) \
    X(nodelay) \
    X(set_escdelay) \
    X(curs_set) \
    X(leaveok) \
    X(clearok) \
    X(keyok) \
    X(has_colors) \
    X(start_color) \
    X(use_default_colors) \
    X(alloc_pair) \
    X(reset_color_pairs) \
    X(resizeterm) \
    X(getmaxx) \
    X(getmaxy) \
    X(getcurx) \
    X(getcury) \
    X(wmove) \
    X(werase) \
    X(wredrawln) \
    X(wrefresh) \
    X(dupwin) \
    X(delwin) \
    X(mvwin_wchnstr) \
    X(wget_wch) \
    X(setcchar) \
    X(wadd_wch) \
    X(tigetstr)

// The variables imgview reads, by address (stdscr and curscr live in libtinfo): they change as
// screens start and end, so they are read at each use, never copied.
#define IMGVIEW_NCURSES_VARIABLES(X) \
    X(stdscr) \
    X(curscr) \
    X(COLORS) \
    X(COLOR_PAIRS)

#define IMGVIEW_NCURSES_POINTER(name) __typeof__(name) * _Nonnull name;
#define IMGVIEW_NCURSES_ADDRESS(name) __typeof__(name) * _Nonnull name##_address;
struct imgview_ncurses {
    IMGVIEW_NCURSES_FUNCTIONS(IMGVIEW_NCURSES_POINTER)
    IMGVIEW_NCURSES_VARIABLES(IMGVIEW_NCURSES_ADDRESS)
};

// Fills the table from `library` (a dlopen handle); `*missing` names the first function or
// variable not found, and the table must not be used then.
static inline struct imgview_ncurses imgview_ncurses_load(void * _Nonnull library, const char * _Nullable * _Nonnull missing) {
    struct imgview_ncurses table;
    *missing = 0;
#define IMGVIEW_NCURSES_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name && !*missing) *missing = #name;
#define IMGVIEW_NCURSES_RESOLVE_ADDRESS(name) \
    table.name##_address = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name##_address && !*missing) *missing = #name;
    IMGVIEW_NCURSES_FUNCTIONS(IMGVIEW_NCURSES_RESOLVE)
    IMGVIEW_NCURSES_VARIABLES(IMGVIEW_NCURSES_RESOLVE_ADDRESS)
#undef IMGVIEW_NCURSES_RESOLVE
#undef IMGVIEW_NCURSES_RESOLVE_ADDRESS
    return table;
}

static inline attr_t imgview_a_bold(void) { return A_BOLD; }
static inline attr_t imgview_a_reverse(void) { return A_REVERSE; }
static inline attr_t imgview_a_dim(void) { return A_DIM; }
static inline attr_t imgview_a_underline(void) { return A_UNDERLINE; }
static inline attr_t imgview_a_normal(void) { return A_NORMAL; }
static inline int imgview_key_resize(void) { return KEY_RESIZE; }
static inline int imgview_key_left(void) { return KEY_LEFT; }
static inline int imgview_key_right(void) { return KEY_RIGHT; }
static inline int imgview_key_up(void) { return KEY_UP; }
static inline int imgview_key_down(void) { return KEY_DOWN; }
static inline int imgview_key_btab(void) { return KEY_BTAB; }
static inline int imgview_setlocale_all(void) { return setlocale(LC_ALL, "") != NULL; }
static inline int imgview_key_code_yes(void) { return KEY_CODE_YES; }

/// Draws one cell on the standard screen: `text` (one character, possibly with combining marks)
/// with attributes and an extended colour pair, which the Swift side cannot pass through
/// setcchar's void pointer without ceremony. (What `mvadd_wch` does, through the table.)
static inline int imgview_put_cell(const struct imgview_ncurses * _Nonnull curses, int y, int x, const wchar_t *text,
                                   attr_t attributes, int pair) {
    cchar_t cell;
    if (curses->setcchar(&cell, text, attributes, 0, &pair) != OK) return ERR;
    WINDOW *screen = *curses->stdscr_address;
    if (curses->wmove(screen, y, x) == ERR) return ERR;
    return curses->wadd_wch(screen, &cell);
}

/// A terminfo string capability, or NULL when the terminal has none.
static inline const char *imgview_terminfo_string(const struct imgview_ncurses * _Nonnull curses, const char *name) {
    char *value = curses->tigetstr(name);
    return (value == NULL || value == (char *)-1) ? NULL : value;
}

// Keys for navigation, prompts and the pan keys (Shift+arrows: KEY_SR and KEY_SF are Shift+↑ and Shift+↓).
static inline int imgview_key_home(void) { return KEY_HOME; }
static inline int imgview_key_end(void) { return KEY_END; }
static inline int imgview_key_ppage(void) { return KEY_PPAGE; }
static inline int imgview_key_npage(void) { return KEY_NPAGE; }
static inline int imgview_key_backspace(void) { return KEY_BACKSPACE; }
static inline int imgview_key_dc(void) { return KEY_DC; }
static inline int imgview_key_enter(void) { return KEY_ENTER; }
static inline int imgview_key_sleft(void) { return KEY_SLEFT; }
static inline int imgview_key_sright(void) { return KEY_SRIGHT; }
static inline int imgview_key_sr(void) { return KEY_SR; }
static inline int imgview_key_sf(void) { return KEY_SF; }
static inline int imgview_key_mouse(void) { return KEY_MOUSE; }
static inline int imgview_key_f(int n) { return KEY_F(n); }
