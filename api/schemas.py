"""Request and response bodies (Qdrant/TEI-like JSON; OpenAI's shape for embeddings
and models)."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from embedstore.api.json_integer import JsonInteger
from embedstore.encoders.pooling import POOLINGS, get_pooling
from embedstore.ingest.documents import MAX_ID_CHARS, MAX_PATH_CHARS, PRINTABLE
from embedstore.retrieval.filters import SearchFilters

Mode = Literal["hybrid", "dense", "lexical"]
# embedstore.retrieval.prompt_formats.PROMPT_FORMATS, spelled out for the schema.
PromptFormat = Literal["qwen", "starcoder2", "deepseek-coder", "codellama", "llama-infill"]
IndexKind = Literal["auto", "flat", "ivfpq"]
NonEmpty = Annotated[str, Field(min_length=1)]


def _not_blank(query: str) -> str:
    if not query.strip():
        raise ValueError("the query is empty: say what you are looking for")
    return query


# A query needs a word: a blank one is refused (422) as the schema says, not searched.
# The pattern is the schema's alone: the validator says why in words.
Query = Annotated[
    str,
    Field(min_length=1, json_schema_extra={"pattern": r"\S"},
          description="What to look for; not blank."),
    AfterValidator(_not_blank),
]


# Limits go before JsonInteger inside Annotated, or they are left out of the schema.
Int = Annotated[int, JsonInteger]


def _known_pooling(name: str) -> str:
    get_pooling(name)  # ValueError listing the valid ones
    return name


PoolingName = Annotated[
    str, Field(json_schema_extra={"enum": list(POOLINGS)}), AfterValidator(_known_pooling)
]
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class Strict(BaseModel):
    # strict: JSON's false is not the number 0, nor "0.5" a float.
    model_config = ConfigDict(extra="forbid", strict=True)


def _readable_back(metadata: dict[str, Any]) -> dict[str, Any]:
    """Metadata must come back out as it went in: finite numbers, bounded nesting."""
    stack: list[tuple[object, int]] = [(metadata, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("metadata numbers must be finite (JSON has no NaN or Infinity)")
        if isinstance(value, dict):
            children = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_METADATA_DEPTH:
            raise ValueError(f"metadata is nested too deep: at most {MAX_METADATA_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)
    return metadata


# JSON responses are serialised recursively; deeper values could not be read back.
MAX_METADATA_DEPTH = 32
Metadata = Annotated[dict[str, Any], AfterValidator(_readable_back)]


class ErrorDetail(BaseModel):
    code: str
    message: str
    # OpenAI's error fields, so that its clients read our errors as theirs.
    type: Literal["invalid_request_error", "server_error"]
    param: str | None = Field(description="The request field at fault, when one is.")


class ErrorBody(BaseModel):
    """Every error answer: {"error": {"code", "message", "type", "param"}}."""

    error: ErrorDetail


class CollectionCreate(Strict):
    name: str = Field(pattern=NAME_PATTERN)
    encoder: str | None = None
    pooling: PoolingName | None = None
    index_kind: IndexKind = "auto"


class CollectionInfo(BaseModel):
    name: str
    files: int
    units: int = Field(description="Definitions, sections and windows: what search returns.")
    chunks: int = Field(description="The pieces the units were cut into for the encoder.")
    disk_bytes: int
    encoder: str
    encoder_revision: str | None
    dim: int
    pooling: str
    index_kind: str
    index: dict[str, Any]
    source_root: str | None


class UnreadableCollection(BaseModel):
    """A collection listed by name only: it cannot be read, and ``unreadable`` says why."""

    name: str
    unreadable: str


class DocumentIn(Strict):
    id: str = Field(min_length=1, max_length=MAX_ID_CHARS, pattern=PRINTABLE)
    text: str
    path: str | None = Field(default=None, min_length=1, max_length=MAX_PATH_CHARS,
                             pattern=PRINTABLE)
    language: str | None = Field(default=None, max_length=32)
    metadata: Metadata = Field(
        default_factory=dict,
        description=f"Any JSON object: finite numbers, at most {MAX_METADATA_DEPTH} levels deep.",
    )


class DocumentsUpsert(Strict):
    documents: list[DocumentIn] = Field(min_length=1)


class DocumentOut(BaseModel):
    id: str
    path: str
    language: str
    text: str
    metadata: dict[str, Any]


class IndexRequest(Strict):
    # No NUL: the operating system cannot take it in a path.
    path: str = Field(min_length=1, pattern=r"^[^\x00]+$",
                      description="Folder on the server, under an allowed root.")
    rebuild: bool = False
    index_kind: IndexKind | None = None


class Filters(Strict):
    include: list[str] = Field(default_factory=list, max_length=64)
    exclude: list[str] = Field(default_factory=list, max_length=64)
    languages: list[str] = Field(default_factory=list, max_length=64)
    min_score: float | None = Field(default=None, ge=-1.0, le=1.0)

    def to_library(self) -> SearchFilters:
        return SearchFilters(
            include=tuple(self.include), exclude=tuple(self.exclude),
            languages=tuple(self.languages), min_score=self.min_score,
        )


class SearchRequest(Strict):
    query: Query
    k: Int = Field(default=10, ge=1)
    mode: Mode = "hybrid"
    filters: Filters = Field(default_factory=Filters)
    nprobe: Annotated[int, Field(ge=1, le=65536), JsonInteger] | None = None
    highlight: bool = Field(default=False, description="Add syntax-highlighted HTML of each hit.")


class BatchSearchRequest(Strict):
    queries: list[Query] = Field(min_length=1)
    k: Int = Field(default=10, ge=1)
    mode: Mode = "hybrid"
    filters: Filters = Field(default_factory=Filters)
    nprobe: Annotated[int, Field(ge=1, le=65536), JsonInteger] | None = None


class Hit(BaseModel):
    """One definition (or section/window): its whole range, and the piece that matched best."""

    id: int = Field(description="The unit's id: one per definition, section or window.")
    document_id: str | None
    collection: str = Field(description="The collection it came from.")
    path: str = Field(description="Relative to the collection's indexed folder.")
    abs_path: str | None = Field(description=(
        "Where the file is on the server: the indexed folder joined with path; null for "
        "documents pushed by id."
    ))
    start_line: int
    end_line: int
    match_start_line: int
    match_end_line: int
    kind: str
    language: str
    score: float
    text: str
    symbol: str | None
    found_by: str
    dense_score: float | None
    lexical_score: float | None
    location: str = Field(description=(
        "Where it is: path#anchor for a unit of a document (a PDF's page=12, a slide's "
        "slide=7, a notebook's cell=5, a web page's heading id), else path:start-end."
    ))
    anchor: str | None = Field(default=None, description=(
        "A document unit's place in its file as a URL fragment (page=12, slide=7, cell=5, "
        "an HTML id): open the file at #anchor. Null for code and text files."
    ))
    owner_header: str | None = Field(default=None, description=(
        "For a member whose class matched too and ranks after it: the class's header line "
        "(`class PreparedRequest:`), the member's context. Null otherwise."
    ))
    heading_path: str | None = Field(default=None, description=(
        "A section's headings, outermost first and its own last (\"Tutorial > Classes > "
        "Private Variables\"). Null for code."
    ))
    html: str | None = Field(default=None, description=(
        "The definition, syntax-highlighted: one <span class=\"line\"> per line, with class "
        "\"match\" on the matched piece's lines and \"folded\" on lines a preview leaves out."
    ))


CollectionNames = Annotated[
    list[Annotated[str, Field(pattern=NAME_PATTERN)]],
    Field(min_length=1, max_length=256,
          description="Collections to search; omit for every collection of the store."),
]


class ManySearchRequest(SearchRequest):
    collections: CollectionNames | None = None


class SkippedOut(BaseModel):
    """A collection left out of an all-collections answer: damaged, or deleted meanwhile."""

    collection: str
    reason: str


class ManySearchResponse(BaseModel):
    query: str
    collections: list[str] = Field(description="The collections that answered.")
    mode: str
    results: list[Hit]
    skipped: list[SkippedOut] = Field(
        default_factory=list, description="Collections that could not be searched, and why."
    )


TOKENIZER_HELP = (
    "What max_tokens counts: a tiktoken encoding name, or the absolute path of a Hugging "
    "Face tokenizer folder under the server's --allow-root; default: the server's setting."
)


class ManyContextRequest(Strict):
    query: Query
    collections: CollectionNames | None = None
    tokenizer: str | None = Field(
        default=None, min_length=1, max_length=MAX_PATH_CHARS, description=TOKENIZER_HELP
    )
    max_tokens: Int = Field(default=2000, ge=1, le=200_000)
    mode: Mode = "hybrid"
    filters: Filters = Field(default_factory=Filters)


class SearchResponse(BaseModel):
    query: str
    collection: str
    mode: str
    results: list[Hit]


class BatchSearchResponse(BaseModel):
    collection: str
    mode: str
    results: list[SearchResponse]


def _not_null(value: object) -> object:
    if value is None:
        raise ValueError("leave the field out instead of sending null")
    return value


# A field that may be left out but is never null: "exactly one of query or code" is then
# a oneOf of which fields are present, and a null could not slip between its branches.
Omittable = BeforeValidator(_not_null)
_QUESTION_FIELDS = ("query", "code", "code_after", "path", "format")


def _context_schema(schema: dict[str, Any]) -> None:
    """Exactly one of query or code, as a oneOf of which fields are present; the fields
    left out have no default to show (a null default would read as allowed)."""
    for name in _QUESTION_FIELDS:
        schema["properties"][name].pop("default", None)
    schema["oneOf"] = [
        {"title": "words", "required": ["query"],
         "not": {"anyOf": [{"required": [name]} for name in _QUESTION_FIELDS[1:]]}},
        {"title": "code at a cursor", "required": ["code"], "not": {"required": ["query"]}},
    ]


class ContextRequest(Strict):
    """Send ``query`` (words) or ``code`` (a file's text before the cursor), not both."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_context_schema)

    query: Annotated[Query | SkipJsonSchema[None], Omittable] = None
    code: Annotated[str | SkipJsonSchema[None], Omittable] = Field(
        default=None, description="The file's text before the cursor: code-at-cursor context."
    )
    code_after: Annotated[str | SkipJsonSchema[None], Omittable] = Field(
        default=None, description="The text after the cursor (fill-in-the-middle), with code."
    )
    path: Annotated[
        Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)] | SkipJsonSchema[None],
        Omittable,
    ] = Field(
        default=None,
        description="The edited file's path in the collection: kept out of the answer.",
    )
    format: Annotated[PromptFormat | SkipJsonSchema[None], Omittable] = Field(
        default=None,
        description="With code: also lay out a completion model's whole fill-in-the-middle "
        "prompt (the response's `prompt`): a text for qwen, starcoder2, deepseek-coder and "
        "codellama, the JSON body of llama.cpp's /infill for llama-infill.",
    )
    tokenizer: str | None = Field(
        default=None, min_length=1, max_length=MAX_PATH_CHARS, description=TOKENIZER_HELP
    )
    max_tokens: Int = Field(default=2000, ge=1, le=200_000)
    mode: Mode = "hybrid"
    filters: Filters = Field(default_factory=Filters)

    @model_validator(mode="after")
    def _one_question(self) -> ContextRequest:
        if (self.query is None) == (self.code is None):
            raise ValueError("send exactly one of query or code")
        if self.code is None and (
            self.code_after is not None or self.path is not None or self.format is not None
        ):
            raise ValueError("code_after, path and format go with code")
        return self


class ContextBlockOut(BaseModel):
    path: str
    start_line: int
    end_line: int
    ranges: list[tuple[int, int]] = Field(
        description="The runs of lines it holds; a gap between two is elided as a '…' line."
    )


class ContextResponse(BaseModel):
    query: str
    collection: str
    tokens: int
    max_tokens: int
    text: str
    blocks: list[ContextBlockOut]
    prompt: str | dict[str, Any] | None = Field(
        default=None, description="With format: the whole prompt, or llama.cpp's /infill body."
    )


class ManyContextResponse(ContextResponse):
    skipped: list[SkippedOut] = Field(
        default_factory=list, description="Collections that could not be searched, and why."
    )


# A token id of the served model's own tokenizer (not tiktoken's); its vocabulary
# size depends on the model, so the upper bound is checked by the route.
TokenId = Annotated[int, Field(ge=0), JsonInteger]
TokenIds = Annotated[list[TokenId], Field(min_length=1)]


def _input_shape(value: object) -> str | None:
    """Which of the four shapes an input has, told by its first item: only that shape's
    errors are reported, not one per shape (an empty text listed all four). The tags are
    not identifiers, so error messages leave them out (api.errors)."""
    if isinstance(value, str):
        return "single-text"
    if not isinstance(value, list):
        return None
    first = value[0] if value else ""
    if isinstance(first, list):
        return "token-id-lists"
    return "token-ids" if isinstance(first, int | float) else "text-list"


EmbeddingInput = Annotated[
    Annotated[NonEmpty, Tag("single-text")]
    | Annotated[list[NonEmpty], Field(min_length=1), Tag("text-list")]
    | Annotated[TokenIds, Tag("token-ids")]
    | Annotated[list[TokenIds], Field(min_length=1), Tag("token-id-lists")],
    Discriminator(
        _input_shape, custom_error_type="input_shape",
        custom_error_message="must be a text, a list of texts, a list of token ids or a "
        "list of such lists",
    ),
]


class EmbeddingsRequest(BaseModel):
    """OpenAI's /v1/embeddings request; unknown fields such as `user` are accepted."""

    model_config = ConfigDict(strict=True)

    input: EmbeddingInput = Field(description=(
        "A text, a list of texts, or the same as token ids: one list of ids, or a list of "
        "them. Ids are the served model's own tokenizer's, without special tokens (what "
        "`tokenizer(text, add_special_tokens=False)` gives), never tiktoken's."
    ))
    model: str | None = None
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: Annotated[int, Field(ge=1), JsonInteger] | None = Field(default=None, description=(
        "Must equal the model's own dimension (a 400 otherwise): these models cannot "
        "truncate their vectors. Omit it."
    ))


class EmbeddingItem(BaseModel):
    object: Literal["embedding"] = "embedding"
    embedding: list[float] | str
    index: int


class Usage(BaseModel):
    prompt_tokens: int
    total_tokens: int


class EmbeddingsResponse(BaseModel):
    object: Literal["list"] = "list"
    data: list[EmbeddingItem]
    model: str
    usage: Usage


class ModelCard(BaseModel):
    """OpenAI's model object: one encoder this server serves."""

    id: str
    object: Literal["model"] = "model"
    created: int = Field(default=0, description="Always 0: when a model was made is unknown here.")
    owned_by: str = Field(description="The hub organisation of a hub model, else \"local\".")
    collections: list[str] = Field(description="The collections encoded with this model.")


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]
