// OpenSSL's libcrypto (Debian's libssl-dev; libcurl already loads it at run time): the HTTP
// cache names its entries by SHA-256 digests (EVP_Digest), so that no URL, credential or
// cookie is kept in clear. Trace and span ids come from its CSPRNG (RAND_bytes).
#include <openssl/evp.h>
#include <openssl/rand.h>
