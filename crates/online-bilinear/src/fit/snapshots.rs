//! The snapshot hook: a prepared corpus whose fit shows the model after every epoch.

use std::cell::RefCell;

use super::PreparedCorpus;
use crate::error::Result;
use crate::model::FittedTagger;
use crate::train::EpochInfo;

/// The hook of [`WithSnapshots`]: the epoch's statistics and the model as it would be
/// returned now.
pub(crate) type SnapshotHook<'a> = dyn FnMut(&EpochInfo, &FittedTagger) -> Result<()> + 'a;

/// A prepared corpus with a hook that sees the model after every epoch
/// ([`PreparedCorpus::with_snapshots`]); it is fitted like the prepared corpus
/// (`Fit<WithSnapshots>`), with observers or not.
pub struct WithSnapshots<'a> {
    pub(crate) prepared: &'a PreparedCorpus,
    pub(crate) hook: RefCell<Box<SnapshotHook<'a>>>,
}

impl std::fmt::Debug for WithSnapshots<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithSnapshots")
            .field("prepared", &self.prepared)
            .finish_non_exhaustive()
    }
}

impl PreparedCorpus {
    /// This corpus, to be fitted with `hook` called after every epoch of an online learner
    /// with the epoch's statistics and the model as it would be returned now (e.g. to
    /// trace the test error per epoch, the paper's Fig. 2); a CRF calls it once, at the
    /// end. The time spent in the hook is not counted as training time, and the run is
    /// the same as without the hook.
    ///
    /// ```
    /// use online_bilinear::{Fit, ParamGuard, TaggerParams, synthetic};
    ///
    /// let train = synthetic::token_function(40, 3, 1)?;
    /// let params = TaggerParams::sp().max_iter(3).check()?;
    /// let prepared = params.prepare(&train)?;
    /// let mut errors = Vec::new();
    /// let model = params.fit(&prepared.with_snapshots(|info, model| {
    ///     errors.push((info.epoch, model.evaluate(&train)?.label_error_rate));
    ///     Ok(())
    /// }))?;
    /// assert!(!errors.is_empty());
    /// # Ok::<(), online_bilinear::OblError>(())
    /// ```
    pub fn with_snapshots<'a>(
        &'a self,
        hook: impl FnMut(&EpochInfo, &FittedTagger) -> Result<()> + 'a,
    ) -> WithSnapshots<'a> {
        WithSnapshots {
            prepared: self,
            hook: RefCell::new(Box::new(hook)),
        }
    }
}
