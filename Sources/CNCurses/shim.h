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
