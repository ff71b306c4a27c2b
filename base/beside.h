/*
 * beside.h - a new file beside a path, for writing it whole and renaming
 * it over the path: the library's report and pmon-report's pages and
 * pictures.  base/beside.c is compiled into both.
 */
#ifndef PMON_BESIDE_H
#define PMON_BESIDE_H

#include <stddef.h>

/*
 * Create a file beside PATH, its name in TMP (SIZE bytes): PATH, ".tmp."
 * and six random characters, tried until one is new.  O_EXCL (with
 * O_NOFOLLOW for clarity) never follows or reuses what is in the way, such
 * as a link planted at a name guessed from the PID; the mode is MODE less
 * the umask (0666 gives what fopen() gives; mkstemp() gives 0600), so
 * that a file for others to read is made 0644, never writable by them
 * for a moment.  A descriptor open for writing, or -1 with errno set
 * (ENAMETOOLONG when TMP is too small).
 */
int pmon__create_beside(const char *path, int mode, char *tmp, size_t size);

/* As pmon__create_beside(), the name being BEFORE, six random characters
 * and AFTER ("/tmp/pmon-JOB-" and ".json" give /tmp/pmon-JOB-x2Rf9a.json),
 * the mode MODE less the umask. */
int pmon__create_new(const char *before, const char *after, int mode,
                     char *name, size_t size);

/* Writes the LEN bytes of BUF to FD, again after EINTR and short writes;
 * 0, or -1 with errno set (EIO when a write wrote nothing). */
int pmon__write_all(int fd, const char *buf, size_t len);

#endif /* PMON_BESIDE_H */
