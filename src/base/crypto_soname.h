/* crypto_soname.h - the soname of the libcrypto the headers belong to, for
 * the code that loads it when first needed (base/dynlib.h): QUIC Initial
 * decryption and --web-config's certificate checks. */
#ifndef ECNWATCH_CRYPTO_SONAME_H
#define ECNWATCH_CRYPTO_SONAME_H

#include <openssl/opensslv.h>

#include "base/dynlib.h"

#ifndef CRYPTO_SONAME
#ifdef OPENSSL_SHLIB_VERSION
#define CRYPTO_SONAME "libcrypto.so." EW_DYNLIB_STR(OPENSSL_SHLIB_VERSION)
#else
#define CRYPTO_SONAME "libcrypto.so." SHLIB_VERSION_NUMBER
#endif
#endif

#endif /* ECNWATCH_CRYPTO_SONAME_H */
