//! Writes the seed inputs of every fuzz target into `seeds/<target>/` (run from `fuzz/`:
//! `cargo run --example make_seeds`). The models are fitted with fixed seeds on fixed
//! data, but their JSON also holds the fits' wall-clock times (the reports' `elapsed`, a
//! tagger's `train_seconds`), so every run rewrites those bytes of `seeds/models/`.

use std::path::Path;

use bl_core::Fit;
use bl_core::data::MatrixDataset;
use online_bilinear::{Corpus, Sentence, TaggerParams};
use sblr::{LogisticRegression, Sblr};

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new("seeds").join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// `prefix` followed by `rest`.
fn with(prefix: u8, rest: &[u8]) -> Vec<u8> {
    let mut v = vec![prefix];
    v.extend_from_slice(rest);
    v
}

fn main() {
    // .npy
    let mut bytes = Vec::new();
    bl_core::io::write_npy_to(&mut bytes, &[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.5]).unwrap();
    write("npy", "f8_2x3.npy", &bytes);
    let mut bytes = Vec::new();
    bl_core::io::write_npy_to(&mut bytes, &[], &[7.0]).unwrap();
    write("npy", "scalar.npy", &bytes);
    let header = "{'descr': '<u2', 'fortran_order': True, 'shape': (2, 2), }";
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let padding = (64 - (10 + header.len() + 1) % 64) % 64;
    let text = format!("{header}{}\n", " ".repeat(padding));
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(&[0, 0, 2, 0, 1, 0, 3, 0]);
    write("npy", "u2_fortran.npy", &bytes);

    // CSV (first byte: options)
    write("csv", "plain", &with(0, b"1,2,3\n4,5,6\n"));
    write(
        "csv",
        "header_comment",
        &with(4 | 8, b"# c\nx,y\n1.5,-2e3\n\n3,4\r\n"),
    );
    write(
        "csv",
        "tsv_nonfinite",
        &with(1 | 16, b"nan\tinf\n1\t2\r3\t4"),
    );

    // .ts (first byte: policy)
    let toy = "@problemName Toy\n@univariate false\n@dimensions 2\n@equalLength true\n\
               @seriesLength 3\n@classLabel true up down\n@data\n1,2,3:4,5,6:up\n\
               3,2,1:6,5,4:down\n";
    write("ts", "toy_error", &with(0, toy.as_bytes()));
    let var = "@dimensions 2\n@equalLength false\n@classLabel true a b\n@data\n\
               0,1,2,3,4:10,11,12,13,14:a\n0,2,4:5,5,5:b\n";
    write("ts", "var_truncate3", &with(1 | (3 << 3), var.as_bytes()));
    write(
        "ts",
        "var_resample5_file",
        &with(2 | 4 | (5 << 3), var.as_bytes()),
    );

    // corpora (first byte: reader)
    write(
        "corpus",
        "conll",
        &with(
            0,
            b"-DOCSTART- -X- O\n\nHe PRP B-NP\nruns VBZ B-VP\n\n. . O\n",
        ),
    );
    write(
        "corpus",
        "char_tagged",
        "\u{1}迈/b 向/e 新/s\n世/b 纪/e\n".as_bytes(),
    );
    write(
        "corpus",
        "segmented",
        "\u{2}迈向 新 世纪\r\n今天 是\n".as_bytes(),
    );
    write(
        "corpus",
        "word_tagged",
        b"\x03The/DT 1/2/CD share/NN ./.\r\n\r\nHe/PRP left/VBD\n",
    );
    write(
        "corpus",
        "conll_header",
        b"\x04ID WORD POS CHUNK\n1 He PRP B-NP\n2 runs VBZ B-VP\n\n1 . . O\n",
    );

    // models (first byte: type), fitted on the 2 x 3 data sets of the target
    let values: Vec<f64> = (0..18).map(|i| f64::from(i % 7) - 3.0).collect();
    let binary = MatrixDataset::from_label_names(2, 3, values.clone(), &["a", "b", "a"]).unwrap();
    let three = MatrixDataset::from_label_names(2, 3, values, &["a", "b", "c"]).unwrap();
    let sblr = Sblr::params().rank(1).fit(&binary).unwrap();
    write(
        "models",
        "sblr.json",
        &with(0, &serde_json::to_vec(&sblr).unwrap()),
    );
    // The same model as if fitted with a block update of a user's (saved by its name).
    let custom = serde_json::to_string(&sblr).unwrap().replacen(
        r#""solver":"Alg2","#,
        r#""block_update":"mine","solver":"Alg2","#,
        1,
    );
    write(
        "models",
        "sblr_custom_update.json",
        &with(0, custom.as_bytes()),
    );
    let multi = Sblr::params().rank(1).multinomial().fit(&three).unwrap();
    write(
        "models",
        "multinomial.json",
        &with(1, &serde_json::to_vec(&multi).unwrap()),
    );
    let logistic = LogisticRegression::params().fit(&binary).unwrap();
    write(
        "models",
        "logistic.json",
        &with(2, &serde_json::to_vec(&logistic).unwrap()),
    );
    let corpus = Corpus::new(vec![
        Sentence::from_tokens(&["a", "b", "c"], &["s", "b", "e"]).unwrap(),
        Sentence::from_tokens(&["c", "a"], &["b", "e"]).unwrap(),
    ]);
    let tagger = TaggerParams::sp().max_iter(2).seed(1).fit(&corpus).unwrap();
    write(
        "models",
        "tagger.json",
        &with(3, tagger.to_json().unwrap().as_bytes()),
    );
    let mut b = chain_crf::DatasetBuilder::new();
    for (attribute, label) in [("a", "x"), ("b", "y"), ("a", "y")] {
        b.attribute(attribute, 1.0).unwrap();
        b.end_item(label).unwrap();
    }
    b.end_sequence().unwrap();
    let algorithm = chain_crf::Algorithm::from_name("lbfgs").unwrap();
    let crf = chain_crf::CrfParams::new(algorithm)
        .max_iter(5)
        .fit(&b.finish())
        .unwrap();
    write(
        "models",
        "chain_crf.json",
        &with(4, &crf.model().to_bytes()),
    );
}
