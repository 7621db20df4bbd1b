#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call; each wrapper below fixes one argument type so the compiler checks it on both sides.

typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
typedef int (*ccurl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

/// Options that take a `long` (flags, timeouts in milliseconds, sizes).
static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a C string; libcurl copies the string before returning.
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take an opaque pointer (callback user data, CURLOPT_PRIVATE).
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a 64-bit size (CURLOPT_POSTFIELDSIZE_LARGE, CURLOPT_INFILESIZE_LARGE).
static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a header list; the list must outlive the transfer.
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION share one shape.
static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_XFERINFOFUNCTION, used to abort transfers whose Swift task was cancelled.
static inline CURLcode ccurl_easy_setopt_xferinfo_callback(CURL *handle, ccurl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

/// Informations returned as a `long` (CURLINFO_RESPONSE_CODE).
static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// Informations returned as a pointer (CURLINFO_PRIVATE).
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

/// Informations returned as a 64-bit value (CURLINFO_TOTAL_TIME_T, in microseconds).
static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// Multi-handle options that take a `long` (CURLMOPT_MAX_HOST_CONNECTIONS, CURLMOPT_MAXCONNECTS).
static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// CURLMsg keeps the transfer's result in a union Swift imports awkwardly.
static inline CURLcode ccurl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

/// CURL_READFUNC_ABORT and CURL_WRITEFUNC_PAUSE are macros that Swift does not import as constants.
static inline size_t ccurl_readfunc_abort(void) {
    return CURL_READFUNC_ABORT;
}

#endif
