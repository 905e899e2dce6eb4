#!/usr/bin/env bash
# Extracts the real-product benchmark models (internal/reconstruct/testdata/real/MANIFEST and HELDOUT)
# from a local git copy of their source repository into internal/reconstruct/testdata/real/
# (git-ignored: the models are not committed). Usage:
#   ops/realset.sh [GIT_DIR]   a git copy of DRx3D/glTF-Sample-Assets-OLD (default: the
#                              fetch tool's mirror of it on the dev machine)
# Only the glTF JSON, its .bin buffers and its base-colour textures are copied.
set -euo pipefail
cd "$(dirname "$0")/.."
gitdir=${1:-/work/.mirror/DRx3D+glTF-Sample-Assets-OLD/repo}
dest=internal/reconstruct/testdata/real
# MANIFEST is the tuning set; HELDOUT the products no change is tuned on (issue 48 §7).
cat "$dest/MANIFEST" "$dest/HELDOUT" | grep -vE '^(#|$)' | while IFS='|' read -r name class repo path commit rest; do
	name=$(echo "$name" | xargs) path=$(echo "$path" | xargs) commit=$(echo "$commit" | xargs)
	mkdir -p "$dest/$name"
	dir=$(dirname "$path")
	git --git-dir="$gitdir" show "$commit:$path" >"$dest/$name/model.gltf"
	# buffers and base-colour images named in the glTF (small ones only: the mirror
	# lacks files of 4 MiB and more; a missing texture falls back to the material colour)
	for f in $(python3 - "$dest/$name/model.gltf" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
uris = [b["uri"] for b in d.get("buffers", []) if "uri" in b]
base = set()
for m in d.get("materials", []):
    t = m.get("pbrMetallicRoughness", {}).get("baseColorTexture")
    if t is not None:
        base.add(d["textures"][t["index"]]["source"])
uris += [d["images"][i]["uri"] for i in sorted(base) if "uri" in d["images"][i]]
print("\n".join(uris))
PY
	); do
		git --git-dir="$gitdir" show "$commit:$dir/$f" >"$dest/$name/$f" 2>/dev/null || rm -f "$dest/$name/$f"
	done
	echo "$name: $(du -sh "$dest/$name" | cut -f1)"
done
