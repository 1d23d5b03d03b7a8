// Wide-character ncurses, with the macros and globals that Swift cannot reach
// wrapped in inline functions (see ../shared/LINUX-NOTES.md).
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <ncursesw/curses.h>

static inline WINDOW *imgview_stdscr(void) { return stdscr; }
/// What ncurses believes the terminal shows now (a macro over the current screen).
static inline WINDOW *imgview_curscr(void) { return curscr; }
static inline int imgview_lines(void) { return LINES; }
static inline int imgview_cols(void) { return COLS; }
static inline int imgview_colors(void) { return COLORS; }
static inline int imgview_color_pairs(void) { return COLOR_PAIRS; }
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

/// Draws one cell: `text` (one character, possibly with combining marks) with attributes and
/// an extended colour pair, which the Swift side cannot pass through setcchar's void pointer
/// without ceremony.
static inline int imgview_put_cell(int y, int x, const wchar_t *text, attr_t attributes, int pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, 0, &pair) != OK) return ERR;
    return mvadd_wch(y, x, &cell);
}

/// A terminfo string capability, or NULL when the terminal has none.
static inline const char *imgview_terminfo_string(const char *name) {
    char *value = tigetstr(name);
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
