"""Release: assemble, render, stage, seal, verify, promote and load immutable releases.

In: the `Sources` of a source tree. Out: `releases/<id>/` — every GET answer rendered once into a
content-addressed object with its route index, the manifest, the seal written last — and the
`current` link swapped atomically. `assemble` builds `ReleaseData` from the sources, `build` renders
and writes a release in two phases, `staging` writes files durably, `promote` locks and promotes,
`store` knows the layout and verifies and loads a release, `atomic` holds the filesystem primitives.
"""
