//! Lazy parameter averaging: the running sum of `c_t * x_t` over steps `t`, where the stored
//! vector `x` changes in a few entries per step and `c_t` is a per-step scalar (the global
//! scale of a normalized vector, or 1). Each entry is brought up to date only when it is
//! about to change, so a step costs time proportional to the entries it touches.

/// Running sums of `c_t * x_t[j]` for every entry `j`.
#[derive(Debug, Clone)]
pub(crate) struct LazyAverage {
    acc: Vec<f64>,
    mark: Vec<f64>,
    cumulative: f64,
    steps: u64,
}

impl LazyAverage {
    pub(crate) fn new(len: usize) -> Self {
        Self {
            acc: vec![0.0; len],
            mark: vec![0.0; len],
            cumulative: 0.0,
            steps: 0,
        }
    }

    /// Call before entry `j` of the stored vector changes; `value` is its current value.
    #[inline]
    pub(crate) fn touch(&mut self, j: usize, value: f64) {
        self.acc[j] += value * (self.cumulative - self.mark[j]);
        self.mark[j] = self.cumulative;
    }

    /// Ends a step whose parameters are `scale * values`.
    #[inline]
    pub(crate) fn record(&mut self, scale: f64) {
        self.cumulative += scale;
        self.steps += 1;
    }

    /// The average `(1 / T) sum_t c_t x_t`, given the current stored values.
    pub(crate) fn average(&self, values: &[f64]) -> Vec<f64> {
        if self.steps == 0 {
            return vec![0.0; values.len()];
        }
        let t = self.steps as f64;
        values
            .iter()
            .enumerate()
            .map(|(j, &v)| (self.acc[j] + v * (self.cumulative - self.mark[j])) / t)
            .collect()
    }
}
