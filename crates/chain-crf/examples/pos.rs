//! Trains a chain-crf trainer on a `word/TAG` corpus (one sentence per line) with about 20
//! word attributes per token, every 10th sentence held out, and prints time, iterations,
//! accuracy and peak memory.
//!
//! ```text
//! cargo run --release -p chain-crf --example pos -- FILE ALGORITHM MAX_ITER [THREADS] [TRAIN_SENTENCES]
//! ```

use std::time::Instant;

use chain_crf::{Algorithm, CrfParams, DatasetBuilder, Fit, Fitted};

fn attributes(words: &[&str], i: usize) -> Vec<String> {
    let w = words[i];
    let chars: Vec<char> = w.chars().collect();
    let prefix = |k: usize| chars.iter().take(k).collect::<String>();
    let suffix = |k: usize| {
        chars[chars.len().saturating_sub(k)..]
            .iter()
            .collect::<String>()
    };
    let at = |d: isize| {
        let j = i as isize + d;
        if j < 0 {
            "<s>".to_string()
        } else {
            words
                .get(j as usize)
                .map_or("</s>".to_string(), |s| s.to_string())
        }
    };
    let mut out = vec![
        "bias".to_string(),
        format!("w={w}"),
        format!("p1={}", prefix(1)),
        format!("p2={}", prefix(2)),
        format!("s1={}", suffix(1)),
        format!("s2={}", suffix(2)),
        format!("len={}", chars.len().min(5)),
        format!("w-1={}", at(-1)),
        format!("w+1={}", at(1)),
        format!("w-2={}", at(-2)),
        format!("w+2={}", at(2)),
        format!("w-1|w={}|{w}", at(-1)),
        format!("w|w+1={w}|{}", at(1)),
        format!("s1-1={}", at(-1).chars().last().unwrap_or(' ')),
        format!("p1+1={}", at(1).chars().next().unwrap_or(' ')),
        format!("digit={}", chars.iter().any(|c| c.is_numeric())),
        format!("w-2|w-1={}|{}", at(-2), at(-1)),
        format!("w+1|w+2={}|{}", at(1), at(2)),
        format!("s1|p1={}|{}", suffix(1), prefix(1)),
    ];
    if i == 0 {
        out.push("BOS".into());
    }
    if i + 1 == words.len() {
        out.push("EOS".into());
    }
    out
}

fn peak_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(f64::NAN)
        / 1024.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: pos FILE ALGORITHM MAX_ITER [THREADS] [N]")?;
    let algorithm = Algorithm::from_name(args.get(2).map_or("lbfgs", |s| s))?;
    let max_iter: usize = args.get(3).map_or(Ok(100), |s| s.parse())?;
    let threads: Option<usize> = args.get(4).map(|s| s.parse()).transpose()?;
    let limit: usize = args.get(5).map_or(Ok(usize::MAX), |s| s.parse())?;
    let text = std::fs::read_to_string(path)?;
    let sentences: Vec<Vec<(&str, &str)>> = text
        .lines()
        .map(|l| {
            l.split_whitespace()
                .filter_map(|t| t.rsplit_once('/'))
                .collect::<Vec<_>>()
        })
        .filter(|s: &Vec<_>| !s.is_empty())
        .collect();
    let mut train = DatasetBuilder::new();
    let mut test_sents = Vec::new();
    let mut n_train = 0;
    for (k, s) in sentences.iter().enumerate() {
        if k % 10 == 9 {
            test_sents.push(s);
            continue;
        }
        if n_train >= limit {
            continue;
        }
        n_train += 1;
        let words: Vec<&str> = s.iter().map(|p| p.0).collect();
        for (i, (_, tag)) in s.iter().enumerate() {
            for a in attributes(&words, i) {
                train.attribute(&a, 1.0)?;
            }
            train.end_item(tag)?;
        }
        train.end_sequence()?;
    }
    let data = train.finish();
    println!(
        "train: {} sentences, {} items, {} attributes, {} labels; peak {:.0} MB",
        data.len(),
        data.n_items(),
        data.attributes().len(),
        data.labels().len(),
        peak_mb()
    );
    let start = Instant::now();
    let fitted = CrfParams::new(algorithm)
        .max_iter(max_iter)
        .threads(threads)
        .fit(&data)?;
    let secs = start.elapsed().as_secs_f64();
    let model = fitted.model();
    let (mut right, mut total) = (0usize, 0usize);
    for s in &test_sents {
        let words: Vec<&str> = s.iter().map(|p| p.0).collect();
        let attrs: Vec<Vec<String>> = (0..words.len()).map(|i| attributes(&words, i)).collect();
        let x = model.encode(
            attrs
                .iter()
                .map(|a| a.iter().map(|s| (s.as_str(), 1.0)).collect::<Vec<_>>()),
        )?;
        let tags = model.tag_names(x.items());
        right += tags
            .iter()
            .zip(s.iter())
            .filter(|(p, g)| **p == g.1)
            .count();
        total += s.len();
    }
    println!(
        "{}: {} features, {} iterations ({:?}), fit {secs:.2} s ({:.3} s/iteration), accuracy {:.2}%, peak {:.0} MB",
        fitted.algorithm(),
        model.features().len(),
        fitted.report().iterations,
        fitted.report().termination,
        secs / fitted.report().iterations as f64,
        100.0 * right as f64 / total as f64,
        peak_mb()
    );
    Ok(())
}
