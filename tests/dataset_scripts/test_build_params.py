import json

import pytest

from wikiformer_kit.dataset_scripts.build_params import record_parameters


def test_records_then_accepts_the_same_and_names_what_differs(tmp_path):
    work = tmp_path / ".build"
    params = {"units": 2, "options": {"seed": 1, "min_words": 20}}
    record_parameters(tmp_path, work, params, what="a build", error=ValueError)
    assert json.loads((work / "params.json").read_text("utf-8")) == params
    record_parameters(tmp_path, work, dict(params), what="a build", error=ValueError)  # same: no error
    changed = {"units": 3, "options": {"seed": 2, "min_words": 20}}
    with pytest.raises(
        KeyError, match=r"holds a WIKIR build made with other parameters \(options, units, seed differ\)"
    ):
        record_parameters(tmp_path, work, changed, what="a WIKIR build", error=KeyError, expand=("options",))
    with pytest.raises(ValueError, match=r"\(options, units differ\)"):
        record_parameters(tmp_path, work, changed, what="a build", error=ValueError)
