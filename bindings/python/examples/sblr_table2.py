"""SBLR Table 2 from Python: LR, sparse LR, BLR and SBLR on binary matrix data.

Shi, Xu, Baraniuk, "Sparse Bilinear Logistic Regression" (2014), Sec. 8.1.1, Table 2
(BCI competition III IVb EEG, 118 channels x 100 time slices, which is not
redistributable). As `cargo xtask reproduce sblr-table2` does, this script uses the
substitute BasicMotions (6 sensor channels x 100 time steps), Badminton (positive) vs
Walking, with its given train/test split:

    BILINEAR_DATA_DIR=/path/to/data python examples/sblr_table2.py

(`cargo xtask data fetch basicmotions` puts the data under the data directory.) The
protocol of the paper: entries standardized on the training set; the rank tuned first
without penalties by cross-validation, then the penalties on a grid at that rank;
LR and sparse LR (l1) on vec(X) are scikit-learn's LogisticRegression.
"""

import os
import pathlib
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bilinear import SparseBilinearLogisticRegression

PAPER = {"Logistic Regression": 0.75, "Sparse Logistic Regression": 0.76,
         "Bilinear Logistic Regression": 0.84, "Sparse Bilinear Logistic Regression": 0.89}


def read_ts(path):
    """A multivariate, equal-length sktime .ts file: samples (n, dims, length), labels."""
    samples, labels = [], []
    in_data = False
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.lower() == "@data":
            in_data = True
            continue
        if not in_data or line.startswith("@"):
            continue
        *dims, label = line.split(":")
        samples.append([[float(v) for v in d.split(",")] for d in dims])
        labels.append(label)
    return np.array(samples), np.array(labels)


def main():
    data_dir = pathlib.Path(os.environ.get("BILINEAR_DATA_DIR", "data")) / "basicmotions"
    if not data_dir.is_dir():
        sys.exit(f"no {data_dir}: run `cargo xtask data fetch basicmotions` "
                 "or set BILINEAR_DATA_DIR")
    X_train, y_train = read_ts(data_dir / "BasicMotions_TRAIN.ts")
    X_test, y_test = read_ts(data_dir / "BasicMotions_TEST.ts")
    keep_train = np.isin(y_train, ["Badminton", "Walking"])
    keep_test = np.isin(y_test, ["Badminton", "Walking"])
    X_train, y_train = X_train[keep_train], (y_train[keep_train] == "Badminton").astype(int)
    X_test, y_test = X_test[keep_test], (y_test[keep_test] == "Badminton").astype(int)
    n, s, t = X_train.shape
    flat_train, flat_test = X_train.reshape(n, -1), X_test.reshape(len(X_test), -1)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)

    def sblr(**kw):
        return make_pipeline(StandardScaler(), SparseBilinearLogisticRegression(
            matrix_shape=(s, t), init="label_weighted_svd", max_iter=500, **kw))

    # BLR: the rank by cross-validation without penalties (the paper's first step)
    blr = GridSearchCV(sblr(mu1=0.0, mu2=0.0, nu1=0.0, nu2=0.0),
                       {"sparsebilinearlogisticregression__rank": [1, 2, 3]}, cv=cv)
    blr.fit(flat_train, y_train)
    rank = blr.best_params_["sparsebilinearlogisticregression__rank"]
    # SBLR: the penalties on a grid at that rank (the paper's second step)
    step = "sparsebilinearlogisticregression__"
    grid = {step + "mu1": [0.0, 0.01, 0.05], step + "mu2": [0.0, 0.1],
            step + "nu1": [0.0, 0.01, 0.05], step + "nu2": [0.0, 0.1]}
    sparse = GridSearchCV(sblr(rank=rank), grid, cv=cv, n_jobs=-1).fit(flat_train, y_train)

    lr = GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
                      {"logisticregression__C": [0.01, 0.1, 1, 10, 100]}, cv=cv)
    slr = GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression(
        l1_ratio=1.0, solver="liblinear", max_iter=5000, random_state=0)),
        {"logisticregression__C": [0.01, 0.1, 1, 10, 100]}, cv=cv)
    models = {
        "Logistic Regression": lr.fit(flat_train, y_train),
        "Sparse Logistic Regression": slr.fit(flat_train, y_train),
        "Bilinear Logistic Regression": blr,
        "Sparse Bilinear Logistic Regression": sparse,
    }
    print(f"BasicMotions Badminton vs Walking: {n} training, {len(X_test)} test samples "
          f"of {s} x {t}; BLR rank {rank}; SBLR penalties {sparse.best_params_}")
    print(f"{'model':<38}{'accuracy':>10}{'AUC':>8}{'paper (BCI IVb)':>18}")
    for name, model in models.items():
        acc = accuracy_score(y_test, model.predict(flat_test))
        auc = roc_auc_score(y_test, model.decision_function(flat_test))
        print(f"{name:<38}{acc:>10.3f}{auc:>8.3f}{PAPER[name]:>18.2f}")


if __name__ == "__main__":
    main()
