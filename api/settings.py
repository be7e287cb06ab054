"""Server settings: flags of `embedstore serve`, or EMBEDSTORE_* environment variables."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from embedstore.errors import UserInputError
from embedstore.store.store import default_home

# Characters in one query: REST requests and MCP tool calls alike.
MAX_QUERY_CHARS = 4096


class ServerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EMBEDSTORE_", extra="ignore")

    store: Path = Field(default_factory=default_home)
    host: str = "127.0.0.1"
    port: int = 8000
    # Comma-separated in the environment: EMBEDSTORE_API_KEYS=key1,key2
    api_keys: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Folders the index endpoint may read (comma-separated); none when empty.
    allowed_roots: Annotated[list[Path], NoDecode] = Field(default_factory=list)
    # Folders kept indexed while serving, each in the collection named after it (comma-separated).
    watch: Annotated[list[Path], NoDecode] = Field(default_factory=list)
    max_request_bytes: int = 8 * 1024 * 1024
    max_query_chars: int = MAX_QUERY_CHARS
    max_document_chars: int = 1_000_000
    # Documents of an upsert, queries of a batch search.
    max_batch_items: int = 256
    # Inputs of one /v1/embeddings request: OpenAI's limit, so that its clients' defaults
    # (LangChain sends 1,000) pass. Memory is bounded by the token cap, the body size and
    # the grouping of inputs by characters, not by the count (bench/embeddings_memory.py).
    max_embedding_inputs: int = 2048
    # Tokens (of the model's tokenizer) in all the inputs of one /v1/embeddings request.
    max_embedding_tokens: int = 100_000
    max_k: int = 100
    # What context budgets count in by default (a tiktoken name or a tokenizer folder);
    # None: the encoder's tokenizer.
    tokenizer: str | None = None
    # Dynamic batching of encoder calls across concurrent requests.
    batch_max_size: int = 64
    batch_max_wait_ms: float = 5.0
    preload_model: bool = True

    @field_validator("allowed_roots", "watch", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("api_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: object) -> object:
        # Empty parts are kept for check_exposure to refuse: EMBEDSTORE_API_KEYS=" "
        # (or "," or "") must not quietly mean "no key".
        if isinstance(value, str):
            return [part.strip() for part in value.split(",")]
        return value

    def check_exposure(self) -> None:
        """Refuse keys that protect nothing, and serving beyond loopback without a key."""
        # An empty key would be matched by an empty "Bearer " header from anyone
        # (`--api-key "$UNSET"` gives one); a key with spaces cannot be sent whole,
        # nor one outside printable ASCII through every HTTP client.
        if any(not key or not all("!" <= ch <= "~" for ch in key) for key in self.api_keys):
            raise UserInputError(
                "an API key must not be empty and must be printable ASCII without spaces: "
                "check --api-key and EMBEDSTORE_API_KEYS"
            )
        if not self.api_keys and not is_loopback(self.host):
            raise UserInputError(
                f"refusing to listen on {self.host} without an API key: pass --api-key "
                "(or set EMBEDSTORE_API_KEYS), or bind to 127.0.0.1"
            )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
