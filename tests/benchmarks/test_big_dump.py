"""benchmarks/big_dump.py: copy k of a page, with and without each copy's own anchor texts."""

from __future__ import annotations

import bz2

from wikiformer_kit.benchmarks.big_dump import Sample

PAGE = """  <page>
    <title>{title}</title>
    <ns>0</ns>
    <id>{id}</id>
    <revision>
      <text xml:space="preserve">{text}</text>
    </revision>
  </page>
"""


def sample(tmp_path) -> Sample:
    pages = [
        PAGE.format(title="Paris", id=1, text="'''Paris''' lies on the [[Seine|river Seine]] in [[France]]."),
        PAGE.format(title="Seine", id=2, text="The '''Seine''' flows through [[Paris]]."),
    ]
    path = tmp_path / "sample.xml.bz2"
    path.write_bytes(
        bz2.compress(("<mediawiki>\n  <siteinfo>\n  </siteinfo>\n" + "".join(pages) + "</mediawiki>\n").encode())
    )
    return Sample(path)


def test_a_copy_relinks_to_its_own_pages_and_keeps_the_anchor_text_by_default(tmp_path):
    found = sample(tmp_path)
    paris = found.pages[0]
    xml, page_id, title = found.copy(paris, 2)
    assert (page_id, title) == (21, "Paris (copy 2)")
    # the sample's page is relinked, its label kept; France is not in the sample and stays as it was
    assert "[[Seine (copy 2)|river Seine]] in [[France]]." in xml
    xml, _, _ = found.copy(found.pages[1], 2)
    assert "[[Paris (copy 2)|Paris]]." in xml


def test_distinct_anchors_give_each_copy_its_own_anchor_texts(tmp_path):
    found = sample(tmp_path)
    xml, _, _ = found.copy(found.pages[0], 2, distinct_anchors=True)
    assert "[[Seine (copy 2)|river Seine (copy 2)]] in [[France]]." in xml
    xml, _, _ = found.copy(found.pages[1], 3, distinct_anchors=True)
    assert "[[Paris (copy 3)|Paris (copy 3)]]." in xml
    # copy 0 is the sample itself either way
    assert found.copy(found.pages[1], 0, distinct_anchors=True) == found.copy(found.pages[1], 0)
    assert "[[Paris]]." in found.copy(found.pages[1], 0)[0]
