"""The Wikiformer pre-training tasks: one sampler module per task (:mod:`.srr`, :mod:`.rwi`, :mod:`.ati`,
:mod:`.ltm`), their options (:mod:`.options`) and the datatrove steps that build the datasets (:mod:`.pipeline`)."""
