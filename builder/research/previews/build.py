"""Every configured preview pack from its source record: defaults applied, then the pack's own builder."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from builder.research.previews.congress import build_congress, congress_input
from builder.research.previews.pack import PreviewPack
from builder.research.previews.person import build_person
from builder.research.previews.social import build_social, social_input
from builder.sources.previews import CongressSource, PersonSource, SocialSource


def build_previews(sources: Mapping[str, object], *, as_of: date) -> tuple[PreviewPack, ...]:
    """Every preview pack whose source is present (keys "person", "congress", "social"), by id."""
    packs = []
    for kind in sorted(sources):
        source = sources[kind]
        if isinstance(source, PersonSource):
            packs.append(build_person(source, as_of=as_of))
        elif isinstance(source, CongressSource):
            packs.append(build_congress(congress_input(source), as_of=as_of))
        elif isinstance(source, SocialSource):
            packs.append(build_social(social_input(source), as_of=as_of))
        else:
            raise TypeError(f"no preview pack is built from {type(source).__name__} ({kind!r})")
    return tuple(sorted(packs, key=lambda pack: pack.id))
