//! Hot paths of `online-bilinear`, each beside a yardstick over the same data: one epoch of
//! bol (Algorithm 2) and of the structured perceptron on a synthetic segmentation corpus,
//! beside one pass of feature extraction (encoding every sentence with the dictionary) over
//! the same corpus; first-order Viterbi beside filling its score table.

use std::hint::black_box;

use bl_core::random::{fill_standard_normal, seeded_rng};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use online_bilinear::viterbi::{ViterbiWorkspace, viterbi_into};
use online_bilinear::{Fit, ParamGuard, TaggerParams, synthetic};

fn epoch(c: &mut Criterion) {
    let n_sentences = 2000;
    let corpus = synthetic::segmentation(n_sentences, 5000, 3000, 7).expect("corpus");
    let tokens = corpus.n_tokens();
    let base = TaggerParams::bol()
        .max_iter(1)
        .shuffle(false)
        .check()
        .expect("params");
    let prepared = base.prepare(&corpus).expect("features");
    let dict = prepared.features().clone();
    let mut group = c.benchmark_group("online_bilinear_epoch");
    group.sample_size(10);
    group.throughput(Throughput::Elements(tokens as u64));
    let id = format!("{n_sentences}_sentences_{tokens}_tokens");
    group.bench_function(BenchmarkId::new("bol_one_epoch_R4", &id), |b| {
        b.iter(|| base.fit(black_box(&prepared)).expect("fit"))
    });
    let sp = TaggerParams::sp()
        .max_iter(1)
        .shuffle(false)
        .check()
        .expect("params");
    group.bench_function(BenchmarkId::new("sp_one_epoch", &id), |b| {
        b.iter(|| sp.fit(black_box(&prepared)).expect("fit"))
    });
    // Yardstick: one pass of feature extraction over the same corpus.
    group.bench_function(BenchmarkId::new("yardstick_feature_extraction", &id), |b| {
        b.iter(|| dict.encode_corpus(black_box(&corpus)).expect("encode"))
    });
    group.finish();
}

fn decode(c: &mut Criterion) {
    let (n, l) = (50, 4);
    let mut rng = seeded_rng(3);
    let mut scores = vec![0.0; n * (l + 1) * l];
    fill_standard_normal(&mut rng, &mut scores);
    let mut ws = ViterbiWorkspace::default();
    let mut path = vec![0; n];
    let mut group = c.benchmark_group("viterbi");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("first_order", format!("n{n}_L{l}")), |b| {
        b.iter(|| viterbi_into(black_box(&scores), n, l, &mut ws, &mut path))
    });
    // Yardstick: writing the score table once (what any decoder must at least read).
    let mut table = vec![0.0; scores.len()];
    group.bench_function(
        BenchmarkId::new("yardstick_copy_table", format!("n{n}_L{l}")),
        |b| b.iter(|| table.copy_from_slice(black_box(&scores))),
    );
    group.finish();
}

criterion_group!(benches, epoch, decode);
criterion_main!(benches);
