/* outfile.h - every file ecnwatch writes (-o, --metrics-file, --plot) goes
 * through one writer: the content is written whole into a temporary file
 * beside the path, flushed to disk, and renamed over the path, so that a
 * reader sees the old file or the new one, never a part. The file gets the
 * mode any new file gets (0666 less the umask). On failure nothing is left
 * behind: not the temporary file, and the path as it was. */
#ifndef ECNWATCH_OUTFILE_H
#define ECNWATCH_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* writes the content into out: 0, or -1 with errno set (0 reads as EIO) */
typedef int (*ew_outfile_fill)(void *arg, FILE *out);

/* Write path from fill. what names the content in the error message
 * ("report", "metrics", "plot"). 0 on success; -1 with err set to one line
 * "PATH: cannot ...: REASON". */
int ew_outfile_write(const char *path, ew_outfile_fill fill, void *arg, const char *what,
                     char *err, size_t errlen);

#endif /* ECNWATCH_OUTFILE_H */
