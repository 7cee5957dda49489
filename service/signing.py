"""The server's Ed25519 key, which signs the transparency log's tree heads (service/transparency.py), and the check
of a signature that `cardroom verify` runs. The key is a PEM file (PKCS#8, unencrypted) at TRANSPARENCY_KEY;
`make run` writes one under DATA_DIR the first time (bootstrap/run.py). Its public half is published with every head,
in hex (the 32 raw bytes), for a player to keep."""
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


class Signer:
    def __init__(self, key: Ed25519PrivateKey):
        self._key = key
        self.public_key = key.public_key().public_bytes(serialization.Encoding.Raw,
                                                        serialization.PublicFormat.Raw).hex()

    @classmethod
    def from_file(cls, path: Path) -> "Signer":
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} holds no Ed25519 private key")
        return cls(key)

    @classmethod
    def generated(cls) -> "Signer":
        return cls(Ed25519PrivateKey.generate())

    def sign(self, message: bytes) -> str:
        return self._key.sign(message).hex()


def write_key_if_missing(path: Path) -> bool:
    """A new key at `path`, readable by its owner only, unless a file is there already; whether it wrote one."""
    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "wb") as out:
        out.write(pem)
    return True


def signature_valid(public_key: str, message: bytes, signature: str) -> bool:
    """Whether `signature` (hex) is `public_key`'s (hex, 32 raw bytes) over `message`."""
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key)).verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True
