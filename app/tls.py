"""Client certificates are requested but not required to verify during the TLS handshake, as the reference's
server does (Go's tls.RequestClientCert): a client with an expired certificate, or one from an unknown CA, gets a
401 Status that says why instead of a TLS alert. Every authenticator that reads the certificate checks it against
its own CAs, validity and usage (app/auth/x509.py, app/auth/requestheader.py).

Python's ssl module has no verify callback, so this sets OpenSSL's through ctypes on the context's SSL_CTX; it
first checks that the pointer found is that SSL_CTX (its options and verify mode read back as the context's), and
leaves the context verifying as before when anything does not match."""

from __future__ import annotations

import ctypes
import logging
import ssl

log = logging.getLogger(__name__)

SSL_VERIFY_PEER = 0x01
_VerifyCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)


@_VerifyCallback
def _accept_any(_preverified: int, _store: int | None) -> int:
    return 1  # the certificate is kept for the authenticators to judge


def _libssl() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL(ssl._ssl.__file__)  # type: ignore[attr-defined]  # its libssl's symbols resolve through it
        lib.SSL_CTX_get_options.restype = ctypes.c_uint64
        lib.SSL_CTX_get_options.argtypes = [ctypes.c_void_p]
        lib.SSL_CTX_get_verify_mode.restype = ctypes.c_int
        lib.SSL_CTX_get_verify_mode.argtypes = [ctypes.c_void_p]
        lib.SSL_CTX_set_verify.restype = None
        lib.SSL_CTX_set_verify.argtypes = [ctypes.c_void_p, ctypes.c_int, _VerifyCallback]
    except (OSError, AttributeError):
        return None
    return lib


def request_client_certificates(context: ssl.SSLContext) -> bool:
    """Ask for a client certificate and accept whatever is sent; True when done (False: left as it was)."""
    if context.verify_mode != ssl.CERT_OPTIONAL:
        return False
    lib = _libssl()
    if lib is None:
        return False
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value  # PySSLContext.ctx
    if (
        not pointer
        or lib.SSL_CTX_get_verify_mode(pointer) != SSL_VERIFY_PEER
        or lib.SSL_CTX_get_options(pointer) != int(context.options)
    ):
        log.warning("client certificates stay verified in the TLS handshake: the SSL_CTX was not found")
        return False
    lib.SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, _accept_any)
    return True
