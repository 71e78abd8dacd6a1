/* The telemetry rows' OTLP/HTTP receiver: answers every POST with 200 `{}` after reading its
 * body, and counts what it got, per path: requests, body bytes, and the spans of trace exports
 * (the `"spanId"` keys of their JSON, a span's `parentSpanId` being another key; in protobuf,
 * the `spans` of each `ScopeSpans` of each `ResourceSpans`, read by their field numbers, the
 * rest skipped, nothing decoded). A C program, so
 * the receiver's own CPU stays small (a Python server reading tens of MB/s took a good share
 * of a core); the bench runs it on the server's CPUs.
 *
 * Usage: otlp_sink            prints "PORT <n>" on its first line, serves until killed.
 *   GET /counts  -> {"traces": n, "metrics": n, "bytes": n, "spans": n}, then zeroes them.
 * HTTP/1.1 with Content-Length bodies (libcurl's POSTFIELDS) and keep-alive; a thread per
 * connection (the exporter opens a few). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static atomic_long traces, metrics, bytes, spans;

static int send_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, text, length, MSG_NOSIGNAL);
        if (sent <= 0) return -1;
        text += sent;
        length -= (size_t)sent;
    }
    return 0;
}

static long count_spans(const char *body, size_t length) {
    static const char key[] = "\"spanId\"";
    long found = 0;
    const char *at = body, *end = body + length;
    while ((at = memmem(at, (size_t)(end - at), key, sizeof key - 1)) != NULL) {
        found++;
        at += sizeof key - 1;
    }
    return found;
}

/* The varint at *at, which it moves past; *at = end when the bytes end first. */
static uint64_t varint(const unsigned char **at, const unsigned char *end) {
    uint64_t value = 0;
    for (int shift = 0; *at < end && shift < 64; shift += 7) {
        unsigned char byte = *(*at)++;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return value;
    }
    *at = end;
    return 0;
}

/* How many length-delimited fields at the end of `path` (field numbers, one per level, `depth`
 * of them) the protobuf message [at, end) holds. */
static long count_fields(const unsigned char *at, const unsigned char *end, const int *path, int depth) {
    long found = 0;
    while (at < end) {
        uint64_t key = varint(&at, end);
        switch (key & 7) {
        case 0: varint(&at, end); break;
        case 1: at += 8; break;
        case 5: at += 4; break;
        case 2: {
            uint64_t length = varint(&at, end);
            if (length > (uint64_t)(end - at)) return found;
            if ((int)(key >> 3) == path[0]) found += depth == 1 ? 1 : count_fields(at, at + length, path + 1, depth - 1);
            at += length;
            break;
        }
        default: return found;
        }
    }
    return found;
}

/* ExportTraceServiceRequest.resource_spans (1), ResourceSpans.scope_spans (2), ScopeSpans.spans (2). */
static long count_protobuf_spans(const char *body, size_t length) {
    static const int path[] = {1, 2, 2};
    return count_fields((const unsigned char *)body, (const unsigned char *)body + length, path, 3);
}

static void *serve(void *argument) {
    int fd = (int)(intptr_t)argument;
    size_t capacity = 1 << 16, have = 0;
    char *buffer = malloc(capacity);
    for (;;) {
        char *head_end;
        while ((head_end = memmem(buffer, have, "\r\n\r\n", 4)) == NULL) {
            if (have == capacity) buffer = realloc(buffer, capacity *= 2);
            ssize_t got = recv(fd, buffer + have, capacity - have, 0);
            if (got <= 0) goto done;
            have += (size_t)got;
        }
        size_t head = (size_t)(head_end - buffer) + 4, body = 0;
        char *line = memmem(buffer, head, "\r\n", 2) + 2;
        int expect = 0, protobuf = 0;
        while (line < buffer + head - 2) {
            if (strncasecmp(line, "Content-Length:", 15) == 0) body = strtoul(line + 15, NULL, 10);
            if (strncasecmp(line, "Content-Type: application/x-protobuf", 36) == 0) protobuf = 1;
            if (strncasecmp(line, "Expect:", 7) == 0) expect = 1;
            line = memmem(line, (size_t)(buffer + head - line), "\r\n", 2) + 2;
        }
        if (expect && have == head && send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0) goto done;
        if (head + body > capacity) buffer = realloc(buffer, capacity = head + body);
        while (have < head + body) {
            ssize_t got = recv(fd, buffer + have, capacity - have, 0);
            if (got <= 0) goto done;
            have += (size_t)got;
        }
        char answer[256];
        if (strncmp(buffer, "GET /counts ", 12) == 0) {
            char json[160];
            int length = snprintf(json, sizeof json, "{\"traces\": %ld, \"metrics\": %ld, \"bytes\": %ld, \"spans\": %ld}",
                                  atomic_exchange(&traces, 0), atomic_exchange(&metrics, 0), atomic_exchange(&bytes, 0),
                                  atomic_exchange(&spans, 0));
            int total = snprintf(answer, sizeof answer, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                 "Content-Length: %d\r\n\r\n%s", length, json);
            if (send_all(fd, answer, (size_t)total) < 0) goto done;
        } else {
            if (strncmp(buffer, "POST /v1/traces ", 16) == 0) {
                atomic_fetch_add(&traces, 1);
                atomic_fetch_add(&spans, protobuf ? count_protobuf_spans(buffer + head, body) : count_spans(buffer + head, body));
            } else if (strncmp(buffer, "POST /v1/metrics ", 17) == 0) {
                atomic_fetch_add(&metrics, 1);
            }
            atomic_fetch_add(&bytes, (long)body);
            static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
            if (send_all(fd, ok, sizeof ok - 1) < 0) goto done;
        }
        memmove(buffer, buffer + head + body, have - head - body);
        have -= head + body;
    }
done:
    free(buffer);
    close(fd);
    return NULL;
}

int main(void) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t size = sizeof address;
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 128) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &size) != 0) {
        perror("otlp_sink");
        return 1;
    }
    printf("PORT %d\n", ntohs(address.sin_port));
    fflush(stdout);
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        pthread_t thread;
        if (pthread_create(&thread, NULL, serve, (void *)(intptr_t)fd) != 0) {
            close(fd);
            continue;
        }
        pthread_detach(thread);
    }
}
