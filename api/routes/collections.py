"""/v1/collections: list, create, info, delete."""

from __future__ import annotations

from fastapi import APIRouter

from embedstore.api.deps import CollectionDep, CollectionName, StateDep
from embedstore.api.schemas import CollectionCreate, CollectionInfo, UnreadableCollection
from embedstore.errors import CollectionExistsError
from embedstore.ingest.indexer import IndexOptions, prepare_collection
from embedstore.store.collection import Collection

router = APIRouter(prefix="/v1/collections", tags=["collections"])


def info_of(collection: Collection) -> CollectionInfo:
    stats = collection.stats()
    m = stats.manifest
    return CollectionInfo(
        name=stats.name, files=stats.files, units=stats.units, chunks=stats.chunks,
        disk_bytes=stats.disk_bytes,
        encoder=m.encoder, encoder_revision=m.encoder_revision, dim=m.dim, pooling=m.pooling,
        index_kind=m.index_kind, index=m.index, source_root=m.source_root,
    )


@router.get("")
def list_collections(state: StateDep) -> list[CollectionInfo | UnreadableCollection]:
    """Every collection; one that cannot be read (damaged, outdated) is listed with why."""
    infos, unreadable = state.collections.read_each(info_of)
    listed: list[CollectionInfo | UnreadableCollection] = [*infos]
    listed += [UnreadableCollection(name=name, unreadable=why) for name, why in unreadable.items()]
    return sorted(listed, key=lambda entry: entry.name)


@router.post("", status_code=201)
def create_collection(body: CollectionCreate, state: StateDep) -> CollectionInfo:
    if state.store.exists(body.name):
        raise CollectionExistsError(f"collection {body.name!r} exists already")
    options = IndexOptions(
        name=body.name, encoder=body.encoder, pooling=body.pooling, index_kind=body.index_kind
    )
    collection, _, _ = prepare_collection(state.store, body.name, options)
    collection.mark_complete()  # an empty collection is what was asked for
    return info_of(collection)


@router.get("/{name}")
def get_collection(collection: CollectionDep) -> CollectionInfo:
    return info_of(collection)


@router.delete("/{name}")
def delete_collection(name: CollectionName, state: StateDep) -> dict[str, str]:
    state.collections.delete(name)  # waits for the searches in flight
    return {"deleted": name}
