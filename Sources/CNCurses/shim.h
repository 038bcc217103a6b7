// ncursesw with wide characters, and inline wrappers for the macros Swift cannot import.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <langinfo.h>
#include <ncursesw/curses.h>

static inline WINDOW *cs_stdscr(void) { return stdscr; }
static inline int cs_rows(WINDOW *w) { return getmaxy(w); }
static inline int cs_cols(WINDOW *w) { return getmaxx(w); }
static inline attr_t cs_bold(void) { return A_BOLD; }
static inline attr_t cs_reverse(void) { return A_REVERSE; }
static inline attr_t cs_dim(void) { return A_DIM; }
static inline attr_t cs_normal(void) { return A_NORMAL; }
static inline attr_t cs_pair(short n) { return COLOR_PAIR(n); }

// The mouse: the wheel and a click of the first button, as ncurses reports them (tmux and SSH
// carry the terminal's mouse reports). Returns 1 for a wheel up, 2 for a wheel down, 3 for a
// click, 0 for anything else, with the cell in *x and *y.
static inline int cs_enable_mouse(void) {
    mouseinterval(0);
    return mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                     | BUTTON5_PRESSED
#endif
                     , NULL) != 0;
}
static inline int cs_mouse_event(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *x = event.x;
    *y = event.y;
    if (event.bstate & BUTTON4_PRESSED) return 1;
#ifdef BUTTON5_PRESSED
    if (event.bstate & BUTTON5_PRESSED) return 2;
#endif
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 3;
    return 0;
}
