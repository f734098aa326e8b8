/* thread.h - starting the helper threads of the reader and the report
 * writer. */
#ifndef ECNWATCH_THREAD_H
#define ECNWATCH_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* pthread_create() for a thread that takes no signal (they are the main
 * thread's, which stops on SIGINT and SIGTERM); 0 or an errno value. */
int ew_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* The process may run on more than one processor (its affinity, as taskset
 * sets it): a second thread can run beside the first. */
bool ew_spare_processor(void);

/* The time every processor of the machine has spent idle so far (the sum
 * over processors of /proc/stat's idle and iowait), in ns, to tell over an
 * interval how many processors other processes left idle; -1 when unknown
 * (no /proc). */
int64_t ew_idle_ns(void);

#endif /* ECNWATCH_THREAD_H */
