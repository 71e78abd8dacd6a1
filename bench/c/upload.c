/* One multipart/form-data upload through Gatewire's C ABI: FILE as the part "file"
 * (GW_PART_FILE, streamed from disk by libcurl), POSTed to PATH of the config's base URL, a
 * sink that answers {"received": N} with the body bytes it read.
 *
 * Usage: upload CONFIG_FILE PATH FILE FILE_BYTES
 * Prints one JSON line (see common.h) with "uploaded": the sink's byte count, and
 * "vm_hwm_kib": the peak RSS since exec; ok is 1 when
 * the call succeeded with 200 and the sink read more than FILE_BYTES (the part's bytes plus
 * the multipart framing). Exit status 1 otherwise. */
/* Written against the 0.x flat gw_call_options (version 4, policy_json): kept so. */
#define GW_USE_CALL_OPTIONS_V4
#include <gatewire.h>

#include "common.h"

/* The process's peak resident set since its exec (VmHWM of /proc/self/status), in KiB. wait4's
 * ru_maxrss also counts the runner's pages the child had between fork and exec (Python's
 * ~18 MiB), a floor under every row. */
static long peak_rss_since_exec_kib(void) {
    char line[256];
    long kib = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: upload CONFIG_FILE PATH FILE FILE_BYTES\n");
        return 2;
    }
    long long file_bytes = atoll(argv[4]);
    gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
    client_options.config_path = argv[1];
    gw_client *client = NULL;
    if (gw_client_create(&client_options, &client) != GW_OK) {
        fprintf(stderr, "gw_client_create: %s\n", gw_last_error_message());
        return 1;
    }
    gw_part part = {.kind = GW_PART_FILE, .name = "file", .path = argv[3]};
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.method = "POST";
    options.path = argv[2];
    options.parts = &part;
    options.part_count = 1;
    gw_result *result = NULL;
    double cpu = bench_cpu(), start = bench_now();
    int32_t rc = gw_call(client, &options, &result);
    double elapsed = bench_now() - start;
    cpu = bench_cpu() - cpu;
    size_t length = 0;
    const uint8_t *body = rc == GW_OK ? gw_result_body(result, &length) : NULL;
    char text[256] = "";  /* the sink's short answer, NUL-terminated */
    if (body) memcpy(text, body, length < sizeof text - 1 ? length : sizeof text - 1);
    long long received = 0;
    const char *number = strstr(text, "\"received\":");
    if (number) received = atoll(number + strlen("\"received\":"));
    int ok = rc == GW_OK && gw_result_status(result) == 200 && received > file_bytes;
    if (!ok) fprintf(stderr, "upload failed: rc %d, %s, received %lld\n", rc, result ? gw_result_error_message(result) : "",
                     received);
    char extra[96];
    snprintf(extra, sizeof extra, "\"uploaded\": %lld, \"vm_hwm_kib\": %ld", received, peak_rss_since_exec_kib());
    bench_report(1, ok, elapsed, cpu, extra);
    gw_result_free(result);
    gw_client_free(client);
    return ok ? 0 : 1;
}
