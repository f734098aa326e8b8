/* thread.c - starting helper threads (see thread.h). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "base/thread.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int
ew_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    int e;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    e = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}

bool
ew_spare_processor(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set) > 1;
#endif
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

int64_t
ew_idle_ns(void)
{
    char buf[256], *p, *end;
    unsigned long long v[5];
    long hz = sysconf(_SC_CLK_TCK);
    ssize_t n;
    int fd, i;

    fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n < 5 || hz <= 0)
        return -1;
    buf[n] = '\0';
    /* "cpu  user nice system idle iowait ..." in clock ticks */
    if (buf[0] != 'c' || buf[1] != 'p' || buf[2] != 'u' || buf[3] != ' ')
        return -1;
    p = buf + 4;
    for (i = 0; i < 5; i++) {
        v[i] = strtoull(p, &end, 10);
        if (end == p)
            return -1;
        p = end;
    }
    if (v[3] > INT64_MAX / 4000000000LL || v[4] > INT64_MAX / 4000000000LL)
        return -1;
    return (int64_t)((v[3] + v[4]) * 1000000000ULL / (unsigned long long)hz);
}
