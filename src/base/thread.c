/* thread.c - starting helper threads (see thread.h). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "base/thread.h"

#include <sched.h>
#include <signal.h>
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
