"""The methods the baseline tasks come from (PROP, HARP): what their dataset cards and model cards name and cite."""

from wikiformer_kit.dataset_scripts.tasks.spec import Origin

PROP = Origin(
    name="PROP",
    reference="Ma et al., WSDM 2021",
    objective="PROP's margin-1 pairwise loss on (positive, negative), jointly with whole-word MLM on the document",
    citation="""@inproceedings{ma2021prop,
  title     = {PROP: Pre-training with Representative Words Prediction for Ad-hoc Retrieval},
  author    = {Ma, Xinyu and Guo, Jiafeng and Zhang, Ruqing and Fan, Yixing and Ji, Xiang and Cheng, Xueqi},
  booktitle = {Proceedings of the 14th ACM International Conference on Web Search and Data Mining},
  year      = {2021},
  doi       = {10.1145/3437963.3441777}
}""",
)

HARP = Origin(
    name="HARP",
    reference="Ma et al., CIKM 2021",
    objective="HARP's margin-1 pairwise loss on (positive, negative), jointly with MLM, the four tasks mixed in "
    "proportion to their sizes",
    citation="""@inproceedings{ma2021harp,
  title     = {Pre-training for Ad-hoc Retrieval: Hyperlink is Also You Need},
  author    = {Ma, Zhengyi and Dou, Zhicheng and Xu, Wei and Zhang, Xinyu and Jiang, Hao and Cao, Zhao and Wen, Ji-Rong},
  booktitle = {Proceedings of the 30th ACM International Conference on Information and Knowledge Management},
  year      = {2021},
  doi       = {10.1145/3459637.3482286}
}""",
)
