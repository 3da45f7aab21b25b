"""The Wikiformer pre-training tasks: one module per task holding its sampler and its spec (:mod:`.srr`,
:mod:`.rwi`, :mod:`.ati`, :mod:`.ltm`; the contract and how to add a task: :mod:`.spec`), the registry that
collects the specs (:mod:`.registry`), their options (:mod:`.options`), the dataset card (:mod:`.card`) and the
datatrove steps that build the datasets (:mod:`.steps`)."""
