"""safexml's two paths: the C tree builder for text that cannot hold a DTD, defusedxml for the rest, same trees."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element, tostring

import pytest
from defusedxml.ElementTree import fromstring as defused_fromstring

from builder.sources.sec13f import safexml
from builder.sources.sec13f.safexml import DocumentError, parse_xml, strip_start
from builder.sources.tree import fixture_source
from tests.conftest import realdata


def xml_files() -> list[Path]:
    fixture = list((fixture_source() / "sec13f").rglob("*.xml"))
    return sorted(fixture) + sorted(realdata("sec13f").rglob("*.xml"))


def shape(root: Element) -> bytes:
    return tostring(root)


def test_every_xml_source_builds_the_same_tree_on_the_fast_path_as_through_defusedxml():
    compared = 0
    for path in xml_files():
        data = path.read_bytes()
        try:
            expected = defused_fromstring(strip_start(data), forbid_dtd=True)
        except Exception:
            continue  # refused by defusedxml: the refusal tests below and in test_sec13f.py cover these
        assert safexml._without_dtd(strip_start(data)), path.name
        assert shape(parse_xml(data)) == shape(expected), path.name
        compared += 1
    assert compared >= 20


@pytest.mark.parametrize(
    "document",
    [
        b'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>',
        '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'.encode("utf-16"),
        b'<?xml version="1.0"?>\n<!DOCTYPE a SYSTEM "http://example.com/evil.dtd"><a/>',
    ],
    ids=["internal-entity", "utf-16-hiding-its-doctype", "external-dtd"],
)
def test_text_that_may_hold_a_dtd_takes_the_defused_path_and_is_refused(document: bytes):
    assert not safexml._without_dtd(strip_start(document))
    with pytest.raises(DocumentError):
        parse_xml(document)


def test_an_undeclared_entity_on_the_fast_path_is_not_well_formed():
    with pytest.raises(DocumentError, match="is not well-formed XML"):
        parse_xml(b'<?xml version="1.0"?><a>&lol;</a>')
