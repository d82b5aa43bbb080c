"""The preview packs: a person's disclosures, congressional trade clusters, forum attention momentum.

In: the preview sources read by `builder.sources.previews` (parsed files plus the operator's settings).
Out: one `PreviewPack` per configured pack (`build.build_previews`). `pack` holds the shared shape and
helpers that `person`, `congress` and `social` import; it imports none of them.
"""
