//! `bol-fig3` — [Wu and Sun 2015, Figure 3] CoNLL-2000 chunking F1 (conlleval) against the
//! proportion of the training data, with 0-order features and parameter averaging (Sec.
//! 4.3, as Sec. 6.2 prescribes), for bol, bcd and the structured perceptron. The data set is
//! the CoNLL-2000 subset shipped with libwapiti (823 training and 77 test sentences), not the
//! full corpus (`docs/papers/bol.md`). Checks the paper's statements about the figure
//! ([`crate::paper::bol`]); the extensions are checked by also fitting plain bol on all the
//! training data.

use online_bilinear::{BuiltIn, TaggerParams, Templates};

use super::bol_common;
use super::{Ctx, Experiment, VsRow};
use crate::paper::bol as paper;

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
    let seed = ctx.seed();
    let learners: Vec<(&str, TaggerParams)> = bol_common::online_learners(scale, seed, &templates)
        .into_iter()
        .map(|(n, p)| (n, p.zero_order(true).averaging(true)))
        .collect();
    let n_tags = train.tag_set().len();
    ctx.md(&format!(
        "## Figure 3 (chunking, CoNLL-2000 subset)\n\n{} training sentences at 100% ({} \
         tokens), {} test sentences of the CoNLL-2000 subset shipped with libwapiti, in \
         place of the full CoNLL-2000 data (8,936 training and 2,012 test sentences: \
         docs/papers/bol.md); templates W-2..W2, W-1W0, W0W1, P-2..P2, P-2P-1, P-1P0, \
         P0P1, P1P2 (no bias feature); 0-order features and averaging on; T = {}, C = {}, R = {}, \
         seed {}. F1 by conlleval's rules. The paper prints no numbers for this figure. \
         Its setting and statements:\n",
        train.len(),
        train.n_tokens(),
        test.len(),
        bol_common::epochs(scale),
        paper::C,
        paper::R,
        seed
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
    let rows = bol_common::run_f1_vs_proportion(
        ctx,
        "chunking (CoNLL-2000 subset)",
        &train,
        &test,
        &learners,
    )?;
    let names: Vec<&str> = learners.iter().map(|(n, _)| *n).collect();
    // "Similar to the task of word segmentation in general": bol is the best, with
    // footnote 6's meaning of "better", as Sec. 6.1 states for segmentation.
    bol_common::check_bol_best(ctx, &paper::FIG3_SIMILAR, &names, &rows);

    // The extensions: plain bol (1st-order features only, no averaging) on all the data.
    let plain = bol_common::params(BuiltIn::Bol, scale, seed, &templates);
    let prepared = bol_common::prepare(&plain, &train)?;
    let plain_run = bol_common::fit_and_score("bol (plain)", &plain, &prepared, &test)?;
    let extended = rows.last().map_or(f64::NAN, |(_, f)| f[0]);
    ctx.md(&format!(
        "\nbol on all the training data: {extended:.2} F1 with 0-order features and \
         averaging, {:.2} without either.\n",
        plain_run.f1
    ));
    ctx.figure("bol_plain_f1_full", plain_run.f1);
    ctx.paper_claim(
        &paper::FIG3_EXTENSIONS,
        extended > plain_run.f1,
        format!(
            "bol at 100%: {extended:.2} F1 with both extensions, {:.2} without",
            plain_run.f1
        ),
    );
    Ok(())
}
