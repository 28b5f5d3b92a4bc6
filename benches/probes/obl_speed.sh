#!/usr/bin/env bash
# Training time, test accuracy and peak memory of online-bilinear's online learners beside
# CRFsuite's averaged perceptron (the yardstick) on the same features, 20 epochs each.
#
# Command (from the workspace root):
#   CARGO_TARGET_DIR=target bash benches/probes/obl_speed.sh [DATA_DIR] > table.md
#
# Builds the `online_vs_crfsuite_ap` example of the probe crate `probes/crfsuite` (its own
# workspace outside the root one, which builds CRFsuite's C code with cmake; the binary
# lands in $CARGO_TARGET_DIR/release/examples, without CARGO_TARGET_DIR in the probe's
# own probes/crfsuite/target), then runs one learner per process (so the process's peak
# resident memory is the learner's): CoNLL-2000 part-of-speech tagging (the POS column as
# the label) on the whole training file, and the pku1998 segmentation corpus on 4 training
# sizes spanning 30x (150 to 4500 sentences). The rows of one size run back to back, the
# yardstick first; `uptime` is printed before each size.
#
# `OBL_BIN=PATH` runs that build of the example instead of building one (e.g. a copy built
# at an earlier commit, to measure before and after in the same session).
set -euo pipefail
data="${1:-${BILINEAR_DATA_DIR:-/work/data}}"
target="${CARGO_TARGET_DIR:-probes/crfsuite/target}"
if [ -n "${OBL_BIN:-}" ]; then
  bin="$OBL_BIN"
else
  cargo build --release --manifest-path probes/crfsuite/Cargo.toml --example online_vs_crfsuite_ap >&2
  bin="$target/release/examples/online_vs_crfsuite_ap"
fi
echo "| corpus | train sentences | tokens | features | tags | learner | seconds | accuracy % | peak MB | model MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run_size() {
  echo "<!-- $(uptime) -->"
  for learner in crfsuite-ap sp bol bcd; do
    "$bin" "$1" "$learner" "$2" 20
  done
}
run_size "pos:$data/conll2000-subset" all
for n in 150 500 1500 4500; do
  run_size "seg:$data/pku1998/data.txt" "$n"
done
