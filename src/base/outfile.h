/* outfile.h - every file ecnwatch writes (-o, --metrics-file, --plot) goes
 * through one writer, with one permission policy: a new file gets the mode
 * any new file gets (0666 less the umask).
 *
 * What the path names decides how it is written:
 *   "-"                    standard output
 *   nothing yet, or a regular file (also through a symbolic link)
 *                          replaced atomically: the content is written whole
 *                          into an unnamed file in the same folder (O_TMPFILE;
 *                          where the file system has none, a temporary name
 *                          beside the path), flushed to disk, then given the
 *                          path by a rename, so that a reader sees the old
 *                          file or the new one, never a part, and a process
 *                          killed while writing leaves nothing behind
 *   a device, FIFO or socket (e.g. /dev/null, /dev/stdout to a pipe)
 *                          opened and written in place, as tcpdump -w does;
 *                          never replaced
 *   a directory            refused
 * On failure the path is as it was and no temporary file is left.
 *
 * Live, root gives up its privileges (-Z) before it reads a packet, as
 * tcpdump does; the files asked for are still root's, written where root
 * may write, as tcpdump's -w is. Every destination is settled while still
 * root (ew_outfile_guard): its folder opened and its name fixed, the link
 * that names a file followed then or never. The user dropped to cannot
 * create or rename a name in a folder of root's, however that folder was
 * opened, so a helper process forked before the drop keeps root and does
 * only that: it makes unnamed files in those folders, hands the writer a
 * descriptor of each, and gives one of its own files one of the settled
 * names (a link, then a rename: the same atomic replacement, the same mode,
 * the file root's). It takes no path and follows no link after the drop. A
 * device or FIFO is still written through its path, as the user dropped to
 * (-w opens it before the drop). After the drop every message of a write
 * that failed names that user: "PATH: cannot write the WHAT as user U (see
 * -Z): REASON". Without the guard nothing here changes. */
#ifndef ECNWATCH_OUTFILE_H
#define ECNWATCH_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* writes the content into out: 0, or -1 with errno set (0 reads as EIO) */
typedef int (*ew_outfile_fill)(void *arg, FILE *out);

/* Write path from fill. what names the content in the error message
 * ("report", "metrics", "plot"). 0 on success; -1 with err set to one line
 * "PATH: cannot write the WHAT: REASON". */
int ew_outfile_write(const char *path, ew_outfile_fill fill, void *arg, const char *what,
                     char *err, size_t errlen);

/* Can path be written by this process as it runs now (its effective user)?
 * Checked before the first packet is read, so that a report is never lost
 * at the end for a folder that could not be written: creates (and removes)
 * an unnamed file in the folder; a device or FIFO must be writable (it is
 * not opened: closing a FIFO would end its reader's input). 0, or -1 with err set as ew_outfile_write sets it. */
int ew_outfile_check(const char *path, const char *what, char *err, size_t errlen);

/* A file written as it is produced (-w: the packets, as they are read), by
 * the same policy: "-" is standard output; a device, FIFO or socket is
 * opened now and written in place; a new or regular file is written into an
 * unnamed (or temporary) file in its folder and given the path only by
 * ew_outfile_close(), so that a reader sees the old file or the whole new
 * one, and a process killed while writing leaves nothing behind.
 * NULL on failure, with err set as ew_outfile_write sets it. */
struct ew_outfile;
struct ew_outfile *ew_outfile_open(const char *path, const char *what, char *err,
                                   size_t errlen);
/* where to write: a descriptor owned by the ew_outfile (dup it to fdopen it) */
int ew_outfile_fd(const struct ew_outfile *f);
/* With commit: flushed to disk and given the path (a file to replace); 0,
 * or -1 with err set. Without: the path is left as it was. f is freed. */
int ew_outfile_close(struct ew_outfile *f, bool commit, char *err, size_t errlen);

/* The guard, for a live capture started as root that drops to user:
 *   ew_outfile_guard()    before the outputs are checked: the helper starts;
 *                         from now until the seal, every path checked or
 *                         opened (ew_outfile_check, ew_outfile_open,
 *                         ew_outfile_folder) has its destination settled
 *   ew_outfile_seal()     just before the drop: no more destinations
 *   ew_outfile_dropped()  just after it: messages name user; a device or
 *                         FIFO to write at the end is checked as that user
 *   ew_outfile_unguard()  at the end: the helper ends (what was never named
 *                         is removed)
 * Each is 0 or -1 with one line in err. user must outlive the guard. */
int ew_outfile_guard(const char *user, char *err, size_t errlen);
void ew_outfile_seal(void);
int ew_outfile_dropped(char *err, size_t errlen);
void ew_outfile_unguard(void);

/* A folder whose files are written by their paths DIR/NAME (--plot): under
 * the guard, DIR is made when missing (as mkdir -p) and opened now, and a
 * NAME of the newline-separated fnmatch patterns names (not hidden, no
 * slash) may be written there: 1. Without the guard, nothing: 0. -1 with
 * err set as ew_outfile_write sets it. */
int ew_outfile_folder(const char *dir, const char *names, const char *what, char *err,
                      size_t errlen);

/* mkdir(dir, 0777) that accepts a folder already there: 0, or -1 with errno.
 * A folder settled by ew_outfile_folder is not looked up again: it is the
 * one opened then. */
int ew_outfile_mkdir(const char *dir);

#endif /* ECNWATCH_OUTFILE_H */
