#!/usr/bin/env bash
# Quality benchmark of the built-in reconstructor: synthetic product photos with exact
# ground truth, scored per class (silhouette IoU from the photo's camera, F-score at 5 %
# of height, Chamfer). QUALITY_N scenes per class (default 8), QUALITY_CLASS=box for one
# class only; PHOTO3D_RENDER_DIR=dir
# also writes each photo, model renders and silhouette overlays there. The real-product
# set (internal/reconstruct/testdata/real/MANIFEST, extracted by ops/realset.sh) follows:
# one table row per photo with the naive card and prism baselines and the fidelity
# correlation (QUALITY_CLASS=real for that table only; REALSET_MODEL=name for one model).
# With the worker's RECONSTRUCTOR=remote and RECONSTRUCTOR_URL set, the real set's
# photos go to that inference server instead, so a GPU model is measured against the
# same truth, baselines and low-fidelity rule before merchants see its shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test ./internal/reconstruct -run '^(TestQualityFull|TestRealSetFull)$' -count=1 -v -timeout 60m \
	-args -quality.full -quality.n="${QUALITY_N:-8}" -quality.class="${QUALITY_CLASS:-}" | grep -v -E '^(=== RUN|--- PASS|PASS|ok )'
