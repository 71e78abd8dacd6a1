/* Shared by the C bench clients: timing, CPU, RSS and the one-line JSON report. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* User + system CPU of the whole process (every thread), in seconds. */
static double bench_cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Resident set size now, in KiB (from /proc/self/statm). */
__attribute__((unused)) static long bench_rss_kib(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * 4;
}

/* A whole file as a NUL-terminated string (the caller frees it), or NULL. */
__attribute__((unused)) static char *bench_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc(1, (size_t)size + 1);
    if (fread(text, 1, (size_t)size, f) != (size_t)size) size = 0;
    fclose(f);
    return text;
}

/* The line the runner reads: requests completed and verified, timed phase only. */
static void bench_report(long requests, long ok, double elapsed, double cpu, const char *extra) {
    printf("{\"requests\": %ld, \"ok\": %ld, \"elapsed\": %.6f, \"cpu\": %.6f%s%s}\n", requests, ok, elapsed, cpu,
           extra && *extra ? ", " : "", extra ? extra : "");
    fflush(stdout);
}

#endif
