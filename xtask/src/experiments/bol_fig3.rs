//! `bol-fig3` — [Wu and Sun 2015, Figure 3] CoNLL-2000 chunking F1 (conlleval) against the
//! proportion of the training data, with 0-order features and parameter averaging (Sec.
//! 4.3), for bol, bcd and the structured perceptron. The data set is the CoNLL-2000 subset
//! shipped with libwapiti (823 training and 77 test sentences), not the full corpus.

use online_bilinear::{TaggerParams, Templates};

use super::bol_common;
use super::{Ctx, Experiment};

/// The experiment.
pub struct BolFig3;

impl Experiment for BolFig3 {
    fn id(&self) -> &'static str {
        "bol-fig3"
    }

    fn title(&self) -> &'static str {
        "[Bilinear online Fig. 3] CoNLL-2000 chunking (libwapiti subset): F1 vs training proportion"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let scale = ctx.scale();
        let (train, test) = bol_common::conll(ctx)?;
        let train = match scale.pick(Some(200), None, None) {
            Some(n) => train.head(n),
            None => train,
        };
        let templates = Templates::chunking();
        let seed = ctx.seed();
        let learners: Vec<(&str, TaggerParams)> =
            bol_common::online_learners(scale, seed, &templates)
                .into_iter()
                .map(|(n, p)| (n, p.zero_order(true).averaging(true)))
                .collect();
        ctx.md(&format!(
            "## Figure 3 (chunking, CoNLL-2000 subset)\n\n{} training sentences at 100% ({} \
             tokens), {} test sentences; templates W-2..W2, W-1W0, W0W1, P-2..P2, P-2P-1, \
             P-1P0, P0P1, P1P2 and a bias; 0-order features and averaging on; T = {}, C = 1, \
             R = 4, seed {}. F1 by conlleval's rules. The paper used the full CoNLL-2000 data; \
             its values are not available offline (—).\n",
            train.len(),
            train.n_tokens(),
            test.len(),
            bol_common::epochs(scale),
            seed
        ));
        bol_common::run_f1_vs_proportion(
            ctx,
            "chunking (CoNLL-2000 subset)",
            &train,
            &test,
            &learners,
        )?;
        Ok(())
    }
}
