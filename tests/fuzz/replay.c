/* replay.c - run a harness's LLVMFuzzerTestOneInput over saved inputs
 * without libFuzzer, so that the plain and the sanitizer builds replay the
 * regression inputs with the compiler the project builds with.
 *
 *   replay_dissect FILE|DIR...
 *
 * Each input is copied into a buffer of exactly its size. Prints one line
 * with the count; a crash is the sanitizer's (or abort's) to report. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int
replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (!fp) {
        perror(path);
        return -1;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb;

            cap = cap ? cap * 2 : 4096;
            nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(fp);
                return -1;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, fp);
        if (n == 0)
            break;
        len += n;
    }
    fclose(fp);
    {
        /* exactly len bytes, so that a read past the input is caught */
        uint8_t *exact = malloc(len ? len : 1);

        if (!exact) {
            free(buf);
            return -1;
        }
        memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    return 0;
}

static int
replay_path(const char *path, unsigned long *count)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    int rc = 0;

    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (replay_file(path) != 0)
            return -1;
        (*count)++;
        return 0;
    }
    d = opendir(path);
    if (!d) {
        perror(path);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char sub[4096];

        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        if (replay_path(sub, count) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int
main(int argc, char **argv)
{
    unsigned long count = 0;
    int i, rc = 0;

    for (i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            rc = 1;
    printf("replay: %lu inputs\n", count);
    return rc;
}
