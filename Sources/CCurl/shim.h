#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <stdint.h>

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

/// Options that take a blob (CURLOPT_CAINFO_BLOB); libcurl copies the bytes with CURL_BLOB_COPY.
static inline CURLcode ccurl_easy_setopt_blob_copy(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}

/// CURLINFO_CAINFO: the CA bundle this libcurl build trusts by default (NULL when it has none).
static inline const char *ccurl_default_cainfo(CURL *handle) {
    char *path = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_CAINFO, &path) != CURLE_OK) { return NULL; }
    return path;
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share one shape.
static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURL_WRITEFUNC_PAUSE: a write callback's answer that pauses the transfer until it is resumed
/// (the macro is a cast Swift does not import).
static inline size_t ccurl_write_pause(void) {
    return CURL_WRITEFUNC_PAUSE;
}

/// Resumes a transfer paused by its write callback; libcurl may deliver the held data before
/// this returns. CURLPAUSE_CONT is a macro expression Swift does not import.
static inline CURLcode ccurl_easy_resume(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
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

// A server that requires a client certificate the client does not have closes the connection
// right after the handshake; libcurl then reports a plain send or receive error. OpenSSL's
// client-certificate callback tells that case apart: it runs only when the server asks for a
// certificate and none is configured. Transfers are told apart by an id (not a pointer, so a
// late callback on a reused connection can never touch freed memory), kept in a small ring that
// only the transfer loop's thread uses.
// Slots 0-31 hold ids, slot 32 counts. A function-local static, as Swift does not import
// variables defined in a header.
static inline uintptr_t *ccurl_certificate_requests(void) {
    static _Thread_local uintptr_t ring[33];
    return ring;
}

static inline int ccurl_on_certificate_request(SSL *ssl, X509 **certificate, EVP_PKEY **key) {
    (void)certificate;
    (void)key;
    uintptr_t *ring = ccurl_certificate_requests();
    ring[ring[32]++ % 32] = (uintptr_t)SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), 0);
    return 0;
}

static inline CURLcode ccurl_watch_certificate_requests_callback(CURL *handle, void *context, void *id) {
    (void)handle;
    SSL_CTX_set_ex_data((SSL_CTX *)context, 0, id);
    SSL_CTX_set_client_cert_cb((SSL_CTX *)context, ccurl_on_certificate_request);
    return CURLE_OK;
}

/// Notes in the ring when the server of transfer `id` asks for a client certificate.
static inline CURLcode ccurl_easy_watch_certificate_requests(CURL *handle, uintptr_t id) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, ccurl_watch_certificate_requests_callback);
    if (code != CURLE_OK) { return code; }
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, (void *)id);
}

/// Whether the server of transfer `id` asked for a client certificate (call on the loop thread).
static inline int ccurl_certificate_was_requested(uintptr_t id) {
    uintptr_t *ring = ccurl_certificate_requests();
    for (unsigned index = 0; index < 32; index++) {
        if (ring[index] == id) { return 1; }
    }
    return 0;
}

#endif
