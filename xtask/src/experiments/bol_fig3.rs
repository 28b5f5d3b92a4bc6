//! `bol-fig3` — [Wu and Sun 2015, Figure 3] CoNLL-2000 chunking F1 (conlleval) against the
//! proportion of the training data, with 0-order features and parameter averaging (Sec.
//! 4.3, as Sec. 6.2 prescribes), for bol, bcd and the structured perceptron, beside bol and
//! bcd as printed (Algorithm 2 with eqs. (9)-(12), Algorithm 1 with eq. (7)), each with
//! several shuffle seeds. The data set is the CoNLL-2000 subset shipped with libwapiti (823
//! training and 77 test sentences), not the full corpus (`docs/papers/bol.md`). Checks the
//! paper's statements about the figure ([`crate::paper::bol`]) by paired tests over the
//! seeds; the extensions are checked by also fitting plain bol (and plain bol as printed)
//! on all the training data with the same seeds.

use online_bilinear::{BuiltIn, Templates};

use super::bol_common::{self, GROUPS, mean};
use super::{Ctx, Experiment, VsRow};
use crate::paper::bol as paper;
use crate::report::Claim;
use crate::stats;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "bol-fig3",
    title: "[Bilinear online Fig. 3] CoNLL-2000 chunking (libwapiti subset): F1 vs training proportion",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let scale = ctx.scale();
    let (train, test) = bol_common::conll(ctx)?;
    let train = match scale.pick(Some(200), None, None) {
        Some(n) => train.head(n),
        None => train,
    };
    let templates = Templates::chunking();
    let seeds = bol_common::seeds(ctx);
    let n_tags = train.tag_set().len();
    ctx.md(&format!(
        "## Figure 3 (chunking, CoNLL-2000 subset)\n\n{} training sentences at 100% ({} \
         tokens), {} test sentences of the CoNLL-2000 subset shipped with libwapiti, in \
         place of the full CoNLL-2000 data (8,936 training and 2,012 test sentences: \
         docs/papers/bol.md); templates W-2..W2, W-1W0, W0W1, P-2..P2, P-2P-1, P-1P0, \
         P0P1, P1P2 (no bias feature); 0-order features and averaging on; T = {}, C = {}, R = {}, \
         shuffle seeds {} (F1 below: the mean over the seeds). F1 by conlleval's rules. \
         Rows \"bol as printed\" and \"bcd as printed\" run Algorithm 2 with eqs. (9)-(12) \
         and Algorithm 1 with eq. (7) as the paper prints them; \"bol\" and \"bcd\" are our \
         readings. The paper prints no numbers for this figure. Its setting and \
         statements:\n",
        train.len(),
        train.n_tokens(),
        test.len(),
        bol_common::epochs(scale),
        paper::C,
        paper::R,
        bol_common::seeds_text(&seeds),
    ));
    ctx.quote(&paper::FIG3_SETTING);
    ctx.quote(&paper::FIG3_TAGS);
    ctx.quote(&paper::FIG3_STATEMENT);
    ctx.quote(&paper::FIG3_CAPTION);
    ctx.table_vs_paper(
        "data",
        &["chunk tags in the training set"],
        &[VsRow::new(
            "training data at 100%",
            &[n_tags as f64],
            &[paper::FIG3_TAG_SET_SIZE as f64],
        )],
    )?;
    ctx.figure("n_tags", n_tags as f64);
    let grid = bol_common::run_f1_vs_proportion(
        ctx,
        "chunking (CoNLL-2000 subset)",
        &train,
        &test,
        &templates,
        |p| p.zero_order(true).averaging(true),
    )?;
    // "Similar to the task of word segmentation in general": bol is the best, with
    // footnote 6's meaning of "better", as Sec. 6.1 states for segmentation.
    for group in GROUPS {
        bol_common::check_bol_best(ctx, &paper::FIG3_SIMILAR, group, &grid);
    }

    // The extensions: plain bol (1st-order features only, no averaging) on all the data,
    // with the same seeds, for both readings.
    let plain_params = |seed: u64, printed: bool| {
        let p = bol_common::params(BuiltIn::Bol, scale, seed, &templates);
        if printed {
            bol_common::as_printed(BuiltIn::Bol, p)
        } else {
            p
        }
    };
    let prepared = bol_common::prepare(&plain_params(seeds[0], false), &train)?;
    let mut rows = Vec::new();
    for (group, printed) in [(GROUPS[0], false), (GROUPS[1], true)] {
        let mut plain = Vec::new();
        for &seed in &seeds {
            let params = plain_params(seed, printed);
            plain.push(bol_common::fit_and_score("bol (plain)", &params, &prepared, &test)?.f1);
        }
        let extended = grid.at_full(group.bol).to_vec();
        let d = stats::paired(&extended, &plain);
        let name = &grid.names[group.bol];
        rows.push(vec![
            name.clone(),
            format!("{:.2}", mean(&extended)),
            format!("{:.2}", mean(&plain)),
            bol_common::fmt_paired(&d),
        ]);
        ctx.figure(
            &format!("{}_plain_f1_full", name.replace(' ', "_")),
            mean(&plain),
        );
        ctx.record(
            Claim::new(paper::FIG3_EXTENSIONS.claim_text(), d.greater())
                .judges(group.judges)
                .interval(d.interval)
                .evidence(format!(
                    "{name} on all the training data, {} seeds: {:.2} F1 with 0-order \
                     features and averaging, {:.2} without either; with minus without, \
                     paired t-test over the seeds: {}",
                    seeds.len(),
                    mean(&extended),
                    mean(&plain),
                    bol_common::fmt_paired(&d)
                )),
        );
    }
    ctx.md("\nThe extensions on all the training data (mean F1 over the seeds):\n");
    ctx.table(
        &[
            "learner",
            "with 0-order + averaging",
            "without",
            "with minus without (paired over seeds)",
        ],
        rows,
    );
    Ok(())
}
