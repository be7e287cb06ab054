"""The one exception hierarchy of embedstore.

Library code raises these with a message that tells the user what to do; only
the CLI and the API translate them into exit codes or HTTP statuses.
Bad *option values* raise ``ValueError`` listing the valid options instead.
"""

from __future__ import annotations


class EmbedstoreError(Exception):
    """Base class: every error embedstore raises on purpose."""


class UserInputError(EmbedstoreError):
    """The request itself is wrong (a missing path, an empty query...)."""


class CollectionNotFoundError(EmbedstoreError):
    """No collection of that name exists in the store."""


class CollectionExistsError(EmbedstoreError):
    """A collection of that name exists already."""


class DocumentConflictError(UserInputError):
    """Two documents claim one id or one path (in a request, or with what is stored)."""


class EncoderMismatchError(EmbedstoreError):
    """The collection was built with another encoder, dimension or pooling."""


class EncoderLoadError(EmbedstoreError):
    """An encoder could not be found or loaded."""


class TokenizerNotFoundError(EmbedstoreError):
    """A tokenizer named for a budget cannot be found or loaded (offline, or no such name)."""


class CollectionLockedError(EmbedstoreError):
    """Another process is writing to the collection right now."""


class CorruptCollectionError(EmbedstoreError):
    """A collection's files cannot be read and cannot be repaired."""


class StorageError(EmbedstoreError):
    """The store's files cannot be read or written: a full disk, an I/O error, no permission."""


class IndexTooSmallError(EmbedstoreError, ValueError):
    """The collection holds too few vectors for the index kind it asks for (IVF-PQ)."""


class VectorIndexError(EmbedstoreError):
    """A vector index cannot be built, read or searched."""


class LexicalIndexError(EmbedstoreError):
    """A BM25 segment file cannot be written or read (it is rebuilt from SQLite)."""


class OutdatedCollectionError(EmbedstoreError):
    """A collection was built by an older embedstore in a format this one cannot read."""
