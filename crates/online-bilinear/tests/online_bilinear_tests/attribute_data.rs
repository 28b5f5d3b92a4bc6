//! Fitting and tagging attribute data (`chain_crf::Dataset`, `chain_crf::Items`).
//!
//! The independent check: a corpus fitted through templates whose last template is the
//! bias, and the same features given as a data set (each position's non-bias feature
//! strings as attributes of value 1, built with `chain_crf::DatasetBuilder`). The data
//! set's attribute ids are the corpus's feature ids with the bias taken out (both number
//! features by first appearance), and its fit puts the bias last (id `A`): the two
//! feature spaces differ by that one permutation of ids, each position lists its features
//! in the same order, and the built-in online learners treat every feature by itself. So
//! the two fits must give the same weights, row for permuted row, bit for bit, and the
//! same tags.

use std::sync::Arc;

use chain_crf::{Dataset, DatasetBuilder, Items, Sequence};
use online_bilinear::{
    BuiltIn, Corpus, FeatureDict, Fit, Fitted, FittedTagger, OblError, ParamGuard, Predict,
    PreparedCorpus, TaggerParams, Template, Templates, synthetic,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Characters at -1, 0, 1, the bigram of -1 and 0, then the bias (last).
fn templates() -> Templates {
    Templates::new(vec![
        Template::unigram(0, -1),
        Template::unigram(0, 0),
        Template::unigram(0, 1),
        Template::bigram(0, -1, 0),
        Template::Bias,
    ])
    .expect("valid templates")
}

/// `corpus` as attribute data: at each position the feature strings `dict` encodes there,
/// the bias left out, each with value 1; labels the gold tags.
fn as_dataset(corpus: &Corpus, dict: &FeatureDict, builder: DatasetBuilder) -> Dataset {
    let names = dict.names();
    let bias = dict.bias_id().expect("the templates have a bias");
    let mut b = builder;
    for sentence in corpus.sentences() {
        let enc = dict.encode(sentence).expect("encodes");
        for (i, tag) in sentence.tags().iter().enumerate() {
            for &k in enc.at(i) {
                if k != bias {
                    b.attribute(&names[k as usize], 1.0).expect("attribute");
                }
            }
            b.end_item(tag).expect("item");
        }
        b.end_sequence().expect("sequence");
    }
    b.finish()
}

/// Corpus feature id `c` as a data-set feature id: the bias goes last, the others close up.
fn permuted(c: usize, bias: usize, n_attributes: usize) -> usize {
    match c.cmp(&bias) {
        std::cmp::Ordering::Less => c,
        std::cmp::Ordering::Equal => n_attributes,
        std::cmp::Ordering::Greater => c - 1,
    }
}

/// Row `k` of a row-major matrix of `width` columns, as bits.
fn row_bits(x: &[f64], k: usize, width: usize) -> Vec<u64> {
    x[k * width..(k + 1) * width]
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

/// The two models hold the same weights, rows permuted as [`permuted`] says.
fn assert_same_weights(corpus_model: &FittedTagger, data_model: &FittedTagger) {
    let (k, l) = (corpus_model.n_features(), corpus_model.tags().len());
    assert_eq!(data_model.n_features(), k);
    let bias = corpus_model.features().bias_id().unwrap() as usize;
    let a = data_model.n_attributes().unwrap();
    assert_eq!(a, k - 1);
    // The weight families both models hold, compared row by row below: at least one.
    let mut compared = 0;
    for c in 0..k {
        let d = permuted(c, bias, a);
        if let (Some(wc), Some(wd)) = (corpus_model.sparse_weights(), data_model.sparse_weights()) {
            let (codes_c, values_c) = wc.row(c);
            let (codes_d, values_d) = wd.row(d);
            assert_eq!(codes_c, codes_d, "sp cells of feature {c}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(values_c), bits(values_d), "sp weights of feature {c}");
            compared += 1;
        }
        if let (Some(ac), Some(ad)) = (corpus_model.alpha(), data_model.alpha()) {
            assert_eq!(row_bits(ac, c, l), row_bits(ad, d, l), "alpha of {c}");
            let (bc, bd) = (corpus_model.beta().unwrap(), data_model.beta().unwrap());
            assert_eq!(
                row_bits(bc, c, l + 1),
                row_bits(bd, d, l + 1),
                "beta of {c}"
            );
            compared += 1;
        }
        if let (Some(zc), Some(zd)) = (
            corpus_model.zero_order_weights().unwrap(),
            data_model.zero_order_weights().unwrap(),
        ) {
            assert_eq!(row_bits(zc, c, l), row_bits(zd, d, l), "0-order of {c}");
            compared += 1;
        }
    }
    assert_eq!(
        corpus_model.sparse_weights().is_some(),
        data_model.sparse_weights().is_some()
    );
    assert_eq!(corpus_model.alpha().is_some(), data_model.alpha().is_some());
    assert_eq!(
        corpus_model.zero_order_weights().unwrap().is_some(),
        data_model.zero_order_weights().unwrap().is_some()
    );
    assert!(compared >= k, "{compared} rows compared for {k} features");
}

/// Label ids of gold-free predictions, as names.
fn names_of(model: &FittedTagger, ids: &[Vec<u32>]) -> Vec<Vec<String>> {
    ids.iter()
        .map(|p| {
            p.iter()
                .map(|&y| model.tags()[y as usize].clone())
                .collect()
        })
        .collect()
}

fn corpora() -> Result<(Corpus, Corpus), OblError> {
    synthetic::segmentation(180, 60, 40, 3)?.split_every(5)
}

/// The training corpus of [`corpora`] prepared with [`templates`], the same features as
/// attribute data, and the held-out corpus.
fn prepared_data() -> Result<(PreparedCorpus, Dataset, Corpus), OblError> {
    let (train, test) = corpora()?;
    let prepared = TaggerParams::sp()
        .templates(templates())
        .check()?
        .prepare(&train)?;
    let data = as_dataset(&train, prepared.features(), DatasetBuilder::new());
    Ok((prepared, data, test))
}

/// A builder frozen to the dictionaries of `model`, a model of attribute data.
fn frozen(model: &FittedTagger) -> DatasetBuilder {
    DatasetBuilder::frozen(
        model
            .attribute_dictionary()
            .expect("a model of attribute data"),
        model.label_dictionary(),
    )
}

/// `result` is the typed error of a value other than 0 or 1 at `position` of `sequence`,
/// naming `attribute` and its `value`.
fn assert_non_binary<T: std::fmt::Debug>(
    result: Result<T, OblError>,
    (sequence, position): (usize, usize),
    attribute: &str,
    value: f64,
) {
    match result {
        Err(OblError::NonBinaryAttribute {
            sequence: s,
            position: p,
            attribute: a,
            value: v,
        }) => assert_eq!(
            (s, p, a.as_str(), v),
            (sequence, position, attribute, value)
        ),
        other => panic!("expected NonBinaryAttribute, got {other:?}"),
    }
}

/// sp (plain; averaged with 0-order features; with transitions only) and bol (plain;
/// averaged with 0-order features): the data-set fit has the corpus fit's weights, and
/// tags the held-out data as it does.
#[test]
fn a_dataset_fit_equals_the_corpus_fit_on_the_same_features() -> TestResult {
    let (train, test) = corpora()?;
    let settings: Vec<(&str, TaggerParams)> = vec![
        ("sp", TaggerParams::sp()),
        (
            "sp averaged, 0-order",
            TaggerParams::sp().averaging(true).zero_order(true),
        ),
        (
            "sp transitions only",
            TaggerParams::sp()
                .averaging(true)
                .zero_order(true)
                .transitions_only(true),
        ),
        ("bol", TaggerParams::bol()),
        (
            "bol averaged, 0-order",
            TaggerParams::bol().averaging(true).zero_order(true),
        ),
    ];
    for (what, params) in settings {
        let params = params.max_iter(4).seed(7);
        let corpus_model = params.clone().templates(templates()).fit(&train)?;
        let dict = corpus_model.features();
        let data = as_dataset(&train, dict, DatasetBuilder::new());
        // The attribute ids are the corpus ids without the bias.
        let bias = dict.bias_id().unwrap() as usize;
        let names = dict.names();
        assert_eq!(data.attributes().len(), names.len() - 1);
        for (c, name) in names.iter().enumerate() {
            if c != bias {
                assert_eq!(
                    data.attributes().get(name),
                    Some(c as u32 - u32::from(c > bias))
                );
            }
        }
        assert_eq!(data.labels().names(), corpus_model.tags());

        let data_model = params.fit(&data)?;
        assert_eq!(data_model.learner(), corpus_model.learner(), "{what}");
        assert_eq!(
            data_model.report().iterations,
            corpus_model.report().iterations
        );
        assert_same_weights(&corpus_model, &data_model);

        // Held-out data: the corpus's features (unknown ones dropped by its dictionary)
        // as a frozen data set of the model's dictionaries.
        let held_out = as_dataset(&test, dict, frozen(&data_model));
        let want: Vec<Vec<String>> = corpus_model.predict(&test)?;
        let got: Vec<Vec<u32>> = data_model.predict(&held_out)?;
        assert_eq!(names_of(&data_model, &got), want, "{what}");
        for (s, x) in held_out.iter().enumerate() {
            assert_eq!(data_model.tag_items(x.items)?, got[s]);
            assert_eq!(data_model.tag_items_names(x.items)?, want[s]);
        }
    }
    Ok(())
}

/// Every built-in learner fits a data set and tags it (bcd and the CRFs through the same
/// fit), and learns it.
#[test]
fn every_built_in_learner_fits_a_dataset() -> TestResult {
    let (_, data, _) = prepared_data()?;
    for learner in BuiltIn::ALL {
        let params = TaggerParams::new(Arc::new(learner))
            .max_iter(5)
            .threads(Some(1));
        let model = params.fit(&data)?;
        let tags: Vec<Vec<u32>> = model.predict(&data)?;
        let (mut errors, mut tokens) = (0, 0);
        for (x, p) in data.iter().zip(&tags) {
            tokens += p.len();
            errors += x.labels.iter().zip(p).filter(|(a, b)| a != b).count();
        }
        assert!(
            errors * 5 < tokens,
            "{}: {errors} errors of {tokens}",
            learner.name()
        );
    }
    Ok(())
}

/// One labelled sequence of attributes and values.
fn one_sequence(items: &[&[(&str, f64)]], labels: &[&str]) -> Result<Dataset, OblError> {
    let mut b = DatasetBuilder::new();
    for _ in 0..2 {
        for (item, label) in items.iter().zip(labels) {
            for (name, value) in item.iter() {
                b.attribute(name, *value).expect("finite");
            }
            b.end_item(label).expect("label");
        }
        b.end_sequence().expect("sequence");
    }
    Ok(b.finish())
}

/// The attribute names of the active features of each position of the first sequence
/// (the bias left out).
fn feature_names(data: &Dataset) -> Result<Vec<Vec<String>>, OblError> {
    let dict = FeatureDict::from_attributes(data.attributes())?;
    let enc = dict.encode_items(data.instance(0).items)?;
    let names = dict.names();
    Ok((0..enc.len())
        .map(|i| {
            let (last, attributes) = enc.at(i).split_last().expect("the bias");
            assert_eq!(Some(*last), dict.bias_id());
            attributes
                .iter()
                .map(|&k| names[k as usize].clone())
                .collect()
        })
        .collect())
}

/// A value other than 0 or 1 is a typed error naming the sequence, the position and the
/// attribute, at fit and at tagging; 0 is an absent attribute; an attribute given twice
/// counts with the sum of its values.
#[test]
fn non_binary_values_are_typed_errors_with_their_place() -> TestResult {
    let mut b = DatasetBuilder::new();
    for (s, value) in [(0, 1.0), (1, 0.5)] {
        for t in 0..3 {
            b.attribute("w=a", 1.0)?;
            b.attribute("len", if t == 2 { value } else { 1.0 })?;
            b.end_item(if t == 0 { "X" } else { "Y" })?;
        }
        b.end_sequence()?;
        assert_eq!(b.len(), s + 1);
    }
    let data = b.finish();
    for params in [
        TaggerParams::sp(),
        TaggerParams::bol(),
        TaggerParams::crf_l2(),
    ] {
        assert_non_binary(params.fit(&data), (1, 2), "len", 0.5);
    }
    let message = TaggerParams::sp().fit(&data).unwrap_err().to_string();
    assert!(
        message.contains("sequence 1, position 2") && message.contains("binary"),
        "{message}"
    );

    // 0 drops the attribute; twice 0.5 is 1; twice 1 is 2, an error.
    let plain = one_sequence(&[&[("a", 1.0)], &[("b", 1.0)]], &["X", "Y"])?;
    let zero = one_sequence(&[&[("a", 1.0), ("c", 0.0)], &[("b", 1.0)]], &["X", "Y"])?;
    let halves = one_sequence(&[&[("a", 0.5), ("a", 0.5)], &[("b", 1.0)]], &["X", "Y"])?;
    let twice = one_sequence(&[&[("a", 1.0)], &[("b", 1.0), ("b", 1.0)]], &["X", "Y"])?;
    let params = TaggerParams::sp().max_iter(3).check()?;
    let want = feature_names(&plain)?;
    assert_eq!(want, [vec!["a"], vec!["b"]]);
    assert_eq!(feature_names(&zero)?, want);
    assert_eq!(feature_names(&halves)?, want);
    assert_non_binary(params.prepare_dataset(&twice), (0, 1), "b", 2.0);

    // At tagging: sequence 0, the position, the attribute.
    let model = params.fit(&plain)?;
    let mut seq = Sequence::new();
    seq.push_item([(0, 1.0)])?;
    seq.push_item([(1, 3.0)])?;
    assert_non_binary(model.tag_items(seq.items()), (0, 1), "b", 3.0);
    Ok(())
}

/// The encoding of values, feature by feature: 0 is absent, duplicates are summed and
/// kept at their first place, the bias comes last.
#[test]
fn values_encode_as_binary_features() -> TestResult {
    let data = one_sequence(
        &[
            &[("a", 1.0), ("z", 0.0), ("b", 0.25), ("a", 0.0), ("b", 0.75)],
            &[("c", 1.0)],
        ],
        &["X", "Y"],
    )?;
    let dict = FeatureDict::from_attributes(data.attributes())?;
    assert_eq!(dict.n_attributes(), Some(4));
    assert_eq!(dict.len(), 5);
    assert_eq!(dict.bias_id(), Some(4));
    let enc = dict.encode_items(data.instance(0).items)?;
    let (a, b, c) = (0, 2, 3);
    assert_eq!(data.attributes().get("b"), Some(b));
    assert_eq!(enc.at(0), &[a, b, 4]);
    assert_eq!(enc.at(1), &[c, 4]);
    // An attribute named as the bias feature is refused.
    let clash = one_sequence(&[&[("0\u{1}", 1.0)]], &["X"])?;
    assert!(FeatureDict::from_attributes(clash.attributes()).is_err());
    Ok(())
}

/// Attribute ids the model does not know (`>= A`), whatever their values, are ignored at
/// tagging; names a frozen builder does not know are dropped.
#[test]
fn unknown_attributes_are_ignored_at_tagging() -> TestResult {
    let (prepared, data, test) = prepared_data()?;
    let model = TaggerParams::sp().max_iter(3).fit(&data)?;
    let a = model.n_attributes().unwrap() as u32;
    let held_out = as_dataset(&test, prepared.features(), frozen(&model));
    let mut changed = 0;
    for x in held_out.iter() {
        let want = model.tag_items(x.items)?;
        // The same items with unknown ids (and non-binary values) around the known ones.
        let mut seq = Sequence::new();
        for t in 0..x.items.len() {
            let (ids, values) = x.items.item(t);
            let mut pairs = vec![(a + t as u32, 2.5)];
            pairs.extend(ids.iter().copied().zip(values.iter().copied()));
            pairs.push((u32::MAX - 1, 1.0));
            seq.push_item(pairs)?;
        }
        assert_eq!(model.tag_items(seq.items())?, want);
        changed += 1;
    }
    assert!(changed > 0);

    // Names: a frozen builder drops attributes the model does not know.
    let mut b = frozen(&model);
    let first = held_out.instance(0);
    let names = model.attribute_dictionary().unwrap();
    for t in 0..first.items.len() {
        b.attribute("never seen", 7.0)?;
        for &id in first.items.item(t).0 {
            b.attribute(names.name(id), 1.0)?;
        }
        b.end_item("no such label")?;
    }
    b.end_sequence()?;
    let extra = b.finish();
    assert_eq!(
        model.tag_items(extra.instance(0).items)?,
        model.tag_items(first.items)?
    );
    Ok(())
}

/// A model of attribute data saves and loads through the crate's saved form, with its
/// dictionaries, and tags as before; a saved dictionary whose attribute count disagrees
/// with its features is refused.
#[test]
fn a_dataset_model_saves_and_loads() -> TestResult {
    let (prepared, data, test) = prepared_data()?;
    let held_out = as_dataset(
        &test,
        prepared.features(),
        DatasetBuilder::frozen(data.attributes().clone(), data.labels().clone()),
    );
    for params in [
        TaggerParams::sp().averaging(true).zero_order(true),
        TaggerParams::bol(),
        TaggerParams::crf_l2().threads(Some(1)),
    ] {
        let model = params.max_iter(3).fit(&data)?;
        let json = model.to_json()?;
        let loaded = FittedTagger::from_json(&json)?;
        assert_eq!(loaded.n_attributes(), model.n_attributes());
        assert_eq!(
            loaded.attribute_dictionary(),
            Some(data.attributes().clone())
        );
        assert_eq!(loaded.label_dictionary(), *data.labels());
        let (want, got): (Vec<Vec<u32>>, Vec<Vec<u32>>) =
            (model.predict(&held_out)?, loaded.predict(&held_out)?);
        assert_eq!(want, got);

        let n = model.n_attributes().unwrap();
        let tampered = json.replacen(
            &format!("\"attributes\":{n}"),
            &format!("\"attributes\":{}", n - 1),
            1,
        );
        assert_ne!(tampered, json);
        let err = FittedTagger::from_json(&tampered).unwrap_err().to_string();
        assert!(err.contains("dict"), "{err}");
    }
    Ok(())
}

/// A model of templates does not take items, a model of attributes does not take
/// sentences; templates and cutoffs other than the attributes' are refused.
#[test]
fn each_model_takes_its_own_input() -> TestResult {
    let (train, _) = corpora()?;
    let corpus_model = TaggerParams::sp()
        .templates(templates())
        .max_iter(2)
        .fit(&train)?;
    let data = as_dataset(&train, corpus_model.features(), DatasetBuilder::new());
    let data_model = TaggerParams::sp().max_iter(2).fit(&data)?;
    let items: Items<'_> = data.instance(0).items;
    assert!(corpus_model.tag_items(items).is_err());
    assert!(corpus_model.attribute_dictionary().is_none());
    let tags: Result<Vec<Vec<String>>, _> = data_model.predict(&train);
    assert!(tags.is_err());
    assert!(
        TaggerParams::sp()
            .templates(templates())
            .fit(&data)
            .is_err()
    );
    assert!(TaggerParams::sp().cutoff(2).fit(&data).is_err());
    let bias_only = Templates::new(vec![Template::Bias])?;
    assert!(
        TaggerParams::sp()
            .max_iter(1)
            .templates(bias_only)
            .fit(&data)
            .is_ok()
    );
    assert!(matches!(
        TaggerParams::sp().fit(&DatasetBuilder::new().finish()),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
    Ok(())
}
