"""A Wikiformer checkpoint pushed to a Hub and loaded back by repo id, through the local test Hub (HF_ENDPOINT)."""

from __future__ import annotations

import json

import torch

from tests import hub_server
from tests.conftest import PROJECT_ROOT
from tests.hub_server import run_python
from tests.modeling.conftest import DOCUMENTS, QUERY, SAVED_MAX_LENGTH
from tests.modeling.test_load_paths import LOGITS_HELPER

hub = hub_server.hub  # the fixture

LOAD_BY_REPO_ID = (
    LOGITS_HELPER
    + """
import json
from sentence_transformers import CrossEncoder
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertForSequenceClassification
repo = "ns/wikiformer"
tokenizer = AutoTokenizer.from_pretrained(repo, trust_remote_code=True)
ranker = AutoModelForSequenceClassification.from_pretrained(repo, trust_remote_code=True)
cross_encoder = CrossEncoder(repo)
result = {
    "ranker": [type(ranker).__name__, logits(ranker, tokenizer)],
    "bert": logits(BertForSequenceClassification.from_pretrained(repo), AutoTokenizer.from_pretrained(repo)),
    "cross_encoder": [cross_encoder.max_seq_length, cross_encoder.predict(pairs).tolist()],
}
print("RESULT " + json.dumps(result))
"""
)


def result_of(stdout: str) -> dict:
    return json.loads(next(line for line in stdout.splitlines()[::-1] if line.startswith("RESULT "))[len("RESULT ") :])


def test_upload_then_load_by_repo_id_online_and_then_offline(hub, tiny_checkpoint, tiny_model, tokenizer, tmp_path):
    run_python(
        f"""
from huggingface_hub import HfApi
api = HfApi()
api.create_repo("ns/wikiformer")
api.upload_folder(repo_id="ns/wikiformer", folder_path={str(tiny_checkpoint)!r}, commit_message="Wikiformer tiny")
""",
        hub.env(tmp_path / "home_publisher"),
    )
    expected = tiny_model.score(QUERY, DOCUMENTS, tokenizer, max_length=SAVED_MAX_LENGTH)
    user_home = tmp_path / "home_user"
    online = result_of(run_python(LOAD_BY_REPO_ID, hub.env(user_home)))
    hub.stop()
    offline = result_of(run_python(LOAD_BY_REPO_ID, hub.env(user_home, offline=True)))
    for result in (online, offline):
        assert result["ranker"][0] == "WikiformerForRanking"
        torch.testing.assert_close(torch.tensor(result["ranker"][1]), expected, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(torch.tensor(result["bert"]), expected, rtol=1e-5, atol=1e-5)
        assert result["cross_encoder"][0] == SAVED_MAX_LENGTH
        torch.testing.assert_close(
            torch.tensor(result["cross_encoder"][1]), torch.sigmoid(expected), rtol=1e-5, atol=1e-5
        )
    assert hub.errors == []


def test_push_to_hub_and_save_pretrained_push_carry_the_whole_folder(hub, tiny_checkpoint, tmp_path):
    env = hub.env(tmp_path / "home_trainer")
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    run_python(
        f"""
from transformers import AutoTokenizer
from wikiformer_kit.modeling_wikiformer import WikiformerForRanking
model = WikiformerForRanking.from_pretrained({str(tiny_checkpoint)!r})
model.push_to_hub("ns/wikiformer-pushed")
model.save_pretrained({str(tmp_path / "saved")!r}, tokenizer=AutoTokenizer.from_pretrained({str(tiny_checkpoint)!r}),
                      push_to_hub=True, repo_id="ns/wikiformer-saved")
""",
        env,
    )
    stdout = run_python(
        """
from huggingface_hub import list_repo_files
from transformers import AutoConfig, AutoModel
for repo in ("ns/wikiformer-pushed", "ns/wikiformer-saved"):
    print(sorted(list_repo_files(repo)))
print(type(AutoModel.from_pretrained("ns/wikiformer-pushed", trust_remote_code=True)).__name__)
print(type(AutoConfig.from_pretrained("ns/wikiformer-pushed")).__name__)
""",
        hub.env(tmp_path / "home_user"),
    )
    pushed, saved, model_class, plain_config_class = stdout.splitlines()[-4:]
    for name in ("config.json", "model.safetensors", "modeling_wikiformer.py", "modules.json"):
        assert name in pushed and name in saved
    assert "tokenizer.json" in saved and "sentence_bert_config.json" in saved
    assert model_class == "WikiformerForRanking"
    assert plain_config_class == "BertConfig"
    assert hub.errors == []
