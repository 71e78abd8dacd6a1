/* Typed wrappers for libcurl's variadic calls, which Swift cannot call.
 * static inline: compiled into the Swift module, never exported from libGatewire.so. */
#ifndef GATEWIRE_CCURL_SHIM_H
#define GATEWIRE_CCURL_SHIM_H
#include <curl/curl.h>

typedef size_t (*gw_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*gw_curl_xferinfo_cb)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                   curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode gw_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode gw_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode gw_easy_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode gw_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode gw_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode gw_easy_setopt_datacb(CURL *h, CURLoption o, gw_curl_data_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode gw_easy_setopt_xferinfocb(CURL *h, gw_curl_xferinfo_cb v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }
static inline CURLcode gw_easy_setopt_prereqcb(CURL *h, curl_prereq_callback v) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, v); }
static inline CURLcode gw_easy_setopt_closesocketcb(CURL *h, curl_closesocket_callback v) { return curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, v); }
static inline CURLcode gw_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode gw_easy_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode gw_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode gw_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode gw_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLSHcode gw_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }

#endif
