#!/usr/bin/env bash
# Four-photo real-set benchmark over several captures. TestRealSetFourPhotos draws
# each model's hand-held errors (±10° azimuth, ±3° elevation, distance, height) from
# one seed, so one run is one capture per model, and a model's F@5 moves by up to
# ±0.15 between captures (per-capture means of one build: 0.613–0.658). This runs
# SEEDS captures (PHOTO3D_SEED=0…SEEDS−1, default 5), JOBS at a time (default: the
# number of CPUs), and prints each model's mean over them and each capture's mean.
# Compare builds with this, not with one capture. Needs the real set
# (ops/realset.sh). Output of each capture: $OUT/seed-N.txt (default /tmp/fourphoto).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f internal/reconstruct/testdata/real/SheenChair/model.gltf ]; then
	echo "the real-product models are not extracted: run ops/realset.sh GIT_DIR first (internal/reconstruct/testdata/real/MANIFEST)" >&2
	exit 2
fi
seeds=${SEEDS:-5}
jobs=${JOBS:-$(nproc)}
out=${OUT:-/tmp/fourphoto}
mkdir -p "$out"
bin="$out/reconstruct.test"
go test -c -o "$bin" ./internal/reconstruct
cd internal/reconstruct
seq 0 $((seeds - 1)) | xargs -P "$jobs" -I{} sh -c \
	"PHOTO3D_SEED={} '$bin' -test.run 'TestRealSetFourPhotos\$' -test.v -test.timeout 60m -realset.four -multiview.full > '$out/seed-{}.txt' 2>&1 || echo 'capture {} failed: see $out/seed-{}.txt' >&2"
# Rows: | model | ours | true-box hull | Δ | own-box hull | Δ | ms |
awk -F'|' '
	FNR == 1 { seed++ }
	NF > 7 && $3 ~ /^ *[0-9.]+ *$/ && $2 !~ /\*\*/ {
		m = $2; gsub(/ /, "", m)
		if (!(m in sum)) order[++n] = m
		sum[m] += $3; hull[m] += $4; own[m] += $6; cnt[m]++
		ssum[seed] += $3; scnt[seed]++
	}
	END {
		printf "%-28s %8s %14s %13s %s\n", "model", "ours", "true-box hull", "own-box hull", "captures"
		for (i = 1; i <= n; i++) {
			m = order[i]
			printf "%-28s %8.3f %14.3f %13.3f %d\n", m, sum[m]/cnt[m], hull[m]/cnt[m], own[m]/cnt[m], cnt[m]
			tot += sum[m]/cnt[m]; th += hull[m]/cnt[m]; to += own[m]/cnt[m]
		}
		printf "%-28s %8.3f %14.3f %13.3f\n", "mean", tot/n, th/n, to/n
		printf "per capture:"
		for (s = 1; s <= seed; s++) if (scnt[s]) printf " %.3f", ssum[s]/scnt[s]
		printf "\n"
	}' $(seq -f "$out/seed-%g.txt" 0 $((seeds - 1)))
