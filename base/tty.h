/*
 * tty.h - text from outside made safe for a terminal: the one escaping
 * that every text output of pmon uses for what it did not write itself
 * (region, node, meter and channel names, job ids, drivers' messages,
 * paths).  base/tty.c is compiled into the library and the tools.
 *
 * The escaped form of a string:
 *  - a control character of C0 (U+0000..U+001F) or DEL (U+007F) is a
 *    C escape: \a \b \t \n \v \f \r, \e for ESC, \xHH (two lower-case
 *    hexadecimal digits) for the others ("\x01", "\x7f");
 *  - a C1 control character (U+0080..U+009F, two bytes in UTF-8) is
 *    \u0080 .. \u009f;
 *  - a byte that does not begin a valid UTF-8 character (a stray
 *    continuation byte; C0, C1 or F5..FF; an overlong form; a surrogate;
 *    past U+10FFFF; a sequence cut short) is \xHH, and the next byte is
 *    looked at afresh;
 *  - everything else, printable ASCII and valid UTF-8, is kept, the
 *    backslash included.
 * So the form holds no byte below 0x20, no DEL and no C1 character, and
 * is valid UTF-8; escaping it again changes nothing (the backslash is
 * not doubled, so two names can have one form: the form is for people,
 * the JSON report keeps the names exactly).  Each escape takes as many
 * columns as it has bytes, at most 6 for the 2 bytes of a C1 character
 * and 4 for one byte: PMON_TTY_SIZE(n) bytes hold the form of n bytes.
 */
#ifndef PMON_TTY_H
#define PMON_TTY_H

#include <stddef.h>

/* The bytes that hold the escaped form of N bytes, its NUL included. */
#define PMON_TTY_SIZE(n) (4 * (size_t)(n) + 1)

/*
 * Writes the escaped form of the string S into DST (SIZE bytes), NUL
 * terminated when SIZE is not 0, as snprintf() does: when it does not
 * fit, it is cut before the first escape or character that does not fit
 * whole (never inside one).  Returns the length of the whole form (not
 * counting the NUL), whatever SIZE.  S NULL is "".  Allocates nothing,
 * takes no lock: any thread may call it.
 */
size_t pmon__tty_escape(char *dst, size_t size, const char *s);

/* As pmon__tty_escape() for the N bytes at S (NUL bytes among them are
 * escaped as \x00). */
size_t pmon__tty_escape_n(char *dst, size_t size, const char *s, size_t n);

/* Whether the string S is its own escaped form (nothing to escape); 1
 * for NULL. */
int pmon__tty_safe(const char *s);

/* The escaped form of S in memory from malloc(), for the caller to
 * free(); NULL when S is NULL or memory is short. */
char *pmon__tty_dup(const char *s);

#endif /* PMON_TTY_H */
