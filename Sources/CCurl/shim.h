#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call; each wrapper below fixes one argument type so the compiler checks it on both sides.

typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

/// Options that take a `long` (flags, timeouts in milliseconds, sizes).
static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a C string; libcurl copies the string before returning.
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a pointer (callback user data, the error buffer, CURLOPT_COPYPOSTFIELDS).
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a 64-bit size (CURLOPT_POSTFIELDSIZE_LARGE, CURLOPT_MAXFILESIZE_LARGE).
static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// Options that take a header list; the list must outlive the transfer.
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share one shape.
static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// Information returned as a `long` (CURLINFO_RESPONSE_CODE).
static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
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

#endif
