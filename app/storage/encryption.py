"""Encryption at rest: the providers of an EncryptionConfiguration and the transformer the store applies to every
value it writes and reads (current rows, the change log's `data` and `prev`, hence history).

A value written by a provider other than identity is `k8s:enc:<provider>:v1:<key name>:` followed by the base64 of
the ciphertext (the reference stores raw bytes after the prefix; our columns hold text). A value without the prefix
is plain JSON, readable where identity is configured. The crypto is the `cryptography` package's (AES-CBC with
PKCS#7 padding, AES-GCM with the storage key as associated data, as the reference) and PyNaCl's SecretBox
(XSalsa20-Poly1305, which `cryptography` does not offer)."""

from __future__ import annotations

import binascii
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ENCRYPTED_MARK = "k8s:enc:"
#: (transformation_type, transformer_prefix, status, seconds): what the metrics count (app/metrics/storage.py)
Observer = Callable[[str, str, str, float], None]
TO_STORAGE, FROM_STORAGE = "to_storage", "from_storage"
#: a sealed payload starting with it is `<MARKED><mark>\n<JSON with the mark where the revision goes>` (JSON never
#: starts with it)
MARKED = "#"


class UnreadableValue(Exception):
    """A stored value no configured encryption provider can read: the reference's 500 for that object."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f'unable to transform key "{key}": {why}')
        self.key = key


class Provider:
    """One key of one provider type: `prefix` marks what it wrote."""

    kind = ""
    prefix = ""

    def seal(self, plain: bytes, key: str) -> bytes:
        raise NotImplementedError

    def open(self, sealed: bytes, key: str) -> bytes:
        raise NotImplementedError


class Identity(Provider):
    kind = "identity"
    prefix = ""


class _Keyed(Provider):
    def __init__(self, name: str, secret: bytes) -> None:
        self.name = name
        self.secret = secret
        self.prefix = f"{ENCRYPTED_MARK}{self.kind}:v1:{name}:"


class AesCbc(_Keyed):
    kind = "aescbc"

    def __init__(self, name: str, secret: bytes) -> None:
        super().__init__(name, secret)
        self._aes = algorithms.AES(secret)

    def seal(self, plain: bytes, key: str) -> bytes:
        iv = os.urandom(16)
        padder = padding.PKCS7(128).padder()
        encryptor = Cipher(self._aes, modes.CBC(iv)).encryptor()
        padded = padder.update(plain) + padder.finalize()
        return iv + encryptor.update(padded) + encryptor.finalize()

    def open(self, sealed: bytes, key: str) -> bytes:
        if len(sealed) < 32 or len(sealed) % 16:
            raise ValueError("the stored data is not a whole number of AES blocks")
        decryptor = Cipher(self._aes, modes.CBC(sealed[:16])).decryptor()
        padded = decryptor.update(sealed[16:]) + decryptor.finalize()
        unpadder = padding.PKCS7(128).unpadder()
        return unpadder.update(padded) + unpadder.finalize()


class AesGcm(_Keyed):
    kind = "aesgcm"

    def __init__(self, name: str, secret: bytes) -> None:
        super().__init__(name, secret)
        self._aead = AESGCM(secret)

    def seal(self, plain: bytes, key: str) -> bytes:
        nonce = os.urandom(12)
        return nonce + self._aead.encrypt(nonce, plain, key.encode())

    def open(self, sealed: bytes, key: str) -> bytes:
        return self._aead.decrypt(sealed[:12], sealed[12:], key.encode())


class SecretBox(_Keyed):
    kind = "secretbox"

    def __init__(self, name: str, secret: bytes) -> None:
        from nacl.secret import SecretBox as Box  # libsodium is loaded only where a secretbox key is configured

        super().__init__(name, secret)
        self._box = Box(secret)

    def seal(self, plain: bytes, key: str) -> bytes:
        return bytes(self._box.encrypt(plain))

    def open(self, sealed: bytes, key: str) -> bytes:
        return self._box.decrypt(sealed)


KEY_LENGTHS = {AesCbc.kind: (16, 24, 32), AesGcm.kind: (16, 24, 32), SecretBox.kind: (32,)}
KEYED = {cls.kind: cls for cls in (AesCbc, AesGcm, SecretBox)}


@dataclass(frozen=True)
class Transformer:
    """The providers of one resource entry: the first writes, every one reads what it wrote."""

    providers: tuple[Provider, ...]

    @property
    def writer(self) -> Provider:
        return self.providers[0]

    def reader_of(self, text: str) -> Provider | None:
        if not text.startswith(ENCRYPTED_MARK):
            return next((p for p in self.providers if isinstance(p, Identity)), None)
        return next((p for p in self.providers if p.prefix and text.startswith(p.prefix)), None)


PLAIN = Transformer((Identity(),))


#: bytes of decrypted values a process keeps (what lists and watches read again and again is decrypted once)
OPENED_CACHE_BYTES = 16 << 20


class OpenedCache:
    """Plain text of recently opened values, by (storage key, stored text), oldest dropped first beyond `budget`
    bytes. The watch hub keeps plain values in memory too; nothing of this reaches the disk."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._plain: dict[tuple[str, str], str] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str, sealed: str) -> str | None:
        return self._plain.get((key, sealed)) if self.budget else None

    def put(self, key: str, sealed: str, plain: str) -> None:
        size = len(sealed) + len(plain)
        if size > self.budget // 16:
            return
        with self._lock:
            if (key, sealed) in self._plain:
                return
            self._plain[key, sealed] = plain
            self._bytes += size
            while self._bytes > self.budget:
                (old_key, old_sealed), old_plain = next(iter(self._plain.items()))
                del self._plain[old_key, old_sealed]
                self._bytes -= len(old_sealed) + len(old_plain)


class Encryption:
    """Which transformer each storage key gets (`rules`: key prefix -> transformer, the first matching one wins)
    and the transformations themselves, observed for the metrics."""

    def __init__(
        self, rules: Sequence[tuple[str, Transformer]] = (), source: str = "", cache_bytes: int = OPENED_CACHE_BYTES
    ) -> None:
        self.rules = tuple(rules)
        #: the file the rules came from (shown by `secrets-encrypt status`)
        self.source = source
        self.observe: Observer | None = None
        self._opened = OpenedCache(cache_bytes)

    def transformer(self, key: str) -> Transformer:
        for prefix, transformer in self.rules:
            if key.startswith(prefix):
                return transformer
        return PLAIN

    def encrypts(self, key: str) -> bool:
        """Whether what is written under `key` is encrypted (else stored as it is)."""
        return bool(self.rules) and not isinstance(self.transformer(key).writer, Identity)

    def seal(self, key: str, text: str, mark: str = "") -> str:
        """`text` sealed by the writing provider. With `mark`: `text` holds `mark` where its revision goes, which
        the row's revision replaces when it is opened (so PostgreSQL writes it in one statement, the revision
        unknown until then); a mark is random per value, so no client can place it."""
        writer = self.transformer(key).writer
        if isinstance(writer, Identity):
            return text
        began = time.perf_counter()
        payload = f"{MARKED}{mark}\n{text}" if mark else text
        sealed = writer.prefix + binascii.b2a_base64(writer.seal(payload.encode(), key), newline=False).decode()
        self._observed(TO_STORAGE, writer.prefix, "OK", began)
        return sealed

    def open(self, key: str, text: str, rv: int = 0) -> tuple[str, bool]:
        """(the plain JSON of a stored value, whether it is stale: written by a provider that is not the first);
        UnreadableValue when no configured provider can read it. `rv`: the revision of the row it was read from,
        for a value sealed with a mark (`seal`)."""
        if not self.rules and not text.startswith(ENCRYPTED_MARK):
            return text, False  # nothing configured, nothing sealed: the common path costs one startswith
        transformer = self.transformer(key)
        reader = transformer.reader_of(text)
        if reader is None:
            written_by = self.written_by(text)
            why = (
                "no matching prefix found: identity is not configured to read plain values"
                if written_by == Identity.kind
                else f"no matching prefix found: no configured key reads values written by {written_by}"
            )
            self._observed(FROM_STORAGE, written_by, "Internal", None)
            raise UnreadableValue(key, why)
        if isinstance(reader, Identity):
            return text, reader is not transformer.writer
        known = self._opened.get(key, text)
        if known is not None:
            return known, reader is not transformer.writer
        began = time.perf_counter()
        try:
            plain = reader.open(binascii.a2b_base64(text[len(reader.prefix) :], strict_mode=True), key).decode()
        except Exception as err:  # noqa: BLE001 - any failure of the cipher means the value cannot be read
            self._observed(FROM_STORAGE, reader.prefix, "Internal", began)
            raise UnreadableValue(key, f"{reader.prefix} {err or type(err).__name__}") from None
        self._observed(FROM_STORAGE, reader.prefix, "OK", began)
        if plain.startswith(MARKED):
            mark, _, body = plain[1:].partition("\n")
            plain = body.replace(mark, str(rv), 1)
        self._opened.put(key, text, plain)
        return plain, reader is not transformer.writer

    def written_by(self, text: str) -> str:
        """The prefix of the provider that wrote a stored value ("identity" for plain JSON)."""
        if not text.startswith(ENCRYPTED_MARK):
            return "identity"
        end = text.find(":", text.find(":v1:") + 4)
        return text[: end + 1] if end > 0 else text[:40]

    def _observed(self, kind: str, prefix: str, status: str, began: float | None) -> None:
        if self.observe is not None:
            self.observe(kind, prefix, status, 0.0 if began is None else time.perf_counter() - began)
